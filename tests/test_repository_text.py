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


# a path of the repository as docs, docstrings and comments write it: from a top-level folder to a
# file with an extension (no placeholders such as <kind> or *); tests' own made-up pages are not read
NAMED_PATH = re.compile(r"(?<![\w./<-])((?:cli|analysis|tests|loadgen|services|docs|studies|client-clones|java-common|docker)"
                        r"/[\w./-]+\.(?:py|md|toml|j2|sh|yml|java|cpp|hpp|h|c|xml|css|json|in|txt))(?![\w<*])")


def named_paths(text: str) -> list[str]:
    return [m.group(1).rstrip(".") for m in NAMED_PATH.finditer(text)]


def test_a_named_path_is_found_in_text():
    text = "see cli/testbed/stacks/local.py, analysis/<stage>/x.py and (docs/method.md)."
    assert named_paths(text) == ["cli/testbed/stacks/local.py", "docs/method.md"]


@pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None,
                    reason="needs a git checkout (the tracked files)")
def test_every_file_path_the_repository_names_exists():
    """A file moved or renamed leaves no text pointing at its old place (docs, comments, docstrings,
    Dockerfiles, experiment files)."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    stale = []
    for name in tracked:
        path = ROOT / name
        if path.suffix in (".png", ".jar", ".gz") or name.startswith("tests/test_") or not path.is_file():
            continue
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        stale += [f"{name}: {p}" for p in named_paths(text) if not (ROOT / p).exists()]
    assert stale == [], "paths that no longer exist:\n" + "\n".join(stale)
