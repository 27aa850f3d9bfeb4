#!/usr/bin/env bash
# Builds both images, baton-api and baton-proxy, the same way every time (docs/deploy.md
# "Building the images"): from the committed tree only, with the lockfile, with every file time
# and the image's creation time set to the last commit's (SOURCE_DATE_EPOCH), so the same commit
# and base image give the same image digest. Run from anywhere in a clean checkout:
#   docker/build-images.sh [REGISTRY_PREFIX]     e.g. docker/build-images.sh registry.example.com/baton/
# Needs Docker with BuildKit (buildx). Pin the base image by digest for a fully fixed input:
#   NODE_IMAGE=node:20-bookworm-slim@sha256:… docker/build-images.sh
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-}"
if [ -n "$(git status --porcelain)" ]; then
  echo "build-images.sh: the checkout has uncommitted changes; commit or stash them (the images are built from the commit)" >&2
  exit 1
fi
commit="$(git rev-parse --short=12 HEAD)"
version="$(node -p 'require("./apps/api/package.json").version')"
export SOURCE_DATE_EPOCH="$(git log -1 --format=%ct)"
context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
# The committed tree, nothing the checkout accumulated (build output, node_modules, databases).
git archive --format=tar HEAD | tar -x -C "$context"
for image in api proxy; do
  docker buildx build \
    --file "$context/docker/$image.Dockerfile" \
    --build-arg "SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH" \
    ${NODE_IMAGE:+--build-arg "NODE_IMAGE=$NODE_IMAGE"} \
    --label "org.opencontainers.image.revision=$commit" \
    --label "org.opencontainers.image.version=$version" \
    --output "type=docker,rewrite-timestamp=true" \
    --tag "${prefix}baton-$image:$version" \
    --tag "${prefix}baton-$image:$version-$commit" \
    "$context"
  echo "built ${prefix}baton-$image:$version-$commit"
done
