"""Requests in a script the vocabulary lacks: which they are, and what they are compared by.

The MiniLM embedders and ``static`` (MiniLM distilled into a token table) share uncased BERT's
English vocabulary. It spells Cyrillic, Arabic, Hangul or Devanagari letter by letter and most
Chinese characters as ``[UNK]``, pieces the model never learnt to tell apart: to MiniLM every
Russian request looked like every other one (unrelated requests of one script were one family,
tests/data/i18n_requests.jsonl). What the two embedders share is decided here:

- which word pieces belong to another script (``Pieces.script``: ``[UNK]`` and the pieces that
  spell a letter of a script other than Latin) and which carry no word at all (``punctuation``);
  ``static`` drops both from a request written in another script, keeping the code words it
  mixes in ("customer", "npm audit");
- which requests the model cannot read (``Pieces.unreadable``): a letter of another script, and
  pieces of other scripts at least as many as the vocabulary's own words. A request with a few
  non-Latin words among English ones ("fix the 登录 test") is still read as before.
- what such a request is compared by instead: the TF-IDF cosine (``tfidf``: words, character
  bigrams for scripts written without spaces, character n-grams), for every pair it is part of
  (``lexical_where``; ``on_scale`` puts it on MiniLM's scale): a readable request is never
  nearer an unreadable one than the words they share say.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

UNREADABLE_SHARE = 0.5  # pieces of other scripts among a request's word pieces, at least
# pieces of other scripts in a vocabulary an English model reads with: uncased BERT's has 4.6%
# (single CJK, Cyrillic, Arabic... letters); a multilingual one (mBERT's) far more
ENGLISH_VOCAB_SHARE = 0.15


def non_latin(text: str) -> bool:
    """Whether ``text`` has a letter of a script other than Latin (the vocabulary's)."""
    return not text.isascii() and any(
        char.isalpha() and not char.isascii() and "LATIN" not in unicodedata.name(char, "")
        for char in text
    )


@dataclass(frozen=True)
class Pieces:
    """A vocabulary's tokenizer and what each of its pieces is (masks indexed by piece id)."""

    tokenizer: Any  # _bert.WordPiece
    script: np.ndarray  # (vocab,) bool: [UNK] and the pieces spelling a letter of another script
    punctuation: np.ndarray  # (vocab,) bool: pieces with neither a letter nor a digit

    @property
    def english(self) -> bool:
        """Whether the vocabulary is an English one, whose model cannot read other scripts (a
        multilingual model's vectors for them are its own, and kept)."""
        return float(self.script.mean()) < ENGLISH_VOCAB_SHARE

    @property
    def foreign(self) -> np.ndarray:
        """What a request in another script keeps out of its static vector: the pieces of that
        script and punctuation ("，" is no word two requests share)."""
        return np.asarray(self.script | self.punctuation)

    def unreadable(self, texts: Sequence[str]) -> np.ndarray:
        """``(n,)`` bool: the texts with a letter of another script whose word pieces (without
        punctuation) are at least ``UNREADABLE_SHARE`` pieces of other scripts. Only those with
        a non-Latin letter are tokenized (English requests cost a scan of their characters)."""
        out = np.zeros(len(texts), dtype=bool)
        for i, text in enumerate(texts):
            if non_latin(text):
                ids = self.tokenizer.encode(text)[1:-1]  # without [CLS]/[SEP]
                words = ids[~self.punctuation[ids]]
                out[i] = len(words) > 0 and self.script[words].mean() >= UNREADABLE_SHARE
        return out


@lru_cache(maxsize=4)
def load_pieces(vocab_file: Path) -> Pieces:
    """The ``Pieces`` of a WordPiece ``vocab.txt`` (read once per file)."""
    from skillopt_sleep.mine.embed._bert import WordPiece

    tokenizer = WordPiece(vocab_file)
    script = np.zeros(len(tokenizer.vocab), dtype=bool)
    punctuation = np.zeros(len(tokenizer.vocab), dtype=bool)
    for token, index in tokenizer.vocab.items():
        word = token.removeprefix("##")
        script[index] = token == "[UNK]" or non_latin(word)
        punctuation[index] = token != "[UNK]" and not any(c.isalnum() for c in word)
    return Pieces(tokenizer, script, punctuation)


def lexical_where(
    blind_a: np.ndarray, blind_b: np.ndarray, lexical: np.ndarray, other: np.ndarray
) -> np.ndarray:
    """``other`` (``len(a) x len(b)``), but ``lexical`` for every pair with a blind row (a request
    the embedder cannot read) on either side; float32."""
    blind = blind_a[:, None] | blind_b[None, :]
    return np.asarray(np.where(blind, lexical, other), dtype=np.float32)


def on_scale(lexical: np.ndarray, lexical_threshold: float, threshold: float) -> np.ndarray:
    """TF-IDF cosines on another embedder's scale: a pair that clears ``lexical_threshold``
    (tfidf's own) is lifted linearly onto ``[threshold, 1]``, so it joins a family there exactly
    when tfidf would join it; a pair below keeps its cosine, far below every second-chance bar
    (``leftovers``, which tfidf has none of: on the multilingual set they paired a request with
    a correction over one shared "this"); float32."""
    lifted = threshold + (lexical - lexical_threshold) * (
        (1.0 - threshold) / (1.0 - lexical_threshold)
    )
    return np.asarray(np.where(lexical < lexical_threshold, lexical, lifted), dtype=np.float32)
