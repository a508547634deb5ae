# The pod a rendered Deployment would run, read for kubernetes_test.py: its container's
# variables and where each comes from, the Secrets it uses, its ports and probes, and the
# environment to start the real server with on this machine (every mounted path moved into a
# test directory, every Secret replaced by a test value).
import os

import kubernetes_support as k8s

# Stand-ins for the values of Secret keys the pod reads as variables. A key not here fails the
# test with its name, so that a new secret variable gets a real stand-in rather than a guess.
SECRET_VALUE_STAND_INS = {"uri": "postgres"}


class Pod:

    def __init__(self, deployment, config_maps, secrets, operator_secrets):
        self.spec = deployment["spec"]["template"]["spec"]
        containers = self.spec["containers"]
        if len(containers) != 1:
            raise RuntimeError(f"expected one container, the Deployment has {len(containers)}")
        self.container = containers[0]
        self.config_maps, self.secrets, self.operator_secrets = config_maps, secrets, operator_secrets
        self.unmoved = {}  # the last test_environment before mount paths were moved

    def variable_origins(self):
        """{variable: where the manifest sets it}, for every variable the container gets."""
        origins = {}
        for source in self.container.get("envFrom", []):
            if "configMapRef" in source:
                name = source["configMapRef"]["name"]
                if name not in self.config_maps:
                    raise RuntimeError(f"envFrom: ConfigMap {name} is not in the overlay")
                for variable in self.config_maps[name].get("data", {}):
                    origins[variable] = f"ConfigMap {name}"
            if "secretRef" in source:
                name = source["secretRef"]["name"]
                for variable in self.secrets.get(name, {}).get("data", {}):
                    origins[variable] = f"Secret {name}"
        for variable in self.container.get("env", []):
            origins[variable["name"]] = "env"
        return origins

    def secret_uses(self):
        """{Secret name: {keys used}} ("" for a whole Secret) from variables and volumes."""
        uses = {}
        for source in self.container.get("envFrom", []):
            if "secretRef" in source:
                uses.setdefault(source["secretRef"]["name"], set()).add("")
        for variable in self.container.get("env", []):
            reference = variable.get("valueFrom", {}).get("secretKeyRef")
            if reference:
                uses.setdefault(reference["name"], set()).add(reference["key"])
        for volume in self.spec.get("volumes", []):
            sources = [volume["secret"]] if "secret" in volume else []
            sources += [item["secret"] for item in volume.get("projected", {}).get("sources", []) if "secret" in item]
            for secret in sources:
                name = secret.get("secretName", secret.get("name"))
                keys = {item["key"] for item in secret.get("items", [])} or self._files_named_in(volume["name"])
                uses.setdefault(name, set()).update(keys or {""})
        return uses

    def _files_named_in(self, volume_name):
        """The files of volume VOLUME_NAME that the container's variables name (a whole Secret
        mounted: each file is a key)."""
        values = [value for config_map in self.config_maps.values() for value in config_map.get("data", {}).values()]
        values += [variable.get("value", "") for variable in self.container.get("env", [])]
        files = set()
        for mount in self.container.get("volumeMounts", []):
            if mount["name"] == volume_name:
                prefix = mount["mountPath"].rstrip("/") + "/"
                files |= {value[len(prefix):] for value in values if value.startswith(prefix)}
        return files

    def port_number(self, port):
        """A probe's or Service's port (a number or a container port's name) as a container port."""
        for declared in self.container.get("ports", []):
            if port in (declared["containerPort"], declared.get("name")):
                return declared["containerPort"]
        return None

    def probes(self):
        return {kind: self.container[kind] for kind in ("startupProbe", "readinessProbe", "livenessProbe")
                if kind in self.container}

    def pre_stop_seconds(self):
        command = self.container.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command", [])
        return float(command[1]) if len(command) == 2 and command[0] == "sleep" else 0.0

    def writable_mount_paths(self):
        """Mount paths the server may write: emptyDir and claims, not read-only."""
        kinds = {volume["name"]: volume for volume in self.spec.get("volumes", [])}
        return [mount["mountPath"] for mount in self.container.get("volumeMounts", [])
                if not mount.get("readOnly") and
                any(kind in kinds.get(mount["name"], {}) for kind in ("emptyDir", "persistentVolumeClaim"))]

    def test_environment(self, root, image_environment, start_database=True):
        """The container's variables as this machine runs them: (environment, PostgreSQL cluster
        or None). Mount paths become directories under ROOT, Secret files hold test values."""
        mounts = self._mount_directories(root)
        environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **image_environment}
        for source in self.container.get("envFrom", []):
            if "configMapRef" in source:
                environment.update(self.config_maps[source["configMapRef"]["name"]].get("data", {}))
        cluster = None
        for variable in self.container.get("env", []):
            if "value" in variable:
                environment[variable["name"]] = variable["value"]
                continue
            reference = variable.get("valueFrom", {}).get("secretKeyRef")
            if not reference or SECRET_VALUE_STAND_INS.get(reference["key"]) != "postgres":
                raise RuntimeError(f"env {variable['name']}: no test stand-in for {variable.get('valueFrom')}")
            if start_database and cluster is None:
                cluster = k8s.PostgresCluster(os.path.join(root, "postgres"))
            environment[variable["name"]] = cluster.uri() if cluster else "postgres://chunkforge@127.0.0.1:1/postgres"
        self.unmoved = dict(environment)
        for name, value in environment.items():
            environment[name] = moved_path(value, mounts)
        return environment, cluster

    def _mount_directories(self, root):
        """{mount path: test directory}; a Secret volume's directory holds a file for each key."""
        volumes = {volume["name"]: volume for volume in self.spec.get("volumes", [])}
        mounts = {}
        for mount in self.container.get("volumeMounts", []):
            directory = os.path.join(root, "mounts", mount["name"])
            os.makedirs(directory, exist_ok=True)
            secret = volumes.get(mount["name"], {}).get("secret")
            if secret:
                for key in self._secret_keys(secret):
                    with open(os.path.join(directory, key), "w", encoding="utf-8") as file:
                        file.write(f"k8s-test-{key}\n")
            mounts[mount["mountPath"]] = directory
        return mounts

    def _secret_keys(self, secret):
        name = secret["secretName"]
        keys = [item.get("path", item["key"]) for item in secret.get("items", [])]
        keys = keys or list(self.secrets.get(name, {}).get("data", {})) or sorted(self.operator_secrets.get(name, []))
        if not keys:
            raise RuntimeError(f"Secret {name}: mounted, but no key of it is known (rendered or in docs/deploy.md)")
        return keys


def moved_path(value, mounts):
    """VALUE with a leading mount path replaced by its test directory."""
    for mount_path in sorted(mounts, key=len, reverse=True):
        if value == mount_path or value.startswith(mount_path.rstrip("/") + "/"):
            return mounts[mount_path] + value[len(mount_path.rstrip("/")):]
    return value
