#!/bin/sh
# The dynamic symbol table of libchunkforge_c.so holds the C ABI's cf_ functions and nothing
# else (no gRPC, protobuf, OpenSSL, absl or C++ standard library symbol a game's copies could
# clash with); the version node CHUNKFORGE_C_1 is the linker's own entry.
# Usage: exports_only_cf.sh LIBRARY
set -eu
symbols=$(nm -D --defined-only "$1" | awk '{sub(/@.*/, "", $3); print $3}')
count=$(printf '%s\n' "$symbols" | grep -c '^cf_' || true)
others=$(printf '%s\n' "$symbols" | grep -v -e '^cf_' -e '^CHUNKFORGE_C_1$' || true)
if [ -n "$others" ]; then
  echo "exported beside the cf_ functions:"; printf '%s\n' "$others" | head -20
  exit 1
fi
# Every function the header declares is exported.
header="$(dirname "$0")/../../bindings/c/include/chunkforge_c.h"
declared=$(grep -o 'CF_API [^(]*(' "$header" | grep -o 'cf_[a-z_]*(' | tr -d '(' | sort)
missing=$(printf '%s\n' "$declared" | while read -r f; do printf '%s\n' "$symbols" | grep -qx "$f" || echo "$f"; done)
if [ -n "$missing" ]; then
  echo "declared but not exported: $missing"
  exit 1
fi
echo "libchunkforge_c exports $count symbols, all cf_, every declared function"
