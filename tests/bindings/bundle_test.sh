#!/usr/bin/env bash
# The engine bundle (scripts/bundle-engine) checked on the machine that made it, against the
# server bindings_with_server started (CF_TEST_*):
# 1. every library the bundled libchunkforge_c.so loads, but the C and C++ runtimes, is the
#    bundle's own (ldd, no LD_LIBRARY_PATH);
# 2. the bundled C walker, generating locally with LOD tiles, walks against the server;
# 3. the Unity package is whole (package.json parses, a .meta beside every file and folder Unity
#    imports) and its C#, the sample MonoBehaviour included, compiles with mcs against stubs of
#    the UnityEngine types it uses (tests/bindings/unity/UnityEngine.cs, UnityEngine.Event too).
# The run in a bare container, without the -dev packages, is docker/test.sh's.
#
#   bindings_with_server SERVER -- bundle_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "bundle_test: FAIL: $*" >&2; exit 1; }

"$src/scripts/bundle-engine" "$build" "$out"
c=$out/chunkforge-c p=$out/com.chunkforge.client

outside=$(ldd "$c/lib/libchunkforge_c.so.1" | awk '$2 == "=>" { print $1, $3 }' | grep -v " $c/lib/" |
  grep -Ev '^(libc|libm|libstdc\+\+|libgcc_s)\.so' || true)
[ -z "$outside" ] || fail "loaded from outside the bundle: $outside"

walked=$("$c/bin/chunkforge-c-walker" "$CF_TEST_TARGET" 10 "$CF_TEST_READ_TOKEN" --generate-locally --lod-radius 64 |
  tail -n 1)
echo "$walked"
grep -Eq "walked to x = 80: 25 chunks loaded, 0 downloaded, [1-9][0-9]* generated here, .* [1-9][0-9]* tiles held" \
  <<<"$walked" || fail "the bundled walker"

python3 -m json.tool "$p/package.json" >/dev/null || fail "package.json does not parse"
for f in "$p/package.json" "$p/Runtime" "$p"/Runtime/* "$p"/Runtime/Plugins/x86_64/*; do
  case "$f" in *.meta) continue ;; esac
  [ -f "$f.meta" ] || fail "no .meta beside ${f#"$p/"}"
done
[ -f "$p/Runtime/Plugins/x86_64/libchunkforge_c.so" ] || fail "no libchunkforge_c.so in Plugins/x86_64"
mcs -nologo -unsafe -warnaserror -target:library -out:"$out/package.dll" "$p"/Runtime/*.cs "$p"/Samples~/Walker/*.cs \
  "$src/tests/bindings/unity/UnityEngine.cs" || fail "the package's C# does not compile against Unity's types"
echo "bundle_test: ok: $(find "$c/lib" -name '*.so.*' | wc -l) libraries, $(du -sh "$c" | cut -f1) (C)," \
  "$(du -sh "$p" | cut -f1) (Unity package)"
