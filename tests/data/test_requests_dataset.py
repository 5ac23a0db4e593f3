"""The labelled request set (``requests.jsonl``) and the synthetic corpus generator."""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

DATA = Path(__file__).with_name("requests.jsonl")
CORPUS = Path(__file__).resolve().parents[2] / "benchmarks" / "_corpus.py"
DOMAINS = {"coding", "research", "ops", "writing"}


@pytest.fixture(scope="module")
def rows() -> list[dict[str, object]]:
    with DATA.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="module")
def corpus() -> ModuleType:
    spec = importlib.util.spec_from_file_location("benchmarks_corpus", CORPUS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def test_rows_are_well_formed(rows: list[dict[str, object]]) -> None:
    assert len(rows) >= 300
    for row in rows:
        assert set(row) == {"id", "family", "domain", "text"}, row
        assert isinstance(row["id"], str) and row["id"].startswith("r")
        assert row["family"] is None or (isinstance(row["family"], str) and row["family"])
        assert row["domain"] in DOMAINS, row
        assert isinstance(row["text"], str) and row["text"].strip() == row["text"] != ""
    ids = [row["id"] for row in rows]
    assert len(ids) == len(set(ids))


def test_families_and_one_offs(rows: list[dict[str, object]]) -> None:
    sizes = Counter(row["family"] for row in rows if row["family"] is not None)
    assert len(sizes) >= 40
    assert all(5 <= size <= 10 for size in sizes.values()), sizes
    assert sum(1 for row in rows if row["family"] is None) >= 40
    # a family lives in one domain, and every domain has families
    domain_of: dict[object, set[object]] = {}
    for row in rows:
        if row["family"] is not None:
            domain_of.setdefault(row["family"], set()).add(row["domain"])
    assert all(len(domains) == 1 for domains in domain_of.values())
    assert set().union(*domain_of.values()) == DOMAINS


def test_no_duplicate_texts(rows: list[dict[str, object]]) -> None:
    texts = [str(row["text"]).strip().lower() for row in rows]
    assert len(texts) == len(set(texts))


def test_generator_returns_n_and_is_deterministic(corpus: ModuleType) -> None:
    for n in (0, 1, 2, 7, 100, 1000):
        assert len(corpus.make_requests(n, seed=3)) == n
        assert len(corpus.make_labelled(n, seed=3)) == n
    assert corpus.make_labelled(500, seed=1) == corpus.make_labelled(500, seed=1)
    assert corpus.make_requests(500, seed=1) == [t for t, _ in corpus.make_labelled(500, seed=1)]
    assert corpus.make_requests(500, seed=1) != corpus.make_requests(500, seed=2)


def test_generator_shape_and_speed(corpus: ModuleType) -> None:
    start = time.perf_counter()
    pairs = corpus.make_labelled(10_000, seed=0)
    elapsed = time.perf_counter() - start
    assert len(pairs) == 10_000
    assert elapsed < 2.0  # ~0.1 s in practice; generous for a loaded CI box
    assert all(isinstance(text, str) and text for text, _ in pairs)
    sizes = Counter(family for _, family in pairs if family is not None)
    one_offs = [text for text, family in pairs if family is None]
    assert len(sizes) >= 100
    assert min(sizes.values()) >= 2
    assert 0.1 * len(pairs) <= len(one_offs) <= 0.2 * len(pairs)
    assert len(set(one_offs)) >= 0.95 * len(one_offs)  # one-offs are (nearly) never repeated
    assert len({text for text, _ in pairs}) >= 0.7 * len(pairs)  # mostly distinct texts
