"""Where the MCP server reaches past the ``mcp`` SDK's public surface, kept in one place.

:func:`ask_roots` asks the client for its workspace roots with a deadline (the SDK's resolver
would wait forever, and fail the call on a client's error), for a tool's resolver and, through
:func:`client_roots`, for a resource read; :func:`known_arguments_only` makes a tool refuse
arguments its schema does not list (the SDK drops them silently) and says what to fix in
arguments it refuses (:class:`ArgumentsError`). Both lean on
``mcp`` 2.x internals (``Context.session.send_request``, ``Tool.fn_metadata.arg_model``), pinned
by ``mcp>=2,<3`` and covered by ``tests/integrations/test_mcp_roots.py`` and
``test_mcp_arguments.py``.
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.mcpserver import Context, ListRoots
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp.types import InputRequiredResult, ListRootsRequest, ListRootsResult
from pydantic import ConfigDict, ValidationError
from pydantic_core import InitErrorDetails

from skillopt_sleep._display import displayable

ROOTS_TIMEOUT_S = 5.0
"""How long a tool call without ``project`` waits for the client's ``roots/list`` answer."""


async def ask_roots(ctx: Context, project: str | None = None) -> Any:
    """Resolver: fetch the client's roots only when no project was given and the client has some.
    A client that declares roots but answers ``roots/list`` with an error, or not within
    :data:`ROOTS_TIMEOUT_S`, is taken to have none: the call falls back to the server's project
    or says to pass one, instead of failing with the client's protocol error or waiting forever."""
    if project:
        return None
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.roots is None:
        return None
    session = ctx.session
    if not session.can_send_request:
        return ListRoots()  # a transport without a back channel asks in a later round
    with anyio.move_on_after(ROOTS_TIMEOUT_S):
        try:
            return await session.send_request(
                ListRootsRequest(),
                ListRootsResult,
                metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
            )
        except (MCPError, ValidationError):  # an error, or an answer that is no roots list
            return None
    return None


ROOTS_REQUEST = "roots"
"""The key of the roots request a resource read returns to a client that answers by reading again."""


async def client_roots(ctx: Context) -> ListRootsResult | InputRequiredResult | None:
    """The client's roots for a resource read, which has no resolver: asked mid-request where
    the transport has a back channel (stdio before protocol 2026-07-28), else returned as a
    request (``InputRequiredResult``) that the client answers by reading again, its answer then
    in ``ctx.input_responses``. None when it declares no roots, or answers with something else."""
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.roots is None:
        return None
    if ctx.session.can_send_request:
        found = await ask_roots(ctx)
        return found if isinstance(found, ListRootsResult) else None
    answer = (ctx.input_responses or {}).get(ROOTS_REQUEST)
    if answer is None:
        return InputRequiredResult(input_requests={ROOTS_REQUEST: ListRootsRequest()})
    try:
        return ListRootsResult.model_validate(answer.model_dump(by_alias=True, exclude_none=True))
    except ValidationError:
        return None


SHOWN_INPUT_CHARS = 80  # of a refused argument's value an error repeats


class ArgumentsError(ValidationError):
    """Arguments a tool's schema refuses, told as what to fix: each argument and its problem,
    without pydantic's type codes and links to its documentation, which a model cannot visit.
    The SDK reports a ``ValidationError`` as the call's error result, in these words."""

    accepted: tuple[str, ...] = ()

    def __str__(self) -> str:
        problems: list[str] = []
        fixes: dict[str, str] = {}  # argument -> what to do with it, in the order met
        for error in self.errors(include_url=False):
            name = ".".join(str(part) for part in error["loc"]) or "arguments"
            top = name.split(".")[0]
            if error["type"] == "extra_forbidden":
                takes = ", ".join(self.accepted) or "none"
                problems.append(
                    f"{name}: {error['msg']}: not an argument of this tool (it takes: {takes})"
                )
                fixes.setdefault(top, f"leave out {top}")
                continue
            if error["type"] == "missing":
                problems.append(f"{name}: required")
            else:
                value = displayable(repr(error.get("input")))
                if len(value) > SHOWN_INPUT_CHARS:
                    value = value[:SHOWN_INPUT_CHARS] + "..."
                problems.append(f"{name}: {error['msg']} (got {value})")
            fixes.setdefault(top, f"correct {top}")
        return (
            f"invalid arguments: {'; '.join(problems)}\n  fix: {', '.join(fixes.values())} (see "
            "the tool's input schema), then call it again"
        )

    @classmethod
    def of(cls, exc: ValidationError, accepted: tuple[str, ...]) -> ValidationError:
        """``exc`` in these words (as it is, should pydantic not rebuild it)."""
        details: list[InitErrorDetails] = []
        for error in exc.errors(include_url=False):
            detail = InitErrorDetails(type=error["type"], loc=error["loc"], input=error["input"])
            if "ctx" in error:
                detail["ctx"] = error["ctx"]
            details.append(detail)
        try:
            made = cls.from_exception_data(exc.title, details)
        except (TypeError, ValueError, KeyError):
            return exc
        made.accepted = accepted
        return made


def known_arguments_only(tool: Tool) -> Tool:
    """``tool`` refusing an argument its schema does not list (``additionalProperties: false``):
    a misspelt one (``proposal_id``, ``projct``) is an error naming it, never dropped so that the
    call quietly acts on the default (``adopt`` adopting the latest proposal). Every refused
    argument is an :class:`ArgumentsError`."""
    loose = tool.fn_metadata.arg_model
    config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")
    accepted = tuple(loose.model_fields)

    def model_validate(cls: type[ArgModelBase], /, obj: Any, **kwargs: Any) -> ArgModelBase:
        try:
            return super(strict, cls).model_validate(obj, **kwargs)
        except ValidationError as exc:
            raise ArgumentsError.of(exc, accepted) from None

    namespace = {
        "model_config": config,
        "__module__": __name__,
        "model_validate": classmethod(model_validate),
    }
    strict: type[ArgModelBase] = type(loose.__name__, (loose,), namespace)
    tool.fn_metadata.arg_model = strict
    return tool.model_copy(update={"parameters": strict.model_json_schema(by_alias=True)})
