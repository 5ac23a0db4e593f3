"""``redact_many``: one pass over the joined batch, then only the texts it changed go on."""

from __future__ import annotations

from typing import Any

import pytest

from skillopt_core.redaction import Redactor

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
PLAIN = [f"ran the tests in module_{n}.py: 12 passed" for n in range(15)]


def test_only_the_changed_text_is_scanned_again(monkeypatch: pytest.MonkeyPatch) -> None:
    redactor = Redactor()
    batch = [*PLAIN[:7], f"export GITHUB_TOKEN={TOKEN}", *PLAIN[7:]]
    expected = [redactor.redact(text) for text in batch]
    scanned: list[str] = []
    one_pass = Redactor._one_pass

    def counting(self: Redactor, text: str, counts: Any) -> str:
        scanned.append(text)
        return one_pass(self, text, counts)

    monkeypatch.setattr(Redactor, "_one_pass", counting)
    assert redactor.redact_many(batch) == expected
    assert TOKEN not in "".join(expected)
    assert len(scanned) == 2  # the batch once, then the changed text alone, to confirm it
    assert scanned[1] == expected[7]


@pytest.mark.parametrize("where", [0, 5, 15])
def test_the_batch_gives_what_each_text_alone_gives(where: int) -> None:
    redactor = Redactor({"ticket": r"TICKET-\d{6}"}, allowlist=["ghp_allowed"])
    batch = list(PLAIN)
    batch.insert(where, f"password = 'Sup3rS3cretValue!' and TICKET-123456, {TOKEN}")
    batch.append("")
    batch.append("ghp_allowed")
    assert redactor.redact_many(batch) == [redactor.redact(text) for text in batch]
