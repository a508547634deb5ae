#!/usr/bin/env python3
# The server's floors, held by the build (docs/architecture.md, "The server's floors"): a file
# of server/FOLDER may include the headers of the folders below it that FOLDER's target links,
# and a header of any other folder fails to compile. For every pair of folders this compiles
# (preprocesses) a probe that includes one header of the other folder, with the exact command
# the build uses for a source of the first, and checks that it works if and only if the rule
# below allows it. A link added in server/CMakeLists.txt against the rule, or an include root
# that leaks, fails here.
# Usage: layers_test.py BUILD_DIR SOURCE_DIR (ctest passes both).
import json
import os
import shlex
import subprocess
import sys
import tempfile

# What each folder may include: the folders its target links, directly or through another.
# The architecture's rule, lowest floor first; server/CMakeLists.txt declares the same links.
ALLOWED = {
    "log": set(),
    "startup": set(),
    "auth": set(),
    "budget": {"log"},
    "edits": {"log"},
    "generation": {"edits", "log"},
    "session": {"generation", "edits", "log"},
    "http": {"budget", "log"},
    "metrics": {"generation", "edits", "budget", "log"},
    "rpc": {"session", "generation", "edits", "auth", "metrics", "budget", "log"},
}
# Folders whose headers are included by name alone ("edit_store.h"), through their own targets
# (chunkforge::store, chunkforge::map): probed as includers only. Neither may include any of the
# above.
INCLUDERS_ONLY = {"store": set(), "map": set()}


def compile_command(database, source_dir, folder):
    """The build's command for one source of server/FOLDER, without its output and PCH."""
    prefix = os.path.join(source_dir, "server", folder) + os.sep
    for entry in database:
        path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        if path.startswith(prefix) and path.endswith(".cc"):
            words = shlex.split(entry["command"])
            kept, skip = [], False
            for w in words:
                if skip:
                    skip = False
                    continue
                if w in ("-o", "-c", "-MF", "-MT", "-include"):
                    skip = True
                    continue
                if w in ("-MD", "-Winvalid-pch") or w == entry["file"] or w == path:
                    continue
                kept.append(w)
            return kept, entry["directory"]
    raise SystemExit(f"no source of server/{folder} in compile_commands.json")


def probe_header(source_dir, folder):
    headers = sorted(f for f in os.listdir(os.path.join(source_dir, "server", folder)) if f.endswith(".h"))
    return f"{folder}/{headers[0]}"


def main():
    build_dir, source_dir = sys.argv[1], os.path.abspath(sys.argv[2])
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        database = json.load(f)
    wrong = []
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.cc")
        for folder, allowed in {**ALLOWED, **INCLUDERS_ONLY}.items():
            command, directory = compile_command(database, source_dir, folder)
            for other in ALLOWED:
                if other == folder:
                    continue
                header = probe_header(source_dir, other)
                with open(probe, "w") as f:
                    f.write(f'#include "{header}"\n')
                result = subprocess.run(command + ["-E", "-o", os.devnull, probe], cwd=directory,
                                        capture_output=True, text=True)
                compiles = result.returncode == 0
                if compiles != (other in allowed):
                    wrong.append(f"server/{folder} including {header}: "
                                 f"{'compiles' if compiles else 'fails'}, the rule says "
                                 f"{'allowed' if other in allowed else 'forbidden'}"
                                 + ("" if compiles else f"\n    {result.stderr.strip().splitlines()[0]}"))
    for line in wrong:
        print(line)
    pairs = (len(ALLOWED) + len(INCLUDERS_ONLY) - 1) * len(ALLOWED)
    print(f"layers: {pairs - len(wrong)} of {pairs} pairs as the rule says")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
