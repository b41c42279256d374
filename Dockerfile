# The production image for the API and the worker (the command differs), and the sandbox image that
# docker-compose.yml runs (the same plus the simulated gateway). Node 24 runs the TypeScript sources directly.

# The sources without the simulated gateway's package (dev and tests only, docs/decisions/0061-simulator-package.md):
# removed in a stage of its own, so that no layer of the production image holds it.
FROM node:24-bookworm-slim AS sources
WORKDIR /src
COPY . .
RUN rm -rf packages/simulated-gateway

FROM node:24-bookworm-slim AS app
WORKDIR /app
# Without packages/ at install time: npm links no workspace, and devDependencies are omitted.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=sources /src /app
ENV NODE_ENV=production
# Mount points the `node` user writes to (uploaded files, the mail outbox) or reads from (the TLS pair): a new named volume
# takes the owner of the folder it is mounted on.
RUN mkdir -p /var/lib/billing/files /var/lib/billing/mail /certs && chown node:node /var/lib/billing/files /var/lib/billing/mail /certs
USER node
CMD ["node", "api/server.ts"]

# `docker compose up`'s sandbox (DEPLOYMENT_ENV=test, GATEWAY=simulator): the production image plus the simulated
# gateway's package, linked where the workspace would be. Its dependencies are the application's own.
FROM app AS sandbox
COPY packages/simulated-gateway /app/packages/simulated-gateway
USER root
RUN mkdir -p node_modules/@billing && ln -s ../../packages/simulated-gateway node_modules/@billing/simulated-gateway
USER node

# The default target (the last stage): the production image.
FROM app AS production
