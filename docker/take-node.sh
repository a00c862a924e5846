#!/bin/sh
# Run by the Dockerfile's stages with the build context's docker/ folder mounted at /tmp/docker: a base without
# Node.js takes docker/node/ (bin/node, bin/npm, lib/node_modules/npm; docker/node/README.md) into /usr/local/.
set -e
if ! command -v node >/dev/null && [ -x /tmp/docker/node/bin/node ]; then cp -a /tmp/docker/node/bin /tmp/docker/node/lib /usr/local/; fi
node --version && npm --version || { echo "no Node.js in the base nor in docker/node/ (docker/node/README.md)" >&2; exit 1; }
