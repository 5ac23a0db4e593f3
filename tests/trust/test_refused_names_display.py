"""The stderr warning names an untrusted project file's left-out keys, which are that file's
text: a control sequence in a key printed raw (``ESC ] 0 ; ... BEL`` sets the terminal title)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from skillopt_sleep.cli._run import warn_refused


def test_refused_key_names_print_their_controls_as_escapes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    key = "backends.options.\x1b]0;pwned\x07x"
    warn_refused(SimpleNamespace(refused={key: "user-only"}))
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err
    assert "pwned" in err and "not trusted" in err
