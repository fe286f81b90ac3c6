"""Keep secrets out of records: headers, environment variables and URLs."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "<redacted>"

# Names that carry credentials in HTTP headers, environment variables, query
# strings and option dicts. "key" alone is deliberately absent: an SSH key
# *path* is configuration worth recording, not a secret.
_SECRET = re.compile(
    r"(authorization|auth|token|secret|passw(or)?d|credential|cookie|signature|"
    r"api[-_]?key|access[-_]?key|private[-_]?key|session|x-amz-security|sig$)",
    re.IGNORECASE,
)


def is_secret_name(name: str) -> bool:
    """True when a header, variable or parameter called ``name`` may hold a secret.

    Examples
    --------
    >>> from perfstats.adapters.records.redaction import is_secret_name
    >>> is_secret_name("Authorization"), is_secret_name("AWS_SECRET_ACCESS_KEY")
    (True, True)
    >>> is_secret_name("Content-Type"), is_secret_name("key")
    (False, False)
    """
    return bool(_SECRET.search(name))


def redact(value: Any) -> Any:
    """Return ``value`` with secret-looking entries replaced, recursively.

    Mappings have the values of secret-looking keys replaced; strings that
    are URLs lose their password and secret-looking query parameters.

    Examples
    --------
    >>> from perfstats.adapters.records.redaction import redact
    >>> redact({"headers": {"Authorization": "Bearer abc", "Accept": "*/*"}})
    {'headers': {'Authorization': '<redacted>', 'Accept': '*/*'}}
    >>> redact("https://user:pw@example.org/f?token=abc&n=1")
    'https://user:<redacted>@example.org/f?token=%3Credacted%3E&n=1'
    """
    if isinstance(value, Mapping):
        return {
            k: (REDACTED if isinstance(k, str) and is_secret_name(k) and v else redact(v))
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return type(value)(redact(v) for v in value)
    if isinstance(value, str) and "://" in value:
        return redact_url(value)
    return value


def redact_url(url: str) -> str:
    """Remove the password and secret query values from ``url``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if parts.password:
        userinfo, _, host = netloc.rpartition("@")
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:{REDACTED}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_secret_name(k) for k, _ in pairs):
            query = urlencode([(k, REDACTED if is_secret_name(k) else v) for k, v in pairs])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
