"""Build what is missing or stale: the Java reactor with Maven, the C++ tree with CMake.
Each build's full output goes to a log; progress lines are shown as it runs."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

from testbed import ROOT, tiers

STATE = ROOT / ".testbed" / "build"
JAVA_INPUTS = ["pom.xml", "java-common", "services/contract", "services/axis", "services/front",
               "client-clones", "studies/servers", "studies/serialization", "services/zipkin"]
NATIVE_INPUTS = ["CMakeLists.txt", "services/gsoap", "services/contract/testbed.wsdl",
                 "studies/serialization"]
STUDY_JARS = [ROOT / "studies" / "serialization" / "target" / "serialization-study.jar"]
JAVA_OUTPUTS = ([tiers.CONTRACT_JAR, tiers.JMX_AGENT, tiers.ZIPKIN_JAR]
                + [t.artifact() for t in tiers.TIERS.values() if t.java_jar] + STUDY_JARS)


class BuildError(RuntimeError):
    pass


def _fingerprint(inputs: list[str]) -> str:
    h = hashlib.sha256()
    for rel in inputs:
        base = ROOT / rel
        files = [base] if base.is_file() else sorted(
            p for p in base.rglob("*") if p.is_file() and "target" not in p.relative_to(base).parts)
        for p in files:
            st = p.stat()
            h.update(f"{p.relative_to(ROOT)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _run(name: str, argv: list[str], progress) -> None:
    log = STATE / f"{name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    print(f"build: {name}: {' '.join(argv)}  (log: {log.relative_to(ROOT)})", flush=True)
    with open(log, "w") as out:
        p = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in p.stdout:
            out.write(line)
            if progress(line):
                print(f"  {line.rstrip()}", flush=True)
        rc = p.wait()
    if rc != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-25:])
        raise BuildError(f"{name} failed (exit {rc}); last lines of {log}:\n{tail}")
    print(f"build: {name}: done in {time.monotonic() - t0:.0f}s", flush=True)


def _maven_progress(line: str) -> bool:
    return line.startswith(("[INFO] Building ", "[ERROR]", "[INFO] BUILD", "Tests run:")) or \
        ("Tests run:" in line and "Time elapsed" not in line)


def java(force: bool = False, run_tests: bool = False) -> None:
    """mvn package (with the unit tests when run_tests), skipped when no input changed; when
    only the tests are missing (built by `./testbed build`, nothing changed since), mvn test:
    the jars are not made a second time."""
    built, tested = STATE / "java.stamp", STATE / "java-tested.stamp"
    fp = _fingerprint(JAVA_INPUTS)
    done = [tested] if run_tests else [built, tested]
    current = all(p.exists() for p in JAVA_OUTPUTS)
    if not force and current and any(s.exists() and s.read_text() == fp for s in done):
        print("build: Java modules up to date" + (" and tested" if run_tests else ""))
        return
    if run_tests:
        only_tests = not force and current and built.exists() and built.read_text() == fp
        goals = ["test"] if only_tests else ["package"]
    else:
        goals = ["package", "-DskipTests"]
    _run("maven", ["mvn", "-B", "-ntp", *goals], _maven_progress)
    for s in [built, tested] if run_tests else [built]:
        s.parent.mkdir(parents=True, exist_ok=True)
        s.write_text(fp)


def native(force: bool = False) -> None:
    build_dir = ROOT / "build"
    if force or not (build_dir / "CMakeCache.txt").exists():
        _run("cmake-configure", ["cmake", "-S", ".", "-B", "build", "-DCMAKE_BUILD_TYPE=Release"],
             lambda line: "Error" in line)
    jobs = str(max(1, min(os.cpu_count() or 2, 4)))
    _run("cmake-build", ["cmake", "--build", "build", "-j", jobs],
         lambda line: "error" in line.lower() or "Built target" in line)


def all_(force: bool = False, run_tests: bool = False) -> None:
    native(force)
    java(force, run_tests)


def ensure(names: list[str], tracing: bool = False) -> None:
    """Build only if an artifact the named tiers need is missing (tracing: Zipkin's jar too)."""
    need = [n for n in names if not tiers.TIERS[n].built()] + (["zipkin"] if tracing and not tiers.ZIPKIN_JAR.exists() else [])
    if not need:
        return
    print(f"build: {', '.join(need)} not built yet; building", flush=True)
    try:
        if any(n in tiers.TIERS and tiers.TIERS[n].native for n in need):
            native()
        if any(n == "zipkin" or tiers.TIERS[n].java_jar for n in need):
            java()
    except BuildError as e:
        print(str(e), file=sys.stderr)
        raise SystemExit(1)
