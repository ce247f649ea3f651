FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.base.json ./
COPY shared/package.json shared/
COPY services/api/package.json services/api/
COPY services/notifier/package.json services/notifier/
COPY services/audit/package.json services/audit/
COPY services/transfer/package.json services/transfer/
RUN npm ci --no-audit --no-fund
COPY shared shared
COPY services services
RUN npx tsc -b && npm prune --omit=dev
ENV NODE_ENV=production HOST=0.0.0.0
CMD ["node", "--external-memory-accounted-in-global-limit", "--max-semi-space-size=16", "--max-old-space-size=320", "services/api/dist/main.js"]
