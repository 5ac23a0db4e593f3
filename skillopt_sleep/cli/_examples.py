"""The examples and the files of each `skillopt-sleep` command, appended to its ``--help``.

Kept in one table so that every command teaches the same way (what it does, then how to call it,
then what it reads and writes) and a test can check that none lacks them. ``<state>`` is the
project's state folder (`skillopt-sleep status` prints it); no line may hold ``[``, which the
help's Rich markup would read as a tag.
"""

from __future__ import annotations

# command path (as typed after `skillopt-sleep`) -> (examples, files it reads and writes)
HELP_EXTRAS: dict[str, tuple[tuple[str, ...], str]] = {
    "harvest": (
        (
            "skillopt-sleep harvest --since 7d",
            "skillopt-sleep harvest -s claude,codex --json > sessions.json",
        ),
        "reads the harnesses' transcripts and the harvest index in <state> (advanced only with "
        "--commit); writes --output.",
    ),
    "mine": (
        ("skillopt-sleep mine", "skillopt-sleep mine -e tfidf --since 14d --json"),
        "reads the transcripts and the harvest index; updates the miner archive in <state>.",
    ),
    "run": (
        ("skillopt-sleep run", "skillopt-sleep run --optimizer claude-cli --max-calls 200 --json"),
        "reads the transcripts and your skills; writes <state> (nights, staging/<night-id>/).",
    ),
    "dry-run": (
        ("skillopt-sleep dry-run", "skillopt-sleep dry-run -p ~/code/app --json"),
        "reads the transcripts and your skills; stages and advances nothing.",
    ),
    "status": (
        ("skillopt-sleep status", "skillopt-sleep status --json"),
        "reads <state> and the scheduler entry; writes nothing.",
    ),
    "proposals": (
        ("skillopt-sleep proposals", "skillopt-sleep proposals --json"),
        "reads the proposals staged in <state>; writes nothing.",
    ),
    "report": (
        (
            "skillopt-sleep report",
            "skillopt-sleep report 20260101-031700 --format html --path",
        ),
        "reads <state>/staging/<night-id>/report.md, report.json or report.html.",
    ),
    "adopt": (
        ("skillopt-sleep adopt", "skillopt-sleep adopt 20260101-031700 --json"),
        "writes the proposal's live files (SKILL.md, CLAUDE.md, ...); backs them up in <state>.",
    ),
    "reject": (
        ("skillopt-sleep reject", "skillopt-sleep reject 20260101-031700"),
        "writes <state> (the proposal's state, the rejected-edit buffer); no live file.",
    ),
    "rollback": (
        ("skillopt-sleep rollback", "skillopt-sleep rollback 20260101-031700 --force"),
        "writes the live files the adopt replaced, from its backups in <state>.",
    ),
    "refused": (
        ("skillopt-sleep refused", "skillopt-sleep refused --by you --json"),
        "reads the rejected-edit buffers in <state>/optimizer.json; writes nothing.",
    ),
    "refused forget": (
        (
            "skillopt-sleep refused forget 3f9a0c21d4",
            "skillopt-sleep refused forget --all --by you",
        ),
        "writes <state>/optimizer.json (the rejected-edit buffers); no proposal, no live file.",
    ),
    "mcp": (
        ("skillopt-sleep mcp -p ~/code/app",),
        "what each tool call does (status, run, report, adopt ...), in that project's <state>.",
    ),
    "install": (
        ("skillopt-sleep install all --dry-run", "skillopt-sleep install codex --no-mcp"),
        "writes each harness's config and skills (~/.claude, ~/.codex, ~/.copilot) and a "
        "manifest in the engine's state folder.",
    ),
    "uninstall": (
        ("skillopt-sleep uninstall all --dry-run", "skillopt-sleep uninstall claude-code"),
        "removes the files the install manifest lists; updates the manifest.",
    ),
    "doctor": (
        ("skillopt-sleep doctor", "skillopt-sleep doctor -p ~/code/app --json"),
        "reads the harness homes, the project's <state>, the scheduler and the install manifest.",
    ),
    "schedule": (
        ("skillopt-sleep schedule --at 03:17", "skillopt-sleep schedule --backend mock --dry-run"),
        "writes the OS scheduler entry (crontab, launchd agent, scheduled task) and "
        "<state>/schedule.json.",
    ),
    "unschedule": (
        ("skillopt-sleep unschedule", "skillopt-sleep unschedule -p ~/code/app --json"),
        "removes that scheduler entry and <state>/schedule.json.",
    ),
    "daemon": (
        ("skillopt-sleep daemon --at 03:17", "skillopt-sleep daemon --json >> nights.jsonl"),
        "what each night writes (see run); watches the transcript folders.",
    ),
    "demo": (
        (
            "skillopt-sleep demo",
            "skillopt-sleep demo --persona devops --nights 6 --keep demo-world",
        ),
        "a temporary folder (kept with --keep); nothing of yours.",
    ),
    "config": (
        ("skillopt-sleep config show", "skillopt-sleep config show --json"),
        "reads the user and project config.toml.",
    ),
    "config show": (
        ("skillopt-sleep config show", "skillopt-sleep config show -p ~/code/app --json"),
        "reads the user config.toml, <project>/.skillopt-sleep/config.toml and "
        "SKILLOPT_SLEEP_* variables; writes nothing.",
    ),
    "config trust": (
        ("skillopt-sleep config trust", "skillopt-sleep config trust -p ~/code/app --json"),
        "reads <project>/.skillopt-sleep/config.toml; writes <state>/trusted-projects.json.",
    ),
    "config untrust": (
        ("skillopt-sleep config untrust", "skillopt-sleep config untrust -p ~/code/app"),
        "writes <state>/trusted-projects.json.",
    ),
}


def help_extras(path: str) -> str:
    """The paragraphs appended to the help of the command at ``path`` ('' when it has none):
    an indented line per example (kept as written), then what it touches."""
    extras = HELP_EXTRAS.get(path)
    if extras is None:
        return ""
    examples, files = extras
    lines = "\n".join(f"  $ {example}" for example in examples)
    return f"Examples:\n{lines}\n\nFiles: {files}"
