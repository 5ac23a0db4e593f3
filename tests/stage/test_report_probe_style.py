"""The HTML report's stylesheet: right-to-left requests (Hebrew, Arabic) must not reorder the
report's own words around them."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from skillopt_sleep.stage._style import CSS


def _rules() -> list[tuple[list[str], str]]:
    flat = re.sub(r"@media[^{]*\{((?:[^{}]*\{[^{}]*\})*)[^{}]*\}", "", CSS)
    return [
        ([s.strip() for s in selectors.split(",")], body)
        for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", flat)
    ]


def test_user_text_elements_are_bidi_isolated() -> None:
    """A Hebrew family id in the card heading drew "7" of "7 requests" onto its own side."""
    isolated = {
        selector
        for selectors, body in _rules()
        if re.search(r"unicode-bidi:\s*(isolate|plaintext)", body)
        for selector in selectors
    }
    for needed in (":not(pre)>code", "q", "b[title]", ".badge", "td.path"):
        assert needed in isolated, needed
    assert any(s.startswith("pre") for s in isolated)


CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
_MEASURE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><style>{css}</style>
</head><body><main><article class="card family"><h3><code id="id">{family}</code>
<small id="count" class="muted">7 requests, 3 new tonight</small></h3></article></main>
<script>
const id = document.getElementById("id").getBoundingClientRect();
const count = document.getElementById("count");
document.body.dataset.result = [count.getClientRects().length,
  Math.round(count.getBoundingClientRect().left) >= Math.round(id.right) ? "after" : "before"
].join(" ");
</script></body></html>"""


@pytest.mark.integration
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_a_hebrew_family_id_keeps_the_count_after_it_in_a_browser(tmp_path: Path) -> None:
    page = tmp_path / "bidi.html"
    page.write_text(_MEASURE.format(css=CSS, family="שחרור-הערות"), encoding="utf-8")
    assert CHROMIUM is not None
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'data-result="([^"]*)"', done.stdout)
    assert found is not None, done.stdout[-2000:]
    assert found[1] == "1 after", "the count was pulled into the right-to-left id"
