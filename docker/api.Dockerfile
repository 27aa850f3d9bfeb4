# Baton API server. Build from the repository root:
#   docker build -f docker/api.Dockerfile -t baton-api .
# The image holds only docker/deploy.sh's output (dist/, drizzle/ migrations, production
# node_modules); apps/proxy/test/containers.test.ts runs that step and starts the result.
ARG NODE_IMAGE=node:20-bookworm-slim
FROM ${NODE_IMAGE} AS build
WORKDIR /src
RUN npm install -g --allow-scripts=pnpm pnpm@12.18.0
COPY . .
RUN pnpm install --frozen-lockfile \
 && pnpm exec turbo run build --filter=@baton/api... \
 && sh docker/deploy.sh api /out

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /out /app
RUN useradd --system --uid 10001 --home /app baton && mkdir -p /data && chown baton /data
USER 10001
EXPOSE 8449
# Readiness (docs/deploy.md "Probes"): Docker and compose use the one health check to route and
# to order start-up (depends_on: service_healthy), never to restart; an orchestrator that
# restarts unhealthy containers should probe /livez instead.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8449/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/dist/main.js"]
CMD ["--http", "0.0.0.0:8449", "--data-dir", "/data"]
