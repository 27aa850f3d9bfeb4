#!/usr/bin/env node
// Packs @baton/client as an installable tarball (tooling/pack): dist/index.js bundled, one
// declaration file with the registry's types inlined, and a package.json with no
// dependencies, so `npm install baton-client-<version>.tgz` works anywhere, offline.
// Run `pnpm run build` first. Usage: node scripts/pack.mjs [destination directory, default: here]
import { fileURLToPath } from "node:url";
import { packMain } from "@baton/pack";

await packMain({
  packageDir: fileURLToPath(new URL("..", import.meta.url)),
  entry: "index.js",
  manifest: {
    main: "./dist/index.js",
    types: "./dist/index.d.ts",
    exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
  },
  readme: "client.md",
  declarations: "bundle",
  inlineLibraries: ["lossless-json"],
});
