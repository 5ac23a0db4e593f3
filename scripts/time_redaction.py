"""Rough throughput of skillopt_core.redaction on ordinary and secret-bearing text.

Usage: python scripts/time_redaction.py  (prints MB/s and microseconds per call)
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from skillopt_core.redaction import redact, redact_many

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts"


def _texts_from_transcripts() -> list[str]:
    """Every string value in the fixture transcripts: what a harvester hands to redact."""
    out: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, str) and node:
            out.append(node)
        elif isinstance(node, dict):
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for path in sorted(FIXTURES.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                walk(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


def _bench(name: str, texts: list[str], repeat: int) -> None:
    size = sum(len(t) for t in texts) * repeat
    start = time.perf_counter()
    for _ in range(repeat):
        for t in texts:
            redact(t)
    elapsed = time.perf_counter() - start
    calls = len(texts) * repeat
    print(
        f"{name:<28} {calls:>8} calls {size / 1e6:8.2f} MB  {size / 1e6 / elapsed:7.1f} MB/s"
        f"  {elapsed / calls * 1e6:7.1f} us/call"
    )


def _bench_batched(name: str, texts: list[str], batch: int, repeat: int) -> None:
    size = sum(len(t) for t in texts) * repeat
    batches = [texts[i : i + batch] for i in range(0, len(texts), batch)]
    start = time.perf_counter()
    for _ in range(repeat):
        for b in batches:
            redact_many(b)
    elapsed = time.perf_counter() - start
    print(
        f"{name:<28} {len(batches) * repeat:>8} batches {size / 1e6:6.2f} MB  {size / 1e6 / elapsed:7.1f} MB/s"
    )


def main() -> None:
    sources = [p.read_text(encoding="utf-8") for p in sorted(ROOT.glob("skillopt_*/**/*.py"))]
    prose = ["Please fix the failing test in src/app.py; it still fails after the last change."]
    secrets = [
        "export GITHUB_TOKEN=ghp_" + "aB3" * 12 + " && gh pr list",
        "My key is sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd ok",
    ]
    transcript_texts = _texts_from_transcripts()
    _bench("short prose", prose, 20000)
    _bench("transcript string fields", transcript_texts, 20)
    _bench_batched("same, redact_many by 100", transcript_texts, 100, 20)
    _bench("python sources (whole files)", sources, 5)
    _bench("texts with secrets", secrets, 5000)


if __name__ == "__main__":
    main()
