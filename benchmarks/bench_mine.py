"""Miner quality and speed, printed.

Quality, on the labelled set ``tests/data/requests.jsonl`` (one-offs are singleton families):
Adjusted Rand Index and V-measure of the clustering at each embedder's default threshold (and the
best threshold of a sweep, to show how the default was chosen), and recall@5 of same-family
retrieval (a hit when one of the 5 nearest other requests is of the same family; "strict" is the
share of the possible same-family neighbours found in the top 5).

Held-out check: the families (and one-offs) are split in two halves by a fixed seed; the threshold
with the best ARI on half A, clustering half A alone, is applied to half B alone ("held-out") and to
the full set. The default thresholds were picked that way, so the held-out figure is the honest one.

Speed: 10,000 synthetic requests (``benchmarks/_corpus.py``), TF-IDF embed + cluster time and peak
memory (run in a child process so the figure is the stage alone); MiniLM throughput; and a second
night through ``mine`` that only embeds the requests it has not seen.

    .venv/bin/python benchmarks/bench_mine.py [--skip-minilm] [--n 10000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from skillopt_sleep.mine.cluster import cluster_vectors  # noqa: E402
from skillopt_sleep.mine.embed import create_embedder  # noqa: E402

LABELLED = ROOT / "tests" / "data" / "requests.jsonl"
SWEEP = np.round(np.arange(0.02, 0.60, 0.01), 2)
SPLIT_SEED = 20261121


def family_halves(truth: np.ndarray) -> np.ndarray:
    """True for the requests of half A: a fixed random half of the families and of the one-offs."""
    rng = np.random.default_rng(SPLIT_SEED)
    half: set[str] = set()
    for group in (
        sorted({f for f in truth if not f.startswith("one-off")}),
        sorted({f for f in truth if f.startswith("one-off")}),
    ):
        half |= {group[i] for i in rng.permutation(len(group))[: len(group) // 2]}
    return np.array([f in half for f in truth])


def quality(name: str) -> dict[str, object]:
    from sklearn.metrics import adjusted_rand_score, v_measure_score

    rows = [json.loads(line) for line in LABELLED.read_text().splitlines() if line.strip()]
    texts = [r["text"] for r in rows]
    truth = np.array([r["family"] or f"one-off:{r['id']}" for r in rows])
    embedder = create_embedder(name)
    vectors = embedder.embed(texts)
    sims = embedder.similarity(vectors, vectors)
    np.fill_diagonal(sims, -np.inf)
    top = np.argsort(-sims, axis=1)[:, :5]
    sizes = {f: int((truth == f).sum()) for f in set(truth)}
    queries = [i for i in range(len(rows)) if sizes[truth[i]] > 1]
    hit = np.mean([np.any(truth[top[i]] == truth[i]) for i in queries])
    strict = np.mean(
        [np.sum(truth[top[i]] == truth[i]) / min(5, sizes[truth[i]] - 1) for i in queries]
    )

    def score(threshold: float, rows: np.ndarray | None = None) -> tuple[float, float]:
        idx = np.arange(len(truth)) if rows is None else np.flatnonzero(rows)
        labels = cluster_vectors(
            vectors[idx], embedder.similarity, float(threshold), shortlist=embedder.shortlist
        )
        return adjusted_rand_score(truth[idx], labels), v_measure_score(truth[idx], labels)

    sweep = {float(t): score(t) for t in SWEEP}
    best = max(sweep, key=lambda t: sweep[t][0])
    ari, vm = score(embedder.default_threshold)
    half_a = family_halves(truth)
    tuned = max(SWEEP, key=lambda t: score(t, half_a)[0])
    return {
        "embedder": name,
        "requests": len(rows),
        "families": len({f for f in truth if not f.startswith("one-off")}),
        "threshold": embedder.default_threshold,
        "ari": round(ari, 3),
        "v_measure": round(vm, 3),
        "recall@5": round(float(hit), 3),
        "recall@5_strict": round(float(strict), 3),
        "best_threshold": best,
        "best_ari": round(sweep[best][0], 3),
        "half_a_threshold": float(tuned),
        "half_a_ari": round(score(tuned, half_a)[0], 3),
        "held_out_ari": round(score(tuned, ~half_a)[0], 3),
        "full_ari_at_half_a": round(sweep[float(tuned)][0], 3),
        "sweep": {t: round(a, 3) for t, (a, _) in sweep.items()},
    }


def _speed_child(n: int) -> None:
    import resource

    from _corpus import make_requests

    texts = make_requests(n, 0)
    embedder = create_embedder("tfidf")
    t0 = time.perf_counter()
    vectors = embedder.embed(texts)
    t1 = time.perf_counter()
    labels = cluster_vectors(vectors, embedder.similarity, embedder.default_threshold)
    t2 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "n": n,
                "embed_s": round(t1 - t0, 2),
                "cluster_s": round(t2 - t1, 2),
                "total_s": round(t2 - t0, 2),
                "peak_mb": round(peak),
                "clusters": int(labels.max() + 1),
            }
        )
    )


def speed(n: int) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, __file__, "--speed-child", str(n)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def minilm_throughput(n: int = 2000) -> dict[str, object]:
    from _corpus import make_requests

    embedder = create_embedder("minilm")
    embedder.embed(["warm up"])
    texts = make_requests(n, 1)
    t0 = time.perf_counter()
    embedder.embed(texts)
    seconds = time.perf_counter() - t0
    return {"sentences": n, "seconds": round(seconds, 2), "sentences_per_s": round(n / seconds, 1)}


def second_night(embedder: str, first: int = 2000, extra: int = 300) -> dict[str, object]:
    """Two nights through ``mine``: the second embeds only the requests that are new."""
    from datetime import datetime, timedelta, timezone

    from _corpus import make_requests

    from skillopt_sleep.mine import Archive, MineConfig, mine
    from skillopt_sleep.records import Session, Turn

    texts = make_requests(first + extra, 2)
    base = datetime(2026, 11, 1, tzinfo=timezone.utc)

    def sessions(chunk: list[str], offset: int) -> list[Session]:
        return [
            Session(
                "claude",
                f"s{offset + i}",
                "/p",
                "/p",
                base + timedelta(minutes=offset + i),
                base + timedelta(minutes=offset + i, seconds=30),
                (Turn("user", text),),
            )
            for i, text in enumerate(chunk)
        ]

    with tempfile.TemporaryDirectory() as tmp, Archive(Path(tmp) / "a.sqlite3") as archive:
        t0 = time.perf_counter()
        one = mine(sessions(texts[:first], 0), archive, MineConfig(embedder=embedder, night="n1"))
        t1 = time.perf_counter()
        two = mine(
            sessions(texts[first:], first), archive, MineConfig(embedder=embedder, night="n2")
        )
        t2 = time.perf_counter()
    return {
        "embedder": embedder,
        "night1": {
            "requests": one.stats["requests"],
            "embedded": one.stats["embedded"],
            "families": one.stats["families"],
            "seconds": round(t1 - t0, 2),
        },
        "night2": {
            "requests": two.stats["requests"],
            "embedded": two.stats["embedded"],
            "families": two.stats["families"],
            "seconds": round(t2 - t1, 2),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-minilm", action="store_true")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--speed-child", type=int, default=0)
    args = parser.parse_args()
    if args.speed_child:
        _speed_child(args.speed_child)
        return
    names = ["jaccard", "tfidf"] + ([] if args.skip_minilm else ["minilm"])
    print("== quality on", LABELLED.relative_to(ROOT))
    print(f"{'embedder':9} {'thr':>5} {'ARI':>6} {'V':>6} {'R@5':>6} {'R@5s':>6} | best thr / ARI")
    for name in names:
        q = quality(name)
        print(
            f"{name:9} {q['threshold']:5.2f} {q['ari']:6.3f} {q['v_measure']:6.3f} {q['recall@5']:6.3f} {q['recall@5_strict']:6.3f} | {q['best_threshold']:.2f} / {q['best_ari']:.3f}"
        )
        print(
            f"   held-out: thr {q['half_a_threshold']:.2f} tuned on half A (ARI {q['half_a_ari']:.3f})"
            f" -> half B {q['held_out_ari']:.3f}, full set {q['full_ari_at_half_a']:.3f}"
        )
        print("   sweep ARI:", " ".join(f"{t:.2f}:{a:.2f}" for t, a in q["sweep"].items()))  # type: ignore[attr-defined]
    print(f"\n== {args.n} requests, TF-IDF embed + cluster (child process)")
    print(json.dumps(speed(args.n)))
    if not args.skip_minilm:
        print("\n== MiniLM throughput (CPU)")
        print(json.dumps(minilm_throughput()))
    print("\n== second night embeds only new requests")
    for name in ["tfidf"] + ([] if args.skip_minilm else ["minilm"]):
        print(json.dumps(second_night(name)))


if __name__ == "__main__":
    main()
