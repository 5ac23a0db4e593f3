"""``report.md`` and the SVG plots from the sweep's rows (pure over the rows; see sweep.py).

Each file is written whole (a temporary file renamed over it), so a sweep stopped while writing
leaves the previous report, never half of one.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from experiments._cli import write_whole
from experiments.ablations import ABLATIONS
from experiments.personas import PERSONAS
from experiments.svg import bar_chart, line_chart
from skillopt_sleep.stage.stats import paired_bootstrap

FULL = "none"
TRANSFER = ("transfer a->b", "trained on b")
Row = dict[str, Any]


def _mean_sd(values: Sequence[float]) -> str:
    if not values:
        return "–"
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.mean(values) * 100:.1f} ± {sd * 100:.1f}"


def _ci(before: Sequence[float], after: Sequence[float]) -> tuple[float, float, float]:
    return paired_bootstrap(before, after, seed=0)


def _fmt_ci(before: Sequence[float], after: Sequence[float]) -> str:
    mean, lo, hi = _ci(before, after)
    return f"{mean * 100:+.1f} [{lo * 100:+.1f}, {hi * 100:+.1f}]"


def _avg(rows: Sequence[Row], key: str) -> str:
    return f"{statistics.mean(r[key] for r in rows):.1f}" if rows else "–"


def _select(rows: Sequence[Row], ablation: str, persona: str | None = None) -> list[Row]:
    chosen = [
        r
        for r in rows
        if r["ablation"] == ablation and (persona is None or r["persona"] == persona)
    ]
    return sorted(chosen, key=lambda r: (r["persona"], r["seed"]))


def _paired(rows: Sequence[Row], ablation: str) -> tuple[list[float], list[float]]:
    full = {(r["persona"], r["seed"]): r["final"] for r in _select(rows, FULL)}
    pairs = [
        (full[(r["persona"], r["seed"])], r["final"])
        for r in _select(rows, ablation)
        if (r["persona"], r["seed"]) in full
    ]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def persona_table(rows: Sequence[Row]) -> list[str]:
    lines = [
        "| persona | runs | baseline | held-out after N nights (mean ± sd) | gain, 95% bootstrap CI | proof holds | edits accepted | harmful landed | calls |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for persona in [*PERSONAS, None]:
        chosen = _select(rows, FULL, persona)
        if not chosen:
            continue
        name = persona or "**all**"
        base = [r["baseline"] for r in chosen]
        final = [r["final"] for r in chosen]
        holds = sum(bool(r["proof_holds"]) for r in chosen)
        lines.append(
            f"| {name} | {len(chosen)} | {_mean_sd(base)} | {_mean_sd(final)} | {_fmt_ci(base, final)} "
            f"| {holds}/{len(chosen)} | {_avg(chosen, 'accepted')} | {_avg(chosen, 'harmful_landed')} | {_avg(chosen, 'calls')} |"
        )
    return lines


def ablation_table(rows: Sequence[Row]) -> list[str]:
    lines = [
        "| ablation | runs | held-out after N nights (mean ± sd) | vs full method, 95% CI | edits accepted | edits rejected | harmful landed | calls | held-out improved (CI > 0) | proof holds |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for ablation in (FULL, *ABLATIONS):
        chosen = _select(rows, ablation)
        if not chosen:
            continue
        final = [r["final"] for r in chosen]
        before, after = _paired(rows, ablation)
        versus = "–" if ablation == FULL else _fmt_ci(before, after)
        holds = sum(bool(r["proof_holds"]) for r in chosen)
        improved = sum(r["ci_low"] > 0 for r in chosen)
        label = "full method" if ablation == FULL else f"no {ablation}"
        lines.append(
            f"| {label} | {len(chosen)} | {_mean_sd(final)} | {versus} | {_avg(chosen, 'accepted')} "
            f"| {_avg(chosen, 'rejected')} | {_avg(chosen, 'harmful_landed')} | {_avg(chosen, 'calls')} "
            f"| {improved}/{len(chosen)} | {holds}/{len(chosen)} |"
        )
    return lines


def matrix(rows: Sequence[Row]) -> list[str]:
    columns = [FULL, *ABLATIONS]
    lines = [
        "| persona | " + " | ".join("full" if c == FULL else f"no {c}" for c in columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for persona in PERSONAS:
        cells = []
        for ablation in columns:
            chosen = _select(rows, ablation, persona)
            cells.append(
                f"{statistics.mean(r['final'] for r in chosen) * 100:.1f}" if chosen else "–"
            )
        lines.append(f"| {persona} | " + " | ".join(cells) + " |")
    return lines


def transfer_table(rows: Sequence[Row]) -> list[str]:
    lines = [
        "| persona | runs | baseline on b | trained on a, scored on b | trained on b, scored on b |",
        "|---|---|---|---|---|",
    ]
    for persona in PERSONAS:
        cross, direct = _select(rows, TRANSFER[0], persona), _select(rows, TRANSFER[1], persona)
        if not cross or not direct:
            continue
        lines.append(
            f"| {persona} | {len(cross)} | {_mean_sd([r['baseline'] for r in direct])} "
            f"| {_mean_sd([r['final'] for r in cross])} | {_mean_sd([r['final'] for r in direct])} |"
        )
    return lines


def over_nights(rows: Sequence[Row], ablation: str) -> dict[str, list[float]]:
    series: dict[str, list[float]] = {}
    for persona in PERSONAS:
        chosen = _select(rows, ablation, persona)
        if chosen:
            curves = [[r["baseline"], *r["per_night"]] for r in chosen]
            series[persona] = [statistics.mean(c[i] for c in curves) for i in range(len(curves[0]))]
    return series


def write_report(rows: Sequence[Row], out: Path) -> Path:
    full = _select(rows, FULL)
    nights = full[0]["nights"] if full else 0
    seeds = sorted({r["seed"] for r in full})
    series = over_nights(rows, FULL)
    x_labels = ["before", *[f"night {n}" for n in range(1, nights + 1)]]
    write_whole(
        out / "held_out_over_nights.svg",
        line_chart(
            "Held-out score over nights (full method, mean over seeds)",
            series,
            x_labels,
            "held-out",
        ),
    )
    gate_series = {
        "full method": [statistics.mean(v[i] for v in series.values()) for i in range(nights + 1)],
        **{
            f"no {a}": [statistics.mean(v[i] for v in s.values()) for i in range(nights + 1)]
            for a in ("gate", "credit", "buffer")
            if (s := over_nights(rows, a))
        },
    }
    write_whole(
        out / "ablations_over_nights.svg",
        line_chart("Held-out over nights, all personas (mean)", gate_series, x_labels, "held-out"),
    )
    bars = []
    for ablation in (FULL, *ABLATIONS):
        chosen = _select(rows, ablation)
        if chosen:
            finals = [r["final"] for r in chosen]
            mean, lo, hi = _ci([0.0] * len(finals), finals)
            bars.append(("full" if ablation == FULL else f"-{ablation}", mean, lo, hi))
    write_whole(
        out / "ablations.svg",
        bar_chart(
            f"Held-out after {nights} nights by ablation (95% bootstrap CI)", bars, "held-out"
        ),
    )
    text = [
        "# SkillOpt-Sleep experiments: personas, ablations, transfer",
        "",
        "Generated by `python -m experiments.sweep` (deterministic; offline; `mock` backend). Each run",
        f"writes a simulated persona's first 12 days as genuine harness transcripts, runs {nights} nights",
        "of the full pipeline (harvest -> mine -> replay -> gated edits -> stage -> adopt) and scores 24",
        "held-out requests from 4 later days (never trained on; 2 replays each) before night 1 and after",
        f"each night. Seeds {', '.join(map(str, seeds))}. Scores are the share of held-out replays that meet the",
        "family's hidden requirement. Intervals are 95% paired bootstrap intervals over runs.",
        "",
        "## The method, per persona",
        "",
        *persona_table(rows),
        "",
        "![held-out over nights](held_out_over_nights.svg)",
        "",
        "## Ablations (all personas and seeds pooled)",
        "",
        "Each row removes one mechanism through an engine setting (see `experiments/ablations.py`); the",
        "interval is for the paired difference with the full method on the same persona and seed.",
        "'Harmful landed' counts accepted edits the observer knows are harmful (too broad, contradicting a",
        "requirement, or deleting a learned one); 'held-out improved' counts runs whose paired interval",
        "over the held-out requests lies above zero; 'proof holds' is `--assert-improves` passing, which",
        "also needs a harmful edit the gate rejected on its own evidence (so never without the gate).",
        "",
        *ablation_table(rows),
        "",
        "![ablations](ablations.svg)",
        "",
        "![ablations over nights](ablations_over_nights.svg)",
        "",
        "Held-out after the last night (mean %), persona by ablation:",
        "",
        *matrix(rows),
        "",
    ]
    transfer = transfer_table(rows)
    if len(transfer) > 2:
        text += [
            "## Transfer between simulated targets",
            "",
            "Target `a` is careful with form (formats, length, prohibitions) but forgets content; `b` covers",
            "content (named things, sections, tools) but is careless with form. A skill trained against `a`",
            "only learns what `a` lacked.",
            "",
            *transfer,
            "",
        ]
    path = out / "report.md"
    write_whole(path, "\n".join(text))
    return path
