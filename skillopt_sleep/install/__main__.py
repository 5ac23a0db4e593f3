"""``python -m skillopt_sleep.install ...`` = ``skillopt-sleep ...``: the CLI for scripts (the
Codex ``install.sh``) that have an interpreter with the engine but maybe no console script."""

from skillopt_sleep.cli import app

app(prog_name="skillopt-sleep")
