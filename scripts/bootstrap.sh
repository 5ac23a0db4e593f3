#!/usr/bin/env bash
# Set up a project-local environment: .venv (Python) and, with --dev, the test tools and the
# real harness CLIs (npm, under .tools/node). Idempotent: re-running only fills what is missing.
#
#   bash scripts/bootstrap.sh          # runtime only (enough for the demo)
#   bash scripts/bootstrap.sh --dev    # + dev tools, the embeddings extra and the harness CLIs
#   PYTHON=python3.12 bash scripts/bootstrap.sh   # make .venv from another interpreter
#
# Supported: Python 3.10 to 3.13 (PYTHON, a command or a path; python3 by default). An older one
# is refused; a newer one is used with a warning (untested). An unusable .venv (no pip, or its
# interpreter gone after an upgrade) is made again; one made from another version than PYTHON
# names is refused: remove it first.
set -euo pipefail
cd "$(dirname "$0")/.."

dev=0
for arg in "$@"; do
  case "$arg" in
    --dev) dev=1 ;;
    *) echo "usage: bash scripts/bootstrap.sh [--dev]" >&2; exit 2 ;;
  esac
done

python_bin="${PYTHON:-python3}"
min_minor=10  # keep in step with requires-python in pyproject.toml
tested_max_minor=13
refuse() {
  printf 'bootstrap: error: %s\nfix: %s\n' "$1" "$2" >&2
  exit 2
}
version_of() {  # "3.12" for the interpreter $1; refuses when it does not run or is no Python
  local ver
  ver="$("$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" || ver=""
  case "$ver" in
    [0-9]*.[0-9]*) echo "$ver" ;;
    *) refuse "cannot run $1 as Python" \
      "install Python 3.$min_minor or newer, or name one: PYTHON=python3.12 bash scripts/bootstrap.sh" ;;
  esac
}
if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
  ver="$(version_of "$python_bin")" || exit 2
  major="${ver%%.*}" minor="${ver#*.}"
  if [ "$major" -lt 3 ] || { [ "$major" = 3 ] && [ "$minor" -lt "$min_minor" ]; }; then
    refuse "$python_bin is Python $ver; SkillOpt-Sleep needs Python 3.$min_minor or newer" \
      "install Python 3.$min_minor to 3.$tested_max_minor and name it: PYTHON=python3.12 bash scripts/bootstrap.sh"
  fi
  if [ "$major" -gt 3 ] || [ "$minor" -gt "$tested_max_minor" ]; then
    echo "bootstrap: Python $ver is untested (tested: 3.$min_minor to 3.$tested_max_minor); continuing" >&2
  fi
  clear=""
  if [ -e .venv ]; then clear="--clear"; fi  # there but unusable (no pip, or its Python is gone)
  # shellcheck disable=SC2086  # $clear: no word or one
  "$python_bin" -m venv $clear .venv ||
    refuse "$python_bin could not make .venv" \
      "on Debian or Ubuntu install the venv module (apt install python3-venv, or python$ver-venv), then run this again"
elif [ -n "${PYTHON:-}" ]; then
  want="$(version_of "$python_bin")" || exit 2
  have="$(version_of .venv/bin/python)" || exit 2
  if [ "$have" != "$want" ]; then
    refuse ".venv is Python $have, not the Python $want that PYTHON=$PYTHON names" \
      "remove .venv (rm -rf .venv) and run this again, or leave PYTHON unset to keep it"
  fi
fi
pip() { .venv/bin/python -m pip "$@"; }
pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null

if [ "$dev" = 1 ]; then
  # The embeddings extra needs torch. PyPI's Linux build of torch pulls several GB of CUDA
  # libraries, so the CPU build is installed first: TORCH_INDEX_URL if set, else a wheel already
  # on this machine (pip's find-links), else the PyTorch CPU index; PyPI only as the last resort.
  if ! .venv/bin/python -c "import torch" 2>/dev/null; then
    quiet=(--quiet --disable-pip-version-check)
    if [ -n "${TORCH_INDEX_URL:-}" ]; then
      pip install "${quiet[@]}" torch --index-url "$TORCH_INDEX_URL"
    elif pip install "${quiet[@]}" --no-index --no-deps "torch==2.13.0" 2>/dev/null; then
      pip install "${quiet[@]}" "torch==2.13.0" || \
        echo "bootstrap: torch's dependencies did not install; the embeddings extra will try again" >&2
    elif [ "$(uname -s)" = Linux ] && pip install "${quiet[@]}" --retries 1 --timeout 30 \
        --index-url https://download.pytorch.org/whl/cpu "torch==2.13.0" 2>/dev/null; then
      :
    else
      if [ "$(uname -s)" = Linux ]; then
        echo "bootstrap: torch did not install from the PyTorch CPU index (out of reach?); it" \
          "comes from PyPI with its CUDA libraries (several GB). To avoid that, set" \
          "TORCH_INDEX_URL to a CPU index" >&2
      fi
      pip install "${quiet[@]}" "torch==2.13.0" || \
        echo "bootstrap: torch 2.13.0 not available; the embeddings extra will choose its own torch" >&2
    fi
  fi
  # the embeddings extra's model package lives in this repository (models/mpnet)
  pip install --quiet --disable-pip-version-check -e ./models/mpnet
  pip install --quiet --disable-pip-version-check -e ".[dev,embeddings]"
  if command -v npm >/dev/null 2>&1; then
    mkdir -p .tools/node
    npm install --silent --no-audit --no-fund --prefix .tools/node \
      @anthropic-ai/claude-code @openai/codex @github/copilot \
      @modelcontextprotocol/inspector@2.12.0 >/dev/null 2>&1 || \
      echo "bootstrap: could not install the harness CLIs from npm; their integration tests will skip" >&2
  else
    echo "bootstrap: npm not found; harness CLI integration tests will skip" >&2
  fi
  # The HTML report test drives Debian's headless Chromium; install it only where that needs no
  # password prompt (root, or sudo that works non-interactively).
  if ! command -v chromium >/dev/null 2>&1; then
    as_root=""
    if [ "$(id -u)" = 0 ]; then as_root="env"
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then as_root="sudo -n env"
    fi
    if [ -n "$as_root" ] && command -v apt-get >/dev/null 2>&1; then
      { $as_root apt-get update -qq &&
        $as_root DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
        >/dev/null 2>&1 || echo "bootstrap: could not install chromium; the HTML report test will skip" >&2
    else
      echo "bootstrap: chromium not found (install Debian's chromium package as root); the HTML report test will skip" >&2
    fi
  fi
else
  pip install --quiet --disable-pip-version-check -e .
fi
echo "bootstrap: ready (.venv$( [ "$dev" = 1 ] && echo ', dev tools, harness CLIs in .tools/node' ))"
