"""Summarises scripts/bench-noise-peers' rounds: per case and binary, items per second (median
and range over rounds), and each binary's speed over the reference's, taken round by round (the
two ran back to back, so the machine's load cancels) and then summarised the same way.
Usage: summarize.py DIR REFERENCE LABEL...  (DIR holds LABEL.ROUND.json from Google Benchmark)."""
import glob
import json
import os
import statistics
import sys


def load(directory, label):
    """{round: {case: items_per_second}} for one binary."""
    rounds = {}
    for path in glob.glob(os.path.join(directory, f"{label}.*.json")):
        round_number = int(path.rsplit(".", 2)[1])
        with open(path) as f:
            runs = json.load(f)["benchmarks"]
        rounds[round_number] = {r["name"].split("/", 1)[1]: r["items_per_second"] for r in runs}
    return rounds


def spread(values, scale=1.0, fmt="{:.2f}"):
    """'median (min-max)' of values / scale."""
    v = [x / scale for x in values]
    return f"{fmt.format(statistics.median(v))} ({fmt.format(min(v))}-{fmt.format(max(v))})"


def main():
    directory, reference, labels = sys.argv[1], sys.argv[2], sys.argv[3:]
    data = {label: load(directory, label) for label in labels}
    cases = list(next(iter(data[reference].values())).keys())
    others = [label for label in labels if label != reference]
    header = ["case"] + [f"{label} M samples/s" for label in labels] + [f"{label} / {reference}" for label in others]
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" * len(header))
    for case in cases:
        row = [case]
        for label in labels:
            row.append(spread([r[case] for r in data[label].values()], 1e6, "{:.1f}"))
        for label in others:
            ratios = [data[label][n][case] / data[reference][n][case] for n in data[label] if n in data[reference]]
            row.append(spread(ratios) + "x")
        print("| " + " | ".join(row) + " |")


main()
