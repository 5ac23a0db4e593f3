"""What counts as similar, and families that do not depend on input order or the BLAS build."""

from __future__ import annotations

import random

import pytest

from mine._labelled import json_from_child, partition, set_a_texts, unshuffle
from skillopt_sleep.mine import cluster_requests
from skillopt_sleep.mine.embed.minilm_numpy import encoder_dir
from skillopt_sleep.mine.embed.mpnet import mpnet_available
from skillopt_sleep.mine.families import compared_text, label_families
from skillopt_sleep.mine.masking import mask

SAMPLE = 90  # enough near-miss pairs and one-offs to make order effects visible


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rotate [REDACTED:aws-access-key-id] now", "rotate now"),
        ("fix src/components/Navbar.tsx please", "fix Navbar please"),
        ("/home/ana/churn/notebooks/features.ipynb is slow", "features is slow"),
        ("upgrade react to 18.3.1 and next 14.2.3", "upgrade react to and next"),
        ("see https://api.example.com/v1/items?x=1 now", "see now"),
        ("commit 3f9a2c1d broke it", "commit broke it"),
        ("and/or read/write in the A/B test", "and/or read/write in the A/B test"),
    ],
)
def test_mask(text: str, expected: str) -> None:
    assert mask(text) == expected


PLACEHOLDER_ONLY = [
    "the token [REDACTED:github-token] is in the old jenkins config, delete that file",
    "curl with [REDACTED:github-token] returns my user but the org endpoint 404s",
    "write an email to the vendor, it mentioned [REDACTED:github-token] by mistake",
    "git clone https://[REDACTED:url-credentials]@git.internal/infra.git fails with 403",
    "read the postmortem at https://[REDACTED:url-credentials]@wiki.internal/pm/12",
]


def test_placeholders_never_make_a_family_tfidf() -> None:
    assert len(set(cluster_requests(PLACEHOLDER_ONLY, "tfidf"))) == len(PLACEHOLDER_ONLY)


def test_placeholders_never_make_a_family_minilm(minilm) -> None:
    assert len(set(cluster_requests(PLACEHOLDER_ONLY, minilm))) == len(PLACEHOLDER_ONLY)


def test_cluster_requests_groups_paraphrases(minilm) -> None:
    texts = [
        "fix the failing login test in tests/test_auth.py",
        "the login test in tests/test_auth.py is failing again, please fix it",
        "write a haiku about on-call",
    ]
    labels = cluster_requests(texts, minilm)
    assert labels[0] == labels[1] != labels[2]
    assert cluster_requests([], minilm) == []


def test_same_families_for_shuffled_input_tfidf() -> None:
    texts = set_a_texts(SAMPLE)
    base = partition(cluster_requests(texts, "tfidf"))
    for seed in (1, 2):
        order = random.Random(seed).sample(range(len(texts)), len(texts))
        shuffled = cluster_requests([texts[i] for i in order], "tfidf")
        assert partition(unshuffle(shuffled, order)) == base


@pytest.mark.skipif(not mpnet_available(), reason="skillopt-sleep-mpnet is not installed")
def test_same_families_for_shuffled_input_mpnet() -> None:
    texts = set_a_texts(ENV_SAMPLE)
    base = partition(cluster_requests(texts, "mpnet"))
    order = random.Random(1).sample(range(len(texts)), len(texts))
    shuffled = cluster_requests([texts[i] for i in order], "mpnet")
    assert partition(unshuffle(shuffled, order)) == base


def test_same_families_for_shuffled_input_minilm(minilm) -> None:
    """Encoded once; the rows are permuted (token vectors depend on their own text only)."""
    texts = [compared_text(t) for t in set_a_texts(SAMPLE)]
    vectors = minilm.embed(texts)
    base = partition(list(label_families(vectors, texts, minilm)))
    for seed in (1, 2):
        order = random.Random(seed).sample(range(len(texts)), len(texts))
        shuffled = label_families(vectors[order], [texts[i] for i in order], minilm)
        assert partition(unshuffle(list(shuffled), order)) == base


ENV_SAMPLE = 40  # each child loads the model and encodes these: keep the test a few seconds
_CHILD = """
import json, sys
from skillopt_sleep.mine import cluster_requests
texts = json.loads(sys.stdin.read())
print(json.dumps({name: cluster_requests(texts, name) for name in sys.argv[1:]}))
"""


def _labels_in(env_changes: dict[str, str | None], names: list[str]) -> dict[str, list[int]]:
    found: dict[str, list[int]] = json_from_child(
        _CHILD, set_a_texts(ENV_SAMPLE), env_changes, *names
    )
    return found


def test_same_families_across_threads_and_blas_kernels(request: pytest.FixtureRequest) -> None:
    """OMP_NUM_THREADS 1 vs 2 and OPENBLAS_CORETYPE set vs unset give the same families."""
    names = ["tfidf"] + (["minilm-numpy"] if encoder_dir() is not None else [])
    names += ["mpnet"] if mpnet_available() else []
    try:
        request.getfixturevalue("minilm")
        names.append("minilm")
    except pytest.skip.Exception:
        pass
    runs = [
        _labels_in({"OMP_NUM_THREADS": "1", "OPENBLAS_CORETYPE": None}, names),
        _labels_in({"OMP_NUM_THREADS": "2", "OPENBLAS_CORETYPE": "Haswell"}, names),
    ]
    for name in names:
        assert partition(runs[0][name]) == partition(runs[1][name]), name
