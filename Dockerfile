# One image for the API and the worker (the command differs). Node 24 runs the TypeScript sources directly.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
USER node
CMD ["node", "api/server.ts"]
