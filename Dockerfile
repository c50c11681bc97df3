# One image for every Cardlink role; the compose file picks the role with `command` (api, qualifier,
# workers, dispatcher, simulator --scheme visa|mastercard|amex, migrate). `start` runs them all in one
# process on the embedded defaults: docker run -p 3000:3000 cardlink start
#
# Two stages: the build stage installs everything and compiles to JavaScript; the runtime stage holds
# only the compiled code and the runtime dependencies, runs as the unprivileged `node` user and compiles
# nothing. test/infra/image.test.ts runs these stages' commands in temporary folders.

FROM node:20-slim AS build
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false
# Dependencies first, so a source change does not reinstall them. No install scripts (nothing to compile
# natively, and no telemetry); the kafkajs and postgres fixes in patches/ are applied explicitly.
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm ci --ignore-scripts --no-audit --no-fund && npx patch-package
COPY . .
# Compile to dist/, then drop the devDependencies: node_modules keeps the runtime ones, patched.
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/home/node/data
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist ./dist
COPY --from=build /app/flows ./flows
# The files belong to root and are read-only to the node user; the embedded defaults (`start`) keep their
# data in DATA_DIR, in the node user's home (mount a volume there to keep it).
USER node
EXPOSE 3000
# /health answers 200 while the process serves HTTP (the API on PORT; every role on HEALTH_PORT when set).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.HEALTH_PORT || process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Each role's V8 heap is bounded to what its work needs (docs/operations.md, "Memory"); a NODE_OPTIONS of the
# container's own replaces it.
ENV NODE_OPTIONS=--max-old-space-size=256
ENTRYPOINT ["node", "bin/cardlink.mjs"]
CMD ["api"]
