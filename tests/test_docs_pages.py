"""The docs pages stay reference pages: short pages, short lines, short table cells, and links
that resolve. Checked over every docs/**/*.md and README.md; stdlib only.

Each rule is a function over a repository root and the pages' paths, so every rule also has a
self-test on a made-up page in tmp_path that shows it can fail."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

MAX_LINES = 500
MAX_LINES_OF = {"docs/predict.md": 350}
MAX_PROSE = 200
MAX_CELL = 300

FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CELL_SPLIT = re.compile(r"(?<!\\)\|")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def pages(root: Path) -> list[Path]:
    """Every docs/**/*.md and README.md under root, sorted."""
    found = sorted((root / "docs").rglob("*.md")) if (root / "docs").is_dir() else []
    readme = root / "README.md"
    return found + ([readme] if readme.is_file() else [])


def classify(text: str) -> list[tuple[int, str, str]]:
    """(line number, kind, line) for every line: kind is 'code' (a fenced block, fences
    included), 'table' (a row starting with '|') or 'prose'."""
    out, fence = [], None
    for no, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence is not None:
            out.append((no, "code", line))
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not line.strip()[len(m.group(1)):].strip():
                fence = None
            continue
        if m:
            fence = m.group(1)
            out.append((no, "code", line))
        elif line.lstrip().startswith("|"):
            out.append((no, "table", line))
        else:
            out.append((no, "prose", line))
    return out


def rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def too_long_pages(root: Path, paths: list[Path]) -> list[str]:
    bad = []
    for p in paths:
        n = len(p.read_text(encoding="utf-8").splitlines())
        limit = MAX_LINES_OF.get(rel(root, p), MAX_LINES)
        if n > limit:
            bad.append(f"{rel(root, p)}: {n} lines (at most {limit})")
    return bad


def long_prose_lines(root: Path, paths: list[Path]) -> list[str]:
    bad = []
    for p in paths:
        for no, kind, line in classify(p.read_text(encoding="utf-8")):
            if kind == "prose" and len(line) > MAX_PROSE:
                bad.append(f"{rel(root, p)}:{no}: {len(line)} characters")
    return bad


def table_cells(row: str) -> list[str]:
    """A table row's cells, split on '|' not escaped with a backslash."""
    cells = CELL_SPLIT.split(row.strip())
    if cells and not cells[0].strip():
        cells = cells[1:]
    if cells and not cells[-1].strip():
        cells = cells[:-1]
    return [c.strip() for c in cells]


def long_table_cells(root: Path, paths: list[Path]) -> list[str]:
    bad = []
    for p in paths:
        for no, kind, line in classify(p.read_text(encoding="utf-8")):
            if kind != "table":
                continue
            for i, cell in enumerate(table_cells(line), 1):
                if len(cell) > MAX_CELL:
                    bad.append(f"{rel(root, p)}:{no}: cell {i} has {len(cell)} characters")
    return bad


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase; drop every character other than letters,
    digits, spaces, hyphens and underscores; spaces become hyphens."""
    kept = "".join(ch for ch in heading.lower() if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings (outside code blocks); a repeated slug gets -1, -2 …"""
    seen: dict[str, int] = {}
    out = set()
    for _, kind, line in classify(text):
        if kind != "prose":
            continue
        m = HEADING.match(line)
        if not m:
            continue
        slug = github_slug(m.group(2))
        if slug in seen:
            seen[slug] += 1
            out.add(f"{slug}-{seen[slug]}")
        else:
            seen[slug] = 0
            out.add(slug)
    return out


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every inline link or image outside code."""
    out = []
    for no, kind, line in classify(text):
        if kind == "code":
            continue
        for m in LINK.finditer(INLINE_CODE.sub("", line)):
            out.append((no, m.group(1)))
    return out


def broken_links(root: Path, paths: list[Path]) -> list[str]:
    bad = []
    cache: dict[Path, set[str]] = {}
    for p in paths:
        text = p.read_text(encoding="utf-8")
        for no, target in links(text):
            if SCHEME.match(target):
                continue                      # http:, https:, mailto: … are not checked here
            path_part, _, anchor = target.partition("#")
            dest = (p.parent / path_part).resolve() if path_part else p.resolve()
            where = f"{rel(root, p)}:{no}: {target}"
            # docs/method.md is being written elsewhere: links into it are skipped only while
            # the file is absent, and checked (file and anchor) as soon as it lands.
            if dest.name == "method.md" and not dest.exists():
                continue
            try:
                dest.relative_to(root.resolve())
            except ValueError:
                bad.append(f"{where}: outside the repository")
                continue
            if not dest.exists():
                bad.append(f"{where}: no such file")
                continue
            if anchor and dest.suffix == ".md":
                if dest not in cache:
                    cache[dest] = anchors(dest.read_text(encoding="utf-8"))
                if anchor not in cache[dest]:
                    bad.append(f"{where}: no heading with that anchor")
    return bad


# ---- the repository's pages ----------------------------------------------------------------

def test_the_pages_checked_include_the_docs_and_the_readme():
    found = [rel(ROOT, p) for p in pages(ROOT)]
    assert "README.md" in found and "docs/predict.md" in found


def test_no_page_is_longer_than_500_lines_and_predict_md_not_longer_than_350():
    assert too_long_pages(ROOT, pages(ROOT)) == []


def test_no_prose_line_is_longer_than_200_characters():
    assert long_prose_lines(ROOT, pages(ROOT)) == []


def test_no_table_cell_is_longer_than_300_characters():
    assert long_table_cells(ROOT, pages(ROOT)) == []


def test_every_relative_link_resolves_to_a_file_and_heading():
    assert broken_links(ROOT, pages(ROOT)) == []


# ---- each check can fail --------------------------------------------------------------------

def _site(tmp_path: Path, files: dict[str, str]) -> list[Path]:
    for name, text in files.items():
        f = tmp_path / name
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
    return pages(tmp_path)


def test_a_page_of_501_lines_is_reported_and_one_of_500_is_not(tmp_path):
    paths = _site(tmp_path, {"docs/long.md": "x\n" * 501, "docs/ok.md": "x\n" * 500})
    assert too_long_pages(tmp_path, paths) == ["docs/long.md: 501 lines (at most 500)"]


def test_predict_md_of_351_lines_is_reported(tmp_path):
    paths = _site(tmp_path, {"docs/predict.md": "x\n" * 351})
    assert too_long_pages(tmp_path, paths) == ["docs/predict.md: 351 lines (at most 350)"]


def test_a_201_character_prose_line_is_reported_with_file_and_line(tmp_path):
    text = "# Title\n\n" + "a" * 200 + "\n" + "b" * 201 + "\n"
    paths = _site(tmp_path, {"docs/page.md": text})
    assert long_prose_lines(tmp_path, paths) == ["docs/page.md:4: 201 characters"]


def test_long_lines_in_code_blocks_and_table_rows_are_not_prose(tmp_path):
    text = "```\n" + "c" * 300 + "\n```\n| a | " + "t" * 250 + " |\n"
    paths = _site(tmp_path, {"docs/page.md": text})
    assert long_prose_lines(tmp_path, paths) == []


def test_a_301_character_table_cell_is_reported(tmp_path):
    text = "| a | b |\n|---|---|\n| short | " + "c" * 301 + " |\n| x | " + "d" * 300 + " |\n"
    paths = _site(tmp_path, {"README.md": text})
    assert long_table_cells(tmp_path, paths) == ["README.md:3: cell 2 has 301 characters"]


def test_an_escaped_pipe_does_not_split_a_cell():
    assert table_cells(r"| a \| b | c |") == [r"a \| b", "c"]


def test_github_slug_follows_githubs_rule():
    assert github_slug("The segment law") == "the-segment-law"
    assert github_slug("Scaling an experiment to the host") == "scaling-an-experiment-to-the-host"
    assert github_slug("Background CPU: U = U₀ + D·X") == "background-cpu-u--u₀--dx"
    assert github_slug("`predict` --target, and snake_case") == "predict---target-and-snake_case"


def test_repeated_headings_get_numbered_anchors():
    assert anchors("# A\n## A\n```\n# B\n```\n") == {"a", "a-1"}


def test_a_link_to_a_missing_file_or_heading_is_reported(tmp_path):
    paths = _site(tmp_path, {
        "docs/a.md": "# A\n\n[ok](b.md#the-heading) [self](#a) [web](https://example.com)\n"
                     "[gone](missing.md) [bad anchor](b.md#nowhere) `[code](nope.md)`\n",
        "docs/b.md": "# B\n\n## The heading\n",
    })
    assert broken_links(tmp_path, paths) == [
        "docs/a.md:4: missing.md: no such file",
        "docs/a.md:4: b.md#nowhere: no heading with that anchor",
    ]


def test_links_to_method_md_are_skipped_while_it_is_absent_and_checked_once_it_exists(tmp_path):
    paths = _site(tmp_path, {"docs/a.md": "[m](method.md#the-segment-law)\n"})
    assert broken_links(tmp_path, paths) == []
    paths = _site(tmp_path, {"docs/method.md": "# Method\n\n## Another\n"})
    assert broken_links(tmp_path, paths) == [
        "docs/a.md:1: method.md#the-segment-law: no heading with that anchor"]


@pytest.mark.parametrize("target", ["../README.md", "predict.md#predicting-before-measuring"])
def test_links_from_the_docs_resolve_relative_to_the_page(tmp_path, target):
    paths = _site(tmp_path, {"README.md": "# R\n", "docs/predict.md": "# Predicting before measuring\n",
                             "docs/a.md": f"[x]({target})\n"})
    assert broken_links(tmp_path, paths) == []
