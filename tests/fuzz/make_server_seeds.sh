#!/usr/bin/env bash
# Writes the seed corpora of the rpc_request and session_update fuzz targets: valid requests in
# protobuf's text format, encoded by protoc. rpc_request inputs start with one byte naming the
# RPC (0 GetWorldInfo, 1 GetChunk, 2 StreamRegion, 3 Locate); session_update inputs are updates,
# each behind a one-byte length. Run from anywhere; needs protoc (protobuf-compiler).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
proto="$here/../../proto"

encode() {  # encode MESSAGE TEXT: the binary message on stdout
  printf '%s' "$2" | protoc --encode="chunkforge.v1.$1" -I "$proto" "$proto/chunkforge/v1/service.proto"
}

rpc() {  # rpc FILE SELECTOR MESSAGE TEXT
  { printf "\\x$(printf %02x "$2")"; encode "$3" "$4"; } > "$here/corpus/rpc_request/$1"
}

mkdir -p "$here/corpus/rpc_request" "$here/corpus/session_update"
rpc world_info 0 GetWorldInfoRequest ''
rpc chunk 1 GetChunkRequest 'coord { x: 3 z: -2 }'
rpc chunk_terrain_layers 1 GetChunkRequest 'coord { x: -7 z: 9 } options { include_terrain: true terrain_step: 16 layers: [0, 2, 2] }'
rpc chunk_far 1 GetChunkRequest 'coord { x: 17179869184 z: -17179869184 }'
rpc region 2 StreamRegionRequest 'centre { x: 1 z: 1 } radius: 3 options { layers: 1 }'
rpc region_edge 2 StreamRegionRequest 'centre { x: 17179869184 z: 0 } radius: 16'
rpc locate 3 LocateRequest 'type: "well" x: 100 z: -50 radius: 512 limit: 3'
rpc locate_unknown 3 LocateRequest 'type: "tundra_tower" radius: 1e9'

session() {  # session FILE TEXT...: each update behind its one-byte length
  local file="$here/corpus/session_update/$1" update
  shift
  : > "$file"
  for update in "$@"; do
    encode SessionUpdate "$update" > "$file.part"
    printf "\\x$(printf %02x "$(stat -c %s "$file.part")")" >> "$file"
    cat "$file.part" >> "$file"
  done
  rm -f "$file.part"
}

session walk 'x: 10 z: 10 view_radius: 2' 'x: 80 z: 10 view_radius: 2' 'x: 150 z: -70 view_radius: 3'
session held 'x: 0 z: 0 view_radius: 1 held { x: 0 z: 0 } held { x: 1 z: 1 } held { x: 5 z: 5 }' \
  'x: 6400 z: 0 view_radius: 1 held { x: 100 z: 0 }' 'x: 0 z: 0 view_radius: 1 held { x: 0 z: 0 }'
session edge 'x: 1099511627776 z: -1099511627776 view_radius: 4' 'x: -1099511627776 z: 1099511627776 view_radius: 4'
session bad 'x: 1e300 view_radius: 1' 'view_radius: 99'
