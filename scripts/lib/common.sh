# Shared by the scripts: Debian packages, the CMake builds (build/, and the sanitizer builds
# beside it, each configured by its preset in CMakePresets.json) and the C++ files the style
# tools (scripts/format, scripts/check-format, scripts/tidy) look at.
# Sourced, not run.

CHUNKFORGE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# What any build needs, and what the tests and benchmarks add.
CHUNKFORGE_BUILD_PACKAGES=(cmake ninja-build g++ pkg-config libprotobuf-dev protobuf-compiler libpng-dev
  libgrpc++-dev protobuf-compiler-grpc libboost-dev libspdlog-dev libssl-dev libcli11-dev libtomlplusplus-dev
  libsqlite3-dev libpq-dev libjwt-dev libjs-leaflet libhwy-dev ccache)
CHUNKFORGE_TEST_PACKAGES=(libgtest-dev libgmock-dev libbenchmark-dev python3-grpcio openssl nginx prometheus
  postgresql chromium python3-websocket mono-mcs mono-runtime valgrind kubernetes-client python3-yaml patchelf)
# Packages that count as there when the command they bring already is, from another package:
# a machine with Google's `kubectl` package (kustomize v5) has /usr/bin/kubectl, which Debian's
# kubernetes-client (kubectl 1.20, kustomize v2.0.3) also ships, so dpkg would refuse to install
# it beside. deploy/kubernetes renders with either (tests/deploy/kubernetes_test.py).
declare -gA CHUNKFORGE_PACKAGE_COMMANDS=([kubernetes-client]=kubectl)
# scripts/check-sanitizers: GCC's sanitizer runtimes, and clang with libFuzzer (libclang-rt) and
# llvm-symbolizer (llvm-14) for the fuzz build.
CHUNKFORGE_SANITIZER_PACKAGES=(libasan8 libubsan1 libtsan2)
CHUNKFORGE_FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev llvm-14)
# The style tools: scripts/format and scripts/check-format (CI's first stage, which needs nothing
# else), and scripts/tidy (which also needs a configured build/). Both pin version 14, Debian 12's:
# another clang-format lays the same code out differently.
CHUNKFORGE_FORMAT_PACKAGES=(clang-format)
CHUNKFORGE_TIDY_PACKAGES=(clang-tidy)

# Installs the packages that are missing; silent when all are there. Waits up to 10 minutes
# for another apt/dpkg to release its lock instead of failing.
ensure_packages() {
  local missing=() p
  for p in "$@"; do
    [ -n "${CHUNKFORGE_PACKAGE_COMMANDS[$p]:-}" ] && command -v "${CHUNKFORGE_PACKAGE_COMMANDS[$p]}" >/dev/null && continue
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  echo "chunkforge: installing Debian packages: ${missing[*]}" >&2
  "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
}

# Configures (once, or when options change) and builds build/. Arguments: the preset of
# CMakePresets.json (default, or run), then extra -D options.
build_chunkforge() {
  local preset=$1
  shift
  build_chunkforge_in "$preset" "$CHUNKFORGE_ROOT/build" "$@"
}

# The same in another build directory (the sanitizer builds). Arguments: the preset, the
# directory, then extra -D options.
build_chunkforge_in() {
  configure_chunkforge "$@"
  # --quiet: ninja prints compiler messages only, not a progress line per file.
  cmake --build "$2" -- --quiet
}

# Configures only (to build one target after). Arguments: the preset, the directory (the
# preset's binaryDir, unless CHUNKFORGE_GCC_BUILD or CHUNKFORGE_FMA_BUILD names another), then
# extra -D options. The preset holds the options and the compiler, so that a developer's
# `cmake --preset NAME` is the build the scripts and CI make; only ccache is added here.
configure_chunkforge() {
  local preset=$1 dir=$2 launcher=()
  shift 2
  if [ "${CHUNKFORGE_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  # cmake --preset reads CMakePresets.json from the working directory.
  (cd "$CHUNKFORGE_ROOT" && cmake --preset "$preset" -B "$dir" "${launcher[@]}" "$@" >/dev/null)
}

# Builds compile through ccache when it is installed (it is in CHUNKFORGE_BUILD_PACKAGES;
# CHUNKFORGE_CCACHE=0 builds without it). Its cache lives outside the clone (ccache's default,
# ~/.cache/ccache, or CCACHE_DIR), so a clean clone reuses what earlier builds on the same
# machine compiled: paths are made relative to the clone (base_dir) and the working directory
# is left out of the hash (hash_dir), so clones in different folders share entries.
# The sloppiness lets ccache cache the files compiled with a precompiled header
# (cmake/ChunkforgePch.cmake).
export CCACHE_BASEDIR="$CHUNKFORGE_ROOT" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime

# The tracked C++ files the style tools read, NUL-separated, relative to the root; with
# arguments (files or folders, absolute or relative to the root), only those under them.
# Nothing third-party or generated is tracked today (the .pb.h/.pb.cc files are generated into
# the build directory); the exclusion keeps it so should some be added.
CHUNKFORGE_STYLE_EXCLUDE='(^|/)(third_party|vendor)/|\.pb\.(h|cc)$'
cxx_sources() {
  # grep's status 1 is "no file matched", which is not an error; git's failures are 128.
  git -C "$CHUNKFORGE_ROOT" ls-files -z -- "$@" | grep -zE '\.(h|hpp|c|cc|cpp)$' |
    grep -zvE "$CHUNKFORGE_STYLE_EXCLUDE" || [ $? -eq 1 ]
}

# Peer benchmarks report only from a quiet machine: peers slow differently under load, so a
# ratio taken at a load of 9 says little about one at 0 (docs/resources.md, "Measuring against
# peers"). quiet_machine NAME waits up to CHUNKFORGE_QUIET_WAIT seconds (120) for the 1-minute
# load to fall under 1 and fails saying so if it does not; the run's own pinned core then adds
# about 1, so loud_run NAME MAX_LOAD fails after the run when a round saw a load over 2.
# CHUNKFORGE_ANY_LOAD=1 measures anyway: every round line carries its load either way.
load_now() { cut -d' ' -f1 /proc/loadavg; }
quiet_machine() {
  local name=$1 waited=0
  while awk -v load="$(load_now)" 'BEGIN { exit !(load >= 1) }'; do
    if [ "$waited" -ge "${CHUNKFORGE_QUIET_WAIT:-120}" ]; then
      [ "${CHUNKFORGE_ANY_LOAD:-0}" = 1 ] && { echo "$name: measuring at load $(load_now) (CHUNKFORGE_ANY_LOAD=1)"; return 0; }
      echo "$name: the load is $(load_now), over 1 after ${waited} s: peers slow differently under load;" \
        "measure on a quiet machine, or set CHUNKFORGE_ANY_LOAD=1" >&2
      return 1
    fi
    sleep 5
    waited=$((waited + 5))
  done
}
loud_run() {
  local name=$1 highest=$2
  awk -v load="$highest" 'BEGIN { exit !(load > 2) }' || return 0
  [ "${CHUNKFORGE_ANY_LOAD:-0}" = 1 ] && { echo "$name: a round ran at load $highest (CHUNKFORGE_ANY_LOAD=1)"; return 0; }
  echo "$name: a round ran at load $highest (over 1 besides the run's own core): no summary;" \
    "measure again on a quiet machine, or set CHUNKFORGE_ANY_LOAD=1" >&2
  return 1
}
