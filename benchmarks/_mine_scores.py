"""How ``bench_mine.py`` and its training experiments score a clustering on a labelled set.

Shared by ``bench_mine.py`` (the quality tables) and ``_mine_training.py`` (the fine-tuning and
blending experiments), so every table is scored the same way: the same metrics, the same random
draws of 30, 60 and 120 requests.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from skillopt_sleep.mine import cluster_requests
from skillopt_sleep.mine.embed import Embedder, create_embedder
from skillopt_sleep.mine.embed.minilm_numpy import SHIPPED, numpy_model_dir

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SETS = {"A": DATA / "requests.jsonl", "B": DATA / "requests_b.jsonl"}
SIZES = (30, 60, 120)
SUBSAMPLE_SEED = 20261123
# Rows that are a registered embedder on a given model: the shipped int8 MiniLM (fine-tuned on
# set A, so its set A figures are on its training data: see --crossfit) and the original model.
VARIANTS = {
    "minilm-int8": ("minilm-numpy", str(SHIPPED)),
    "minilm-original": ("minilm-numpy", str(numpy_model_dir() or "")),
}


def make_embedder(name: str) -> Embedder:
    """A registered embedder by name, or one of the VARIANTS rows."""
    registered, model = VARIANTS.get(name, (name, ""))
    return create_embedder(registered, model=model)


def truth_of(rows: Sequence[dict[str, Any]]) -> np.ndarray:
    """Each labelled row's family; a one-off is a family of its own."""
    return np.array([r["family"] or f"one-off:{r['id']}" for r in rows])


def load(path: Path) -> tuple[list[str], np.ndarray]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r["text"] for r in rows], truth_of(rows)


def clustering_scores(truth: np.ndarray, labels: Sequence[int]) -> dict[str, float]:
    from sklearn.metrics import adjusted_rand_score, v_measure_score

    found = np.asarray(labels)
    members: dict[int, list[int]] = {}
    for i, label in enumerate(found):
        members.setdefault(int(label), []).append(i)
    mined = [m for m in members.values() if len(m) > 1]
    ones = [i for i, t in enumerate(truth) if t.startswith("one-off")]
    return {
        "ari": float(adjusted_rand_score(truth, found)),
        "v": float(v_measure_score(truth, found)),
        "purity": float(np.mean([len(set(truth[m])) == 1 for m in mined])) if mined else 1.0,
        "alone": float(np.mean([len(members[int(found[i])]) == 1 for i in ones])) if ones else 1.0,
        "mined": float(len(mined)),
    }


def subsamples(
    cluster: Callable[[list[str]], list[int]], texts: list[str], truth: np.ndarray, draws: int
) -> dict[str, dict[str, float]]:
    rng = np.random.default_rng(SUBSAMPLE_SEED)
    table: dict[str, dict[str, float]] = {}
    for n in SIZES:
        runs = []
        for _ in range(draws):
            idx = np.sort(rng.choice(len(texts), n, replace=False))
            runs.append(clustering_scores(truth[idx], cluster([texts[i] for i in idx])))
        table[str(n)] = {k: float(np.mean([r[k] for r in runs])) for k in runs[0]}
    table["full"] = clustering_scores(truth, cluster(texts))
    return table


def report(label: str, embedder: Embedder, rows: Sequence[dict[str, Any]], draws: int) -> None:
    """One line: ``embedder``'s ARI / purity / one-offs alone on ``rows`` at every size."""
    texts = [str(r["text"]) for r in rows]
    table = subsamples(lambda t: cluster_requests(t, embedder), texts, truth_of(rows), draws)
    cells = "  ".join(
        f"{size}: {v['ari']:.2f}/{v['purity']:.2f}/{v['alone']:.2f}" for size, v in table.items()
    )
    print(f"{label} ({len(texts)} requests) ARI/purity/alone  {cells}", flush=True)
