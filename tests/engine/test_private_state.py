"""Everything a night leaves in the state directory is the user's alone: folders 0700, files
0600 (run directories hold the user's requests and the models' replies; the lock, a pid)."""

from __future__ import annotations

import json
import stat

from typer.testing import CliRunner

from skillopt_sleep.cli import app
from skillopt_sleep.paths import state_dir
from tests.engine._world import World


def test_a_night_leaves_only_private_folders_and_files(world: World, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SKILLOPT_SLEEP_NIGHT_SINCE", "3650d")
    homes = ["--claude-home", str(world.home / ".claude"), "--codex-home",
             str(world.home / ".codex"), "--copilot-home", str(world.home / ".copilot"),
             "--embedder", "tfidf"]  # fmt: skip
    result = CliRunner().invoke(app, ["run", "-p", str(world.webapp), *homes, "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["outcome"] == "staged"
    root = state_dir()
    nights = list(root.rglob("nights/*/target-*"))
    assert nights, "the night kept no run directory to check"
    loose = []
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        wanted = 0o700 if path.is_dir() else 0o600
        if not path.is_symlink() and mode & 0o077:
            loose.append(f"{path.relative_to(root)} is {oct(mode)}, not {oct(wanted)}")
    assert not loose, "\n".join(loose)


def test_mine_alone_keeps_its_archive_private(world: World, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`skillopt-sleep mine` before any night made mine-archive.sqlite3 0644 (the umask)."""
    homes = ["--claude-home", str(world.home / ".claude"), "--codex-home",
             str(world.home / ".codex"), "--copilot-home", str(world.home / ".copilot")]  # fmt: skip
    chosen = tmp_path / "mine" / "chosen.sqlite3"
    for extra in ([], ["--archive", str(chosen)]):
        args = ["mine", "-p", str(world.webapp), *homes, "--embedder", "jaccard", *extra]
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.stderr
    made = [*state_dir().rglob("mine-archive.sqlite3"), chosen]
    assert len(made) == 2
    for path in made:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE(chosen.parent.stat().st_mode) == 0o700
