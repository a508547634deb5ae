#!/usr/bin/python3
"""Every metric a panel of deploy/monitoring/grafana-dashboard.json names is one a real server
exports (docs/deploy.md, "Watching: /metrics"), and every rule of alerts.yml names only such
metrics too; the server's page, edit store's metrics included, passes `promtool check metrics`.

Usage: dashboard_test.py CHUNKFORGE_SERVER SOURCE_DIR
"""
import json
import os
import re
import subprocess
import sys

from monitored_server import MonitoredServer, sample_names

# PromQL words that are not metric names, and Grafana's variables.
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "and", "or", "unless",
            "inf", "nan"}


def metric_names(expr):
    """The metric names a PromQL expression reads: its identifiers, less label matchers, label
    lists of by/without/on/ignoring, ranges, strings, function names and keywords."""
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # strings (a matcher's regex)
    expr = re.sub(r"\{[^}]*\}", "", expr)  # label matchers
    expr = re.sub(r"\[[^\]]*\]", "", expr)  # ranges, Grafana's $__rate_interval
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", expr)
    names = set()
    for m in re.finditer(r"(?<![\w$.])([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\()?", expr):
        if m.group(2) is None and m.group(1).lower() not in KEYWORDS:
            names.add(m.group(1))
    return names


def dashboard_exprs(path):
    with open(path) as f:
        dashboard = json.load(f)
    for panel in dashboard["panels"]:
        for target in panel.get("targets", []):
            yield panel["title"], target["expr"]


def rule_exprs(path):
    """The expressions of alerts.yml, read without a YAML library: each `expr:` value, on its line
    or as the indented block after `expr: |`."""
    lines = open(path).read().splitlines()
    for i, line in enumerate(lines):
        found = re.match(r"(\s*)expr:\s*(.*)$", line)
        if not found:
            continue
        if found.group(2) not in ("|", ">", "|-", ">-"):
            yield "rule at line %d" % (i + 1), found.group(2)
            continue
        block = []
        for more in lines[i + 1:]:
            if more.strip() and len(more) - len(more.lstrip()) <= len(found.group(1)):
                break
            block.append(more)
        yield "rule at line %d" % (i + 1), "\n".join(block)


def check_self():
    """The extraction finds what it must: a test that could pass by finding nothing cannot."""
    got = metric_names('histogram_quantile(0.9, sum by (le, method) (rate(chunkforge_call_seconds_bucket'
                       '{instance=~"$instance",code!~"OK|X"}[$__rate_interval]))) / on (instance) up_total offset 5m')
    assert got == {"chunkforge_call_seconds_bucket", "up_total"}, got


def main():
    binary, source = sys.argv[1], sys.argv[2]
    check_self()
    monitoring = os.path.join(source, "deploy", "monitoring")
    with MonitoredServer(binary, "dashboard") as server:
        server.get("/healthz")  # so that the side port's response counts have a sample
        page = server.get("/metrics")
        exported = sample_names(page)
    lint = subprocess.run(["promtool", "check", "metrics"], input=page, capture_output=True, text=True)
    failures = []
    if lint.returncode != 0 or lint.stdout or lint.stderr:
        failures.append("promtool check metrics: " + lint.stdout + lint.stderr)
    used = 0
    sources = [(os.path.join(monitoring, "grafana-dashboard.json"), dashboard_exprs),
               (os.path.join(monitoring, "alerts.yml"), rule_exprs)]
    for path, exprs in sources:
        for where, expr in exprs(path):
            names = metric_names(expr)
            if not names:
                failures.append("%s: %s: no metric in %r" % (os.path.basename(path), where, expr))
            for name in sorted(names - exported):
                failures.append("%s: %s: %s is not exported" % (os.path.basename(path), where, name))
            used += len(names)
    for f in failures:
        print("FAIL", f)
    print("%d metric references checked against %d exported names" % (used, len(exported)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
