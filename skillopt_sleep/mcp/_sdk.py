"""Where the MCP server reaches past the ``mcp`` SDK's public surface, kept in one place.

:func:`ask_roots` asks the client for its workspace roots with a deadline (the SDK's resolver
would wait forever, and fail the call on a client's error); :func:`known_arguments_only` makes a
tool refuse arguments its schema does not list (the SDK drops them silently). Both lean on
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
from mcp.types import ListRootsRequest, ListRootsResult
from pydantic import ConfigDict, ValidationError

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


def known_arguments_only(tool: Tool) -> Tool:
    """``tool`` refusing an argument its schema does not list (``additionalProperties: false``):
    a misspelt one (``proposal_id``, ``projct``) is an error naming it, never dropped so that the
    call quietly acts on the default (``adopt`` adopting the latest proposal)."""
    loose = tool.fn_metadata.arg_model
    config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")
    strict: type[ArgModelBase] = type(
        loose.__name__, (loose,), {"model_config": config, "__module__": __name__}
    )
    tool.fn_metadata.arg_model = strict
    return tool.model_copy(update={"parameters": strict.model_json_schema(by_alias=True)})
