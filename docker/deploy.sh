#!/bin/sh
# The build step both images run (docker/api.Dockerfile, docker/proxy.Dockerfile), and the
# one apps/proxy/test/containers.test.ts runs to check the images' contents start and serve:
#   sh docker/deploy.sh api|proxy OUT_DIR
# Expects the workspace installed and built. Writes a self-contained production copy of the
# app (its dist/, production node_modules, and for the proxy the built UI in web/dist, where
# baton-proxy looks for it relative to its own dist/).
set -eu
app="$1"
out="$2"
rm -rf "$out"
case "$app" in
  api)
    pnpm --filter @baton/api deploy --prod "$out"
    ;;
  proxy)
    pnpm --filter @baton/proxy deploy --prod "$out"
    test -f apps/proxy/web/dist/index.html || { echo "deploy.sh: build @baton/web first" >&2; exit 1; }
    mkdir -p "$out/web"
    cp -R apps/proxy/web/dist "$out/web/dist"
    ;;
  *)
    echo "deploy.sh: expected api or proxy, got \"$app\"" >&2
    exit 2
    ;;
esac
# Lockfile copies pnpm deploy leaves behind are not needed at run time.
rm -f "$out/pnpm-lock.yaml" "$out/pnpm-workspace.yaml"
