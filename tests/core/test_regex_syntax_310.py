"""Every regular expression the packages compile at import is one Python 3.10 can compile.

``requires-python`` is ``>=3.10``, but possessive quantifiers (``a*+``, ``a{2,}+``) and atomic
groups (``(?>...)``) are Python 3.11 syntax: on 3.10 ``re`` refuses them with "multiple repeat"
or "unknown extension". The CI runs 3.11, where they compile, so such a pattern passes every
test there and breaks the import of the whole package on 3.10 (the redactor's jwt rule did:
``skillopt-sleep demo`` died with ``re.error: multiple repeat at position 20``).

A fresh interpreter imports every module of the packages with ``re``'s compile step spied on,
so the check sees each pattern the packages compile at import, however it is built.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PACKAGES = ("skillopt_core", "skillopt_sleep", "experiments")

_SPY = r"""
import importlib, json, pkgutil, re, sys

ours = tuple(sys.argv[1:])
compiled = {}
real = re._compile


def spy(pattern, flags):
    caller = sys._getframe(2).f_globals.get("__name__", "")
    if isinstance(pattern, str) and caller.split(".")[0] in ours:
        compiled.setdefault(pattern, caller)
    return real(pattern, flags)


re._compile = spy
broken = []
for package in ours:
    try:
        module = importlib.import_module(package)
    except Exception as exc:
        broken.append([package, repr(exc)])
        continue
    for info in pkgutil.walk_packages(module.__path__, package + "."):
        if info.name.endswith(".__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except ModuleNotFoundError as exc:  # an optional extra that is not installed
            if (exc.name or "").split(".")[0] in ours:
                broken.append([info.name, repr(exc)])
        except Exception as exc:
            broken.append([info.name, repr(exc)])
print(json.dumps({"compiled": compiled, "broken": broken}))
"""


def _newer_syntax(pattern: str) -> bool:
    """The pattern uses a possessive quantifier or an atomic group (Python 3.11+ only)."""
    from re import _constants, _parser  # type: ignore[attr-defined]

    newer = (_constants.POSSESSIVE_REPEAT, _constants.ATOMIC_GROUP)

    def walk(node: object) -> bool:
        if isinstance(node, _parser.SubPattern):
            return any(op in newer or walk(av) for op, av in node)
        if isinstance(node, (list, tuple)):
            return any(walk(part) for part in node)
        return False

    return walk(_parser.parse(pattern))


@pytest.mark.parametrize(
    ("pattern", "newer"),
    [
        (r"a[b-c]{8,}(?P<p>\.x)?", False),
        (r"[-*+]+ \d+[.)]", False),  # "*+" inside a class is no quantifier
        (r"a*+b", True),
        (r"x(?:y|z[0-9]{2,}+)?", True),
        (r"(?=(?P<g>a+))(?P=g)", False),  # the 3.10 spelling of an atomic a++
        (r"(?>ab|a)c", True),
        (r"(a)?(?(1)a++|b)", True),
    ],
)
@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10's parser refuses the newer syntax")
def test_the_check_finds_the_newer_syntax(pattern: str, newer: bool) -> None:
    assert _newer_syntax(pattern) is newer


def test_every_pattern_compiles_on_python_310() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SPY, *PACKAGES],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["broken"] == []
    assert len(found["compiled"]) > 50  # the spy saw the packages' patterns
    if sys.version_info >= (3, 11):
        newer = {p: who for p, who in found["compiled"].items() if _newer_syntax(p)}
        assert newer == {}
