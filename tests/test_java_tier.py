"""java-common/bin/java-tier, the one launcher of every Java tier (local processes and images):
the JVM's maximum heap from JVM_HEAP (.env: <TIER>_JVM_HEAP), and a clear stop on a bad one.
A stand-in `java` first on PATH records the command line the launcher would run."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from testbed import ROOT, tiers

LAUNCHER = ROOT / "java-common" / "bin" / "java-tier"


def launch(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess, list[str] | None]:
    bin_dir, argv_file = tmp_path / "bin", tmp_path / "argv"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "java"
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {argv_file}\n')
    fake.chmod(0o755)
    r = subprocess.run(["bash", str(LAUNCHER), "tier.jar"], capture_output=True, text=True, timeout=30,
                       env={"PATH": f"{bin_dir}:{os.environ['PATH']}", **env})
    return r, argv_file.read_text().splitlines() if argv_file.exists() else None


@pytest.mark.parametrize("heap, flag", [(None, "-Xmx512m"), ("1g", "-Xmx1g"), ("768m", "-Xmx768m"),
                                        ("128M", "-Xmx128M")])
def test_the_heap_maximum_comes_from_jvm_heap(tmp_path, heap, flag):
    r, argv = launch(tmp_path, **({"JVM_HEAP": heap} if heap else {}))
    assert r.returncode == 0, r.stderr
    assert [a for a in argv if a.startswith("-Xmx")] == [flag] and argv[-2:] == ["-jar", "tier.jar"]


@pytest.mark.parametrize("heap", ["abc", "1.5g", "64m", "0g", "512", "512k", "-1g"])
def test_a_bad_heap_stops_the_launcher_with_the_fix(tmp_path, heap):
    r, argv = launch(tmp_path, JVM_HEAP=heap)
    assert r.returncode == 2 and argv is None
    assert (f"JVM_HEAP={heap} (TIER_JVM_HEAP in .env): give the maximum heap as megabytes or gigabytes, "
            f"at least 128m") in r.stderr


@pytest.mark.parametrize("tier", sorted(n for n, t in tiers.TIERS.items() if t.java_jar))
def test_each_java_tier_reads_its_own_heap_knob(tier):
    knobs = {f"{p.upper()}_JVM_HEAP": "1g" if p == tier else "256m" for p in tiers.TIERS}
    assert tiers.process_env(tiers.TIERS[tier], 1234, knobs)["JVM_HEAP"] == "1g"
