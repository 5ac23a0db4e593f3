#!/usr/bin/env bash
# Install the skillopt-sleep skill for Codex (~/.agents/skills) and register the MCP server in
# $CODEX_HOME/config.toml (skip it with --no-mcp). Re-running is a no-op; uninstall.sh undoes it.
# Thin: the work is `skillopt-sleep install codex`, run with the Python that has the engine.
set -euo pipefail
exec bash "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/_engine.sh" install codex "$@"
