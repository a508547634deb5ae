"""A chunkforge-server process for the monitoring tests, and its /metrics page read back.

The server runs on loopback ports it picks itself (reported in its start-up line), with an
SQLite edit store in a temporary directory (--data), so that the edit store's metrics exist.
"""
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request


class MonitoredServer:
    def __init__(self, binary, name):
        self.dir = tempfile.mkdtemp(prefix="chunkforge_%s_" % name)
        self.log_path = os.path.join(self.dir, "server.log")
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [binary, "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--threads", "2", "--cache-mb", "64",
             "--data", os.path.join(self.dir, "data"), "--open-edits"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.port, self.http_port = self._wait_for_ports()

    def _wait_for_ports(self):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            found = re.search(r"on port (\d+) \(http (\d+)\)", self.log_text())
            if found:
                return int(found.group(1)), int(found.group(2))
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("the server did not report its ports:\n" + self.log_text())

    def log_text(self):
        with open(self.log_path) as f:
            return f.read()

    def get(self, path):
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (self.http_port, path), timeout=10) as answer:
            return answer.read().decode()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def sample_names(page):
    """The metric names of a Prometheus text page's samples (a histogram's _bucket, _sum, _count)."""
    names = set()
    for line in page.splitlines():
        if line and not line.startswith("#"):
            names.add(re.match(r"[a-zA-Z_:][a-zA-Z0-9_:]*", line).group(0))
    return names
