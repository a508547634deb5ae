#!/usr/bin/env bash
# Writes the seed corpora of the rpc_request and session_update fuzz targets: valid requests in
# protobuf's text format, encoded by protoc. rpc_request inputs start with one byte naming the
# RPC: its index in service.proto's WorldService, read from the file here as the fuzzer reads
# it from the service's descriptor (declaration order), with the RPC's request type; so seeds
# follow the service as RPCs are added. session_update inputs are updates, each behind a
# one-byte length. Run from anywhere; needs protoc (protobuf-compiler).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
proto="$here/../../proto"
service="$proto/chunkforge/v1/service.proto"

encode() {  # encode MESSAGE TEXT: the binary message on stdout
  printf '%s' "$2" | protoc --encode="chunkforge.v1.$1" -I "$proto" "$service"
}

# "NAME REQUEST" for each RPC of the service, in declaration order.
rpcs() {
  sed -n 's/^ *rpc \([A-Za-z0-9_]*\) *( *\(stream \)\{0,1\}\([A-Za-z0-9_.]*\) *).*/\1 \3/p' "$service"
}

rpc() {  # rpc FILE RPC TEXT: the RPC's index, then its request message
  local index=0 name request
  while read -r name request; do
    if [ "$name" = "$2" ]; then
      { printf "\\x$(printf %02x "$index")"; encode "$request" "$3"; } > "$here/corpus/rpc_request/$1"
      return
    fi
    index=$((index + 1))
  done < <(rpcs)
  echo "make_server_seeds.sh: no RPC $2 in $service" >&2
  exit 1
}

mkdir -p "$here/corpus/rpc_request" "$here/corpus/session_update"
rpc world_info GetWorldInfo ''
rpc chunk GetChunk 'coord { x: 3 z: -2 }'
rpc chunk_terrain_layers GetChunk \
  'coord { x: -7 z: 9 } options { include_terrain: true terrain_step: 16 layers: [0, 2, 2] }'
rpc chunk_far GetChunk 'coord { x: 17179869184 z: -17179869184 }'
rpc region StreamRegion 'centre { x: 1 z: 1 } radius: 3 options { layers: 1 }'
rpc region_edge StreamRegion 'centre { x: 17179869184 z: 0 } radius: 16'
rpc session Session \
  'x: 10 z: 10 view_radius: 2 options { include_terrain: true terrain_step: 8 } accept_load_batches: true'
rpc session_held Session 'x: 0 z: 0 view_radius: 1 held { x: 0 z: 0 } held { x: 1 z: 0 } held_versions: [3, 0]'
rpc locate Locate 'type: "well" x: 100 z: -50 radius: 512 limit: 3'
rpc locate_unknown Locate 'type: "tundra_tower" radius: 1e9'
rpc edit_add Edit 'ops { chunk { x: 1 z: 2 } add_object { layer: 0 x: 10.5 z: 3 yaw: 90 } } request_id: "seed-1"'
rpc edit_mixed Edit 'ops { chunk { x: 0 z: 0 } remove_object: 12345 }
  ops { chunk { x: 0 z: 0 } set_state { id: 12345 state: "open" } }
  ops { chunk { x: -1 z: 0 } move_object { id: 7 x: 1 z: 2 } }
  ops { chunk { x: 3 z: 3 } remove_structure: 99 } expect { chunk { x: 0 z: 0 } version: 4 }'
rpc chunk_edits GetChunkEdits 'local_generation { generator_versions: [1, 2] fingerprint: "44ed0f2ae44a28d3" }
  coords { x: 1 z: 2 } coords { x: 1 z: 2 } centre { x: -4 z: 4 } radius: 2'
rpc chunk_edits_many GetChunkEdits 'coords { x: 17179869184 } coords { z: -17179869185 } radius: 16'

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
