"""The trainable state: a Markdown skill document and the bounded edits applied to it."""

from skillopt_core.skill.anchors import AnchorMatch, find_anchor
from skillopt_core.skill.document import (
    MARKER_TOKEN,
    Region,
    editable_spans,
    get_protected,
    protected_regions,
    protected_signature,
    protected_spans,
    set_protected,
    skill_hash,
    split_frontmatter,
    strip_frontmatter,
)
from skillopt_core.skill.edits import END_ANCHOR, apply_edits

__all__ = [
    "END_ANCHOR",
    "MARKER_TOKEN",
    "AnchorMatch",
    "Region",
    "apply_edits",
    "editable_spans",
    "find_anchor",
    "get_protected",
    "protected_regions",
    "protected_signature",
    "protected_spans",
    "set_protected",
    "skill_hash",
    "split_frontmatter",
    "strip_frontmatter",
]
