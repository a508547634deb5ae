#!/usr/bin/python3
"""One StreamRegion against a running server, for sizing (docs/deploy.md, "Sizing").

Prints one JSON object: chunks received, seconds until the last one, chunks per second, and
with --metrics the server's cache gauges afterwards and the bytes per cached chunk (encoded, and
as charged against --cache-mb). Against a freshly started server the stream is cold: every chunk
is generated.

Usage: sizing.py HOST:PORT [--radius R] [--centre CX CZ] [--terrain-step S]
                 [--metrics http://HOST:PORT/metrics]
Needs Debian's python3-grpcio only: the request is written as raw protobuf bytes.
"""
import argparse
import json
import re
import time
import urllib.request

import grpc


def varint(n):
    n &= (1 << 64) - 1  # int64 fields take the two's complement of negative values
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, wire_type, payload):
    return varint(number << 3 | wire_type) + payload


def message(number, payload):
    return field(number, 2, varint(len(payload)) + payload)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("server")
    p.add_argument("--radius", type=int, default=8)
    p.add_argument("--centre", type=int, nargs=2, default=(0, 0))
    p.add_argument("--terrain-step", type=int, default=0, help="0: no terrain grid")
    p.add_argument("--metrics")
    a = p.parse_args()

    # StreamRegionRequest{centre: ChunkCoord{x, z}, radius, options: ChunkOptions{...}}
    request = message(1, field(1, 0, varint(a.centre[0])) + field(2, 0, varint(a.centre[1])))
    request += field(2, 0, varint(a.radius))
    if a.terrain_step:
        request += message(3, field(1, 0, varint(1)) + field(2, 0, varint(a.terrain_step)))

    with grpc.insecure_channel(a.server) as channel:
        grpc.channel_ready_future(channel).result(timeout=10)
        call = channel.unary_stream("/chunkforge.v1.WorldService/StreamRegion",
                                    request_serializer=None, response_deserializer=None)
        start = time.monotonic()
        chunks = sum(1 for _ in call(request, timeout=600))
        seconds = time.monotonic() - start
    report = {"chunks": chunks, "seconds": round(seconds, 4), "chunks_per_second": round(chunks / seconds, 1)}

    if a.metrics:
        text = urllib.request.urlopen(a.metrics, timeout=10).read().decode()
        gauge = lambda name: int(re.search(rf"^chunkforge_{name} (\d+)$", text, re.M).group(1))
        report["cache_bytes"], report["cache_entries"] = gauge("cache_bytes"), gauge("cache_entries")
        report["cache_payload_bytes"] = gauge("cache_payload_bytes")  # the chunks alone, no overhead
        report["bytes_per_chunk"] = round(report["cache_payload_bytes"] / max(report["cache_entries"], 1))
        report["charged_bytes_per_chunk"] = round(report["cache_bytes"] / max(report["cache_entries"], 1))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
