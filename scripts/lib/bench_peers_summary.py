"""The summary of scripts/bench-peers: medians and ranges over rounds of every rate, and of the
ratios taken within each round (the reference against each peer; chunkforge against the
reference), from build/peers/results.txt and, if they are there, build/peers/blue_noise.N.json."""
import json
import os
import statistics
import sys

out, rounds = sys.argv[1], int(sys.argv[2])


def line(label, values, unit=""):
    print(f"{label:<44} median {statistics.median(values):9.3f}{unit}   "
          f"range {min(values):9.3f} .. {max(values):9.3f}   ({len(values)} rounds)")


peer = {}  # (round, name) -> points per CPU second
with open(os.path.join(out, "results.txt")) as results:
    for fields in (row.split() for row in results):
        peer[int(fields[0]), fields[1]] = float(fields[3])
names = ["reference", "thinks", "tph"]
print("\npeer_bench, constant r = 2 over 512 x 512 (k points per CPU second):")
for name in names:
    line(f"  {name}", [peer[r, name] / 1e3 for r in range(1, rounds + 1)])
for name in names[1:]:
    line(f"  reference / {name}", [peer[r, "reference"] / peer[r, name] for r in range(1, rounds + 1)])

cases = {  # blue_noise_bench's benchmark names: chunkforge by generator version (v2, v3)
    "reference, constant r": "BM_BridsonReference/constant:1",
    "reference, forest": "BM_BridsonReference/constant:0",
}
for v in (2, 3):
    for constant, kind in ((1, "constant r"), (0, "forest")):
        cases[f"chunked v{v}, {kind}"] = f"BM_ChunkedBlueNoise/constant:{constant}/version:{v}"
        cases[f"stream v{v}, {kind}"] = f"BM_ChunkStreamBlueNoise/constant:{constant}/version:{v}"
runs = []
for r in range(1, rounds + 1):
    path = os.path.join(out, f"blue_noise.{r}.json")
    if os.path.exists(path):
        with open(path) as f:
            runs.append({b["name"]: b for b in json.load(f)["benchmarks"]})
if not runs:
    sys.exit(0)
print("\nblue_noise_bench, 8 x 8 chunks = 512 x 512 (k points per CPU second, ratios within a round):")
for label, name in cases.items():
    line(f"  {label}", [run[name]["items_per_second"] / 1e3 for run in runs])
for kind in ("constant r", "forest"):
    for side in ("chunked v2", "stream v2", "chunked v3", "stream v3"):
        line(f"  {side} / reference, {kind}", [run[cases[f"{side}, {kind}"]]["items_per_second"] /
                                                 run[cases[f"reference, {kind}"]]["items_per_second"] for run in runs])
print("\nquality at constant r (rho, NN CV, Clark-Evans R; the same in every round):")
for label in ("chunked v2, constant r", "chunked v3, constant r", "reference, constant r"):
    b = runs[-1][cases[label]]
    print(f"  {label:<42} rho {b['rho']:.3f}   NN CV {b['nn_cv']:.3f}   R {b['R']:.3f}")
