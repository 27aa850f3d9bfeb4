#!/usr/bin/env node
// Packs @baton/worker as an installable tarball (tooling/pack): dist/index.js bundled, its
// declarations, and a package.json with no dependencies, so `npm install
// baton-worker-<version>.tgz` works anywhere, offline. Run `pnpm run build` first.
// Usage: node scripts/pack.mjs [destination directory, default: here]
import { fileURLToPath } from "node:url";
import { packMain } from "@baton/pack";

await packMain({
  packageDir: fileURLToPath(new URL("..", import.meta.url)),
  entry: "index.js",
  manifest: {
    main: "./dist/index.js",
    types: "./dist/index.d.ts",
    exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
    // Optional: imported only when a claimed task carries a traceparent (src/tracing.ts).
    peerDependencies: { "@opentelemetry/api": "^1.3.0" },
    peerDependenciesMeta: { "@opentelemetry/api": { optional: true } },
  },
  readme: "worker.md",
  declarations: true,
});
