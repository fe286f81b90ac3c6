"""Text made safe to print: secrets redacted, control characters and terminal escapes shown.

A target's name, output and error messages are the user's (or an
attacker's) bytes: printed raw, an escape sequence could retitle the
terminal, hide lines, fake a result or, on some terminals, answer back.
:func:`for_terminal` is the one function every printer of perfstats uses
(the command's output and errors, log lines, the progress bar): it redacts
secrets (:func:`~perfstats.adapters.records.redaction.redact_text`) and
then shows every control character as a visible escape.
"""

from __future__ import annotations

import re

from .redaction import redact_text

# C0 controls but newline and tab, DEL, C1 controls, and the Unicode
# direction overrides and isolates that reorder what a line appears to say.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _shown(m: re.Match[str]) -> str:
    code = ord(m.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, newlines: bool = True) -> str:
    """``text`` with control characters and terminal escapes shown as ``\\xNN`` / ``\\uNNNN``.

    Newlines (and tabs) stay when ``newlines`` is True (a multi-line table);
    with False they are shown too (one log line).

    Examples
    --------
    >>> from perfstats.adapters.records.terminal import printable
    >>> printable("ok\\x1b]0;pwned\\x07 \\u202edone")
    'ok\\\\x1b]0;pwned\\\\x07 \\\\u202edone'
    >>> printable("a\\nb"), printable("a\\nb", newlines=False)
    ('a\\nb', 'a\\\\x0ab')
    """
    text = _CONTROL.sub(_shown, str(text))
    if not newlines:
        text = text.replace("\n", "\\x0a").replace("\t", "\\x09")
    return text


def for_terminal(text: str, *, newlines: bool = True) -> str:
    """``text`` ready to print: secrets redacted, then control characters shown.

    Examples
    --------
    >>> from perfstats.adapters.records.terminal import for_terminal
    >>> for_terminal("\\x1b[2JGET http://127.0.0.1/?token=abc")
    '\\\\x1b[2JGET http://127.0.0.1/?token=<redacted>'
    """
    return printable(redact_text(str(text)), newlines=newlines)
