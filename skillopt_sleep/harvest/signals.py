"""Feedback evidence from a session's turns: corrections, approvals, retries, tool errors, interrupts.

Pure functions over a session's turns. A signal's ``turn_index`` is the index (in
``Session.turns``) of the user request it judges: a correction judges the request before it, a
tool error the request whose reply failed.

Feedback is read in English and in the languages developers most often write to an agent in
(Chinese, Japanese, Korean, German, French, Spanish, Portuguese, Russian, Arabic, Hebrew, Hindi):
``FOREIGN_CORRECTION`` and ``FOREIGN_APPROVAL`` (the miner's ``feedback`` reads the same ones).
A bare "no" word ("Nein", "Нет", "لا") counts only with punctuation after it, so a request that
opens with one ("Нет ли способа…") stays a request.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from skillopt_sleep.records import SignalKind

Step = tuple[str, str, Any, tuple[tuple[Any, ...], ...]]  # see ``_build.Step``
Signal_ = tuple[str, int, str]  # (SignalKind value, turn index, excerpt)
TOOL_ERROR, RETRY, INTERRUPTED = (
    SignalKind.TOOL_ERROR.value,
    SignalKind.RETRY.value,
    SignalKind.INTERRUPTED.value,
)

# Each English pattern is a start-anchored part and an anywhere part, searched apart: as one
# ``^...|...`` the start branch was tried at every position (3x the cost of the rest).
_CORRECTION_START = (
    r"^\s*(?:no\b|nope\b|wrong\b|not quite\b|incorrect\b|actually,? no\b|that'?s not\b"
    r"|undo\b|revert\b)"
)
_CORRECTION_ANY = (
    r"\b(?:that'?s|this is|it'?s|you'?re) (?:wrong|incorrect|not right|not what)"
    r"|\bwrong (?:format|file|answer|output|approach|place|one)\b"
    r"|\bstill (?:fail|failing|fails|broken|wrong|crash|crashing|not work|doesn'?t work|errors?)"
    r"|\b(?:doesn'?t|does not|didn'?t|did not|isn'?t|is not) (?:work|compile|pass|fix)"
    r"|\bnot what i (?:asked|wanted|meant)\b"
    r"|\byou (?:broke|missed|forgot|ignored)\b"
    r"|\b(?:try again|that broke)\b"
)
_APPROVAL_START = (
    r"^\s*(?:thanks|thank you|thx|ty|perfect|great|excellent|awesome|nice|lgtm|looks good|works)\b"
)
_APPROVAL_ANY = (
    r"\b(?:that|it|this) (?:works|worked|fixed it)\b|\bworks (?:now|great|perfectly)\b"
    r"|\b(?:looks good|well done|good job)\b"
)
# a bare "no" followed by punctuation or nothing
_NO = r"(?:nein|non|não|nao|нет|не-а|لا|לא|नहीं|नही|아니요|아니|아뇨)(?=\s*(?:[,.!;:،，。！、]|$))"
# opening words of a correction (after optional punctuation)
FOREIGN_CORRECTION_START = (
    _NO + r"|不对|不對|不是这样|不是這樣|不是我要|错了|錯了|还是(?:不行|失败|失敗|报错|不对|错)"
    r"|再试一次|再試一次|重新(?:来|做|试)"
    r"|違います|違う|ちがう|そうじゃな|まだ(?:失敗|動かな|エラー|直って)|やり直し|もう一度"
    r"|틀렸|그게 아니|아직도|여전히|다시 해"
    r"|(?:das ist |ist )?(?:falsch|nicht richtig)\b|stimmt nicht\b|nochmal\b|noch einmal\b"
    r"|c'est faux\b|ce n'est pas (?:ça|ca|ce que|bon|correct)|toujours pas\b|réessaie|pas ça\b"
    r"|est(?:á|a) mal\b|sigue (?:fallando|sin funcionar|roto|igual|mal)|todavía no\b|incorrecto\b"
    r"|eso no es\b|otra vez\b|int[ée]ntalo de nuevo"
    r"|est(?:á|a) errado|errado\b|ainda (?:está |esta )?(?:falhando|não|nao|errado|quebrado)"
    r"|не так\b|не то\b|неправильно|неверно|всё ещё|все еще|до сих пор|ещё раз|еще раз"
    r"|خطأ|غير صحيح|ما زال|لا يزال|لا يعمل"
    r"|לא נכון|שגוי|עדיין|לא עובד"
    r"|गलत|ग़लत|अभी भी|फिर से"
)
# a correction anywhere in a short turn
FOREIGN_CORRECTION_ANY = (
    r"还是(?:不行|失败|失敗|报错|有问题|不对)|仍然(?:失败|报错|不行)|没有通过|不起作用"
    r"|まだ(?:失敗|動かな|エラー)|動きません|直っていません"
    r"|여전히 (?:실패|안)|작동하지 않"
    r"|\b(?:immer noch|noch immer) (?:nicht|falsch|kaputt|fehl|rot)|funktioniert (?:immer )?noch nicht"
    r"|schlägt (?:immer noch |weiterhin )?fehl|geht (?:immer )?noch nicht"
    r"|\bne (?:marche|fonctionne) (?:toujours |plus |)pas\b|échoue (?:encore|toujours)"
    r"|\bno funciona\b|sigue fallando|todavía falla"
    r"|não funciona|ainda (?:está )?falhando"
    r"|не работает|(?:всё|все) ещё (?:падает|не работает|ошибка|красн)|не помогло"
    r"|لا يعمل"
    r"|לא עובד|עדיין (?:נכשל|לא)"
    r"|काम नहीं"
)
# opening words of an approval
FOREIGN_APPROVAL = (
    r"谢谢|謝謝|多谢|感谢|可以了|好了|完美|没问题|搞定|成功了"
    r"|ありがとう|完璧|いいですね|大丈夫です|動きました|直りました"
    r"|감사|고마워|고맙|완벽|좋아요|잘 되"
    r"|danke\b|vielen dank|perfekt\b|super\b|passt\b|funktioniert(?: jetzt)?\W*$"
    r"|merci\b|parfait\b|ça marche|ca marche|nickel\b|génial"
    r"|gracias\b|perfecto\b|funciona(?: ahora)?\W*$|genial\b"
    r"|obrigad[oa]\b|perfeito\b|funcionou\b"
    r"|спасибо|отлично|работает\W*$|супер\b"
    r"|شكرا|شكراً|ممتاز"
    r"|תודה|מעולה|מושלם"
    r"|धन्यवाद|शुक्रिया"
)
_FOREIGN_START = re.compile(rf"^\W*(?:{FOREIGN_CORRECTION_START})", re.IGNORECASE)
_FOREIGN_ANY = re.compile(FOREIGN_CORRECTION_ANY, re.IGNORECASE)
_FOREIGN_APPROVAL = re.compile(rf"^\W*(?:{FOREIGN_APPROVAL})", re.IGNORECASE)
# Plain text (see ``_NOT_PLAIN``) is read faster: the English patterns match it lowercased and
# case-sensitively (their letters are all lowercase: the same matches, ~2x faster), and an
# anywhere part is searched only if one of its hints is in it (the ``in`` chains of ``_kind``: the
# equivalence tests read them back and derive them from the patterns). Searching ``_FOREIGN_ANY``
# cost ~0.3 us a character, English ~0.05.
_CORRECTION_START_I = re.compile(_CORRECTION_START, re.IGNORECASE)
_CORRECTION_ANY_I = re.compile(_CORRECTION_ANY, re.IGNORECASE)
_APPROVAL_START_I = re.compile(_APPROVAL_START, re.IGNORECASE)
_APPROVAL_ANY_I = re.compile(_APPROVAL_ANY, re.IGNORECASE)
_CORRECTION_START_LOW = re.compile(_CORRECTION_START)
_CORRECTION_ANY_LOW = re.compile(_CORRECTION_ANY)
_APPROVAL_START_LOW = re.compile(_APPROVAL_START)
_APPROVAL_ANY_LOW = re.compile(_APPROVAL_ANY)
# A non-ASCII character that a character of the patterns read on plain text matches under
# IGNORECASE: "é", "不", the Kelvin sign for "k", "ſ" for "s". In text without one (plain text) a
# match of those patterns is ASCII, and each non-ASCII character lowercases to one non-ASCII
# character of the same \w and \s class (the tests check every code point): the patterns match
# it lowercased as they match it.
_READ_PLAIN = (_CORRECTION_START, _CORRECTION_ANY, _APPROVAL_START, _APPROVAL_ANY)
_FOLDED = "".join(sorted(set("".join((*_READ_PLAIN, FOREIGN_CORRECTION_ANY)))))
_NOT_PLAIN = re.compile(rf"[^\x00-\x7f](?<=(?i:[{re.escape(_FOLDED)}]))")
# ASCII text is read lowercased by case-sensitive copies of the foreign start patterns too: their
# letters are all lowercase, and none of their non-ASCII characters matches an ASCII one under
# IGNORECASE (tested), so the copies match it as the originals match it (~3x faster: a
# case-sensitive alternative is skipped on its first letter).
_FOREIGN_START_LOW = re.compile(rf"^\W*(?:{FOREIGN_CORRECTION_START})")
_FOREIGN_APPROVAL_LOW = re.compile(rf"^\W*(?:{FOREIGN_APPROVAL})")
_WORD = re.compile(r"[\w.:/-]+")
_WORD_ASCII = re.compile(r"[0-9A-Za-z_.:/-]+")  # the same on ASCII text, ~1.5x faster
# ``_WORD_ASCII`` on ASCII text lowercased, as a byte table: a word character to itself
# lowercased, any other to a space; then ``split`` (~2x faster than ``findall``).
_WORD_BYTES = bytes(
    ord(c.lower()) if _WORD_ASCII.fullmatch(c) else 32 for c in map(chr, range(256))
)
# scripts written without spaces: a run of them is read as its character bigrams
_NOSPACE = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3005\u3040-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002fa1f]{2,}"
)
RETRY_SIMILARITY = 0.6
# A retry is looked for among this many requests before it (the nearest similar one is taken):
# each comparison is a set operation, so comparing with every earlier request cost O(n^2) -
# 10 s for a session of 5,000 distinct prompts, hours for a crafted one of 100,000.
RETRY_LOOKBACK = 100
EXCERPT = 160


def _words(text: str) -> frozenset[str]:
    if text.isascii():
        return frozenset(text.encode().translate(_WORD_BYTES).decode().split())
    low = text.lower()
    if low.isascii():  # e.g. the Kelvin sign lowercases to "k"
        return frozenset(_WORD_ASCII.findall(low))
    words = _WORD.findall(low)
    bigrams = [run[i : i + 2] for run in _NOSPACE.findall(low) for i in range(len(run) - 1)]
    return frozenset([*(_NOSPACE.sub(" ", w).strip() for w in words), *bigrams]) - {""}


def _retry_of(
    words: frozenset[str], requests: Iterable[tuple[int, frozenset[str], int]]
) -> int | None:
    """The index of the first of ``requests`` (index, words, size) whose Jaccard similarity to
    ``words`` is at least ``RETRY_SIMILARITY``. It is at most min / max of the sizes, which
    rejects most pairs early; one loop here, not a call a pair (up to ``RETRY_LOOKBACK`` a turn)."""
    size = len(words)
    for prior_index, prior, prior_size in requests:
        small, large = (prior_size, size) if prior_size < size else (size, prior_size)
        if small < 3 or small < RETRY_SIMILARITY * large or words.isdisjoint(prior):
            continue
        shared = len(words & prior)
        if shared / (size + prior_size - shared) >= RETRY_SIMILARITY:
            return prior_index
    return None


# Words one of the patterns needs; text without any of them skips the regexes (most prompts).
_CORRECTION_HINTS = (
    "no",
    "wrong",
    "not",
    "n't",
    "incorrect",
    "still",
    "undo",
    "revert",
    "you",
    "again",
    "broke",
)
_APPROVAL_HINTS = (
    "thank",
    "thx",
    "ty",
    "perfect",
    "great",
    "excellent",
    "awesome",
    "nice",
    "lgtm",
    "good",
    "work",
    "fixed",
)
CORRECTION, APPROVAL = SignalKind.CORRECTION.value, SignalKind.APPROVAL.value
_KINDS: dict[str | None, SignalKind | None] = {
    None: None,
    CORRECTION: SignalKind.CORRECTION,
    APPROVAL: SignalKind.APPROVAL,
}


def classify(text: str) -> SignalKind | None:
    """Correction beats approval ("thanks, but it still fails" is a correction)."""
    return _KINDS[_kind(text)]


def _kind(text: str) -> str | None:
    """``classify``'s kind, as its value (``detect`` needs no enum).

    Plain text, the common case, is read with a third fewer instructions than before: each hint
    test is an ``or`` chain of ``in`` tests, not ``any`` over a generator (the tests read the
    chains back: a chain of hint tuple entries decides as its tuple does, "not" left out as "no"
    is in it; one that only spares a search holds a hint of each of its pattern's matches, as
    "work" for "works" and "worked"), and a start part is matched before its hints are looked
    for, since each of its matches holds one (tested)."""
    head = text[:600]
    low = head.lower()
    if head.isascii():
        start, approval, read = _FOREIGN_START_LOW, _FOREIGN_APPROVAL_LOW, low
    elif not _NOT_PLAIN.search(head):
        start, approval, read = _FOREIGN_START, _FOREIGN_APPROVAL, head
    else:
        return _kind_mixed(head, low)
    if _CORRECTION_START_LOW.match(low) or (
        (
            "no" in low
            or "n't" in low
            or "you" in low
            or "still" in low
            or "wrong" in low
            or "again" in low
            or "incorrect" in low
            or "broke" in low
            or "undo" in low
            or "revert" in low
        )
        and (
            "t work" in low
            or "still " in low
            or "wrong" in low
            or "not right" in low
            or "not what" in low
            or "t pass" in low
            or "t fix" in low
            or "t compile" in low
            or "incorrect" in low
            or "broke" in low
            or "missed" in low
            or "forgot" in low
            or "ignored" in low
            or "try again" in low
        )
        and _CORRECTION_ANY_LOW.search(low)
    ):
        return CORRECTION
    if start.match(read) or (
        (
            "noch" in low
            or "marche" in low
            or "fonctionne" in low
            or "funciona" in low
            or "fallando" in low
            or "falhando" in low
        )
        and _FOREIGN_ANY.search(head)
    ):
        return CORRECTION
    if _APPROVAL_START_LOW.match(low) or (
        (
            "work" in low
            or "fixed it" in low
            or "looks good" in low
            or "well done" in low
            or "good job" in low
        )
        and (
            "work" in low
            or "good" in low
            or "thank" in low
            or "fixed" in low
            or "great" in low
            or "perfect" in low
            or "nice" in low
            or "thx" in low
            or "ty" in low
            or "excellent" in low
            or "awesome" in low
            or "lgtm" in low
        )
        and _APPROVAL_ANY_LOW.search(low)
    ):
        return APPROVAL
    if approval.match(read):
        return APPROVAL
    return None


def _kind_mixed(head: str, low: str) -> str | None:
    """``_kind`` of a ``head`` that is not plain: the patterns read it as it is, IGNORECASE."""
    if any(h in low for h in _CORRECTION_HINTS) and (
        _CORRECTION_START_I.match(head) or _CORRECTION_ANY_I.search(head)
    ):
        return CORRECTION
    if _FOREIGN_START.match(head) or _FOREIGN_ANY.search(head):
        return CORRECTION
    if any(h in low for h in _APPROVAL_HINTS) and (
        _APPROVAL_START_I.match(head) or _APPROVAL_ANY_I.search(head)
    ):
        return APPROVAL
    if _FOREIGN_APPROVAL.match(head):
        return APPROVAL
    return None


def detect(steps: Sequence[Step], interrupted: Iterable[int] = ()) -> tuple[Signal_, ...]:
    """Signals for a session's turns, as ``(kind, turn index, excerpt)``.

    ``steps``: the turns as ``(role, text, ts, calls)`` tuples (see ``_build``); ``interrupted``
    holds indices of user turns the user cut short.

    A request no feedback kind fits is compared with the ones before it for a retry; the first
    request's words are read only when a second such request comes (a session whose later turns
    are all feedback never needs them: 14% fewer instructions on gen_corpus), and an excerpt is
    cut only for a signal.
    """
    found: list[Signal_] = []
    first: str | None = None  # the first request's text, until its words are read
    first_index = 0
    # (turn index, words, their number) of the latest prior requests no kind fits
    requests: deque[tuple[int, frozenset[str], int]] = deque(maxlen=RETRY_LOOKBACK)
    last_user: int | None = None
    for index, (role, text, _ts, calls) in enumerate(steps):
        if role == "assistant":
            if last_user is not None:
                for call in calls:
                    if call[4]:
                        found.append((TOOL_ERROR, last_user, f"{call[1]}: {call[3]}"[:EXCERPT]))
            continue
        if last_user is None:
            first, first_index = text, index
            last_user = index
            continue
        kind = _kind(text)
        if kind is not None:
            found.append((kind, last_user, text[:EXCERPT]))
            last_user = index
            continue
        if first is not None:
            words = _words(first)
            requests.append((first_index, words, len(words)))
            first = None
        words = _words(text)
        size = len(words)
        if size >= 3:
            prior_index = _retry_of(words, reversed(requests))
            if prior_index is not None:
                found.append((RETRY, prior_index, text[:EXCERPT]))
        requests.append((index, words, size))
        last_user = index
    for index in sorted(set(interrupted)):
        if 0 <= index < len(steps) and steps[index][0] == "user":
            found.append((INTERRUPTED, index, steps[index][1][:EXCERPT]))
    return tuple(found)
