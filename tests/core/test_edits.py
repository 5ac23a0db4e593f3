"""Example-based tests of applying add / delete / replace edits."""

from __future__ import annotations

from skillopt_core.records import Edit, EditOp
from skillopt_core.skill import apply_edits, find_anchor, protected_signature

DOC = """---
name: qa
---
# QA skill

## Rules

- Answer briefly.
- Cite the passage.

Some paragraph
continues here.

<!-- skillopt:protected slow_update -->
Keep answers short.
<!-- /skillopt:protected slow_update -->
"""


def add(anchor: str, content: str) -> Edit:
    return Edit(EditOp.ADD, anchor, content)


def apply_one(edit: Edit, text: str = DOC) -> tuple[str, bool, str]:
    report = apply_edits(text, [edit])
    (outcome,) = report.outcomes
    if not outcome.applied:
        assert report.text == text
    return report.text, outcome.applied, outcome.reason


def test_empty_batch_is_identity() -> None:
    report = apply_edits(DOC, [])
    assert report.text == DOC
    assert report.outcomes == ()


def test_add_at_end_goes_before_trailing_protected_region() -> None:
    for anchor in ("", "END", "  "):
        text, applied, _ = apply_one(add(anchor, "New rule."))
        assert applied
        assert "continues here.\n\nNew rule.\n\n<!-- skillopt:protected" in text


def test_add_at_end_without_protected_region() -> None:
    text, applied, _ = apply_one(add("", "- b"), "- a\n")
    assert applied and text == "- a\n- b\n"
    text, applied, _ = apply_one(add("", "para"), "- a")
    assert applied and text == "- a\n\npara\n"
    text, applied, _ = apply_one(add("", "first"), "")
    assert applied and text == "first\n"


def test_add_at_end_when_a_region_is_not_trailing() -> None:
    text = "<!-- skillopt:protected p -->\nx\n<!-- /skillopt:protected p -->\nbody\n"
    out, applied, _ = apply_one(add("", "more"), text)
    assert applied and out == text + "\nmore\n"


def test_add_bullet_after_bullet_joins_the_list() -> None:
    text, applied, _ = apply_one(add("Answer briefly.", "- Quote exact words."))
    assert applied
    assert "- Answer briefly.\n- Quote exact words.\n- Cite the passage.\n" in text


def test_add_bullet_after_bullet_skips_nested_lines() -> None:
    doc = "- alpha\n  - detail\n- beta\n"
    out, applied, _ = apply_one(add("alpha", "- new"), doc)
    assert applied and out == "- alpha\n  - detail\n- new\n- beta\n"


def test_add_paragraph_after_paragraph() -> None:
    text, applied, _ = apply_one(add("Some paragraph", "Another paragraph."))
    assert applied
    assert "continues here.\n\nAnother paragraph.\n\n<!--" in text


def test_add_paragraph_after_list_item_goes_after_the_list() -> None:
    text, applied, _ = apply_one(add("Answer briefly.", "Plain note."))
    assert applied
    assert "- Cite the passage.\n\nPlain note.\n\nSome paragraph" in text


def test_add_after_heading_goes_first_in_its_section() -> None:
    text, applied, _ = apply_one(add("## Rules", "- First rule."))
    assert applied
    assert "## Rules\n\n- First rule.\n- Answer briefly." in text


def test_add_multiline_content_trims_blank_edges() -> None:
    text, applied, _ = apply_one(add("END", "\n\nLine one.\nLine two.\n\n"), "x\n")
    assert applied and text == "x\n\nLine one.\nLine two.\n"


def test_add_duplicate_is_skipped() -> None:
    for content in (
        "- Answer briefly.",
        "Answer   briefly.",
        "- Answer briefly.\n- Cite the passage.",
    ):
        _, applied, reason = apply_one(add("", content))
        assert not applied and reason.startswith("duplicate")


def test_short_content_that_is_only_a_substring_is_not_a_duplicate() -> None:
    _, applied, _ = apply_one(add("", "Answer"))
    assert applied


def test_empty_content_is_skipped() -> None:
    for op in (EditOp.ADD, EditOp.REPLACE):
        _, applied, reason = apply_one(Edit(op, "Answer briefly.", "  \n"))
        assert not applied and reason == "empty content"


def test_content_with_marker_is_skipped() -> None:
    content = "<!-- /skillopt:protected slow_update -->"
    _, applied, reason = apply_one(add("", content))
    assert not applied and "marker" in reason


def test_delete_whole_bullet_removes_its_line() -> None:
    text, applied, _ = apply_one(Edit(EditOp.DELETE, "Cite the passage."))
    assert applied
    assert "- Answer briefly.\n\nSome paragraph" in text


def test_delete_paragraph_removes_the_blank_line_it_leaves() -> None:
    text, applied, _ = apply_one(Edit(EditOp.DELETE, "Some paragraph\ncontinues here."))
    assert applied
    assert "- Cite the passage.\n\n<!-- skillopt:protected" in text


def test_delete_first_and_last_lines() -> None:
    out, applied, _ = apply_one(Edit(EditOp.DELETE, "# Title"), "# Title\n\nbody\n")
    assert applied and out == "body\n"
    out, applied, _ = apply_one(Edit(EditOp.DELETE, "tail"), "body\n\ntail")
    assert applied and out == "body\n"


def test_delete_part_of_a_line() -> None:
    doc = "- Check units and cite sources.\n"
    out, applied, _ = apply_one(Edit(EditOp.DELETE, "and cite sources"), doc)
    assert applied and out == "- Check units.\n"


def test_replace_swaps_anchor_for_content() -> None:
    text, applied, _ = apply_one(Edit(EditOp.REPLACE, "Answer briefly.", "Answer in one sentence."))
    assert applied
    assert "- Answer in one sentence.\n- Cite the passage." in text
    assert text.count("Answer briefly.") == 0


def test_replace_with_same_text_is_no_change() -> None:
    _, applied, reason = apply_one(Edit(EditOp.REPLACE, "Answer briefly.", "Answer briefly."))
    assert not applied and reason == "no change"


def test_anchor_matching_tiers() -> None:
    assert find_anchor(DOC, "Answer briefly.").tier == "exact"
    assert find_anchor(DOC, "Some  paragraph continues").tier == "whitespace-normalised"
    assert find_anchor(DOC, "answer BRIEFLY.").tier == "case-insensitive"
    _, applied, reason = apply_one(Edit(EditOp.DELETE, "some paragraph\n continues here."))
    assert applied and reason == "anchor matched case-insensitive"


def test_anchor_not_found() -> None:
    _, applied, reason = apply_one(Edit(EditOp.DELETE, "No such text"))
    assert not applied and reason == "anchor not found"


def test_ambiguous_anchor_is_skipped() -> None:
    doc = "- Be brief.\n- Be exact.\n"
    _, applied, reason = apply_one(Edit(EditOp.DELETE, "- Be"), doc)
    assert not applied and reason.startswith("ambiguous anchor")
    _, applied, reason = apply_one(Edit(EditOp.DELETE, "aa"), "aaa\n")
    assert not applied and reason.startswith("ambiguous anchor")


def test_case_insensitive_tier_is_used_only_when_unique() -> None:
    _, applied, reason = apply_one(Edit(EditOp.DELETE, "be"), "Be calm.\nbE fast.\n")
    assert not applied and reason.startswith("ambiguous anchor")


def test_anchor_inside_protected_region_or_frontmatter_is_refused() -> None:
    for anchor in ("Keep answers short.", "name: qa", "<!-- /skillopt:protected slow_update -->"):
        for op in EditOp:
            _, applied, reason = apply_one(Edit(op, anchor, "x"))
            assert not applied and reason == "anchor inside protected region"


def test_anchor_straddling_a_region_boundary_is_refused() -> None:
    _, applied, reason = apply_one(Edit(EditOp.DELETE, "continues here.\n\n<!-- skillopt"))
    assert not applied and reason == "anchor inside protected region"


def test_copy_outside_the_region_is_still_editable() -> None:
    doc = DOC.replace("- Answer briefly.", "- Keep answers short.")
    text, applied, _ = apply_one(Edit(EditOp.REPLACE, "Keep answers short.", "Be brief."), doc)
    assert applied
    assert protected_signature(text) == protected_signature(doc)


def test_edit_that_would_forge_a_marker_is_refused() -> None:
    doc = "<!-- skillopt:protected x --> trailing\nbody\n"
    _, applied, reason = apply_one(Edit(EditOp.DELETE, " trailing"), doc)
    assert not applied and reason == "edit would alter a protected region"


def test_batch_applies_in_order_and_reports_every_edit() -> None:
    edits = [
        Edit(EditOp.REPLACE, "Answer briefly.", "Answer in one sentence."),
        Edit(EditOp.DELETE, "Answer briefly."),
        add("Answer in one sentence.", "- Quote the passage."),
        add("", ""),
    ]
    report = apply_edits(DOC, edits)
    assert [o.applied for o in report.outcomes] == [True, False, True, False]
    assert [o.edit for o in report.outcomes] == edits
    assert report.applied == (edits[0], edits[2])
    assert "- Answer in one sentence.\n- Quote the passage.\n- Cite" in report.text


def test_crlf_documents_keep_their_line_endings() -> None:
    doc = "- a\r\n- b\r\n"
    out, applied, _ = apply_one(add("- a", "- new"), doc)
    assert applied and out == "- a\r\n- new\r\n- b\r\n"
