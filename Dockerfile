# One image for every Cardlink role; the compose file picks the role with `command` (api, qualifier,
# workers, dispatcher, simulator --scheme visa|mastercard|amex, migrate).
FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false
# Dependencies first, so a source change does not reinstall them. tsx (a runtime dependency) runs the
# TypeScript directly, so there is no build step.
COPY package.json package-lock.json ./
# patches/ holds the postgres.js guard (see README, Operating), applied by `npm ci` through patch-package.
COPY patches ./patches
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
# Everything else the .dockerignore lets through: src/, simulators/, bin/, tsconfig.json.
COPY . .
USER node
EXPOSE 3000
ENTRYPOINT ["npx", "tsx", "src/main.ts"]
CMD ["api"]
