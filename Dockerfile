# PhoneWork's images, from the compiled package (the tarball `npm install -g` takes): one file, two
# targets that share the stages packing and installing it. Build from the repository root:
#   docker build --target router -t phonework-router .
#   docker build --target host -t phonework-host .
# docker-compose.yml builds both (each service names its target); the shared stages are built once.
#
# The host advertises only the coding CLIs it finds on PATH. Its image has no claude, codex or git,
# so by default it advertises none (shell, files and the assistant still work). To have them:
#   docker build --target host --build-arg CODING_CLIS="@anthropic-ai/claude-code @openai/codex" .
# (each still needs its own login or API key inside the container).
# The commands the host runs for users run in bubblewrap, and SANDBOX=on: where the sandbox cannot
# work the host refuses to start rather than run them with the container user's rights. Inside
# Docker bubblewrap needs the security options the host service in docker-compose.yml gives it.

# Every stage runs on this one base: the package is installed where it runs.
ARG NODE_IMAGE=node:24-bookworm-slim

# Pack: the workspace bundled into /pkg/phonework-<version>.tgz. The lockfile alone fills pnpm's
# store, so that layer is cached until the lockfile changes; bundling needs no install script.
FROM ${NODE_IMAGE} AS pack
RUN npm install -g pnpm@9.15.9
WORKDIR /src
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch --ignore-scripts
COPY . .
RUN pnpm install --offline --frozen-lockfile --ignore-scripts
RUN pnpm package /pkg

# Install: as a user installs it. Every native part comes prebuilt for linux-x64 and linux-arm64
# (better-sqlite3's binaries inside its package, @lydell/node-pty's per-platform packages), so
# nothing compiles and this stage has no compiler.
FROM ${NODE_IMAGE} AS install
COPY --from=pack /pkg /pkg
RUN npm install -g /pkg/phonework-*.tgz

# The router: the installed package only (no compilers, no sources), as the node user.
FROM ${NODE_IMAGE} AS router
COPY --from=install /usr/local/lib/node_modules/phonework /usr/local/lib/node_modules/phonework
RUN ln -s ../lib/node_modules/phonework/dist/phonework.js /usr/local/bin/phonework \
  && mkdir -p /data && chown node:node /data
ENV NODE_ENV=production DATA_DIR=/data
ENV ROUTER_HOST=0.0.0.0 ROUTER_PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD ["node", "-e", "fetch('http://127.0.0.1:8000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
VOLUME /data
USER node
WORKDIR /data
# Headless without a chat platform: runs detached, no terminal needed.
CMD ["phonework", "router"]

# The host: the installed package with bubblewrap beside it, as the node user.
FROM ${NODE_IMAGE} AS host
# The sandbox (not setuid: it makes a user namespace, so it needs no capability).
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap \
  && rm -rf /var/lib/apt/lists/*
# Off by default: npm packages installed globally, with git beside them (the coding CLIs use it).
ARG CODING_CLIS=""
RUN if [ -n "$CODING_CLIS" ]; then \
    apt-get update && apt-get install -y --no-install-recommends git ca-certificates \
    && rm -rf /var/lib/apt/lists/* && npm install -g $CODING_CLIS && npm cache clean --force; \
  fi
COPY --from=install /usr/local/lib/node_modules/phonework /usr/local/lib/node_modules/phonework
# The projects folder and the state must be writable by the user the host runs as; a named volume
# starts as a copy of the folder here, owner included.
RUN ln -s ../lib/node_modules/phonework/dist/phonework.js /usr/local/bin/phonework \
  && mkdir -p /data /work && chown node:node /data /work
ENV NODE_ENV=production DATA_DIR=/data
ENV WORKING_DIR=/work
ENV SANDBOX=on
VOLUME /work
VOLUME /data
USER node
WORKDIR /work
CMD ["phonework", "host"]
