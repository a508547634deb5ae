# The real parts kubernetes_test.py holds the manifests to: kubectl's kustomize, what the built
# chunkforge-server accepts (--help, --print-config), the server process itself, a throwaway
# PostgreSQL cluster, and the two probes Kubernetes would send (gRPC health, HTTP GET).
import glob
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import grpc
import yaml


def render(kubectl, directory):
    """The objects `kubectl kustomize DIRECTORY` prints (kustomize v2.0.3 in kubectl 1.20 or a
    newer one), or raises with kubectl's own words."""
    try:
        done = subprocess.run([kubectl, "kustomize", directory], capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise RuntimeError(f"no {kubectl}: install kubectl (Debian's kubernetes-client, a test package in "
                           "scripts/lib/common.sh) or name one in CHUNKFORGE_KUBECTL") from None
    if done.returncode != 0:
        raise RuntimeError(f"{kubectl} kustomize {directory} failed: {done.stderr.strip()}")
    return [document for document in yaml.safe_load_all(done.stdout) if document]


def accepted_options(server):
    """The flags and variables the server's --help lists: {"--cache-mb", ...}, {"CHUNKFORGE_CACHE_MB", ...}."""
    done = subprocess.run([server, "--help"], capture_output=True, text=True, timeout=10)
    if done.returncode != 0:
        raise RuntimeError(f"{server} --help exited {done.returncode}: {done.stderr}")
    flags = set(re.findall(r"^\s+(?:-h,)?(--[a-z][a-z0-9-]*)", done.stdout, re.MULTILINE))
    variables = set(re.findall(r"\(Env:(CHUNKFORGE_[A-Z0-9_]+)\)", done.stdout))
    if len(flags) < 10 or len(variables) < 10:
        raise RuntimeError(f"{server} --help: found only {sorted(flags)} and {sorted(variables)}")
    return flags, variables


def print_config(server, environment, args=()):
    """The server's effective configuration for ENVIRONMENT and ARGS as {key: text}, or raises
    with its error (the server checks every value as it would at start-up)."""
    done = subprocess.run([server, *args, "--print-config"], env=environment, capture_output=True, text=True,
                          timeout=10)
    if done.returncode != 0:
        raise RuntimeError(f"--print-config exited {done.returncode}: {done.stderr.strip()}")
    config = {}
    for line in done.stdout.splitlines():
        match = re.fullmatch(r"([a-z0-9-]+) = (.*)", line)
        if match:
            config[match.group(1)] = match.group(2).strip("'\"")
    return config


def dockerfile_environment(dockerfile):
    """The variables the image's ENV sets: the container starts with them before the manifest's."""
    text = open(dockerfile, encoding="utf-8").read().replace("\\\n", " ")
    environment = {}
    for line in text.splitlines():
        if line.startswith("ENV "):
            environment.update(dict(re.findall(r"(\w+)=(\S*)", line[4:])))
    return environment


def shutdown_limit_seconds(main_cc):
    """kShutdownLimit in server/main.cc: how long SIGTERM may take to end the server."""
    match = re.search(r"kShutdownLimit\{(\d+)\}", open(main_cc, encoding="utf-8").read())
    if not match:
        raise RuntimeError(f"{main_cc}: no kShutdownLimit{{MS}}")
    return int(match.group(1)) / 1000


def operator_secrets(deploy_md):
    """The Secrets docs/deploy.md tells the operator to create: {name: {key, ...}}, from its
    `kubectl create secret generic NAME --from-file=KEY=... --from-literal=KEY=...` commands."""
    text = open(deploy_md, encoding="utf-8").read().replace("\\\n", " ")
    secrets = {}
    for match in re.finditer(r"kubectl create secret generic ([a-z0-9-]+)([^\n]*)", text):
        keys = set(re.findall(r"--from-(?:file|literal)=([A-Za-z0-9._-]+)=", match.group(2)))
        secrets.setdefault(match.group(1), set()).update(keys)
    return secrets


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def http_get(port, path, timeout=2.0):
    """(status, body) of GET http://127.0.0.1:PORT/PATH, or (None, reason) when nothing answered."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as answer:
            return answer.status, answer.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")
    except OSError as error:
        return None, str(error)


def grpc_health(port, service, timeout=3.0):
    """grpc.health.v1.Health/Check for SERVICE, as kubelet's grpc probe asks it: the status name,
    or the RPC's error. The two messages are encoded by hand (field 1, a string; field 1, an enum)."""
    names = {0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"}
    encoded = service.encode()
    request = (b"\x0a" + bytes([len(encoded)]) + encoded) if encoded else b""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        check = channel.unary_unary("/grpc.health.v1.Health/Check")
        try:
            answer = check(request, timeout=timeout)
        except grpc.RpcError as error:
            return f"{error.code().name}: {error.details()}"
    status = answer[1] if len(answer) == 2 and answer[0] == 0x08 else 0
    return names.get(status, f"status {status}")


class ServerProcess:
    """chunkforge-server started with ENVIRONMENT; stop() sends SIGTERM and returns (exit code,
    seconds it took)."""

    def __init__(self, server, environment, log_path):
        self.log = open(log_path, "w+", encoding="utf-8")
        self.process = subprocess.Popen([server], env=environment, stdout=self.log, stderr=subprocess.STDOUT)

    def wait_serving(self, http_port, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            if http_get(http_port, "/healthz", timeout=1)[0] == 200:
                return True
            time.sleep(0.1)
        return False

    def output(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        if self.process.poll() is not None:
            return self.process.returncode, 0.0
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = self.process.wait()
        return code, time.monotonic() - started


class PostgresCluster:
    """A throwaway PostgreSQL cluster on a free loopback port, trust authentication for the user
    "chunkforge" (Debian's initdb and pg_ctl; as root, run as "nobody": PostgreSQL refuses root)."""

    def __init__(self, directory):
        binaries = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        if not binaries:
            raise RuntimeError("no /usr/lib/postgresql/*/bin/initdb: postgresql is a test package")
        self.bin = os.path.dirname(binaries[-1])
        self.dir = directory
        self.port = free_port()
        self.user = "nobody" if os.geteuid() == 0 else None
        os.makedirs(directory, exist_ok=True)
        if self.user:
            account = pwd.getpwnam(self.user)
            os.chown(directory, account.pw_uid, account.pw_gid)
        self._run("initdb", "-D", f"{directory}/data", "-U", "chunkforge", "--auth=trust", "-E", "UTF8", "--no-sync")
        options = f"-p {self.port} -k {directory} -c listen_addresses=127.0.0.1"
        self._run("pg_ctl", "-D", f"{directory}/data", "-o", options, "-l", f"{directory}/server.log", "-w", "start")

    def _run(self, program, *args):
        done = subprocess.run([f"{self.bin}/{program}", *args], capture_output=True, text=True, user=self.user,
                              cwd=self.dir, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{program} failed: {done.stdout}{done.stderr}")

    def uri(self):
        return f"postgres://chunkforge@127.0.0.1:{self.port}/postgres"

    def stop(self):
        self._run("pg_ctl", "-D", f"{self.dir}/data", "-m", "fast", "-w", "stop")


def temporary_root():
    root = tempfile.mkdtemp(prefix="chunkforge_k8s_")
    os.chmod(root, 0o755)  # PostgreSQL, as nobody, reaches its directory inside
    return root


def remove_tree(root):
    shutil.rmtree(root, ignore_errors=True)
