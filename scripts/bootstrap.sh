#!/usr/bin/env bash
# Set up a project-local environment: .venv (Python) and, with --dev, the test tools and the
# real harness CLIs (npm, under .tools/node). Idempotent: re-running only fills what is missing.
#
#   bash scripts/bootstrap.sh          # runtime only (enough for the demo)
#   bash scripts/bootstrap.sh --dev    # + dev tools, the embeddings extra and the harness CLIs
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
if [ ! -x .venv/bin/python ]; then
  "$python_bin" -m venv .venv
fi
pip() { .venv/bin/python -m pip "$@"; }
pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null

if [ "$dev" = 1 ]; then
  # The embeddings extra needs torch. Install the CPU build first (a local wheel on our machines,
  # or TORCH_INDEX_URL, e.g. the PyTorch CPU index) so sentence-transformers does not pull CUDA.
  if ! .venv/bin/python -c "import torch" 2>/dev/null; then
    if [ -n "${TORCH_INDEX_URL:-}" ]; then
      pip install --quiet --disable-pip-version-check torch --index-url "$TORCH_INDEX_URL"
    else
      pip install --quiet --disable-pip-version-check "torch==2.13.0" || \
        echo "bootstrap: torch 2.13.0 not available; the embeddings extra will choose its own torch" >&2
    fi
  fi
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
