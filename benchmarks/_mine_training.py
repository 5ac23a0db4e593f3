"""``bench_mine.py``'s experiments on the encoder, never run on set B: fine-tuning cross-fitted
on set A's halves (``--crossfit``, any recipe switch), the training-only sets of other writers
(``--writers``), and blending the shipped model's similarity with another embedder's
(``--blend``: the original MiniLM, or ``--blend-with`` any). The README's "Fine-tuning the encoder" section reports what they printed.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from _mine_scores import ROOT, make_embedder, report

from skillopt_sleep.mine.embed import Embedder, create_embedder, minilm_numpy
from skillopt_sleep.mine.families import compared_text

FINETUNE = ROOT / "scripts" / "finetune_minilm.py"


def tuned(tmp: str, name: str, *flags: str, threshold: float | None = None) -> Embedder:
    """MiniLM fine-tuned by the shipped recipe changed by ``flags``, at the shipped operating
    point or at ``threshold`` (torch: a few minutes per model)."""
    out = Path(tmp) / name
    subprocess.run(
        [sys.executable, str(FINETUNE), *flags, "--out", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return at_operating_point(str(out), threshold)


def at_operating_point(model_dir: str, threshold: float | None = None) -> Embedder:
    """The numpy embedder of a model directory (MiniLM's or MPNet's, by its config), at the
    shipped operating point or at ``threshold``."""
    import json

    kind = json.loads((Path(model_dir) / "config.json").read_text())["model_type"]
    model = create_embedder("mpnet" if kind == "mpnet" else "minilm-numpy", model=model_dir)
    model.default_threshold = threshold or minilm_numpy.SHIPPED_THRESHOLD  # type: ignore[misc]
    model.leftovers = minilm_numpy.SHIPPED_LEFTOVERS  # type: ignore[attr-defined]
    return model


def crossfit(draws: int, recipe: str = "", threshold: float | None = None) -> None:
    """Set A by halves of its families: the original model against it fine-tuned (by the
    shipped recipe changed by the ``recipe`` switches, e.g. ``--freeze 3``; MiniLM, or the
    MPNet of ``--model-dir``) on the *other* half, so every figure of the fine-tuned model is on
    families it never saw. Trains twice."""
    from scripts.finetune_minilm import half_of, labelled_rows

    rows = labelled_rows()
    flags = shlex.split(recipe)
    source = flags[flags.index("--model-dir") + 1] if "--model-dir" in flags else ""
    original = at_operating_point(source, threshold) if source else make_embedder("minilm-original")
    print("\n== set A cross-fitted: fine-tuned on one half of its families, scored on the other")
    print(
        f"recipe switches: {recipe or '(the shipped recipe)'}; threshold {threshold or 'shipped'}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for half in (1, 2):
            model = tuned(tmp, f"half{half}", "--half", str(half), *flags, threshold=threshold)
            held = half_of(rows, 3 - half)
            report(f"half {3 - half} original", original, held, draws)
            report(f"half {3 - half} tuned   ", model, held, draws)


def _writers_sets() -> dict[str, list[dict[str, Any]]]:
    from scripts.finetune_minilm import WRITTEN, labelled_rows

    return {
        p.stem[-2:]: labelled_rows(p) for p in sorted(WRITTEN.glob("finetune_requests_*.jsonl"))
    }


def writers(draws: int, train: bool) -> None:
    """The three training-only sets of ``scripts/data`` (other writers, other personas), which
    the shipped model never trained on, scored like set B. With ``train``, whether more writers'
    data generalises to a writer not seen: set A alone against set A with t1 and t2, both on
    the compared (masked) text, scored on t3 (trains twice)."""
    sets = _writers_sets()
    print("\n== training-only sets by other writers, scored (the shipped model never saw them)")
    for name in ("minilm-int8", "minilm-original"):
        for label, rows in sets.items():
            report(f"{label} {name:15}", make_embedder(name), rows, draws)
    if not train:
        return
    print("\n== does another writer's data carry over? fine-tuned, scored on t3 (never trained on)")
    with tempfile.TemporaryDirectory() as tmp:
        for label, flags in (
            ("set A        ", ("--masked",)),
            ("set A, t1, t2", ("--masked", "--written", "--leave_out", "t3")),
        ):
            report(
                f"t3 {label}",
                tuned(tmp, label.replace(",", "").replace(" ", ""), *flags),
                sets["t3"],
                draws,
            )


class _Both:
    """Rows of two encodings of the same texts, indexed together."""

    def __init__(self, first: Any, second: Any) -> None:
        self.first, self.second = first, second
        self.shape = first.shape

    def __getitem__(self, rows: Any) -> _Both:
        return _Both(self.first[rows], self.second[rows])

    def __len__(self) -> int:
        return int(self.shape[0])


class BlendedEmbedder:
    """Two embedders' similarities averaged with weight ``weight`` on the first, candidates
    shortlisted by the first, the shipped second chances. Each labelled set is encoded once
    (:meth:`encode`); a subsample's rows are taken from those encodings, so the words of the
    whole set stand in for the subsample's where MiniLM compares a request it cannot read."""

    name = "blend"

    def __init__(self, first: Embedder, second: Embedder, weight: float, threshold: float):
        self.first, self.second, self.weight = first, second, weight
        self.default_threshold = threshold
        self.leftovers = minilm_numpy.SHIPPED_LEFTOVERS
        self._rows: dict[str, int] = {}
        self._encoded: _Both | None = None

    def encode(self, rows: Sequence[dict[str, Any]]) -> None:
        texts = sorted({compared_text(str(r["text"])) for r in rows} - {""})
        self._rows = {text: i for i, text in enumerate(texts)}
        self._encoded = _Both(self.first.embed(texts), self.second.embed(texts))

    @property
    def shortlist(self) -> Any:
        first = self.first.shortlist
        return None if first is None else (lambda both, k: first(both.first, k))

    def embed(self, texts: Sequence[str]) -> _Both:
        assert self._encoded is not None, "encode() the labelled set first"
        return self._encoded[[self._rows[t] for t in texts]]

    def similarity(self, a: _Both, b: _Both) -> np.ndarray:
        sims = self.first.similarity(a.first, b.first)
        if self.weight < 1.0:
            other = self.second.similarity(a.second, b.second)
            sims = (self.weight * sims + (1.0 - self.weight) * other).astype(sims.dtype)
        return sims


def blend(draws: int, weights: Sequence[float], thresholds: Sequence[float], other: str) -> None:
    """The shipped model's similarity averaged with ``other``'s (an embedder or a VARIANTS
    row), on t1-t3 (weight 1.0 is the shipped model alone, scored the same way)."""
    shipped, second = make_embedder("minilm-int8"), make_embedder(other)
    print(f"\n== the shipped model blended with {other}, on the writers' sets")
    for label, rows in _writers_sets().items():
        for weight in weights:
            for threshold in thresholds:
                model = BlendedEmbedder(shipped, second, weight, threshold)
                model.encode(rows)
                report(f"{label} weight {weight:.2f} at {threshold:.2f}", model, rows, draws)
