#!/usr/bin/env bash
# End-to-end check of the container image with no Docker engine and no registry: builds
# docker/Dockerfile with podman, runs it, and checks that a chunk fetched through the container
# is byte-identical to the offline CLI's; then runs the engine bundle's C walker (made by
# scripts/bundle-engine from build/) in a bare debian:bookworm-slim, with none of the -dev
# packages, against that container. Run as root on Debian 12, after ./scripts/test (the host
# CLI and the bundle come from build/).
#
#   docker/test.sh
#
# Environment:
#   CHUNKFORGE_CLI          host CLI (default build/tools/chunkforge)
#   CHUNKFORGE_BUILD_JOBS   ninja -j inside the image build (default: all cores)
#   CHUNKFORGE_PORT         host port published for gRPC (default 15051)
#   CHUNKFORGE_KEEP_IMAGE=1 keep the built image (localhost/chunkforge:test) afterwards
#
# Podman's configuration and storage are this script's own (CONTAINERS_CONF,
# CONTAINERS_STORAGE_CONF; storage under /var/lib/chunkforge-containers), so the machine's
# podman set-up is not touched. The base image debian:bookworm-slim is made once with
# debootstrap from the host's Debian mirror and kept there; the container and the chunkforge
# image are removed at the end, on failure too.
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/common.sh
source scripts/lib/common.sh

CLI="${CHUNKFORGE_CLI:-build/tools/chunkforge}"
PORT="${CHUNKFORGE_PORT:-15051}"
IMAGE=localhost/chunkforge:test
CONTAINER=chunkforge-test
BASE=docker.io/library/debian:bookworm-slim
STATE=/var/lib/chunkforge-containers

fail() { echo "docker/test.sh: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "run as root (podman with vfs storage, debootstrap)"
WORK="$(mktemp -d)"
phase_start=$SECONDS
phase() {  # phase NAME: prints the time the previous phase took, then announces NAME
  [ -n "${phase_name:-}" ] && echo "docker/test.sh: ${phase_name}: $((SECONDS - phase_start)) s"
  phase_name="$1" phase_start=$SECONDS
  [ -n "$1" ] && echo "docker/test.sh: ${1}..."
  return 0
}

# Every podman call below, the cleanup's too, uses this configuration and storage only.
# vfs: works on any filesystem (no overlay or fuse in nested sandboxes). cgroupfs: no systemd
# needed. The default nofile limit (1048576) is above what an unprivileged sandbox may grant.
cat >"$WORK/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
cat >"$WORK/storage.conf" <<EOF
[storage]
driver = "vfs"
graphroot = "$STATE/storage"
runroot = "$STATE/run"
EOF
export CONTAINERS_CONF="$WORK/containers.conf" CONTAINERS_STORAGE_CONF="$WORK/storage.conf"
mkdir -p "$STATE"

cleanup() {
  local rc=$?
  if [ "$rc" -ne 0 ] && podman container exists "$CONTAINER" 2>/dev/null; then
    echo "--- container log ---" >&2
    podman logs "$CONTAINER" >&2 || true
  fi
  podman rm -f --ignore "$CONTAINER" >/dev/null 2>&1 || true
  buildah rm --all >/dev/null 2>&1 || true  # an interrupted build's working containers
  if [ "${CHUNKFORGE_KEEP_IMAGE:-0}" != 1 ]; then
    podman rmi -f "$IMAGE" >/dev/null 2>&1 || true
    podman image prune -f >/dev/null 2>&1 || true  # the untagged build stage
  fi
  # --one-file-system: never descend into a /proc or /sys a failed debootstrap left mounted.
  rm -rf --one-file-system "$WORK" || true
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "docker/test.sh: interrupted" >&2; exit 130' INT TERM  # cleans up too

[[ -f $CLI && -x $CLI ]] || fail "host CLI $CLI missing: run ./scripts/test first (or set CHUNKFORGE_CLI)"

phase "installing Debian packages"
# runc: the runtime containers.conf names; iptables: publishing ports (podman's CNI portmap);
# debootstrap: the base image, since no registry is reachable.
ensure_packages podman buildah runc debootstrap iptables

# A container left by an interrupted run would hold the name.
podman rm -f --ignore "$CONTAINER" >/dev/null

# The first URI of the host's Debian sources serving SUITE (deb822 .sources or one-line .list).
host_mirror() {
  local f files=()
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || return 0
  awk -v suite="$1" '
    /^deb / { sub(/\[[^]]*\] /, ""); if ($3 == suite) { print $2; exit } }
    /^URIs:/ { uri = $2 }
    /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite && uri) { print uri; exit } }
    /^$/ { uri = "" }' "${files[@]}"
}

if ! podman image exists "$BASE"; then
  phase "making $BASE with debootstrap (once; kept in $STATE)"
  mirror=$(host_mirror bookworm); mirror=${mirror:-http://deb.debian.org/debian}
  security=$(host_mirror bookworm-security); security=${security:-http://deb.debian.org/debian-security}
  rootfs="$WORK/rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$WORK/debootstrap.log" 2>&1 \
    || { tail -n 20 "$WORK/debootstrap.log" >&2; fail "debootstrap from $mirror"; }
  rm -f "$rootfs/etc/apt/sources.list"
  cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  # The host's apt settings that make its mirror reachable (a proxy, a snapshot's old dates).
  grep -lsE 'Proxy|Check-Valid-Until|Check-Date' /etc/apt/apt.conf.d/* /dev/null \
    | xargs -r cp -t "$rootfs/etc/apt/apt.conf.d/"
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb
  tar -C "$rootfs" -c . | podman import --change 'CMD ["bash"]' - "$BASE" >"$WORK/import.log" 2>&1 \
    || { cat "$WORK/import.log" >&2; fail "podman import"; }
fi

phase "building $IMAGE"
# --layers=false: vfs copies the whole tree for every committed layer; commit only the result.
podman build --isolation chroot --format docker --pull=never --layers=false \
  ${CHUNKFORGE_BUILD_JOBS:+--build-arg BUILD_JOBS="$CHUNKFORGE_BUILD_JOBS"} \
  -f docker/Dockerfile -t "$IMAGE" . >"$WORK/build.log" 2>&1 \
  || { tail -n 40 "$WORK/build.log" >&2; fail "image build (log above)"; }

phase "starting $CONTAINER"
# Podman complains on stderr that it cannot schedule the periodic health check without
# systemd; this script runs the check itself, so that message is kept out of the way.
podman run -d --name "$CONTAINER" -p "127.0.0.1:$PORT:50051" "$IMAGE" >"$WORK/run.log" 2>&1 \
  || { cat "$WORK/run.log" >&2; fail "podman run"; }
[ "$(podman exec "$CONTAINER" id -u)" != 0 ] || fail "the server runs as root"

phase "waiting for the image's HEALTHCHECK (chunkforge health)"
for ((i = 0; ; i++)); do
  podman healthcheck run "$CONTAINER" >/dev/null 2>&1 && break
  [ "$(podman inspect -f '{{.State.Running}}' "$CONTAINER")" = true ] || fail "the server exited"
  [ "$i" -lt 60 ] || fail "not healthy after 30 s"
  sleep 0.5
done

phase "comparing chunk 3 -2 through the container with the offline CLI"
"$CLI" chunk 3 -2 --server "127.0.0.1:$PORT" >"$WORK/remote.json" || fail "$CLI chunk --server 127.0.0.1:$PORT"
"$CLI" chunk 3 -2 >"$WORK/local.json" || fail "$CLI chunk (offline)"
cmp "$WORK/remote.json" "$WORK/local.json" || fail "the served chunk differs from the offline one"

phase "the engine bundle's C walker in a bare $BASE, generating locally with LOD tiles"
scripts/bundle-engine build "$WORK/bundle" >"$WORK/bundle.log" 2>&1 || { cat "$WORK/bundle.log" >&2; fail "bundle-engine"; }
# Host networking: the walker reaches the container above at its published port.
podman run --rm --network host -v "$WORK/bundle/chunkforge-c:/opt/chunkforge:ro" "$BASE" \
  /opt/chunkforge/bin/chunkforge-c-walker "127.0.0.1:$PORT" 10 --generate-locally --lod-radius 64 \
  >"$WORK/walker.log" 2>&1 || { tail -n 20 "$WORK/walker.log" >&2; fail "the bundled walker in $BASE"; }
tail -n 1 "$WORK/walker.log"
grep -Eq "walked to x = 80: 25 chunks loaded, 0 downloaded, [1-9][0-9]* generated here" "$WORK/walker.log" ||
  fail "the bundled walker did not walk: $(tail -n 1 "$WORK/walker.log")"
echo "docker/test.sh: the bundle: $(tail -n 1 "$WORK/bundle.log")"

phase "stopping (SIGTERM must exit 0)"
podman stop -t 10 "$CONTAINER" >/dev/null 2>>"$WORK/run.log"
code=$(podman inspect -f '{{.State.ExitCode}}' "$CONTAINER")
[ "$code" = 0 ] || fail "the server exited $code on SIGTERM"

phase ""
echo "docker/test.sh: OK ($SECONDS s)"
# Non-root, healthy, identical chunk, the bundle in a bare container, clean stop: the summary
# line CI logs are read for.
echo "container: 5 passed, 0 failed"
