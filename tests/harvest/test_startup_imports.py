"""A piped `skillopt-sleep harvest` starts without typer, Rich or platformdirs (about 70 ms of
imports before anything is read), and prints what it printed with them: the summary Rich would
draw in a pipe is written as the same characters (``cli._plain_text``), checked here against Rich
itself, and the config and state folders are platformdirs' own."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from rich import box
from rich.console import Console
from rich.table import Table

from harvest._fixtures import FIXTURES, WEBAPP
from skillopt_sleep.harvest import HarvestStats

PROBE = (
    "import sys\nfrom skillopt_sleep.cli import main\nsys.argv[0] = 'skillopt-sleep'\n"
    "try:\n    main()\nexcept SystemExit as stop:\n    code = stop.code\nelse:\n    code = 0\n"
    "heavy = {'typer', 'click', 'rich', 'platformdirs'}\n"
    "loaded = sorted({m.split('.')[0] for m in sys.modules} & heavy)\n"
    "print('EXIT', code, 'LOADED', loaded, file=sys.stderr)"
)


def _clean_env(tmp_path: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SKILLOPT_SLEEP_") and k not in ("FORCE_COLOR", "TTY_COMPATIBLE")
    }
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"))
    return env


def _run(code: str, args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=_clean_env(tmp_path),
        timeout=120,
    )


@pytest.mark.parametrize("extra", [[], ["--json"], ["--json", "-o", "{tmp}/out.json"]])
def test_a_piped_harvest_imports_no_typer_rich_or_platformdirs(
    extra: list[str], tmp_path: Path
) -> None:
    home = tmp_path / ".claude"
    (home / "projects").mkdir(parents=True)
    args = ["harvest", "-p", str(tmp_path), "--claude-home", str(home), "-s", "claude",
            "--state-dir", str(tmp_path / "state")]  # fmt: skip
    done = _run(PROBE, [*args, *(arg.format(tmp=tmp_path) for arg in extra)], tmp_path)
    assert "EXIT 0 LOADED []" in done.stderr, done.stderr
    assert "Harvest summary" in (done.stderr if extra else done.stdout)


def test_an_error_of_the_plain_path_is_typers(tmp_path: Path) -> None:
    """An error during the run (here: the index cannot be made) is printed and exits as on
    typer's path, typer being imported only then."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    args = ["harvest", "-p", WEBAPP, "--claude-home", str(FIXTURES / ".claude"), "-s", "claude",
            "--state-dir", str(blocker / "state")]  # fmt: skip
    typer_code = "import sys; from skillopt_sleep.cli import app; app(prog_name='skillopt-sleep')"
    plain, typed = (_run(code, args, tmp_path) for code in (PROBE, typer_code))
    assert plain.returncode == 0  # the probe catches the exit and reports its code
    assert f"EXIT {typed.returncode} LOADED" in plain.stderr
    assert typed.returncode != 0 and typed.stderr.startswith("error: ")
    assert plain.stderr.split("EXIT")[0] == typed.stderr
    assert plain.stdout == typed.stdout


def test_the_fast_paths_options_are_the_commands() -> None:
    """``PLAIN_OPTIONS`` spells ``harvest_command``'s typer options, each a plain one."""
    import inspect

    from typer.models import OptionInfo

    from skillopt_sleep.cli import _harvesting
    from skillopt_sleep.cli.harvest import harvest_command

    kinds = {"bool": "flag", "Path | None": "path", "str | None": "text", "list[str]": "texts"}
    spellings: dict[str, tuple[str, str]] = {}
    defaults = {}
    for name, param in inspect.signature(harvest_command).parameters.items():
        info = param.default
        assert isinstance(info, OptionInfo)
        assert info.callback is info.envvar is info.parser is info.default_factory is None
        assert not (info.is_eager or info.prompt or info.count or info.exists or info.allow_dash)
        assert not (info.resolve_path or info.writable) and info.expose_value
        assert all(d.startswith("-") and "/" not in d for d in info.param_decls)
        spellings.update(dict.fromkeys(info.param_decls, (name, kinds[str(param.annotation)])))
        defaults[name] = info.default
    assert spellings == _harvesting.PLAIN_OPTIONS
    assert defaults == _harvesting.PLAIN_DEFAULTS


def test_no_progress_console_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillopt_sleep.cli import _harvesting

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert _harvesting._progress_console() is None
    monkeypatch.setenv("FORCE_COLOR", "1")  # Rich's to judge (and draw)
    console = _harvesting._progress_console()
    assert console is not None and console.is_terminal


# -- the plain characters are Rich's -------------------------------------------------------------

_ALPHABET = "abcdefghij ABC 0123456789 .,:;()/-_'\"!?%=+*&#@$<>{}|~`^]  "


def _text(rng: random.Random, most: int) -> str:
    text = "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, most)))
    if rng.random() < 0.3:  # a long word, folded across lines
        text += " " + "x" * rng.randint(10, 130)
    return text


def _rich_prints(width: int, printable: object) -> str:
    screen = io.StringIO()
    Console(file=screen, width=width, emoji=False).print(printable)
    return screen.getvalue()


def _rich_table(title: str, headers: list[str], rows: list[list[str]], widths: list[int]) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, padding=0)
    for at, (header, width) in enumerate(zip(headers, widths, strict=True)):
        table.add_column(
            header, justify="right" if at else "left", min_width=width, max_width=width
        )
    for row in rows:
        table.add_row(*row)
    return table


@pytest.mark.parametrize("seed", range(6))
def test_printed_text_is_what_rich_prints(seed: int) -> None:
    from skillopt_sleep.cli import _plain_text

    rng = random.Random(seed)
    for _ in range(400):
        text, width = _text(rng, 160), rng.randint(1, 120)
        assert _plain_text.is_plain(text)
        assert _plain_text.printed(text, width) == _rich_prints(width, text), (text, width)


@pytest.mark.parametrize("seed", range(4))
def test_a_simple_head_table_is_what_rich_prints(seed: int) -> None:
    from skillopt_sleep.cli import _plain_text

    rng = random.Random(seed)
    for _ in range(150):
        headers = [_text(rng, 24).replace("x", "").strip() or "h" for _ in range(rng.randint(1, 9))]
        rows = [
            [_text(rng, 12).replace("x", "") for _ in headers] for _ in range(rng.randint(0, 4))
        ]
        widths = [
            max([len(w) for w in header.split()] + [len(r[at]) for r in rows] + [rng.randint(1, 9)])
            for at, header in enumerate(headers)
        ]
        title = _text(rng, 20).replace("x", "")
        size = sum(widths) + len(widths) + 1
        plain = _plain_text.simple_head_table(title, headers, rows, widths)
        if len(title.rstrip()) > size:  # Rich would wrap the title
            assert plain is None
            continue
        table = _rich_table(title, headers, rows, widths)
        assert plain == _rich_prints(size + rng.randint(0, 20), table), (title, headers, rows)


def _stats(rng: random.Random, harness: str) -> HarvestStats:
    def reasons() -> dict[str, int]:
        if rng.random() < 0.5:
            return {}
        return {_text(rng, 40).strip() or "r": rng.randint(1, 10**rng.randint(1, 9))
                for _ in range(rng.randint(1, 3))}  # fmt: skip

    big = [rng.randint(0, 10 ** rng.randint(0, 12)) for _ in range(8)]
    return HarvestStats(harness, big[0], big[1], 0, 0, *big[2:7], reasons(), reasons(), reasons())


@pytest.mark.parametrize("seed", range(4))
def test_the_summary_is_what_rich_prints(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from skillopt_sleep.cli import _harvest_summary, _plain_text

    rng = random.Random(seed)
    missing = Path("/nonexistent/project-for-the-note")
    for _ in range(60):
        names = rng.sample(["claude", "codex", "copilot", "vscode"], rng.randint(1, 4))
        stats = {name: _stats(rng, name) for name in names}
        root = missing if rng.random() < 0.5 else Path.cwd()
        if root == missing:
            stats = {name: s for name, s in stats.items() if not s.sessions} or stats
        width = rng.randint(20, 160)
        monkeypatch.setenv("COLUMNS", str(width))
        screen = io.StringIO()
        monkeypatch.setattr(sys, "stdout", screen)
        _harvest_summary.summary(stats, root, stderr=False)
        expected = io.StringIO()
        monkeypatch.setattr(
            _harvest_summary,
            "terminal",
            lambda stderr, out=expected, wide=width: Console(file=out, width=wide, emoji=False),
        )
        monkeypatch.setattr(_plain_text, "plain_width", lambda stream: None)  # Rich draws it
        _harvest_summary.summary(stats, root, stderr=False)
        monkeypatch.undo()
        assert screen.getvalue() == expected.getvalue(), (width, stats)


def test_the_summary_needs_no_rich_in_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillopt_sleep.cli import _harvest_summary

    stats = {"claude": _stats(random.Random(1), "claude")}
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setattr(sys, "stdout", io.StringIO())

    def no_rich(stderr: bool) -> Console:
        raise AssertionError("Rich drew a summary that needs none")

    monkeypatch.setattr(_harvest_summary, "terminal", no_rich)
    _harvest_summary.summary(stats, Path.cwd(), stderr=False)
    assert "Harvest summary" in sys.stdout.getvalue()


@pytest.mark.parametrize(
    ("environ", "plain"),
    [
        ({"COLUMNS": "100"}, True),
        ({"COLUMNS": "7"}, True),
        ({}, True),
        ({"COLUMNS": "wide"}, False),
        ({"COLUMNS": "0"}, False),
        ({"COLUMNS": "100", "FORCE_COLOR": "1"}, False),
        ({"COLUMNS": "100", "FORCE_COLOR": ""}, False),
        ({"COLUMNS": "100", "TTY_COMPATIBLE": "0"}, False),
    ],
)
def test_the_plain_width_is_richs(
    environ: dict[str, str], plain: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skillopt_sleep.cli import _plain_text

    for name in ("COLUMNS", "FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    stream = io.StringIO()
    width = _plain_text.plain_width(stream)
    assert (width is not None) is plain
    if plain:
        console = Console(file=stream)
        assert not console.is_terminal and console.color_system is None
        assert width == console.width


def test_no_plain_width_for_another_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    from skillopt_sleep.cli import _plain_text

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    latin = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    assert _plain_text.plain_width(latin) is None  # Rich draws ASCII boxes there
    assert _plain_text.plain_width(io.TextIOWrapper(io.BytesIO(), encoding="utf-8")) is not None


# -- the config and state folders are platformdirs' ----------------------------------------------


@pytest.mark.parametrize(
    ("environ", "shortcut"),
    [
        ({"HOME": "/h/dev", "XDG_CONFIG_HOME": "/x/config", "XDG_STATE_HOME": "/x/state"}, True),
        ({"HOME": "/h/dev/"}, True),
        ({"HOME": "/", "XDG_CONFIG_HOME": "", "XDG_STATE_HOME": ""}, True),
        ({"HOME": "/h/dev", "XDG_CONFIG_HOME": "/x/c/", "XDG_STATE_HOME": "//x/s"}, True),
        ({"HOME": "/h/dev", "XDG_CONFIG_HOME": "rel/c", "XDG_STATE_HOME": "rel/s"}, False),
        ({"HOME": "/h/dev", "XDG_CONFIG_HOME": " ", "XDG_STATE_HOME": " "}, False),
        ({"HOME": "h/dev"}, False),
        ({}, False),
        ({"HOME": "/h/dev", "ANDROID_DATA": "/data", "ANDROID_ROOT": "/system"}, False),
    ],
)
def test_the_folders_are_platformdirs(
    environ: dict[str, str], shortcut: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    import platformdirs

    from skillopt_sleep import paths

    for name in ("SKILLOPT_SLEEP_CONFIG", "SKILLOPT_SLEEP_HOME", "HOME", "ANDROID_DATA",
                 "ANDROID_ROOT", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    if sys.platform != "linux":
        shortcut = False
    assert (paths._xdg_folder("XDG_STATE_HOME", ".local/state") is not None) is shortcut
    try:
        config = Path(platformdirs.user_config_dir("skillopt-sleep", appauthor=False))
        state = Path(platformdirs.user_state_dir("skillopt-sleep", appauthor=False))
    except RuntimeError:  # no home platformdirs can find
        assert not shortcut
        return
    assert paths.user_config_path() == config / "config.toml"
    assert paths.state_dir() == state
