# syntax=docker/dockerfile:1
# Bank Connect: build once, run as an unprivileged user. The service starts as `npm start`
# does (node .next/launcher/launch.cjs start, the launcher `npm run build` compiles): the custom
# HTTP server around Next's production build.
# Migrations are a separate one-shot command (compose.yaml runs `npm run db:migrate`).

# Pinned by digest, the version tag beside it for people: a re-pushed tag changes nothing here.
# Bumping: docs/operations.md ("Base images").
ARG NODE_IMAGE=node:22.23.3-bookworm-slim@sha256:43ac6c60b8f89723f746e8a92ce91abd5017e627ce1ddfe4238355d3a30b772c

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1
# A C compiler for the native P-256 key agreement (native/p256-agree), which `npm install`
# builds against this Node's own headers; only its compiled file reaches the runtime image.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
# The postinstall step generates the Prisma client from the schema.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY native ./native
COPY scripts/prisma-generate.mjs ./scripts/prisma-generate.mjs
RUN npm install --no-audit --no-fund

FROM deps AS build
COPY . .
# `next build` checks only the form of the settings that are set: no runtime secrets here.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1 PORT=3000
RUN groupadd --system --gid 10001 bank \
    && useradd --system --uid 10001 --gid bank --home-dir /app --shell /usr/sbin/nologin bank
COPY --from=build --chown=root:root /app /app
# Next writes its image and fetch caches under .next/cache and the migrations' tsx its compile
# cache under /tmp;
# nothing else is written, so the root filesystem can be read-only with those two mounted
# (compose.yaml, deploy/kubernetes). Tests, journeys, benchmarks and docs/ never reach this
# stage: .dockerignore keeps them out of the build context.
RUN mkdir -p /app/.next/cache && chown -R bank:bank /app/.next/cache
USER bank
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", ".next/launcher/launch.cjs", "start"]
