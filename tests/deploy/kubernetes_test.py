#!/usr/bin/env python3
# deploy/kubernetes held to the built server: renders every overlay with
# `kubectl kustomize` (CHUNKFORGE_KUBECTL, else kubectl on PATH) and checks that
#  - every CHUNKFORGE_* variable and every flag in the manifests is one chunkforge-server --help
#    lists, and the server accepts their values (--print-config, which checks as start-up does);
#  - the container ports are the ports that configuration listens on, and Services,
#    ServiceMonitor and probes name those ports;
#  - every Secret the pods use is in the overlay or created by the operator as docs/deploy.md
#    says (`kubectl create secret generic NAME --from-...=KEY=`), with the keys used;
#  - the real server, started with the rendered configuration (mounted paths and Secrets replaced
#    by test files; a real PostgreSQL cluster for a postgres:// store; the two listeners moved to
#    free loopback ports), answers the readiness probe (gRPC health, the probe's service) and
#    the liveness probe (HTTP GET) SERVING and 200, /metrics for the ServiceMonitor, and exits 0
#    on SIGTERM; with the database stopped, readiness turns NOT_SERVING and liveness stays 200;
#  - terminationGracePeriodSeconds covers preStop and the server's shutdown limit, and the memory
#    limit the sizing formula of docs/deploy.md.
#
#   kubernetes_test.py SERVER SOURCE_DIR
import os
import sys
import time

import kubernetes_support as k8s
from kubernetes_pod import Pod


class OverlayCheck:
    """One rendered directory's checks; failures() lists what is wrong, each naming the object."""

    def __init__(self, facts, name, objects):
        self.facts, self.name, self.problems = facts, name, []
        self.by_kind = {}
        for item in objects:
            self.by_kind.setdefault(item["kind"], []).append(item)
        deployments = self.by_kind.get("Deployment", [])
        if len(deployments) != 1:
            raise RuntimeError(f"{name}: expected one Deployment, rendered {len(deployments)}")
        self.deployment = deployments[0]
        self.pod = Pod(self.deployment, self.objects("ConfigMap"), self.objects("Secret"), facts["operator_secrets"])

    def objects(self, kind):
        return {item["metadata"]["name"]: item for item in self.by_kind.get(kind, [])}

    def fail(self, message):
        self.problems.append(f"{self.name}: {message}")

    def check_names(self):
        """Every variable and flag the container is given is one the server has."""
        flags, variables = self.facts["flags"], self.facts["variables"]
        for variable, origin in self.pod.variable_origins().items():
            if variable not in variables:
                self.fail(f"{origin} sets {variable}: not a chunkforge-server variable (--help lists them)")
        for argument in self.pod.container.get("args", []):
            flag = argument.split("=", 1)[0]
            if flag.startswith("--") and flag not in flags:
                self.fail(f"args: {flag} is not a chunkforge-server flag")
        command = self.pod.container.get("command")
        if command not in (None, ["chunkforge-server"]):
            self.fail(f"command {command}: the image's entry point is chunkforge-server")

    def check_secrets(self):
        """Each Secret used exists here or is one docs/deploy.md has the operator create."""
        rendered, documented = self.objects("Secret"), self.facts["operator_secrets"]
        for secret, keys in self.pod.secret_uses().items():
            if secret in rendered:
                missing = {key for key in keys if key and key not in rendered[secret].get("data", {})}
            elif secret in documented:
                missing = {key for key in keys if key and key not in documented[secret]}
            else:
                self.fail(f"Secret {secret}: not in the overlay, and docs/deploy.md does not create it "
                          f"(kubectl create secret generic {secret} ...)")
                continue
            for key in sorted(missing):
                self.fail(f"Secret {secret}: key {key} is used but neither rendered nor in docs/deploy.md's command")

    def check_services(self, ports):
        """Services and the ServiceMonitor reach the container's named ports."""
        labels = self.deployment["spec"]["template"]["metadata"]["labels"]
        for name, service in self.objects("Service").items():
            selector = service["spec"].get("selector", {})
            if any(labels.get(key) != value for key, value in selector.items()):
                self.fail(f"Service {name}: selector {selector} does not match the pods' labels {labels}")
            for port in service["spec"]["ports"]:
                if self.pod.port_number(port.get("targetPort", port["port"])) is None:
                    self.fail(f"Service {name}: targetPort {port.get('targetPort')} is no container port")
        for name, monitor in self.objects("ServiceMonitor").items():
            for endpoint in monitor["spec"]["endpoints"]:
                target = self.service_target(endpoint["port"])
                if target != ports["http"]:
                    self.fail(f"ServiceMonitor {name}: port {endpoint['port']} reaches {target}, "
                              f"not the http port {ports['http']}")

    def service_target(self, port_name):
        for service in self.objects("Service").values():
            for port in service["spec"]["ports"]:
                if port.get("name") == port_name:
                    return self.pod.port_number(port.get("targetPort", port["port"]))
        return None

    def check_ports(self, config):
        """Container ports are the configured listeners; returns {"grpc": port, "http": port}."""
        ports = {"grpc": int(config["listen"].rsplit(":", 1)[1])}
        ports["http"] = int(config["http"].rsplit(":", 1)[1]) if config.get("http") else None
        declared = {port.get("name"): port["containerPort"] for port in self.pod.container.get("ports", [])}
        for name, port in ports.items():
            if declared.get(name) != port:
                self.fail(f"container port {name}: {declared.get(name)}, but the server listens on {port}")
        for name, port in declared.items():
            if port not in ports.values():
                self.fail(f"container port {name} ({port}): the server does not listen there")
        return ports

    def check_writable(self):
        """The edit store's directory or SQLite file is on a volume the server may write: the
        root filesystem is read-only."""
        data = self.pod.unmoved.get("CHUNKFORGE_DATA", "")
        store = self.pod.unmoved.get("CHUNKFORGE_STORE", "")
        path = data or (store[len("sqlite:"):] if store.startswith("sqlite:") else "")
        writable = self.pod.writable_mount_paths()
        if path and not any(path == mount or path.startswith(mount.rstrip("/") + "/") for mount in writable):
            self.fail(f"the edit store {path} is on no writable volume (writable: {writable})")

    def check_shutdown_and_size(self, config):
        spec = self.deployment["spec"]["template"]["spec"]
        grace = spec.get("terminationGracePeriodSeconds", 30)
        needed = self.pod.pre_stop_seconds() + self.facts["shutdown_limit"]
        if grace <= needed:
            self.fail(f"terminationGracePeriodSeconds {grace}: preStop and the server's shutdown take up to {needed}")
        limits = self.pod.container.get("resources", {}).get("limits", {})
        memory = mebibytes(limits.get("memory"))
        if memory is None:
            self.fail("no memory limit (docs/deploy.md, \"Sizing\")")
            return
        cache = int(config["cache-mb"])
        budget = int(config["output-budget-mb"]) if "output-budget-mb" in config else min(1024, max(64, memory // 16))
        if memory < cache * 1.1 + 112 + budget:
            needed = cache * 1.1 + 112 + budget
            self.fail(f"memory limit {memory} MiB < cache-mb x 1.1 + 112 + output budget = {needed:.0f} MiB")
        cpu = limits.get("cpu")
        if cpu is not None and int(config["threads"]) > cores(cpu):
            self.fail(f"threads {config['threads']} > the CPU limit {cpu}")


def mebibytes(quantity):
    if quantity is None:
        return None
    units = {"Mi": 1, "Gi": 1024, "M": 1000**2 / 1024**2, "G": 1000**3 / 1024**2}
    for unit, factor in units.items():
        if str(quantity).endswith(unit):
            return int(float(str(quantity)[: -len(unit)]) * factor)
    return int(quantity) // (1 << 20)


def cores(quantity):
    text = str(quantity)
    return float(text[:-1]) / 1000 if text.endswith("m") else float(text)


def run_server(check, root, ports):
    """Starts the real server as the pod would, moved to free ports, and sends the probes."""
    environment, cluster = check.pod.test_environment(root, check.facts["image_env"])
    fresh = {"grpc": k8s.free_port(), "http": k8s.free_port()}
    environment["CHUNKFORGE_LISTEN"] = f"127.0.0.1:{fresh['grpc']}"
    environment["CHUNKFORGE_HTTP"] = f"127.0.0.1:{fresh['http']}"
    server = k8s.ServerProcess(check.facts["server"], environment, os.path.join(root, "server.log"))
    try:
        if not server.wait_serving(fresh["http"]):
            check.fail(f"the server did not serve with the rendered configuration:\n{server.output()}")
            return
        for kind, probe in check.pod.probes().items():
            check_probe(check, kind, probe, ports, fresh)
        for name, monitor in check.objects("ServiceMonitor").items():
            for endpoint in monitor["spec"]["endpoints"]:
                status, body = k8s.http_get(fresh["http"], endpoint.get("path", "/metrics"))
                if status != 200 or "chunkforge_build_info" not in body:
                    check.fail(f"ServiceMonitor {name}: GET {endpoint.get('path')} answered {status}")
        if cluster:
            check_store_outage(check, cluster, fresh)
            cluster = None
    finally:
        code, seconds = server.stop()
        if cluster:
            cluster.stop()
    if code != 0:
        check.fail(f"SIGTERM: the server exited {code} after {seconds:.1f} s:\n{server.output()}")


def check_store_outage(check, cluster, fresh):
    """With the database stopped, readiness must turn NOT_SERVING (the pod leaves the Service)
    while liveness stays 200 (no restart): the probes ask the right questions."""
    cluster.stop()
    probes = check.pod.probes()
    readiness, liveness = probes.get("readinessProbe", {}), probes.get("livenessProbe", {})
    deadline, ready = time.monotonic() + 20, "SERVING"
    while time.monotonic() < deadline and ready == "SERVING":
        time.sleep(0.2)
        ready = k8s.grpc_health(fresh["grpc"], readiness.get("grpc", {}).get("service", ""))
    if ready != "NOT_SERVING":
        check.fail(f"readinessProbe with the database stopped: {ready} after 20 s, not NOT_SERVING")
    if "httpGet" in liveness and k8s.http_get(fresh["http"], liveness["httpGet"].get("path", "/"))[0] != 200:
        check.fail("livenessProbe with the database stopped: not 200 (every pod would restart)")


def check_probe(check, kind, probe, ports, fresh):
    """One probe against the running server: its port must be the listener it asks."""
    if "grpc" in probe:
        port, listener = check.pod.port_number(probe["grpc"]["port"]), "grpc"
        answer = k8s.grpc_health(fresh["grpc"], probe["grpc"].get("service", ""))
        good = answer == "SERVING"
    elif "httpGet" in probe:
        port, listener = check.pod.port_number(probe["httpGet"]["port"]), "http"
        answer = k8s.http_get(fresh["http"], probe["httpGet"].get("path", "/"))[0]
        good = answer == 200
    else:
        check.fail(f"{kind}: only grpc and httpGet probes are checked here")
        return
    if port != ports[listener]:
        check.fail(f"{kind}: port {port} is not the {listener} listener's {ports[listener]}")
    if not good:
        check.fail(f"{kind}: the server answered {answer}")


def check_directory(facts, directory):
    name = os.path.relpath(directory, facts["source"])
    try:
        check = OverlayCheck(facts, name, k8s.render(facts["kubectl"], directory))
    except RuntimeError as error:
        return [f"{name}: {error}"]
    check.check_names()
    check.check_secrets()
    root = k8s.temporary_root()
    try:
        environment, _ = check.pod.test_environment(root, facts["image_env"], start_database=False)
        config = k8s.print_config(facts["server"], environment, check.pod.container.get("args", []))
        check.check_writable()
        ports = check.check_ports(config)
        check.check_services(ports)
        check.check_shutdown_and_size(config)
        if not check.problems:
            run_server(check, root, ports)
    except RuntimeError as error:
        check.fail(str(error))
    finally:
        k8s.remove_tree(root)
    return check.problems


def main(server, source):
    flags, variables = k8s.accepted_options(server)
    facts = {"server": server, "source": source, "kubectl": os.environ.get("CHUNKFORGE_KUBECTL", "kubectl"),
             "flags": flags, "variables": variables,
             "image_env": k8s.dockerfile_environment(os.path.join(source, "docker/Dockerfile")),
             "shutdown_limit": k8s.shutdown_limit_seconds(os.path.join(source, "server/main.cc")),
             "operator_secrets": k8s.operator_secrets(os.path.join(source, "docs/deploy.md"))}
    top = os.path.join(source, "deploy/kubernetes")
    overlays = sorted(os.path.join(top, "overlays", name) for name in os.listdir(os.path.join(top, "overlays")))
    passed = failed = 0
    for directory in overlays:  # the base is not applied alone
        problems = check_directory(facts, directory)
        print(f"{os.path.relpath(directory, top)}: {'ok' if not problems else 'FAILED'}")
        for problem in problems:
            print(f"  {problem}")
        passed, failed = passed + (not problems), failed + bool(problems)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: kubernetes_test.py SERVER SOURCE_DIR")
    sys.exit(main(sys.argv[1], sys.argv[2]))
