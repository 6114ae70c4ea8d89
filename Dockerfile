# The relayer worker image: compiled TypeScript and a prebuilt workflow bundle.
# Node 24 LTS, on which CI runs the unit and integration suites too (npm run test:node24).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

FROM node:24-bookworm-slim
WORKDIR /app
# The build's id in its Worker Deployment (docker build --build-arg BUILD_ID=$(git rev-parse
# --short HEAD)); empty: the workflow bundle's digest.
ARG BUILD_ID=""
ENV NODE_ENV=production \
    WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js \
    WORKER_BUILD_ID=${BUILD_ID}
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
# node runs as PID 1 itself (no shell in between), so SIGTERM reaches the drain directly.
# A worker by default; the API process is `node dist/workers/api-main.js` (see docker-compose.yml).
CMD ["node", "dist/workers/worker-main.js"]
