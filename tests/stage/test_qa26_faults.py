"""Faults a QA pass found in staging, adopting and naming proposals (each test failed before).

Skill files that are links out of the project, the managed skill's YAML frontmatter, odd proposal
ids (empty, too long for a file name, holding control characters), the mode of a file ``adopt``
creates, and a diff whose file names hold a newline.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from skillopt_core.errors import EXIT_DRIFT, EXIT_USAGE, DriftError, UsageError
from skillopt_sleep.cli import app
from skillopt_sleep.engine import ProjectState, adopt, reject, report_path, rollback
from skillopt_sleep.skills import managed_skill_text
from skillopt_sleep.skills.discover import frontmatter_fields
from skillopt_sleep.stage.proposal import FileChange, stage
from tests._isolation import isolate_sleep_state

PROPOSAL = "20260101-000000"
OLD = "---\nname: login-tests\ndescription: Fix login tests\n---\nold\n"
NEW = OLD + "new advice\n"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_sleep_state(tmp_path, monkeypatch)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the user's skill roots


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _staged(project: Path, live: Path, before: str | None = OLD, after: str = NEW) -> Path:
    """Stage one change of ``live`` (as a night would, from what it holds now)."""
    change = FileChange(live, "skill", before.encode() if before is not None else None, after, 1)
    return stage(ProjectState(project), PROPOSAL, [change], {})


# --- a skill file that is a link out of the project --------------------------------------------


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A cloned project whose skill file links to a file outside it (a stand-in for ~/.bashrc)."""
    project, outside = tmp_path / "proj", tmp_path / "outside" / "fake_bashrc"
    outside.parent.mkdir()
    outside.write_text(OLD)  # the same text, so only the link's target can give it away
    link = project / ".claude" / "skills" / "login-tests" / "SKILL.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(os.path.relpath(outside, link.parent))
    return project, link, outside


def test_adopt_refuses_to_write_through_a_link_out_of_the_project(
    planted: tuple[Path, Path, Path],
) -> None:
    project, link, outside = planted
    _staged(project, link)
    with pytest.raises(DriftError, match="outside the project") as error:
        adopt(project, PROPOSAL)
    assert str(outside) in str(error.value) and "--force" in error.value.hint
    assert outside.read_text() == OLD
    code, _, err = _invoke("adopt", PROPOSAL, "-p", str(project))
    assert code == EXIT_DRIFT and str(outside) in err and outside.read_text() == OLD
    adopt(project, PROPOSAL, force=True)  # the user's explicit decision
    assert outside.read_text() == NEW and link.is_symlink()


def test_adopt_refuses_to_create_a_file_through_a_link_planted_after_staging(
    tmp_path: Path,
) -> None:
    project = tmp_path / "proj"
    live = project / ".claude" / "skills" / "skillopt-learned" / "SKILL.md"
    _staged(project, live, before=None)
    target = tmp_path / "outside" / "autostart.desktop"
    target.parent.mkdir()
    live.parent.mkdir(parents=True)
    live.symlink_to(target)  # dangling: nothing there to drift
    with pytest.raises(DriftError, match="outside the project"):
        adopt(project, PROPOSAL)
    assert not target.exists()


def test_diff_and_three_way_diff_name_the_file_a_link_leads_to(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    real = project / "docs" / "login.md"
    real.parent.mkdir(parents=True)
    real.write_text(OLD)
    link = project / ".claude" / "skills" / "login-tests" / "SKILL.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(os.path.relpath(real, link.parent))
    directory = _staged(project, link)
    patch = (directory / "diff.patch").read_text()
    assert str(real) in patch and f"+++ {link}" in patch
    assert _patch_applies(directory / "diff.patch", {link: OLD}, {link: NEW}, tmp_path / "apply")
    real.write_text(OLD + "hand edit\n")
    code, out, err = _invoke("adopt", PROPOSAL, "-p", str(project), "--force", "-y")
    assert code == 0 and str(real) in out, err  # the three-way diff shown before a forced adopt
    assert real.read_text() == NEW and link.is_symlink()


def test_a_user_skill_linked_into_dotfiles_is_still_adopted(tmp_path: Path) -> None:
    """Legitimate: the user's own skill folder links into their dotfiles repo."""
    project = tmp_path / "proj"
    project.mkdir()
    dotfiles = tmp_path / "home" / "dotfiles" / "login-tests.md"
    dotfiles.parent.mkdir(parents=True)
    dotfiles.write_text(OLD)
    link = tmp_path / "home" / ".claude" / "skills" / "login-tests" / "SKILL.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(dotfiles)
    _staged(project, link)
    adopt(project, PROPOSAL)
    assert dotfiles.read_text() == NEW and link.is_symlink()


def test_discovery_keeps_a_skill_only_where_its_link_may_lead(tmp_path: Path) -> None:
    from skillopt_sleep.skills import discover_skills

    home, project, outside = tmp_path / "home", tmp_path / "proj", tmp_path / "outside"

    def skill(root: Path, name: str, leads_to: Path | None = None) -> Path:
        path = root / ".claude" / "skills" / name / "SKILL.md"
        path.parent.mkdir(parents=True)
        if leads_to is None:
            path.write_text(f"---\nname: {name}\n---\n")
            return path
        leads_to.parent.mkdir(parents=True, exist_ok=True)
        leads_to.write_text(f"---\nname: {name}\n---\n")
        path.symlink_to(leads_to)
        return path

    mine = skill(home, "mine")
    kept = {
        skill(project, "docs", project / "docs" / "docs.md"),  # inside the project
        skill(project, "shared", mine),  # one of the user's own skills
        skill(home, "dotfiles", home / "dotfiles" / "dotfiles.md"),  # the user's dotfiles repo
    }
    dropped = {
        skill(project, "planted", outside / "planted.md"): "outside the project",
        skill(home, "profile", home / ".bashrc"): "not a Markdown file",
        skill(home, "far", outside / "far.md"): "outside your home folder",
    }
    found, skipped = discover_skills(project, home)
    assert {s.path for s in found} == kept  # "mine" once, as the project's "shared"
    assert len(skipped) == len(dropped)
    for path, why in dropped.items():
        (line,) = [s for s in skipped if str(path) in s]
        assert why in line and line.startswith("skipped a skill: ")


# --- the managed skill's frontmatter -------------------------------------------------------------

HOSTILE = [
    r"fix the regex \d+ in C:\Users\dev\xparse\parser.py so the test passes",
    "fix the \x1b]0;PWNED-TITLE\x07 login test \x1b[2J in tests/test_auth.py \u202eevil",
    "don't say \"done\" \\ it's 'quoted': # not a comment",
]


@pytest.mark.parametrize("request_text", HOSTILE)
def test_the_managed_skill_frontmatter_is_valid_yaml(request_text: str) -> None:
    yaml = pytest.importorskip("yaml")
    text = managed_skill_text([request_text, "fix the login test"])
    frontmatter = text.split("---\n")[1]
    meta = yaml.safe_load(frontmatter)  # raised ScannerError / ReaderError before
    assert meta["name"] == "skillopt-learned"
    description = meta["description"]
    assert "fix the login test" in description
    assert not re.search(
        r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]", text
    )
    if "regex" in request_text:
        assert r"regex \d+ in C:\Users\dev\xparse\parser.py" in description
    if "quoted" in request_text:
        assert "don't say \"done\" \\ it's 'quoted': # not a comment" in description
    assert frontmatter_fields(text)["description"] == description  # what routing reads back


# --- proposal ids --------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    skill = root / ".claude" / "skills" / "login-tests" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(OLD)
    _staged(root, skill)
    return root


@pytest.mark.parametrize("action", [adopt, reject, rollback, report_path])
def test_an_empty_proposal_id_is_a_usage_error_not_the_latest(project: Path, action) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match="empty proposal id"):
        action(project, "")
    assert (project / ".claude/skills/login-tests/SKILL.md").read_text() == OLD


@pytest.mark.parametrize("command", ["report", "adopt", "reject", "rollback"])
def test_odd_proposal_ids_are_clean_errors_on_the_command_line(project: Path, command: str) -> None:
    for odd in ("a" * 300, "x\x1b[31mRED\x07"):
        code, _, err = _invoke(command, odd, "-p", str(project))
        assert code == EXIT_USAGE, err
        assert "no staged proposal" in err and "Traceback" not in err
        assert "\x1b" not in err and "\x07" not in err
    code, _, err = _invoke(command, "", "-p", str(project))
    assert code == EXIT_USAGE and "empty proposal id" in err


def test_an_over_long_project_path_is_a_clean_error(project: Path) -> None:
    code, _, err = _invoke("status", "-p", "/x" * 3000)
    assert code == EXIT_USAGE, err
    assert "File name too long" in err and len(err) < 1000


# --- the mode of a file adopt creates ------------------------------------------------------------


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
def test_a_new_live_skill_file_gets_the_umask_mode_not_0600(tmp_path: Path, umask: None) -> None:
    project = tmp_path / "proj"
    live = project / ".claude" / "skills" / "skillopt-learned" / "SKILL.md"
    _staged(project, live, before=None)
    adopt(project, PROPOSAL)
    assert stat.S_IMODE(live.stat().st_mode) == 0o640
    private = ProjectState(project).proposal_dir(PROPOSAL) / "diff.patch"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600  # the engine's own state stays private


# --- a diff whose file name holds a newline ------------------------------------------------------

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _parse(patch: str) -> list[tuple[str, str]]:
    """Strict unified diff reading: (old name, new name) per file; every other line a hunk line."""
    files: list[tuple[str, str]] = []
    lines = patch.split("\n")
    assert lines.pop() == ""
    i = 0
    while i < len(lines):
        if lines[i].startswith("# "):
            i += 1
            continue
        assert lines[i].startswith("--- ") and lines[i + 1].startswith("+++ "), lines[i : i + 2]
        files.append((_unquote(lines[i][4:]), _unquote(lines[i + 1][4:])))
        i += 2
        while i < len(lines) and lines[i].startswith("@@"):
            match = _HUNK.match(lines[i])
            assert match, lines[i]
            old = int(match.group(2) or 1)
            new = int(match.group(4) or 1)
            i += 1
            while old or new or (i < len(lines) and lines[i].startswith("\\ ")):
                tag = lines[i][:1]
                assert tag in " +-\\", lines[i]
                old -= tag in " -"
                new -= tag in " +"
                i += 1
            assert old == 0 and new == 0
    return files


def _unquote(name: str) -> str:
    name = name.rstrip("\t")
    if not name.startswith('"'):
        return name
    assert name.endswith('"') and len(name) > 1
    raw = name[1:-1].encode("ascii", "backslashreplace")
    return raw.decode("unicode_escape").encode("latin-1").decode("utf-8", "surrogateescape")


def _patch_applies(
    patch_file: Path, old: dict[Path, str], new: dict[Path, str], work: Path
) -> bool:
    """GNU ``patch`` (when installed), reading the file names from the headers, turns copies of
    the ``old`` files, made in ``work`` (a folder of the test's own), into the ``new`` ones
    (absolute names: stripped to the test's temp dir)."""
    if shutil.which("patch") is None:
        return True
    root = Path(os.path.commonpath([*old, *new])).parent
    for path, text in old.items():
        (work / path.relative_to(root)).parent.mkdir(parents=True, exist_ok=True)
        (work / path.relative_to(root)).write_text(text)
    argv = [
        "patch",
        "--batch",
        "-s",
        "-d",
        str(work),
        f"-p{len(root.parts)}",
        "-i",
        str(patch_file),
    ]
    done = subprocess.run(argv, capture_output=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return all((work / p.relative_to(root)).read_text() == text for p, text in new.items())


def test_a_newline_in_the_project_path_keeps_the_diff_well_formed(tmp_path: Path) -> None:
    from skillopt_sleep.stage import _html

    project = tmp_path / 'new\nline "q" \\ \u2028 \x85'
    skill = project / ".claude" / "skills" / "login-tests" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(OLD)
    created = project / ".claude" / "skills" / "skillopt-learned" / "SKILL.md"
    changes = [
        FileChange(skill, "skill", OLD.encode(), NEW + "a\x0cform feed\u2028kept\n", 1),
        FileChange(created, "managed", None, "---\nname: x\n---\nbody", 1),
    ]
    directory = stage(ProjectState(project), PROPOSAL, changes, {})
    patch = (directory / "diff.patch").read_text()
    assert _parse(patch) == [(str(skill), str(skill)), ("/dev/null", str(created))]
    assert "\\ No newline at end of file" in patch
    new = {skill: changes[0].proposed, created: changes[1].proposed}
    assert _patch_applies(directory / "diff.patch", {skill: OLD}, new, tmp_path / "apply")
    spans = re.findall(r'<span class="(\w+)">(.*?)</span>', _html._diff(patch), re.S)
    assert [css for css, _ in spans if css == "file"] == ["file"] * 4
    assert all(not text.startswith(("---", "+++")) for css, text in spans if css != "file")
    assert [text for css, text in spans if css == "add"][-1] == "+body"
    assert all(text.startswith((" ", "\\")) for css, text in spans if css == "ctx")
