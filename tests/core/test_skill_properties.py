"""Properties of apply_edits that must hold for any batch (hypothesis)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skillopt_core.records import Edit, EditOp
from skillopt_core.skill import apply_edits, protected_signature, set_protected

WORDS = ["Answer", "briefly", "cite", "the", "passage", "-", "#", "units", "\n", "\n\n", "  "]
TRICKY = [
    "",
    "END",
    "---",
    "<!-- skillopt:protected slow_update -->",
    "<!-- /skillopt:protected slow_update -->",
    "<!-- /skillopt:protected meta -->",
    "skillopt:protected",
    "\n\n",
]

line = st.lists(st.sampled_from(WORDS[:8]), min_size=1, max_size=6).map(" ".join)
block = st.lists(line, min_size=1, max_size=4).map("\n".join)


@st.composite
def documents(draw: st.DrawFn) -> str:
    frontmatter = draw(st.sampled_from(["", "---\nname: qa\n---\n", "---\na: - x\n---\n\n"]))
    body = draw(st.lists(block, max_size=5).map("\n\n".join))
    text = frontmatter + body
    for name in draw(st.lists(st.sampled_from(["slow_update", "meta"]), max_size=2, unique=True)):
        text = set_protected(text, name, draw(block))
    if draw(st.booleans()):
        text += draw(block)
    return text


def anchors(text: str) -> st.SearchStrategy[str]:
    """Substrings of the document (so protected text is drawn too) and tricky strings."""
    if not text:
        return st.sampled_from(TRICKY)

    @st.composite
    def substring(draw: st.DrawFn) -> str:
        start = draw(st.integers(0, len(text) - 1))
        end = draw(st.integers(start + 1, min(len(text), start + 60)))
        return text[start:end]

    return st.one_of(substring(), st.sampled_from(TRICKY))


@st.composite
def doc_and_edits(draw: st.DrawFn) -> tuple[str, list[Edit]]:
    text = draw(documents())
    contents = st.one_of(block, st.sampled_from(TRICKY), anchors(text))
    edit = st.builds(
        Edit,
        op=st.sampled_from(list(EditOp)),
        anchor=anchors(text),
        content=contents,
        source=st.sampled_from(["failure", "success"]),
    )
    return text, draw(st.lists(edit, max_size=6))


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(doc_and_edits())
def test_protected_regions_and_frontmatter_are_byte_identical(case: tuple[str, list[Edit]]) -> None:
    text, edits = case
    report = apply_edits(text, edits)
    assert protected_signature(report.text) == protected_signature(text)
    assert len(report.outcomes) == len(edits)
    assert [o.edit for o in report.outcomes] == edits


@SETTINGS
@given(documents())
def test_empty_batch_is_identity(text: str) -> None:
    report = apply_edits(text, [])
    assert report.text == text
    assert report.outcomes == ()


@SETTINGS
@given(doc_and_edits())
def test_failed_edit_leaves_text_unchanged(case: tuple[str, list[Edit]]) -> None:
    text, edits = case
    for edit in edits:
        report = apply_edits(text, [edit])
        (outcome,) = report.outcomes
        if outcome.applied:
            assert report.text != text
            text = report.text
        else:
            assert report.text == text
            assert outcome.reason


@SETTINGS
@given(doc_and_edits())
def test_applying_is_deterministic(case: tuple[str, list[Edit]]) -> None:
    text, edits = case
    assert apply_edits(text, edits) == apply_edits(text, list(edits))
