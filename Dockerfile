# syntax=docker/dockerfile:1

# Build stage: every dependency (the TypeScript compiler among them); only dist/ leaves it.
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-if-stale.mjs ./scripts/
COPY src ./src
COPY migrations ./migrations
RUN npm run build

# Runtime stage: production dependencies and the compiled code, nothing else.
FROM node:24.21.0-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/.data
WORKDIR /app
COPY package.json package-lock.json ./
# No dependency of the service needs an install script (argon2's binary is a prebuilt package).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The unprivileged user of the node image; the embedded database (no DATABASE_URL) writes here.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
# The liveness probe: the process serves. node itself asks (the slim image has no curl).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 (exec form, no shell), so `docker stop`'s SIGTERM reaches it: a graceful stop.
# The flags are those of `npm start`.
CMD ["node", "--max-old-space-size=144", "--max-semi-space-size=16", "--heap-growing-percent=100", "--no-allocation-site-pretenuring", "dist/src/main.js"]
