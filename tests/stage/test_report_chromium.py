"""The HTML report in a real browser: Debian's headless Chromium, offline.

What a user would see: a screenshot at desktop (1280px) and phone (390px) width, no console
errors, every chart parsed into the DOM with its points, hostile text inert in the live DOM,
and no sideways scrolling on a phone. The console scanner is first shown to catch a deliberate
error, so "no errors" means something. ``bash scripts/bootstrap.sh --dev`` installs Chromium.
"""

from __future__ import annotations

import html
import re
import shutil
import struct
import subprocess
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest

from skillopt_sleep.engine.records import NightReport
from skillopt_sleep.stage.report import render_html
from tests.stage.reports import DIFF, HOSTILE, hostile_night, quiet_night, staged_night

pytestmark = pytest.mark.integration

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
if CHROMIUM is None:
    pytest.skip(
        "Debian's chromium is not installed (bash scripts/bootstrap.sh --dev installs it)",
        allow_module_level=True,
    )

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
)
CONSOLE = re.compile(r"CONSOLE|Uncaught|Refused to", re.I)
SVG_CHART = re.compile(r'<svg class="chart"[^>]*\bid="([^"]+)"[^>]*>(.*?)</svg>', re.S)


@dataclass(frozen=True)
class Run:
    stdout: str
    console: list[str]


def _chromium(tmp_path: Path, name: str, page: Path, extra: Sequence[str]) -> Run:
    """One headless Chromium run with its own profile and HOME, so nothing leaks between runs."""
    profile = tmp_path / f"profile-{name}"
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,  # a hung browser fails the test instead of the whole run
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if CONSOLE.search(line)]
    return Run(done.stdout, console)


def _write(tmp_path: Path, name: str, report: NightReport, diff: str = DIFF) -> Path:
    path = tmp_path / f"{name}.html"
    path.write_text(render_html(report, diff), encoding="utf-8")
    return path


def _png(path: Path) -> tuple[int, int, bytes]:
    """Width, height and the decompressed scanlines of a PNG (no imaging library needed)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    chunks, pos = [], 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        if kind == b"IDAT":
            chunks.append(data[pos + 8 : pos + 8 + length])
        pos += 12 + length
    return width, height, zlib.decompress(b"".join(chunks))


def test_console_scanner_catches_a_deliberate_error(tmp_path: Path) -> None:
    page = tmp_path / "broken.html"
    page.write_text("<!doctype html><p>x</p><script>console.error('canary'); nope();</script>")
    run = _chromium(tmp_path, "canary", page, ["--dump-dom"])
    assert any("canary" in line for line in run.console), run.console
    assert any("Uncaught" in line for line in run.console), run.console


@pytest.mark.parametrize("width", [1280, 390])
def test_screenshot_at_desktop_and_phone_width(tmp_path: Path, width: int) -> None:
    page = _write(tmp_path, "report", staged_night(step_count=12, history_nights=6))
    shot = tmp_path / f"report-{width}.png"
    run = _chromium(
        tmp_path, f"shot-{width}", page, [f"--screenshot={shot}", f"--window-size={width},2400"]
    )
    assert run.console == []
    assert shot.exists() and shot.stat().st_size > 20_000
    png_width, png_height, pixels = _png(shot)
    assert (png_width, png_height) == (width, 2400)
    # A blank or single-colour page compresses to almost nothing and has few distinct bytes.
    assert len(set(pixels)) > 64


class _Dom(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


@pytest.mark.parametrize(
    ("name", "report", "charts"),
    [
        ("staged", staged_night(step_count=12), {"chart-steps-0", "chart-steps-1", "chart-nights"}),
        ("hostile", hostile_night(), {"chart-steps-0", "chart-steps-1", "chart-nights"}),
        ("quiet", quiet_night(), {"chart-steps-0", "chart-nights"}),
    ],
)
def test_every_chart_is_in_the_dom_and_no_console_errors(
    tmp_path: Path, name: str, report: NightReport, charts: set[str]
) -> None:
    diff = "" if name == "quiet" else DIFF + "+" + HOSTILE + "\n"
    run = _chromium(
        tmp_path,
        name,
        _write(tmp_path, name, report, diff),
        ["--dump-dom", "--window-size=1280,900"],
    )
    assert run.console == []
    found = {m.group(1): m.group(2) for m in SVG_CHART.finditer(run.stdout)}
    assert set(found) == charts
    for chart_id, body in found.items():
        points = body.count("<circle")
        assert body.count("<line") >= 5, f"{chart_id}: the frame and grid were drawn"
        if name == "quiet":
            assert points == 0 and "no " in body
        else:
            assert points > 0, chart_id
    dom = _Dom()
    dom.feed(run.stdout)
    names = {tag for tag, _ in dom.tags}
    assert "script" not in names
    assert all(not key.startswith("on") for _, attrs in dom.tags for key in attrs)
    if name == "hostile":
        assert HOSTILE in "".join(dom.text), "hostile text is shown as text"


@pytest.mark.parametrize("name", ["staged", "hostile"])
def test_no_sideways_scrolling_on_a_phone(tmp_path: Path, name: str) -> None:
    """Lay the report out in a 390px frame and measure it from the parent page.

    Headless windows are at least 500px wide, so a same-origin ``srcdoc`` frame gives the
    report a phone-sized viewport; the parent's script (the report itself has none) reads the
    frame's scroll width into the DOM that ``--dump-dom`` prints.
    """
    report = staged_night(step_count=40, history_nights=20) if name == "staged" else hostile_night()
    body = render_html(report, DIFF + "+" + "x" * 300 + "\n")
    probe = tmp_path / f"probe-{name}.html"
    probe.write_text(
        '<!doctype html><body style="margin:0">'
        '<iframe id="f" style="border:0;width:390px;height:900px" '
        f'srcdoc="{html.escape(body, quote=True)}"></iframe><script>'
        'const f = document.getElementById("f");'
        'f.addEventListener("load", () => { const d = f.contentDocument.documentElement;'
        "document.body.dataset.scroll = d.scrollWidth; document.body.dataset.client = d.clientWidth;"
        'document.body.dataset.charts = f.contentDocument.querySelectorAll("svg.chart").length; });'
        "</script></body>",
        encoding="utf-8",
    )
    run = _chromium(tmp_path, f"probe-{name}", probe, ["--dump-dom", "--window-size=1280,900"])
    assert run.console == []
    found = re.search(r'data-scroll="(\d+)" data-client="(\d+)" data-charts="(\d+)"', run.stdout)
    assert found, run.stdout[-500:]
    scroll, client, charts = (int(x) for x in found.groups())
    assert 300 <= client <= 390
    assert scroll <= client, f"the page is {scroll}px wide in a {client}px phone viewport"
    assert charts == 3
