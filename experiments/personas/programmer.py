"""The programmer: fixes tests, writes changelogs, PR descriptions and commit messages."""

from __future__ import annotations

from experiments.personas.model import Family, Persona
from skillopt_sleep.records import Check

PERSONA = Persona(
    name="programmer",
    summary="a web developer: login tests, changelog entries, debugging, PR descriptions, commits",
    families=(
        Family(
            "login-test",
            "webapp",
            (
                "fix the failing login test in tests/test_auth.py",
                "the login test in tests/test_auth.py is failing again, please fix it",
                "login test broken again (tests/test_auth.py)",
                "can you look at the failing login test in test_auth",
            ),
            Check("contains", "session cookie", "the session cookie name"),
            (
                "no, that's wrong, the test still fails - check the session cookie name",
                "still failing - look at the session cookie first",
            ),
            weight=1.2,
        ),
        Family(
            "changelog",
            "webapp",
            (
                "add a changelog entry for the {feature} change",
                "write the changelog line for {feature}",
                "changelog entry please: {feature}",
                "update CHANGELOG.md for the {feature} work",
            ),
            Check("regex", r"v\d+\.\d+\.\d+", "the release version, like v1.4.2"),
            (
                "wrong format - name the release version like v{version}",
                "no, the entry needs the version, formatted as v{version}",
            ),
        ),
        Family(
            "debug-crash",
            "cli",
            (
                "debug why the {module} module crashes on empty input",
                "the {module} module crashes when the input is empty, find out why",
                "figure out the crash in {module} on empty input",
                "{module} crashes on empty input again, debug it",
            ),
            Check("not_contains", "print statements", "no print debugging"),
            (
                "no, stop adding print statements",
                "wrong - avoid print statements, we have a logger",
            ),
        ),
        Family(
            "pr-description",
            "webapp",
            (
                "write the PR description for {feature}",
                "draft a pull request description for the {feature} branch",
                "PR description for {feature} please",
                "write up the PR for {feature}",
            ),
            Check("section_present", "Testing", "a Testing section"),
            (
                "no, you forgot to add a Testing section",
                "still missing - add a Testing section",
            ),
        ),
        Family(
            "commit-message",
            "cli",
            (
                "write a commit message for the {feature} change",
                "commit message for {feature} please",
                "give me a commit message for {feature}",
            ),
            Check("max_chars", "504", "under 72 words"),
            (
                "no, too long - keep it under 72 words",
                "no, that's too verbose, keep it under 72 words",
            ),
            weight=0.8,
        ),
    ),
    one_offs=(
        "add a --json flag to the export command",
        "what does the walrus operator do",
        "bump the node version in .nvmrc",
        "remove the unused imports in utils.py",
        "why is my docker build slow",
        "rename get_user to fetch_user everywhere",
    ),
    slots={
        "feature": (
            "dark mode",
            "rate limiting",
            "csv export",
            "password reset",
            "search filters",
            "session refresh",
        ),
        "version": ("1.4.2", "2.0.0", "1.5.0", "2.1.3"),
        "module": ("parser", "config loader", "importer", "formatter"),
    },
    harnesses={"claude": 0.5, "copilot": 0.5},
)
