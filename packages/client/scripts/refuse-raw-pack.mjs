#!/usr/bin/env node
// `npm pack` of this folder would ship workspace:* dependencies that no registry can resolve.
console.error("error: do not npm pack packages/client directly (its workspace:* dependencies cannot be installed elsewhere).");
console.error("       run: pnpm --filter @baton/client run pack:tarball [destination]  (bundles the typed client into a dependency-free tarball)");
process.exit(1);
