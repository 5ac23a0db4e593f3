"""``python -m skillopt_sleep.mcp``: the stdio server, for configs that name an interpreter."""

from skillopt_sleep.mcp import serve

serve()
