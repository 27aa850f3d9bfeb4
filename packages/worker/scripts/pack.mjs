#!/usr/bin/env node
// Packs @baton/worker as an installable tarball: dist/index.js bundled with esbuild (so the
// @baton/* workspace packages it uses are inside it), its declarations, and a package.json with
// no dependencies, so `npm install baton-worker-<version>.tgz` works anywhere, offline.
// Run `pnpm run build` first. Usage: node scripts/pack.mjs [destination directory, default: here]
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const destination = path.resolve(process.argv[2] ?? packageDir);
const dist = path.join(packageDir, "dist");
const entry = path.join(dist, "index.js");
if (!existsSync(entry)) {
  console.error(`error: ${entry} does not exist; run "pnpm --filter @baton/worker run build" first`);
  process.exit(1);
}

const manifest = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8"));
const stage = mkdtempSync(path.join(tmpdir(), "baton-worker-pack-"));
try {
  await build({
    entryPoints: [entry],
    outfile: path.join(stage, "dist", "index.js"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
  });
  // The declarations ship as tsc wrote them; they must not point at workspace packages, which
  // the installing project does not have (src/types.ts keeps the public types self-contained).
  for (const file of readdirSync(dist).filter((name) => name.endsWith(".d.ts"))) {
    const text = readFileSync(path.join(dist, file), "utf8").replace(/\n\/\/# sourceMappingURL=.*\n?$/, "\n");
    if (/from ["']@baton\//.test(text)) {
      console.error(`error: dist/${file} imports a @baton/* workspace package; keep public types in src/types.ts`);
      process.exit(1);
    }
    writeFileSync(path.join(stage, "dist", file), text);
  }
  writeFileSync(
    path.join(stage, "package.json"),
    `${JSON.stringify(
      {
        name: manifest.name,
        version: manifest.version,
        description: manifest.description,
        type: "module",
        main: "./dist/index.js",
        types: "./dist/index.d.ts",
        exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
        files: ["dist"],
        engines: { node: ">=20.19" },
      },
      null,
      2,
    )}\n`,
  );
  const docs = path.join(packageDir, "..", "..", "docs", "worker.md");
  if (existsSync(docs)) copyFileSync(docs, path.join(stage, "README.md"));
  mkdirSync(destination, { recursive: true });
  const output = execFileSync("npm", ["pack", "--json", "--pack-destination", destination], {
    cwd: stage,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [packed] = JSON.parse(output);
  console.log(path.join(destination, packed.filename));
} finally {
  rmSync(stage, { recursive: true, force: true });
}
