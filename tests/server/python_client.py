#!/usr/bin/python3
"""An independent client for the world server: Debian's python3-grpcio, no generated code.

Requests are written as raw protobuf bytes and responses read as raw bytes, so nothing here
shares code with the C++ side. Prints one JSON object:
  health     the standard health check's status for the whole server (1 = SERVING)
  services   service names listed by server reflection
  chunk_hex  the raw GetChunk response for chunk (X, Z), hex
Usage: python_client.py HOST:PORT X Z
"""
import json
import sys

import grpc


def varint(n):
    out = bytearray()
    n &= (1 << 64) - 1  # int64 fields take the two's complement of negative values
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, wire_type, payload):
    return varint(number << 3 | wire_type) + payload


def length_delimited(number, payload):
    return field(number, 2, varint(len(payload)) + payload)


def read_varint(message, i):
    """The varint at message[i]: (value, index after it)."""
    value, shift = 0, 0
    while True:
        b = message[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, i


def strings_in(message):
    """Every length-delimited field's payload, recursively: the names in a reflection reply."""
    found, i = [], 0
    while i < len(message):
        key, i = read_varint(message, i)
        wire_type = key & 7
        if wire_type == 0:
            _, i = read_varint(message, i)
        elif wire_type == 2:
            length, i = read_varint(message, i)
            payload = message[i:i + length]
            i += length
            found.append(payload)
            try:
                found.extend(strings_in(payload))
            except IndexError:
                pass  # a string, not a message
        elif wire_type == 1:
            i += 8
        elif wire_type == 5:
            i += 4
        else:
            break
    return found


def main():
    target, x, z = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    raw = lambda b: b  # noqa: E731 - identity (de)serializer: bytes in, bytes out
    with grpc.insecure_channel(target) as channel:
        # grpc.health.v1.HealthCheckRequest{service: ""} is empty; the reply's field 1 is the status.
        health = channel.unary_unary("/grpc.health.v1.Health/Check", raw, raw)(b"", timeout=10)
        status = health[1] if len(health) >= 2 and health[0] == 0x08 else -1

        # ServerReflectionRequest{list_services: "*"} (field 7).
        reflect = channel.stream_stream("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", raw, raw)
        replies = list(reflect(iter([length_delimited(7, b"*")]), timeout=10))
        names = sorted({s.decode() for r in replies for s in strings_in(r)
                        if s and all(32 < c < 127 for c in s) and b"." in s})

        # GetChunkRequest{coord: ChunkCoord{x, z}}.
        coord = field(1, 0, varint(x)) + field(2, 0, varint(z))
        chunk = channel.unary_unary("/chunkforge.v1.WorldService/GetChunk", raw, raw)(
            length_delimited(1, coord), timeout=30)

    print(json.dumps({"health": status, "services": names, "chunk_hex": chunk.hex()}))


if __name__ == "__main__":
    main()
