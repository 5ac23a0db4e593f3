"""Estimated cost per call from a price table the user can override (USD per million tokens)."""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from skillopt_core.errors import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

PRICES_ENV = "SKILLOPT_PRICES"


@dataclass(frozen=True)
class Price:
    """USD per million input and output tokens."""

    input: float
    output: float

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


FREE = Price(0.0, 0.0)


@dataclass(frozen=True)
class PriceTable:
    """Glob pattern -> price; the longest matching pattern wins, else ``default``."""

    models: Mapping[str, Price] = field(default_factory=dict)
    default: Price = Price(5.0, 25.0)
    free_backends: frozenset[str] = frozenset({"mock", "handoff"})

    def price(self, backend: str, model: str) -> Price:
        if backend in self.free_backends:
            return FREE
        name = model.rsplit("/", 1)[-1].lower()
        matches = [p for p in self.models if fnmatch.fnmatchcase(name, p.lower())]
        if not matches:
            return self.default
        return self.models[max(matches, key=len)]

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], base: PriceTable | None = None) -> PriceTable:
        base = base or cls()
        models = {str(k): _price(v, str(k)) for k, v in dict(data.get("models") or {}).items()}
        default = _price(data["default"], "default") if "default" in data else base.default
        free = frozenset(str(b) for b in (data.get("free") or {}).get("backends", ()))
        return PriceTable(
            models={**base.models, **models},
            default=default,
            free_backends=base.free_backends | free,
        )


def usd_per_million(value: Any, where: str) -> float:
    """A price as given (a number, or text from ``--option``): finite and not negative, since a
    NaN price makes every cost NaN, which no ``--max-usd`` limit ever stops."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not 0 <= number < float("inf"):
        raise UsageError(
            f"price {where} = {value!r} is not a price; give USD per 1M tokens, a number >= 0"
        )
    return number


def _price(value: Any, where: str) -> Price:
    if not isinstance(value, Mapping) or "input" not in value or "output" not in value:
        raise UsageError(f"price {where!r} needs numeric 'input' and 'output' (USD per 1M tokens)")
    return Price(
        usd_per_million(value["input"], f"{where!r} input"),
        usd_per_million(value["output"], f"{where!r} output"),
    )


def builtin_prices() -> PriceTable:
    text = resources.files("skillopt_core.backends").joinpath("prices.toml").read_text("utf-8")
    return PriceTable.from_mapping(tomllib.loads(text), base=PriceTable(free_backends=frozenset()))


def load_prices(path: str | os.PathLike[str] | None = None) -> PriceTable:
    """The shipped table, overlaid with ``path`` or ``$SKILLOPT_PRICES`` when given."""
    table = builtin_prices()
    override = path or os.environ.get(PRICES_ENV)
    if override:
        data = tomllib.loads(Path(override).read_text(encoding="utf-8"))
        table = PriceTable.from_mapping(data, base=table)
    return table


def price_for(
    backend: str, model: str, options: Mapping[str, Any], table: PriceTable | None = None
) -> Price:
    """Per-backend override (``price_input`` / ``price_output`` options) beats the table."""
    table = table or load_prices(options.get("prices"))
    base = table.price(backend, model)
    if "price_input" in options or "price_output" in options:
        return Price(
            usd_per_million(options.get("price_input", base.input), "option price_input"),
            usd_per_million(options.get("price_output", base.output), "option price_output"),
        )
    return base
