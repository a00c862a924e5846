# A local npm registry for the install tests (sourced by scripts/test-package.sh and scripts/test-image.sh):
# verdaccio on 127.0.0.1, its storage in a temporary folder, every other package proxied from the npm
# registry this machine uses (so dependencies resolve through it), and this repository's `npm pack`
# published to it, so that what users get from `npm install nvr2mqtt` is installed before any release.
#
#   registry_start DIR   starts it (storage and logs in DIR); sets REGISTRY (its URL) and
#                        REGISTRY_NPMRC (a user config naming it as the only registry)
#   registry_publish     npm pack (which builds: `prepare`) and npm publish to it; sets PACKED (the tarball)
#   registry_stop        stops it
#
# verdaccio is installed once into $CACHE/verdaccio-$VERDACCIO_VERSION from the npm registry. 6.8.0 runs on
# Node 20 (6.9+ want Node 22); its node-fetch is held at 2.7.0 (the version it resolves otherwise breaks it).

VERDACCIO_VERSION=6.8.0

registry_start() {
  local dir=$1 tools=$CACHE/verdaccio-$VERDACCIO_VERSION upstream port
  if ! [ -x "$tools/node_modules/.bin/verdaccio" ]; then
    mkdir -p "$tools"
    printf '{"private": true, "dependencies": {"verdaccio": "%s"}, "overrides": {"node-fetch": "2.7.0"}}\n' \
      "$VERDACCIO_VERSION" >"$tools/package.json"
    (cd "$tools" && npm install --no-audit --no-fund --no-update-notifier >/dev/null 2>&1) || return 1
  fi
  upstream=$(npm config get registry)
  port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
  mkdir -p "$dir/storage"
  cat >"$dir/verdaccio.yaml" <<EOF
storage: $dir/storage
uplinks:
  upstream:
    url: $upstream
    timeout: 60s
packages:
  nvr2mqtt:
    access: \$all
    publish: \$all
  '**':
    access: \$all
    proxy: upstream
log: { type: stdout, format: pretty, level: warn }
EOF
  "$tools/node_modules/.bin/verdaccio" --config "$dir/verdaccio.yaml" --listen "127.0.0.1:$port" >"$dir/verdaccio.log" 2>&1 &
  REGISTRY_PID=$!
  REGISTRY=http://127.0.0.1:$port/
  REGISTRY_NPMRC=$dir/npmrc
  # Only this registry; publishing to it needs a token of any value (publish: $all).
  printf 'registry=%s\n//127.0.0.1:%s/:_authToken=local-test\nupdate-notifier=false\nfund=false\naudit=false\n' \
    "$REGISTRY" "$port" >"$REGISTRY_NPMRC"
  for _ in $(seq 1 100); do
    curl -fs "${REGISTRY}-/ping" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  cat "$dir/verdaccio.log"
  return 1
}

registry_publish() {
  local dir=$1
  mkdir -p "$dir/pack"
  (cd "$ROOT" && npm pack --silent --pack-destination "$dir/pack" >"$dir/pack.log" 2>&1) || { tail -20 "$dir/pack.log"; return 1; }
  PACKED=$(ls "$dir"/pack/nvr2mqtt-*.tgz)
  npm publish "$PACKED" --userconfig "$REGISTRY_NPMRC" --registry "$REGISTRY" >"$dir/publish.log" 2>&1 ||
    { tail -20 "$dir/publish.log"; return 1; }
}

registry_stop() {
  [ -n "${REGISTRY_PID:-}" ] && kill "$REGISTRY_PID" 2>/dev/null
  REGISTRY_PID=
}
