#!/usr/bin/env node
// Packs the CLI as an installable tarball: dist/main.js bundled with esbuild (so @baton/* workspace
// packages, commander and yaml are inside it) plus a package.json with no dependencies, so that
// `npm install baton-cli-<version>.tgz` works anywhere, offline. Run `pnpm run build` first.
// Usage: node scripts/pack.mjs [destination directory, default: the package directory]
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const destination = path.resolve(process.argv[2] ?? packageDir);
const entry = path.join(packageDir, "dist", "main.js");
if (!existsSync(entry)) {
  console.error(`error: ${entry} does not exist; run "pnpm --filter @baton/cli run build" first`);
  process.exit(1);
}

const manifest = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8"));
const stage = mkdtempSync(path.join(tmpdir(), "baton-cli-pack-"));
try {
  await build({
    entryPoints: [entry],
    outfile: path.join(stage, "dist", "main.js"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // commander is CommonJS: give its require() calls of node builtins a real require in ESM.
    banner: { js: 'import { createRequire as __batonCreateRequire } from "node:module"; const require = __batonCreateRequire(import.meta.url);' },
    logLevel: "warning",
  });
  writeFileSync(
    path.join(stage, "package.json"),
    `${JSON.stringify(
      {
        name: manifest.name,
        version: manifest.version,
        description: manifest.description,
        type: "module",
        bin: { baton: "dist/main.js" },
        files: ["dist"],
        engines: { node: ">=20.19" },
      },
      null,
      2,
    )}\n`,
  );
  const docs = path.join(packageDir, "..", "..", "docs", "cli.md");
  if (existsSync(docs)) copyFileSync(docs, path.join(stage, "README.md"));
  mkdirSync(destination, { recursive: true });
  const output = execFileSync("npm", ["pack", "--json", "--pack-destination", destination], { cwd: stage, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  const [packed] = JSON.parse(output);
  console.log(path.join(destination, packed.filename));
} finally {
  rmSync(stage, { recursive: true, force: true });
}
