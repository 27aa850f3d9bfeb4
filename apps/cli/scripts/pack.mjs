#!/usr/bin/env node
// Packs the CLI as an installable tarball (tooling/pack): dist/main.js bundled (so @baton/*
// workspace packages, commander and yaml are inside it) plus a package.json with no
// dependencies, so `npm install baton-cli-<version>.tgz` works anywhere, offline. Run `pnpm run
// build` first. Usage: node scripts/pack.mjs [destination directory, default: the package directory]
import { fileURLToPath } from "node:url";
import { packMain } from "@baton/pack";

await packMain({
  packageDir: fileURLToPath(new URL("..", import.meta.url)),
  entry: "main.js",
  manifest: { bin: { baton: "dist/main.js" } },
  readme: "cli.md",
  // commander is CommonJS: give its require() calls of node builtins a real require in ESM.
  banner:
    'import { createRequire as __batonCreateRequire } from "node:module"; const require = __batonCreateRequire(import.meta.url);',
});
