"""README.md's layout tree cannot go stale: every entry exists, and every top-level folder
the repository tracks is in it."""
from __future__ import annotations

import re
import subprocess

from testbed import ROOT


def layout_entries() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Layout\s+```\n(.*?)```", text, re.S).group(1)
    paths, parent = [], ""
    for line in block.splitlines():
        name = line.split()[0] if line.strip() else ""
        if not name:
            continue
        if line.startswith("  "):
            paths.append(parent + name)
        else:
            parent = name if name.endswith("/") else ""
            paths.append(name)
    return paths


def test_every_path_in_the_readme_layout_exists():
    missing = [p for p in layout_entries() if not (ROOT / p).exists()]
    assert missing == []


def test_every_tracked_top_level_folder_is_in_the_readme_layout():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    folders = {p.split("/")[0] + "/" for p in tracked if "/" in p and not p.startswith(".")}
    assert folders - set(layout_entries()) == set()
