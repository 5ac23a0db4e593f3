"""The skill, contexts and checks the host-rule tests share (``evil.example`` is the host no one
names; ``api.acme.dev`` the skill names, ``staging.acme.dev`` the user does).

This is no test module, so pytest does not rewrite its asserts: each says what it found.
"""

from __future__ import annotations

from skillopt_core.records import Edit, EditOp
from skillopt_core.skill.edits import apply_edits
from skillopt_core.skill.screen import (
    REFUSED_PREFIX,
    ScreenContext,
    hosts_in,
    known_hosts,
    screen_edit,
    screen_text,
)

SKILL = "# Deploy\n\n- Check https://api.acme.dev/health before deploying.\n"
NO_HOSTS = ScreenContext(hosts=frozenset())
CTX = ScreenContext(hosts=known_hosts([SKILL, "deploy the app to staging.acme.dev"]))


def kinds(content: str, ctx: ScreenContext) -> set[str]:
    """The kinds of what the screen finds in ``content`` added as an edit."""
    return {f.kind for f in screen_edit(Edit(EditOp.ADD, "", content), ctx)}


def assert_names_unknown(
    content: str, hosts: set[str] | None = None, *, at_most: bool = False, single: bool = True
) -> None:
    """``evil.example`` is named and found unknown, with no hosts known and against ``CTX``.

    ``hosts``: all that ``hosts_in`` names, exactly (or, ``at_most``, at most these).
    ``single``: against ``CTX`` one unknown-host finding, and it is ``evil.example``.
    """
    found = hosts_in(content)
    assert "evil.example" in found, found
    if hosts is not None:
        assert found <= hosts if at_most else found == hosts, found
    bare = {f.kind for f in screen_text(content, NO_HOSTS)}
    assert "unknown-host" in bare, bare
    if single:
        unknown = [
            f for f in screen_edit(Edit(EditOp.ADD, "", content), CTX) if f.kind == "unknown-host"
        ]
        assert len(unknown) == 1, unknown
        assert unknown[0].reason.endswith(": evil.example"), unknown[0].reason
    else:
        in_ctx = kinds(content, CTX)
        assert "unknown-host" in in_ctx, in_ctx


def assert_apply_refuses(added: str, ctx: ScreenContext) -> None:
    """``apply_edits`` refuses ``added`` (an ADD edit's whole text) for naming ``evil.example``,
    and leaves ``SKILL`` as it was."""
    report = apply_edits(SKILL, [Edit(EditOp.ADD, "", added)], ctx)
    (outcome,) = report.outcomes
    assert not outcome.applied and outcome.reason.startswith(REFUSED_PREFIX), outcome
    assert "unknown-host" in outcome.reason and "evil.example" in outcome.reason, outcome.reason
    assert report.text == SKILL, report.text


def assert_known_host_passes(content: str, host: str, hosts: set[str] | None = None) -> None:
    """With ``evil.example`` replaced by ``host``, a host ``CTX`` knows, nothing is unknown.

    ``hosts``: what ``hosts_in`` names then, exactly; otherwise only ``host`` is checked for.
    """
    known = content.replace("evil.example", host)
    found = hosts_in(known)
    assert host in found, found
    if hosts is not None:
        assert found == hosts, found
    in_ctx = kinds(known, CTX)
    assert "unknown-host" not in in_ctx, in_ctx
