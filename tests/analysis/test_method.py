"""The method page (docs/method.md) and the link every finding makes to it (analysis/judge/method.py):
every finding names a section the page has, and a report embeds those sections."""
from __future__ import annotations

import shutil

import method_anchors
import pytest

from analysis.judge import method
from analysis.judge.findings import HOLDS, Finding
from analysis.judge.method import CLONES, SCALING, SEGMENT_LAW
from analysis.load.folder import load
from analysis.summary import analyse

FOLDERS = ("classic-handmade", "segments-handmade", "clones-handmade", "calibration-handmade", "real-sample",
           "predict-handmade")


def _page() -> str:
    return method.PAGE.read_text(encoding="utf-8")


def test_the_page_has_exactly_the_sections_a_finding_can_name_with_their_github_slugs():
    heads = method.headings()
    assert list(heads) == list(method.SECTIONS)
    assert heads[SCALING] == "Scaling an experiment to the host"
    assert heads["rpc-latency-by-transport"] == "RPC latency by transport"


@pytest.mark.parametrize("name", FOLDERS)
def test_every_finding_of_every_sample_folder_names_a_section_of_the_page(name, data, tmp_path):
    folder = tmp_path / name
    shutil.copytree(data / name, folder)              # the prediction writes a cache into its folder
    found = analyse(load(folder), simulate=False).summary["findings"]     # the findings need no simulation
    method_anchors.check(found)
    kind = {f["key"]: f["method"] for f in found}
    if "segment5_dominates" in kind:
        assert kind["segment5_dominates"] in (SEGMENT_LAW, SCALING)
    if "client_tier_linear" in kind:
        assert kind["client_tier_linear"] in (CLONES, SCALING)


def test_a_finding_must_name_a_section_the_page_has():
    with pytest.raises(TypeError):
        Finding("c", "m", "p", HOLDS)                                   # no method named
    with pytest.raises(ValueError, match="not a section of docs/method.md"):
        Finding("c", "m", "p", HOLDS, method="the-segment-laws")
    old = Finding.from_json({"claim": "c", "measured": "m", "published": "", "verdict": HOLDS})
    assert old.method == ""                                             # a summary.json written before


def test_embedded_sections_keep_links_to_each_other_and_say_where_the_rest_is():
    body = method.html([SEGMENT_LAW, CLONES])
    assert '<h3 id="the-segment-law">The segment law</h3>' in body
    assert '<h3 id="clone-scaling-and-the-client-lifecycles">' in body and 'id="ipc-throughput"' not in body
    assert '<a href="#the-segment-law">The segment law</a>' in body          # both embedded: a link
    assert 'href="#scaling-an-experiment-to-the-host"' not in body           # not embedded: its words ...
    assert "Scaling an experiment to the host (docs/method.md)" in body     # ... and where to read it
    assert 'href="predict.md"' not in body and "(docs/predict.md)" in body  # another page of the repository
    assert method.html([]) == ""


def test_a_section_the_page_lacks_is_named_not_dropped(tmp_path):
    page = tmp_path / "method.md"
    page.write_text("# m\n\n## The segment law\n\ntext\n", encoding="utf-8")
    body = method.html([SEGMENT_LAW, CLONES], page)
    assert 'id="the-segment-law"' in body and f"#{CLONES}" in body and "Not in docs/method.md" in body
