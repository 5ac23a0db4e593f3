#!/usr/bin/env bash
# Run `skillopt-sleep ARGS...` with the Python that has the engine: $SKILLOPT_SLEEP_PYTHON, the
# clone's own .venv (what `bash scripts/bootstrap.sh` makes: the engine these files came with),
# the console script on PATH, or the first python3/python that can import it. Shared by
# install.sh and uninstall.sh.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
clone="$(cd "$here/../.." && pwd)"
if [ -n "${SKILLOPT_SLEEP_PYTHON:-}" ]; then
  exec "$SKILLOPT_SLEEP_PYTHON" -m skillopt_sleep.install "$@"
fi
clone_python="$clone/.venv/bin/python"
if [ -x "$clone_python" ] && "$clone_python" -c "import skillopt_sleep.install" >/dev/null 2>&1; then
  exec "$clone_python" -m skillopt_sleep.install "$@"
fi
if command -v skillopt-sleep >/dev/null 2>&1; then
  exec skillopt-sleep "$@"
fi
for py in python3 python; do
  if command -v "$py" >/dev/null 2>&1 && "$py" -c "import skillopt_sleep.install" >/dev/null 2>&1; then
    exec "$py" -m skillopt_sleep.install "$@"
  fi
done
echo "skillopt-sleep is not installed for any Python on PATH." >&2
echo "Install it first, from this clone (it is not on PyPI): bash scripts/bootstrap.sh in" >&2
echo "\"$clone\", or pip install \"$clone\"," >&2
echo "or point SKILLOPT_SLEEP_PYTHON at the interpreter that has it." >&2
exit 1
