"""A tool's name is redacted like any stored text: it reached the harvest index and --json raw
(the secrets-at-rest probe planted a token in an MCP tool's name)."""

from __future__ import annotations

from skillopt_sleep.harvest._events import CALL, FileState, call, seal

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_a_secret_in_a_tool_name_is_redacted_and_ordinary_names_are_kept() -> None:
    state = FileState()
    state.add(call(1.8e9, "c1", f"mcp__{TOKEN}__deploy", "ls"))
    state.add(call(1.8e9, "c2", "mcp__github__create_issue", "{}"))
    state.add(call(1.8e9, "c3", "Bash", "pytest -q"))
    seal(state.events)
    names = [event[4] for event in state.events if event[0] == CALL]
    assert TOKEN not in names[0] and "[REDACTED:" in names[0]
    assert names[1:] == ["mcp__github__create_issue", "Bash"]


def test_a_user_pattern_configured_later_applies_to_names_seen_before() -> None:
    """The cache was keyed on the name alone, so a redactor configured with the user's own
    patterns (skillopt_core.redaction.configure) never saw names redacted before it."""
    from skillopt_core.redaction import Redactor, configure, default_redactor

    def sealed_name(name: str) -> str:
        state = FileState()
        state.add(call(1.8e9, "c1", name, "ls"))
        seal(state.events)
        return str(state.events[0][4])

    assert sealed_name("mcp__acme-internal__deploy") == "mcp__acme-internal__deploy"
    before = default_redactor()
    configure(Redactor({"acme": r"acme-internal"}))
    try:
        assert "acme-internal" not in sealed_name("mcp__acme-internal__deploy")
    finally:
        configure(before)
