"""The repository stands on its own: nothing in it points outside it (a method file or a folder that
only the project's authors had), and nothing is numbered by a work log a reader cannot look up
(a "stop" or an "issue" followed by its number). Read with `git grep` over the tracked text files; each pattern is also
checked against a line that must match it, so a pattern that matches nothing cannot pass."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from testbed import ROOT

# written so that this file does not match them
OUTSIDE = "EXPERIMENTS" + r"\.md|\.\./shared"
WORK_LOG = r"\b(stops?|issues?) [0-9]"
CHECKS = [
    ("files outside the repository", OUTSIDE, False, "see " + "EXPERIMENTS" + ".md §2, or ../" + "shared/ci"),
    ("work-log numbering", WORK_LOG, True, "measured since St" + "op 41 (Issue" + " 19)"),
]


def _git_grep(pattern: str, ignore_case: bool) -> list[str]:
    argv = ["git", "grep", "-n", "-I", "-E", *(["-i"] if ignore_case else []), pattern, "--", ".", ":!*.png"]
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    if r.returncode not in (0, 1):                     # 1: no match
        raise RuntimeError(r.stderr)
    return r.stdout.splitlines()


@pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None,
                    reason="needs a git checkout (the tracked files)")
@pytest.mark.parametrize("what, pattern, ignore_case, example", CHECKS, ids=[c[0] for c in CHECKS])
def test_no_tracked_text_matches(what, pattern, ignore_case, example):
    assert re.search(pattern, example, re.I if ignore_case else 0), "the pattern must match its own example"
    found = _git_grep(pattern, ignore_case)
    assert found == [], f"{what}:\n" + "\n".join(line[:200] for line in found[:20])
