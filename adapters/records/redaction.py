"""Keep secrets out of records and output: one redaction for data, argv and free text.

Everything perfstats writes or prints that may hold a target's settings
(the metadata JSON, the record's text cells, the HTML report, error
messages, log lines, the terminal output) passes through :func:`redact`
(structured data) or :func:`redact_text` (a line of text). Both redact by
*position*, not only by a list of known names:

* a URL's userinfo (``https://user:<redacted>@host``, or the whole
  userinfo when it is a bare token) and the values of secret-looking query
  and fragment parameters;
* the value of a mapping entry, ``NAME=value`` assignment, ``Name: value``
  header, ``"name": value`` JSON/dict entry or ``--flag value`` /
  ``--flag=value`` option whose name looks secret (:func:`is_secret_name`);
* the credentials after ``Bearer`` / ``Basic``, and AWS access key ids;
* any value redacted once anywhere (and the values of secret-looking
  variables of this process's environment), wherever it shows up later:
  a target that prints its token in an error message does not leak it.

A name looks secret when one of its *tokens* (split at ``_ - .``, spaces
and camelCase humps, case-insensitively) is a secret word, so ``DB_PASS``,
``MYSQL_PWD``, ``GITHUB_PAT`` and ``X-Functions-Key`` are secret while
``PATH``, ``BYPASS`` or ``monkey`` are not; a token *ending* in one of the
long words (``PGPASSWORD``, ``accesstoken``) counts too. ``KEY`` and ``PWD``
count only beside another token (``API_KEY``, ``MYSQL_PWD``): a bare ``key``
is the SSH target's identity file, a bare ``PWD`` the working directory.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

REDACTED = "<redacted>"

# A token equal to one of these makes a name secret.
_WORDS = frozenset(
    {
        "token", "secret", "password", "passwd", "passphrase", "pass", "pat",
        "credential", "credentials", "session", "signature", "auth", "authorization",
        "cookie", "apikey",
    }
)  # fmt: skip
# A token ending in one of these is secret too (compound words: PGPASSWORD).
_SUFFIXES = (
    "password", "passwd", "passphrase", "secret", "token", "credential", "credentials",
    "signature", "authorization", "cookie", "apikey", "accesskey", "privatekey",
)  # fmt: skip
# Whole names that are secret by themselves (Azure's ?code=, SAS ?sig=).
_WHOLE = frozenset({"code", "sig"})
# Secret beside another token (API_KEY, X-Api-Key, MYSQL_PWD), but not alone:
# a bare "key" names a file (the SSH target's identity) or a harmless field,
# and PWD is the shell's working directory (remembered as a secret, every
# path in a record would go). A bare "key" is secret as a URL query
# parameter, where it carries API keys (?key=AIza...).
_NOT_ALONE = frozenset({"key", "pwd"})
_KEY = "key"

_TOKENS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")

# Values shorter than this are not searched for in free text: replacing
# every "1", "abc" or "ubuntu" (DESKTOP_SESSION) would destroy records
# without protecting anything. Shorter secrets are still redacted where
# their position shows them (a secret name's value, a URL's userinfo).
MIN_REMEMBERED = 8


def name_tokens(name: str) -> list[str]:
    """The lower-case tokens of a header, variable, parameter or flag name.

    Examples
    --------
    >>> from perfstats.adapters.records.redaction import name_tokens
    >>> name_tokens("AWS_SECRET_ACCESS_KEY"), name_tokens("xApiKey"), name_tokens("--db-pass")
    (['aws', 'secret', 'access', 'key'], ['x', 'api', 'key'], ['db', 'pass'])
    """
    return [t.lower() for part in _SPLIT.split(name) for t in _TOKENS.findall(part)]


def is_secret_name(name: str, *, query: bool = False) -> bool:
    """True when a header, variable, parameter or flag called ``name`` may hold a secret.

    ``query=True`` is for URL query parameters, where a bare ``key`` is an
    API key too.

    Examples
    --------
    >>> from perfstats.adapters.records.redaction import is_secret_name
    >>> [is_secret_name(n) for n in ("Authorization", "DB_PASS", "MYSQL_PWD", "GITHUB_PAT")]
    [True, True, True, True]
    >>> [is_secret_name(n) for n in ("X-Functions-Key", "PGPASSWORD", "code", "AWS_SESSION_TOKEN")]
    [True, True, True, True]
    >>> [is_secret_name(n) for n in ("PATH", "BYPASS", "max_tokens", "key", "PWD", "OLDPWD")]
    [False, False, False, False, False, False]
    >>> is_secret_name("key", query=True)
    True
    """
    if not isinstance(name, str):
        return False
    tokens = name_tokens(name)
    if not tokens:
        return False
    whole = "".join(tokens)
    if whole in _WHOLE or (query and whole == _KEY):
        return True
    if len(tokens) == 1 and whole in _NOT_ALONE:
        return False
    return any(t in _WORDS or t in _NOT_ALONE or t.endswith(_SUFFIXES) for t in tokens)


# --- values remembered once redacted ---------------------------------------

_known: set[str] = set()
_known_lock = threading.Lock()
_known_pattern: re.Pattern[str] | None = None
_generation = 0
_environ_seen: frozenset[tuple[str, str]] = frozenset()
_AUTH_SCHEMES = frozenset({"bearer", "basic", "digest", "token"})


def remember(value: Any) -> None:
    """Redact ``value`` wherever it appears in text from now on (if long enough).

    Examples
    --------
    >>> from perfstats.adapters.records.redaction import remember, redact_text
    >>> remember("correct-horse-battery")
    >>> redact_text("login failed for correct-horse-battery")
    'login failed for <redacted>'
    """
    global _known_pattern, _generation
    if not isinstance(value, str):
        return
    value = value.strip().strip("'\"")
    words = value.split()
    if len(words) == 2 and words[0].lower() in _AUTH_SCHEMES:
        # "Bearer <token>": the token alone shows up in other messages.
        remember(words[1])
    if len(value) < MIN_REMEMBERED or REDACTED in value or value in _known:
        return
    with _known_lock:
        _known.add(value)
        _known_pattern = None
        _generation += 1


def remember_environment(environ: Mapping[str, str] | None = None) -> None:
    """Remember the values of the secret-looking variables of ``environ`` (default: ours)."""
    global _environ_seen
    env = os.environ if environ is None else environ
    items = frozenset(env.items())
    if environ is None and items == _environ_seen:
        return
    for name, value in env.items():
        if is_secret_name(name):
            remember(value)
    if environ is None:
        _environ_seen = items


def _known_values() -> re.Pattern[str] | None:
    global _known_pattern
    with _known_lock:
        if _known_pattern is None and _known:
            alternatives = sorted(_known, key=len, reverse=True)
            _known_pattern = re.compile("|".join(re.escape(v) for v in alternatives))
        return _known_pattern


# --- structured data ---------------------------------------------------------


def redact(value: Any, *, secret_keys: bool = True) -> Any:
    """Return ``value`` with every secret replaced, recursively.

    Mappings lose the values of secret-looking keys; lists of strings are
    read as an argv (the word after a secret-looking ``--flag`` goes);
    every string goes through :func:`redact_text`.

    With ``secret_keys=False`` the keys are data, not settings (a result
    keyed by benchmark name, where a benchmark called ``session`` is a name
    and its numbers are no secret): every key and every string, in lists
    too, goes through :func:`redact_text` and no value is dropped for its
    key's name. Redact data this way *before* serialising it: redacting the
    dumped text would find ``"session": {`` and break the JSON.

    Examples
    --------
    >>> from perfstats.adapters.records.redaction import redact
    >>> redact({"headers": {"Authorization": "Bearer abc", "Accept": "*/*"}})
    {'headers': {'Authorization': '<redacted>', 'Accept': '*/*'}}
    >>> redact("https://user:pw@example.org/f?token=abc&n=1")
    'https://user:<redacted>@example.org/f?token=<redacted>&n=1'
    >>> redact(["./bench", "--api-token", "abc", "-n", "5", "DB_PASS=x"])
    ['./bench', '--api-token', '<redacted>', '-n', '5', 'DB_PASS=<redacted>']
    >>> redact({"session": {"n": 3}, "API_TOKEN=abc": {"n": 1}}, secret_keys=False)
    {'session': {'n': 3}, 'API_TOKEN=<redacted>': {'n': 1}}
    """
    remember_environment()
    return _redact(value) if secret_keys else _redact_data(value)


def _redact_data(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {_redact_data(k): _redact_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_redact_data(v) for v in value)
    if isinstance(value, str):
        return redact_text(value)
    return value


def _redact(value: Any) -> Any:
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if isinstance(k, str) and is_secret_name(k) and v not in (None, "", [], {}):
                _remember_all(v)
                out[k] = REDACTED
            else:
                out[k] = _redact(v)
        return out
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, str) for v in value):
            return type(value)(redact_argv(value))
        return type(value)(_redact(v) for v in value)
    if isinstance(value, str):
        return redact_text(value)
    return value


def _remember_all(value: Any) -> None:
    if isinstance(value, str):
        remember(value)
    elif isinstance(value, Mapping):
        for v in value.values():
            _remember_all(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _remember_all(v)


def redact_argv(argv: Iterable[str]) -> list[str]:
    """An argv with secrets replaced: the word after a secret ``--flag``, and each word's text.

    Examples
    --------
    >>> from perfstats.adapters.records.redaction import redact_argv
    >>> redact_argv(["curl", "-H", "Authorization: Bearer abc", "--password", "pw", "-v"])
    ['curl', '-H', 'Authorization: <redacted>', '--password', '<redacted>', '-v']
    """
    words = list(argv)
    out: list[str] = []
    secret_next = False
    for word in words:
        if secret_next:
            remember(word)
            out.append(REDACTED)
            secret_next = False
            continue
        flag = _FLAG_ALONE.fullmatch(word)
        secret_next = bool(flag and is_secret_name(flag.group(1)))
        out.append(redact_text(word))
    return out


# --- text ----------------------------------------------------------------------

_VALUE = r"""(?:"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s"'&;,]+)"""
# The lookbehind starts a scheme only at the start of a run of scheme
# characters: scanning from inside every run would be quadratic.
# A URL may hold the marker of an earlier redaction (text redacted twice).
_URL = re.compile(
    r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://(?:<redacted>|[^\s\"'<>])+"
)
_FLAG_ALONE = re.compile(r"--?([A-Za-z][\w.-]*)")
# --flag value, --flag=value, and the same inside a JSON/Python list of words.
_FLAG = re.compile(
    r"(?<![\w-])(--?(?P<name>[A-Za-z][\w.-]*))(?P<sep>=|[\"']?(?:\s*,\s*|\s+)[\"']?)"
    r"(?P<value>(?!-)" + _VALUE + ")"
)
# "name": value and 'name': value (JSON, Python reprs).
_QUOTED = re.compile(
    r"(?P<q>[\"'])(?P<name>[^\"'\n]{1,100})(?P=q)(?P<sep>\s*[:=]\s*)(?P<value>"
    r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|[^\s,}\]]+)"
)
# NAME=value (environment assignments, query strings outside URLs).
_ASSIGN = re.compile(r"(?<![\w.-])(?P<name>[A-Za-z_][\w.-]*)(?P<sep>=)(?P<value>" + _VALUE + ")")
# Name: value (HTTP headers), up to the end of the line or a quote.
_HEADER = re.compile(r"(?<![\w-])(?P<name>[A-Za-z][\w-]*)(?P<sep>:[ \t]*)(?P<value>[^\r\n\"']+)")
_SCHEMES = re.compile(r"\b(?P<name>Bearer|Basic|Digest)(?P<sep>\s+)(?P<value>[A-Za-z0-9._~+/=-]+)")
_AWS_KEY_ID = re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")


def redact_text(text: str) -> str:
    """``text`` (a command line, message, log line, header) with its secrets replaced.

    Examples
    --------
    >>> from perfstats.adapters.records.redaction import redact_text
    >>> redact_text("curl -H 'Authorization: Bearer abc' https://u:p@h/x?sig=zz&n=1")
    "curl -H 'Authorization: <redacted>' https://u:<redacted>@h/x?sig=<redacted>&n=1"
    >>> redact_text("MYSQL_PWD=hunter2 ./bench --api-key=k1 --n 5")
    'MYSQL_PWD=<redacted> ./bench --api-key=<redacted> --n 5'
    >>> redact_text('{"password": "pw", "n": 3}')
    '{"password": "<redacted>", "n": 3}'
    """
    if not isinstance(text, str) or not text:
        return text
    return _redact_text(text, _generation)


@functools.lru_cache(maxsize=4096)
def _redact_text(text: str, generation: int) -> str:
    # Cached: a record repeats its target name and errors on every row.
    # ``generation`` changes when a value is remembered, so no stale answer
    # misses a secret learnt since.
    # URLs first: a remembered value replaced inside a URL's userinfo
    # (a user name that is itself a secret) would hide the userinfo's
    # shape and let the password after it through.
    if "://" in text:
        text = _URL.sub(lambda m: redact_url(m.group(0)), text)
    known = _known_values()
    if known is not None:
        text = known.sub(REDACTED, text)
    # Each pattern runs only when the text has what it needs to match.
    if "-" in text:
        text = _FLAG.sub(_named_value, text)
    if '"' in text or "'" in text:
        text = _QUOTED.sub(_named_value, text)
    if "=" in text:
        text = _ASSIGN.sub(_named_value, text)
    if ":" in text:
        text = _HEADER.sub(_named_value, text)
    if "Bearer" in text or "Basic" in text or "Digest" in text:
        text = _SCHEMES.sub(_scheme_value, text)
    if "AKIA" in text or "ASIA" in text:
        text = _AWS_KEY_ID.sub(REDACTED, text)
    return text


def _named_value(m: re.Match[str]) -> str:
    if not is_secret_name(m.group("name")):
        return m.group(0)
    return m.group(0)[: m.start("value") - m.start(0)] + _replaced(m.group("value"))


def _scheme_value(m: re.Match[str]) -> str:
    return m.group("name") + m.group("sep") + _replaced(m.group("value"))


def _replaced(value: str) -> str:
    """``REDACTED`` in the quotes ``value`` had, remembering what it was."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        if inner in (REDACTED, ""):
            return value
        remember(inner)
        return value[0] + REDACTED + value[0]
    if REDACTED in value:
        return value
    remember(value)
    return REDACTED


def redact_url(url: str) -> str:
    """``url`` without its userinfo's secret and the values of secret query parameters.

    Examples
    --------
    >>> from perfstats.adapters.records.redaction import redact_url
    >>> redact_url("https://user:pw@example.org/f?code=abc&n=1#access_token=t")
    'https://user:<redacted>@example.org/f?code=<redacted>&n=1#access_token=<redacted>'
    >>> redact_url("https://ghp_abc@github.com/o/r.git")
    'https://<redacted>@github.com/o/r.git'
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    end = len(rest)
    for stop in "/?#":
        i = rest.find(stop)
        if i >= 0:
            end = min(end, i)
    authority, tail = rest[:end], rest[end:]
    if "@" in authority:
        userinfo, _, host = authority.rpartition("@")
        if userinfo != REDACTED and not userinfo.endswith(":" + REDACTED):
            user, colon, password = userinfo.partition(":")
            if colon:
                remember(password)
                userinfo = f"{user}:{REDACTED}"
            else:
                remember(user)
                userinfo = REDACTED
        authority = f"{userinfo}@{host}"
    path, qmark, query = tail.partition("?")
    fragment_sep, fragment = "", ""
    if qmark:
        query, fragment_sep, fragment = query.partition("#")
    else:
        path, fragment_sep, fragment = path.partition("#")
    tail = path
    if qmark:
        tail += "?" + _redact_pairs(query)
    if fragment_sep:
        tail += "#" + _redact_pairs(fragment)
    return f"{scheme}://{authority}{tail}"


def _redact_pairs(query: str) -> str:
    parts = []
    for pair in query.split("&"):
        name, eq, value = pair.partition("=")
        if eq and value and value != REDACTED and is_secret_name(name, query=True):
            remember(value)
            pair = f"{name}={REDACTED}"
        parts.append(pair)
    return "&".join(parts)
