#!/usr/bin/env bash
# The SDK as a game gets it: `cmake --install` the build into a fresh prefix, build the
# out-of-tree project tests/client/consumer against it with find_package, start a server, and
# check the consumer's chunk against the `chunkforge` command's offline output, and the
# package's local generator (chunkforge::client_local) against the server's bytes.
# Arguments: BUILD_DIR SOURCE_DIR SERVER CLI
set -euo pipefail
build=$1 source=$2 server=$3 cli=$4
work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source/tests/client/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$server" --listen "127.0.0.1:$port" --http "" --threads 1 --log-level warn &
server_pid=$!
for _ in $(seq 100); do
  "$cli" health --server "127.0.0.1:$port" >/dev/null 2>&1 && break
  sleep 0.1
done

got=$("$work/consumer/consumer" "127.0.0.1:$port" 3 -2)
objects=$("$cli" chunk 3 -2 | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["objects"]))')
name=$("$cli" info --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["name"])')
want="$name 64 3 -2 $objects same"
if [ "$got" != "$want" ]; then
  echo "consumer printed \"$got\", expected \"$want\"" >&2
  exit 1
fi
echo "consumer built against the installed package and fetched: $got"
