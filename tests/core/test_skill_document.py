"""Protected regions, frontmatter and hashing of the skill document."""

from __future__ import annotations

import pytest

from skillopt_core.skill import (
    Region,
    editable_spans,
    get_protected,
    protected_regions,
    set_protected,
    skill_hash,
    split_frontmatter,
    strip_frontmatter,
)

DOC = """---
name: qa
---
# Skill

- Answer briefly.

<!-- skillopt:protected slow_update -->
Keep answers short.
<!-- /skillopt:protected slow_update -->
"""


def test_protected_regions_span_marker_lines() -> None:
    (region,) = protected_regions(DOC)
    assert region.name == "slow_update"
    assert DOC[region.start :].startswith("<!-- skillopt:protected slow_update -->")
    assert DOC[region.start : region.end].endswith("<!-- /skillopt:protected slow_update -->\n")
    assert region.end == len(DOC)
    assert region.closed


def test_marker_not_alone_on_its_line_is_plain_text() -> None:
    text = "see <!-- skillopt:protected x --> here\n"
    assert protected_regions(text) == []


def test_unclosed_region_runs_to_the_end() -> None:
    text = "a\n<!-- skillopt:protected x -->\nb\n"
    (region,) = protected_regions(text)
    assert (region.start, region.end) == (2, len(text))
    assert not region.closed
    assert editable_spans(text) == [(0, 2)]


def test_close_marker_must_match_the_name() -> None:
    text = "<!-- skillopt:protected a -->\n<!-- /skillopt:protected b -->\nc\n"
    assert protected_regions(text) == [Region("a", 0, len(text), 30, len(text))]


def test_editable_spans_exclude_frontmatter_and_regions() -> None:
    spans = editable_spans(DOC)
    front, _ = split_frontmatter(DOC)
    (region,) = protected_regions(DOC)
    assert spans == [(len(front), region.start)]


def test_frontmatter_split_and_strip() -> None:
    front, body = split_frontmatter(DOC)
    assert front == "---\nname: qa\n---\n"
    assert front + body == DOC
    assert strip_frontmatter(DOC) == body
    assert split_frontmatter("# no frontmatter\n---\n") == ("", "# no frontmatter\n---\n")
    assert split_frontmatter("---\n---\nbody") == ("---\n---\n", "body")


def test_markers_inside_frontmatter_are_ignored() -> None:
    text = "---\nx: <!-- skillopt:protected a -->\n---\nbody\n"
    assert protected_regions(text) == []


def test_get_protected() -> None:
    assert get_protected(DOC, "slow_update") == "Keep answers short."
    assert get_protected(DOC, "missing") is None
    empty = "<!-- skillopt:protected e -->\n<!-- /skillopt:protected e -->\n"
    assert get_protected(empty, "e") == ""


def test_set_protected_replaces_existing_body() -> None:
    out = set_protected(DOC, "slow_update", "Line one.\nLine two.\n")
    assert get_protected(out, "slow_update") == "Line one.\nLine two."
    assert out.startswith(DOC[: protected_regions(DOC)[0].start])
    assert set_protected(out, "slow_update", "Keep answers short.") == DOC


def test_set_protected_appends_new_block() -> None:
    out = set_protected(DOC, "meta", "notes")
    assert out.startswith(DOC)
    assert [r.name for r in protected_regions(out)] == ["slow_update", "meta"]
    assert get_protected(out, "meta") == "notes"
    assert set_protected("", "meta", "") == (
        "<!-- skillopt:protected meta -->\n<!-- /skillopt:protected meta -->\n"
    )


def test_set_protected_closes_an_unclosed_region() -> None:
    out = set_protected("a\n<!-- skillopt:protected x -->\nb", "x", "c")
    assert out == "a\n<!-- skillopt:protected x -->\nc\n<!-- /skillopt:protected x -->\n"


@pytest.mark.parametrize("name", ["", "two words", "a-->"])
def test_set_protected_rejects_bad_names(name: str) -> None:
    with pytest.raises(ValueError):
        set_protected(DOC, name, "x")


def test_set_protected_rejects_marker_in_body() -> None:
    with pytest.raises(ValueError):
        set_protected(DOC, "x", "<!-- /skillopt:protected slow_update -->")


def test_skill_hash_is_short_and_content_addressed() -> None:
    assert len(skill_hash(DOC)) == 16
    assert skill_hash(DOC) == skill_hash(str(DOC))
    assert skill_hash(DOC) != skill_hash(DOC + " ")
    assert skill_hash("") == "e3b0c44298fc1c14"
