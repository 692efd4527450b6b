#!/usr/bin/env python3
"""Checks docs/cluster/Containerfile without a container engine, against facts of this machine.

  tests/k8s/check_containerfile.py CONTAINERFILE MANIFEST REPO_ROOT TYCOON IMAGE_DIR

What a build would find out, checked as facts (each failure printed as `FAIL Containerfile: ...`):
  - the base is debian:bookworm-slim and this machine, where build/tycoon was built, is bookworm;
  - every package of its `apt-get install` is in Debian bookworm's archive (apt-cache policy);
  - every library `ldd TYCOON` resolves comes from a package (dpkg -S) that the Containerfile
    installs or that the base has: apt, dpkg or a direct Depends/Pre-Depends of theirs (as
    installed here), which every Debian image holds;
  - every COPY source exists, passes .dockerignore, and is readable by the image's non-root USER;
  - the paths agree with the manifest: WORKDIR is each container's workingDir, the commands'
    build/tycoon is where the binary is copied, ENV TYCOON_DATA is where models/ and hardware_db/
    are (the CLI's default is the checkout it was built in, absent in the image), the image name
    is the tag of the header's `docker build`.
Then it lays out exactly the COPY'd files under IMAGE_DIR as the image's / and prints two lines:
the image's WORKDIR and TYCOON_DATA, mapped under IMAGE_DIR, for the caller to run the manifest's
commands there. Exits 1 after printing every failure (the layout is still made).
"""
import fnmatch
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys

import yaml

BASE_IMAGE = "debian:bookworm-slim"
CODENAME = "bookworm"
# What `tycoon sweep` and `sweep merge` open under the data root (strace of both, and
# sim/data/catalog.cpp, sim/analysis/model_error.cpp); the spec comes from the command line.
DATA_FOLDERS = ("models", "hardware_db")

failures = []


def fail(msg):
    failures.append(msg)


def run(args):
    return subprocess.run(args, capture_output=True, text=True, check=False)


def instructions(path):
    """Returns [(line_number, KEYWORD, rest)], continuation lines joined and comments dropped."""
    out, buf, start = [], "", 0
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            s = line.rstrip("\n")
            if not buf and (not s.strip() or s.lstrip().startswith("#")):
                continue
            if not buf:
                start = n
            if s.endswith("\\"):
                buf += s[:-1] + " "
                continue
            buf += s
            key, _, rest = buf.strip().partition(" ")
            out.append((start, key.upper(), rest.strip()))
            buf = ""
    return out


def apt_packages(run_args):
    """The package names of each `apt-get install` in a RUN line."""
    pkgs = []
    for part in re.split(r"&&|;|\|\|", run_args):
        words = shlex.split(part)
        if len(words) >= 2 and words[0] in ("apt-get", "apt") and "install" in words:
            pkgs += [w for w in words[words.index("install") + 1:] if not w.startswith("-")]
    return pkgs


def in_bookworm(pkgs):
    """The packages apt-cache policy finds in a bookworm suite of the archive."""
    found, current = set(), None
    for line in run(["apt-cache", "policy", *pkgs]).stdout.splitlines():
        if line and not line.startswith(" "):
            current = line.rstrip(":")
        elif current and re.search(r"\s%s(-[a-z]+)?/main\s" % CODENAME, line):
            found.add(current)
    return found


def base_packages():
    """apt, dpkg and their direct Depends and Pre-Depends (as installed on this bookworm machine):
    in every Debian image."""
    base = {"apt", "dpkg"}
    deps = run(["dpkg-query", "-W", "-f", "${Depends},${Pre-Depends},", "apt", "dpkg"]).stdout
    for dep in deps.split(","):
        base.add(dep.split("|")[0].split("(")[0].split(":")[0].strip())  # of a | b, a
    return base - {""}


def library_packages(paths):
    """{path: the Debian package holding that shared library}, for those dpkg -S finds (one call;
    usr-merged paths tried both ways)."""
    tries = {}
    for path in paths:
        real = os.path.realpath(path)
        for p in (path, real, "/usr" + path, "/usr" + real, path.removeprefix("/usr"), real.removeprefix("/usr")):
            tries.setdefault(p, path)
    found = {}
    for line in run(["dpkg", "-S", *tries]).stdout.splitlines():
        pkg, _, p = line.partition(": ")
        if p in tries:
            found.setdefault(tries[p], pkg.split(":")[0].split(",")[0].strip())
    return found


def dockerignored(rel_path, patterns):
    """Whether .dockerignore leaves rel_path out: the last pattern that matches it or a parent wins."""
    parts = rel_path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    out = False
    for negate, pat in patterns:
        if any(fnmatch.fnmatchcase(p, pat) for p in prefixes):
            out = not negate
    return out


def main():
    containerfile, manifest, root, tycoon, image = sys.argv[1:6]
    cf = os.path.relpath(containerfile, root)
    ins = instructions(containerfile)

    froms = [rest for _, key, rest in ins if key == "FROM"]
    if froms != [BASE_IMAGE]:
        fail(f"{cf}: FROM {froms}: expected one stage FROM {BASE_IMAGE} (build/tycoon is a Debian 12 build)")
    osr = dict(line.rstrip("\n").split("=", 1) for line in open("/etc/os-release") if "=" in line)
    if osr.get("VERSION_CODENAME") != CODENAME:
        fail(f"this machine is {osr.get('PRETTY_NAME')}: build/tycoon built here does not fit a {CODENAME} image")

    # The packages: in bookworm, and together with the base they hold every library.
    pkgs = [p for _, key, rest in ins if key == "RUN" for p in apt_packages(rest)]
    missing = sorted(set(pkgs) - in_bookworm(pkgs)) if pkgs else []
    for p in missing:
        fail(f"{cf}: package '{p}' is not in Debian {CODENAME} (apt-cache policy {p}; apt-get update first?)")
    base = base_packages()
    if "libc6" not in base:
        fail("dpkg-query -W apt dpkg gave no dependencies")
    ldd = run(["ldd", tycoon])
    if ldd.returncode != 0:
        fail(f"ldd {tycoon}: {ldd.stderr.strip()}")
    libs = []
    for line in ldd.stdout.splitlines():
        m = re.match(r"\s*(\S+) => (/\S*) \(0x", line)
        if "not found" in line:
            fail(f"ldd {tycoon}: {line.strip()}")
        elif m:
            libs.append((m.group(1), m.group(2)))
    owners = library_packages([path for _, path in libs])
    for lib, path in libs:
        pkg = owners.get(path)
        if pkg is None:
            fail(f"library {lib} ({path}) is in no Debian package: the image cannot have it")
        elif pkg not in base and pkg not in pkgs:
            fail(f"library {lib} comes from package '{pkg}', which {cf} does not install "
                 f"(apt-get install: {' '.join(pkgs) or 'none'}) and the base does not have")

    # The COPYs: sources there, in the build context, readable by the non-root user; the layout.
    ignore_file = os.path.join(root, ".dockerignore")
    patterns = []
    if os.path.exists(ignore_file):
        for line in open(ignore_file, encoding="utf-8"):
            s = line.strip()
            if s and not s.startswith("#"):
                patterns.append((s.startswith("!"), s.lstrip("!").strip("/")))
    workdir, env, user, copies = "/", {}, None, []
    shutil.rmtree(image, ignore_errors=True)
    for n, key, rest in ins:
        if key == "WORKDIR":
            workdir = os.path.join(workdir, rest)
        elif key == "ENV":
            k, _, v = rest.partition("=")
            env[k.strip()] = v.strip().strip('"')
        elif key == "USER":
            user = rest.split(":")[0]
        elif key == "COPY":
            words = [w for w in shlex.split(rest) if not w.startswith("--")]
            *srcs, dest_arg = words
            dest = os.path.normpath(os.path.join(workdir, dest_arg))
            for src in srcs:
                path = os.path.join(root, src)
                if not os.path.exists(path):
                    fail(f"{cf}:{n}: COPY {src}: no {src} in the repository (build it first: scripts/setup.sh)")
                    continue
                files = [path] if os.path.isfile(path) else [
                    os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs]
                rels = [os.path.relpath(f, root) for f in files]
                left_out = [r for r in rels if dockerignored(r, patterns)]
                if left_out:
                    fail(f"{cf}:{n}: COPY {src}: .dockerignore leaves {len(left_out)} of its {len(rels)} "
                         f"files out of the build context ({left_out[0]}, ...)")
                unreadable = [r for r in rels if not os.stat(os.path.join(root, r)).st_mode & stat.S_IROTH]
                if unreadable:
                    fail(f"{cf}:{n}: COPY {src}: {len(unreadable)} files not readable by others, so not by "
                         f"the image's non-root user ({unreadable[0]}, ...)")
                # A folder's contents go into dest; a file to dest, or into it when dest ends in /.
                into = dest_arg.endswith("/") and os.path.isfile(path)
                placed = os.path.join(dest, os.path.basename(src)) if into else dest
                if os.path.isdir(path):
                    shutil.copytree(path, image + placed, dirs_exist_ok=True, symlinks=True)
                else:
                    os.makedirs(os.path.dirname(image + placed), exist_ok=True)
                    shutil.copy2(path, image + placed)
                copies.append((src, placed))
    if user in (None, "0", "root"):
        fail(f"{cf}: {'USER ' + user if user else 'no USER'}: the image must run as a non-root user")
    binary = next((d for s, d in copies if s == "build/tycoon"), None)
    if binary is None:
        fail(f"{cf}: no COPY of build/tycoon")
    elif not os.access(image + binary, os.X_OK) or not os.stat(image + binary).st_mode & stat.S_IXOTH:
        fail(f"{cf}: {binary} is not executable by others")

    # The manifest: same image, workingDir = WORKDIR, its build/tycoon = the copied binary.
    header = open(containerfile, encoding="utf-8").read()
    tag = re.search(r"docker build .*-t (\S+)", header)
    docs = list(yaml.safe_load_all(open(manifest, encoding="utf-8")))
    for d in docs:
        if d["kind"] != "Job":
            continue
        for c in d["spec"]["template"]["spec"]["containers"]:
            where = f"{os.path.relpath(manifest, root)}: job {d['metadata']['name']}, container {c['name']}"
            if not tag or c["image"] != tag.group(1):
                fail(f"{where}: image {c['image']} is not the tag of {cf}'s build command "
                     f"({tag.group(1) if tag else 'no `docker build ... -t TAG` line'})")
            if c.get("workingDir") != workdir:
                fail(f"{where}: workingDir {c.get('workingDir')} differs from {cf}'s WORKDIR {workdir}")
            prog = shlex.split(" ".join(c["args"]).removeprefix("exec "))[0]
            if binary and os.path.normpath(os.path.join(c.get("workingDir") or workdir, prog)) != binary:
                fail(f"{where}: runs {prog} in {c.get('workingDir')}, but {cf} copies build/tycoon to {binary}")
    data = env.get("TYCOON_DATA")
    if not data:
        fail(f"{cf}: no ENV TYCOON_DATA: build/tycoon would look for its data in the checkout it was "
             "built in (compiled in), which the image does not have")
    else:
        for folder in DATA_FOLDERS:
            if (folder, os.path.join(data, folder)) not in copies:
                fail(f"{cf}: no COPY {folder} to TYCOON_DATA/{folder} ({data}/{folder}): "
                     f"`tycoon sweep` reads {folder}/")

    for f in failures:
        print("FAIL Containerfile:", f, file=sys.stderr)
    print(image + workdir)
    print(image + (data or "/nonexistent-TYCOON_DATA"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
