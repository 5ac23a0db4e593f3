"""The hand-written multilingual set (``tests/data/i18n_requests.jsonl``)."""

from __future__ import annotations

import json
from pathlib import Path

SET = Path(__file__).resolve().parents[1] / "data" / "i18n_requests.jsonl"


def rows(kind: str | None = None, lang: str | None = None) -> list[dict[str, str]]:
    found = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line]
    return [
        r
        for r in found
        if (kind is None or r["kind"] == kind) and (lang is None or r["lang"] == lang)
    ]
