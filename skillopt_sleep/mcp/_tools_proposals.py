"""The tools over what nights staged: list and read the proposals and the refused edits, and
the user's decisions on a proposal (``adopt``, ``reject``, ``rollback``).

No ``from __future__ import annotations``: the SDK reads the tools' annotations for the schemas.
"""

from dataclasses import replace

from skillopt_sleep.engine.records import AdoptResult
from skillopt_sleep.mcp._context import ToolContext
from skillopt_sleep.mcp.arguments import (
    CHANGES_LIVE,
    MARKS,
    READ_ONLY,
    Project,
    ProposalId,
    ProposalLimit,
    ReportFormat,
    Roots,
)
from skillopt_sleep.mcp.views import ProposalsView, RefusedBy, RefusedLimit, RefusedView, ReportView


def register(ctx: ToolContext) -> None:
    """Add ``proposals``, ``refused``, ``report``, ``adopt``, ``reject`` and ``rollback`` to
    ``ctx.tools``."""

    @ctx.tool(READ_ONLY)
    def proposals(
        roots: Roots, project: Project = None, limit: ProposalLimit = 20
    ) -> ProposalsView:
        """The newest staged proposals and their state (pending, adopted, rejected, rolled back,
        superseded), oldest first; `total` counts them all (adopted ones are kept for rollback,
        so they add up night after night). `status` lists every pending one."""
        from skillopt_sleep.engine import list_proposals

        root = ctx.project_of(project, roots)
        every = list_proposals(root)
        return ProposalsView(str(root), len(every), tuple(every[-limit:]))

    @ctx.tool(READ_ONLY)
    def refused(
        roots: Roots, project: Project = None, by: RefusedBy = None, limit: RefusedLimit = 20
    ) -> RefusedView:
        """The edits no night may propose again, by skill file: every one the user refused
        (rejected or rolled back proposals) up to `limit`, then the gate's newest of each file,
        each with its id, who refused it and the gate's delta; `total` counts them all. Only
        the user may forget one, in a terminal."""
        from skillopt_sleep.engine.api import refused as engine_refused

        root = ctx.project_of(project, roots)
        return RefusedView.of(str(root), engine_refused(root, by=by), limit)

    @ctx.tool(READ_ONLY)
    def report(
        roots: Roots,
        project: Project = None,
        proposal: ProposalId = None,
        format: ReportFormat = "md",
    ) -> ReportView:
        """A staged proposal's report: what changed, the held-out scores, accepted and rejected
        edits, as staged. Without a proposal id it is the latest proposal, which may be an
        older night's: `state` says whether it is still pending (the text, written at staging,
        always says to adopt or reject it), and `note` (also the text's first line) which
        proposal it is and what the latest night did if it staged nothing. Tell the user the note
        first. A JSON report too big for a tool result gives only its note and `path`."""
        from skillopt_sleep.engine import read_report

        shown = ReportView.of(read_report(ctx.project_of(project, roots), proposal, format))
        return replace(shown, note=ctx.told(shown.note), text=ctx.told(shown.text))

    @ctx.tool(CHANGES_LIVE)
    def adopt(roots: Roots, project: Project = None, proposal: ProposalId = None) -> AdoptResult:
        """Replace the live skill files with a staged proposal (atomic, backed up). Only when the
        user explicitly asks; refuses a live file that changed since staging."""
        from skillopt_sleep.engine import adopt as engine_adopt

        return engine_adopt(ctx.project_of(project, roots), proposal)

    @ctx.tool(MARKS)
    def reject(roots: Roots, project: Project = None, proposal: ProposalId = None) -> AdoptResult:
        """Decline a proposal; its edits are remembered and not proposed again."""
        from skillopt_sleep.engine import reject as engine_reject

        return engine_reject(ctx.project_of(project, roots), proposal)

    @ctx.tool(CHANGES_LIVE)
    def rollback(roots: Roots, project: Project = None, proposal: ProposalId = None) -> AdoptResult:
        """Restore the files an adopted proposal replaced, byte for byte."""
        from skillopt_sleep.engine import rollback as engine_rollback

        return engine_rollback(ctx.project_of(project, roots), proposal)
