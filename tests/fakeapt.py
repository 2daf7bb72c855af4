"""Fakes for the prerequisite tests (test_prereqs.py): an apt-get that records how it was
called and "installs" a package by creating fake tools and headers in temporary folders, and a
python3 whose venv module is missing until the fake apt-get installs it. Nothing here touches
the host's packages."""
from __future__ import annotations

import os
import stat
from pathlib import Path

# Debian package -> what it puts on the machine: bin/* on PATH, usr/include/* under the sysroot
PROVIDES = {
    "openjdk-17-jdk-headless": ["bin/java"], "maven": ["bin/mvn"], "g++": ["bin/g++"],
    "cmake": ["bin/cmake"], "make": ["bin/make"], "gsoap": ["bin/wsdl2h", "bin/soapcpp2"],
    "libgsoap-dev": ["usr/include/stdsoap2.h"], "libssl-dev": ["usr/include/openssl/ssl.h"],
    "zlib1g-dev": ["usr/include/zlib.h"], "haproxy": ["bin/haproxy"], "wrk": ["bin/wrk"],
    "rpcsvc-proto": ["bin/rpcgen"], "libtirpc-dev": ["usr/include/tirpc/rpc/rpc.h"],
    "nlohmann-json3-dev": ["usr/include/nlohmann/json.hpp"],
}

APT_GET = """#!{python}
# A stand-in for apt-get: records its call, prints apt-like lines, "installs" packages.
import json, os, sys
sys.path.insert(0, {here!r})
from fakeapt import provide
args, verb, pkgs, i = sys.argv[1:], None, [], 0
while i < len(args):
    if args[i] == "-o":
        i += 2
        continue
    if verb is None and not args[i].startswith("-"):
        verb = args[i]
    elif verb == "install" and not args[i].startswith("-"):
        pkgs.append(args[i])
    i += 1
with open(os.environ["FAKE_APT_RECORD"], "a") as f:
    f.write(json.dumps({{"argv": args, "verb": verb, "packages": pkgs, "yes": "-y" in args,
                        "frontend": os.environ.get("DEBIAN_FRONTEND"),
                        "stdin_devnull": os.path.samestat(os.fstat(0), os.stat(os.devnull))}}) + "\\n")
if os.environ.get("FAKE_APT_FAIL") == verb:
    print("E: Unable to locate package " + " ".join(pkgs or ["lists"]))
    sys.exit(100)
if verb == "update":
    print("Hit:1 http://deb.debian.org/debian bookworm InRelease")
    print("Reading package lists... Done")
for p in pkgs:
    print(f"Unpacking {{p}} (1.0) ...")
    print(f"Setting up {{p}} (1.0) ...")
    provide(p, os.environ["FAKE_BIN"], os.environ["FAKE_SYSROOT"])
"""


def provide(pkg: str, fake_bin: str | Path, sysroot: str | Path) -> None:
    """Put what `pkg` provides in place: tools in fake_bin, headers under sysroot; a -venv
    package leaves the marker PYTHON3 looks for, beside fake_bin."""
    fake_bin, sysroot = Path(fake_bin), Path(sysroot)
    if pkg.endswith("-venv"):
        (fake_bin.parent / "venv-installed").touch()
    for item in PROVIDES.get(pkg, []):
        if item.startswith("bin/"):
            tool = fake_bin / item[4:]
            if tool.name == "java":
                body = 'echo \'openjdk version "17.0.15" 2025-04-15\' >&2'
            else:
                body = f'echo "fake {tool.name}: not a build tool" >&2; exit 1'
            tool.write_text(f"#!/bin/sh\n{body}\n")
            tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
        else:
            (sysroot / item).parent.mkdir(parents=True, exist_ok=True)
            (sysroot / item).touch()


PYTHON3 = """#!/bin/sh
# python3 as on Debian without python3-venv: `-m venv` fails until the package is "installed"
if [ "$1" = "-m" ] && [ "$2" = "venv" ] && [ ! -e "{marker}" ]; then
  echo "The virtual environment was not created successfully because ensurepip is not available." >&2
  exit 1
fi
exec {python} "$@"
"""




def install_fakes(fake_bin: Path, python: str, base_python: str) -> None:
    """apt-get (run by `python`) and python3 (delegating to `base_python`) into fake_bin."""
    for name, text in (("apt-get", APT_GET.format(python=python, here=str(Path(__file__).parent))),
                       ("python3", PYTHON3.format(marker=fake_bin.parent / "venv-installed", python=base_python))):
        (fake_bin / name).write_text(text)
        (fake_bin / name).chmod(0o755)
