#!/usr/bin/python3
"""A real Prometheus (Debian's `prometheus`) scrapes a real chunkforge-server every second while
a client calls it; then the call latency's 90th percentile is read back through Prometheus' HTTP
API (docs/deploy.md, "Watching: /metrics"). Prints what it measured; about 10 s.

Usage: prometheus_scrape_test.py CHUNKFORGE_SERVER
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import grpc

from monitored_server import MonitoredServer

QUERY = "histogram_quantile(0.9, sum by (le) (rate(chunkforge_call_seconds_bucket[5s])))"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def varint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def get_chunk_request(x, z):
    """GetChunkRequest{coord: ChunkCoord{x, z}} as raw protobuf (x, z >= 0)."""
    coord = b"\x08" + varint(x) + b"\x10" + varint(z)
    return b"\x0a" + varint(len(coord)) + coord


def call_until(target, stop, counts):
    """GetWorldInfo and GetChunk over new chunks (cold: each waits for its generation) until `stop`."""
    raw = lambda b: b  # noqa: E731 - identity (de)serializer
    with grpc.insecure_channel(target) as channel:
        info = channel.unary_unary("/chunkforge.v1.WorldService/GetWorldInfo", raw, raw)
        chunk = channel.unary_unary("/chunkforge.v1.WorldService/GetChunk", raw, raw)
        n = 0
        while not stop.is_set():
            info(b"", timeout=10)
            chunk(get_chunk_request(n % 64, n // 64), timeout=10)
            counts["calls"] += 2
            n += 1
            time.sleep(0.01)


def query(api_port, expr):
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (api_port, urllib.parse.urlencode({"query": expr}))
    with urllib.request.urlopen(url, timeout=5) as answer:
        return json.load(answer)


def start_prometheus(work, scrape_port):
    config = os.path.join(work, "prometheus.yml")
    with open(config, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "scrape_configs:\n  - job_name: chunkforge\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % scrape_port)
    api_port = free_port()
    log = open(os.path.join(work, "prometheus.log"), "w")
    process = subprocess.Popen(
        ["prometheus", "--config.file=" + config, "--storage.tsdb.path=" + os.path.join(work, "data"),
         "--web.listen-address=127.0.0.1:%d" % api_port], stdout=log, stderr=subprocess.STDOUT)
    return process, api_port, log


def wait_for_value(api_port, deadline):
    """The query's one sample value once Prometheus has one (not NaN), else None by the deadline."""
    last = None
    while time.monotonic() < deadline:
        try:
            last = query(api_port, QUERY)
            result = last["data"]["result"]
            if result and result[0]["value"][1] not in ("NaN", "+Inf"):
                return float(result[0]["value"][1]), last
        except (OSError, ValueError, KeyError):
            pass  # not listening yet
        time.sleep(0.5)
    return None, last


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="chunkforge_prometheus_")
    started = time.monotonic()
    with MonitoredServer(binary, "prometheus") as server:
        prometheus, api_port, log = start_prometheus(work, server.http_port)
        stop, counts = threading.Event(), {"calls": 0}
        caller = threading.Thread(target=call_until, args=("127.0.0.1:%d" % server.port, stop, counts))
        caller.start()
        try:
            value, last = wait_for_value(api_port, time.monotonic() + 15)
            up = query(api_port, 'up{job="chunkforge"}')["data"]["result"] if value is not None else []
        finally:
            stop.set()
            caller.join()
            prometheus.terminate()
            prometheus.wait(timeout=10)
            log.close()
    elapsed = time.monotonic() - started
    prometheus_log = open(os.path.join(work, "prometheus.log")).read()
    shutil.rmtree(work, ignore_errors=True)
    if value is None:
        print("FAIL: no value for %s within 15 s; last answer: %s\nprometheus log:\n%s" % (QUERY, last,
                                                                                      prometheus_log[-3000:]))
        return 1
    if not up or up[0]["value"][1] != "1":
        print("FAIL: up{job=\"chunkforge\"} is not 1: %s" % up)
        return 1
    if not 0 < value < 10:
        print("FAIL: the p90 of unary calls is %g s: not a latency the calls could have had" % value)
        return 1
    print("p90 of unary call latency via Prometheus: %.6f s (%d calls; %.1f s in all)" % (value, counts["calls"],
                                                                                         elapsed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
