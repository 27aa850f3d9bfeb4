# Baton sign-in proxy with the built web UI. Build from the repository root:
#   docker build -f docker/proxy.Dockerfile -t baton-proxy .
# Run it with a config (docs/proxy.md), e.g. mounted at /etc/baton/proxy.yaml:
#   docker run -v ./proxy.yaml:/etc/baton/proxy.yaml:ro -p 8448:8448 baton-proxy
# Without BATON_PROXY_CONFIG / --config it signs nobody in (local development only).
ARG NODE_IMAGE=node:20-bookworm-slim
FROM ${NODE_IMAGE} AS build
WORKDIR /src
RUN npm install -g --allow-scripts=pnpm pnpm@12.18.0
COPY . .
RUN pnpm install --frozen-lockfile \
 && pnpm exec turbo run build --filter=@baton/proxy... --filter=@baton/web... \
 && sh docker/deploy.sh proxy /out

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    BATON_PROXY_UI_DIR=/app/web/dist
WORKDIR /app
COPY --from=build /out /app
RUN useradd --system --uid 10001 --home /app baton
USER 10001
EXPOSE 8448
# The proxy's own liveness: it serves the UI's index.html itself, so the check does not
# depend on the API being up (/healthz is forwarded to the API).
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8448/').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/dist/main.js"]
CMD ["--http", "0.0.0.0:8448"]
