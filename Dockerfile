# One image for the API and the worker (the command differs). Node 24 runs the TypeScript sources directly.
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
# Mount points the `node` user writes to (uploaded files, the mail outbox) or reads from (the TLS pair): a new named volume
# takes the owner of the folder it is mounted on.
RUN mkdir -p /var/lib/billing/files /var/lib/billing/mail /certs && chown node:node /var/lib/billing/files /var/lib/billing/mail /certs
USER node
CMD ["node", "api/server.ts"]
