"""Backends that drive the harness CLIs (``claude -p``, ``codex exec``, ``copilot``) headless.

A user with only a Claude / Codex / Copilot subscription needs no API key: the optimizer talks to
the model through the harness they already logged in to. Each call runs in an empty scratch
directory, with no tools, and leaves no session in the harness's history. Shared subprocess
plumbing is in :mod:`._process` and the call template in :mod:`._base`; one module per harness.
"""
