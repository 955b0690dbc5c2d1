# syntax=docker/dockerfile:1
# marketplace-api in a container: docs/deployment.md, "Containers".
#
#   docker build -t marketplace-api .
#   docker run -p 8080:8080 -v marketplace-data:/data marketplace-api
#
# NODE_IMAGE is any Node 20 (or 22) image on Debian bookworm with node and npm under /usr/local
# and a "node" user: the official node:20-bookworm-slim, or one made locally by
# deploy/make-base-image.sh where no registry of images can be reached.
ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: the toolchain better-sqlite3 compiles with, every dependency, the TypeScript build
FROM ${NODE_IMAGE} AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The image's own Node headers, so node-gyp downloads none.
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
# Scripts run after the sources are in: `prepare` builds them. Behind a proxy that re-signs TLS,
# give its CA bundle as the build secret "ca" (`--secret id=ca,src=/etc/ssl/certs/ca-certificates.crt`):
# it is used for this step only and stays out of the image.
RUN --mount=type=secret,id=ca,required=false \
  if [ -s /run/secrets/ca ]; then export npm_config_cafile=/run/secrets/ca; fi \
  && npm ci --ignore-scripts --no-audit --no-fund \
  && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src src
# npm run build's compilation of src/ alone (it compiles bench/ too, which the image does not serve).
RUN echo '{ "extends": "./tsconfig.build.json", "include": ["src"] }' > tsconfig.image.json \
  && npx tsc -p tsconfig.image.json \
  && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
  && rm -rf node_modules/.cache

# --- runtime: the built app, its production dependencies, its templates; no compiler, no sources
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=8080 \
  MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY web web
COPY config/marketplace.example.json config/
# The default store, ./data/marketplace.db, and its secret.key live in the volume /data: the
# service keeps its own name for them (the default store gets the demo data on first start).
RUN mkdir -m 0700 /data && chown node:node /data && ln -s /data /app/data
VOLUME /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# npm start's command and flags (package.json), without npm in between: node gets SIGTERM itself
# and stops gracefully.
CMD ["node", "--max-semi-space-size=4", "--no-allocation-site-pretenuring", "dist/src/main.js"]
