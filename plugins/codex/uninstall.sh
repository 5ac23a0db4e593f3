#!/usr/bin/env bash
# Remove exactly what install.sh wrote for Codex (files you edited since are kept and reported).
# Thin: the work is `skillopt-sleep uninstall codex`, run with the Python that has the engine.
set -euo pipefail
exec bash "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/_engine.sh" uninstall codex "$@"
