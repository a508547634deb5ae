#!/usr/bin/python3
"""Writes the seed corpus of the sdk_chunk fuzz target (tests/fuzz/corpus/sdk_chunk/).

Run by hand after chunk.proto changes (needs protoc and python3-protobuf):
  tests/fuzz/make_sdk_chunk_seeds.py
Each seed is an encoded chunkforge.v1.Chunk: a well-formed chunk like the server's (objects,
structures, a terrain grid), an empty one, and malformed ones a hostile or broken server could
send (arrays of different lengths, a terrain grid larger than its arrays, ids outside the
catalogue, extreme coordinates), so the fuzzer starts next to the edges of every accessor.
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fuzz", "corpus", "sdk_chunk")


def chunk_module():
    tmp = tempfile.mkdtemp()
    subprocess.check_call(["protoc", "-I", os.path.join(ROOT, "proto"), "--python_out", tmp,
                           "chunkforge/v1/chunk.proto"])
    sys.path.insert(0, tmp)
    from chunkforge.v1 import chunk_pb2  # noqa: E402 (generated just above)
    return chunk_pb2


def objects(chunk, n, layers=2):
    for i in range(n):
        chunk.objects.layer.append(i % layers)
        chunk.objects.x.append(1.5 + 7 * i % 64)
        chunk.objects.z.append(0.25 + 13 * i % 64)
        chunk.objects.y.append(3.0 - i)
        chunk.objects.yaw.append(37.0 * i % 360)
        chunk.objects.variant.append(i % 3)
        chunk.objects.id.append(0x5F3A000000000000 + i)


def terrain(chunk, step, size, entries):
    chunk.terrain.step = step
    chunk.terrain.size = size
    chunk.terrain.elevation.extend(float(i % 7) - 2 for i in range(entries))
    chunk.terrain.biome.extend(i % 4 for i in range(entries))
    chunk.terrain.material.extend(i % 5 for i in range(entries))


def structure(chunk, type_id, x, z):
    s = chunk.structures.add(id=0xC0FFEE + x, type=type_id, x=x, z=z, y=1.5, yaw_degrees=90)
    s.tilted, s.size_x, s.size_y, s.size_z = True, 8, 6, 4


def seeds(pb):
    def base():
        c = pb.Chunk(chunk_size=64, generator_version=1, world_fingerprint="0123456789abcdef")
        c.coord.x, c.coord.z = 3, -2
        return c

    full = base()
    objects(full, 12)
    structure(full, 0, 180, -100)
    terrain(full, 16, 4, 16)
    yield "full", full
    yield "empty", pb.Chunk()
    ragged = base()
    objects(ragged, 5)
    del ragged.objects.id[2:]
    yield "ragged_objects", ragged
    short_grid = base()
    terrain(short_grid, 8, 8, 10)
    yield "short_terrain", short_grid
    unknown = base()
    objects(unknown, 3, layers=9)
    structure(unknown, 7, 0, 0)
    yield "unknown_ids", unknown
    far = base()
    far.coord.x, far.coord.z, far.chunk_size = 2**62, -(2**62), 0
    objects(far, 2)
    far.objects.x[0] = 3.0e38
    yield "far_zero_size", far


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, message in seeds(chunk_module()):
        with open(os.path.join(OUT, name + ".bin"), "wb") as f:
            f.write(message.SerializeToString())


if __name__ == "__main__":
    main()
