#!/usr/bin/env bash
# The generation library as a game gets it: `cmake --install` the build into a fresh prefix,
# build the out-of-tree project tests/lib/gen_consumer against it with find_package (compiled
# with -ffp-contract=fast -march=x86-64-v3), and check that what it generates is the build
# tree's: the same lines as the in-tree reference build of the same source, and the chunk hash
# and terrain sample of the `chunkforge` command.
# Arguments: BUILD_DIR SOURCE_DIR CLI REFERENCE. Exit 77 (skipped) on a CPU without FMA.
set -euo pipefail
build=$1 source=$2 cli=$3 reference=$4
if [ "$(uname -m)" = x86_64 ] && ! grep -qw fma /proc/cpuinfo; then
  echo "skipped: this CPU has no FMA (x86-64-v3)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source/tests/lib/gen_consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null

cx=-3 cz=7 x=100.5 z=-200.25
got=$("$work/consumer/gen_consumer" $cx $cz $x $z)
want=$("$reference" $cx $cz $x $z)
if [ "$got" != "$want" ]; then
  echo "the installed-package consumer (FMA) and the build tree differ:" >&2
  diff <(echo "$want") <(echo "$got") >&2
  exit 1
fi
# The same chunk and point as the command generates them.
"$cli" chunk $cx $cz >"$work/chunk.json"
"$cli" sample $x $z --json >"$work/sample.json"
python3 - "$work/chunk.json" "$work/sample.json" <<PY || exit 1
import json, sys
lines = {l.split()[0]: l.split()[1:] for l in """$got""".splitlines()}
chunk = json.load(open(sys.argv[1]))
sample = json.load(open(sys.argv[2]))
errors = []
if lines["chunk"][2] != chunk["hash"]:
    errors.append(f"chunk hash {lines['chunk'][2]}, command {chunk['hash']}")
for k, name in enumerate(["elevation", "temperature", "moisture", "slope"]):
    if float.fromhex(lines["sample"][2 + k]) != sample[name]:
        errors.append(f"{name} {lines['sample'][2 + k]}, command {sample[name]!r}")
for k, name in enumerate(["biome_id", "material_id"]):
    if int(lines["sample"][6 + k]) != sample.get(name, 0):
        errors.append(f"{name} {lines['sample'][6 + k]}, command {sample.get(name, 0)}")
if errors:
    sys.exit("consumer vs chunkforge command: " + "; ".join(errors))
PY
echo "consumer built with FMA against the installed package generates the build tree's bytes: $(echo "$got" | head -1)"
