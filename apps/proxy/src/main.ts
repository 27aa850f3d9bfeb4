#!/usr/bin/env node
// baton-proxy: placeholder entry point until the proxy lands (see docs/proxy.md).
console.error("baton-proxy: not built yet");
process.exit(1);
