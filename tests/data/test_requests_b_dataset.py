"""The held-out labelled set B (``requests_b.jsonl``): format and the counts its README states."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

DATA = Path(__file__).with_name("requests_b.jsonl")
DOMAINS = {"devops", "frontend", "data", "writing", "research"}


def _rows() -> list[dict[str, object]]:
    with DATA.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_set_b_is_well_formed() -> None:
    rows = _rows()
    assert len(rows) >= 400
    for row in rows:
        assert set(row) == {"id", "family", "domain", "text"}, row
        assert isinstance(row["id"], str) and row["id"].startswith("b")
        assert row["family"] is None or (isinstance(row["family"], str) and row["family"])
        assert row["domain"] in DOMAINS, row
        assert isinstance(row["text"], str) and row["text"].strip() == row["text"] != ""
    assert len({row["id"] for row in rows}) == len(rows)
    assert len({str(row["text"]).lower() for row in rows}) == len(rows)


def test_set_b_families_and_one_offs() -> None:
    rows = _rows()
    sizes = Counter(row["family"] for row in rows if row["family"] is not None)
    one_offs = sum(1 for row in rows if row["family"] is None)
    assert len(sizes) >= 50 and min(sizes.values()) >= 3
    assert one_offs >= 0.15 * len(rows)
    assert sum("[REDACTED:" in str(row["text"]) for row in rows if row["family"] is None) >= 3
