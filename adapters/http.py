"""Any HTTP-triggered function (Functions Framework, Knative, OpenFaaS, a Lambda URL)."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from .arguments import check_argv, check_timeout, show_argv
from .measurement import ERROR, TIMEOUT, Measurement, utc_now
from .processes import ProcessRunner
from .reading import ValueReader
from .target import Target

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD")

ColdStartHook = Callable[[], None]


class HttpFunction(Target):
    """Call a function over HTTP and time the request.

    Parameters
    ----------
    url : str
        ``http://`` or ``https://`` address of the function.
    method : str, default "POST"
    payload : dict, list, str or bytes, optional
        Request body; a dict or list is sent as JSON.
    headers : dict, optional
        Request headers (authorization headers are redacted in records).
    timeout : float, default 60
        Seconds for the whole request.
    cold_start : callable or list of str, optional
        A hook run before every invocation (not timed) that forces the next
        request onto a new instance: a Python callable, or a command
        (``["kubectl", "delete", "pod", "-l", "app=f"]``) that must exit 0.
        Invocations after the hook are marked ``cold=True``; hooked
        invocations are serialised, because a restart would break requests
        in flight.
    cold_header : str, optional
        A response header whose value tells cold (``"true"``/``"1"``) from
        warm, when the platform reports it.
    regex, json_field, unit : optional
        Read the value from the response body instead of timing the request.
    label : str, optional
        Label for the record.

    Examples
    --------
    >>> from perfstats.adapters import HttpFunction
    >>> f = HttpFunction("http://127.0.0.1:8080/", payload={"n": 10})  # doctest: +SKIP
    >>> f.invoke().status  # doctest: +SKIP
    'ok'
    """

    kind = "http"

    def __init__(
        self,
        url: str,
        *,
        method: str = "POST",
        payload: Any = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        cold_start: ColdStartHook | Sequence[str] | None = None,
        cold_header: str | None = None,
        regex: str | None = None,
        json_field: str | None = None,
        unit: str | None = None,
        label: str | None = None,
    ) -> None:
        if not isinstance(url, str):
            raise ValueError(f"url must be a string; got {url!r}")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"url must be an http:// or https:// address; got {url!r}")
        try:
            parts.port  # noqa: B018 - raises ValueError for a malformed port
        except ValueError:
            raise ValueError(f"url {url!r} has an invalid port") from None
        self.url = url
        method = method.upper() if isinstance(method, str) else method
        if method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
        self.method = str(method)
        self.payload = payload
        self._body, content_type = _encode(payload)
        if headers is not None and (
            not isinstance(headers, Mapping)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in headers.items())
        ):
            raise ValueError(f"headers must map names to string values; got {headers!r}")
        self.headers = dict(headers or {})
        if content_type and not any(k.lower() == "content-type" for k in self.headers):
            self.headers["Content-Type"] = content_type
        checked = check_timeout(timeout)
        if checked is None:
            raise ValueError("timeout must be a positive number of seconds for HTTP targets")
        self.timeout = checked
        self._hook: ColdStartHook | None
        self._hook_argv: list[str] | None = None
        if cold_start is None:
            self._hook = None
        elif callable(cold_start):
            self._hook = cold_start
        else:
            self._hook_argv = check_argv(cold_start, "cold_start")
            self._hook = self._run_hook_command
        self._runner = ProcessRunner()
        self.cold_header = cold_header
        self.reader = ValueReader(regex=regex, json_field=json_field, unit=unit)
        self.name = label or f"{self.method} {url}"
        self._serial = threading.Lock()

    def _run_hook_command(self) -> None:
        assert self._hook_argv is not None
        out = self._runner.run(self._hook_argv, timeout=max(self.timeout, 300.0))
        problem = out.failure()
        if problem is not None:
            raise RuntimeError(f"cold-start command {show_argv(self._hook_argv)}: {problem}")

    def invoke(self) -> Measurement:
        if self._hook is None:
            return self._request(cold=None)
        with self._serial:
            started_at = utc_now()
            try:
                self._hook()
            except Exception as exc:
                return Measurement.failure(
                    f"cold-start hook failed: {exc}",
                    unit=self.reader.unit,
                    cold=True,
                    started_at=started_at,
                )
            return self._request(cold=True)

    def _request(self, *, cold: bool | None) -> Measurement:
        request = urllib.request.Request(
            self.url, data=self._body, headers=self.headers, method=self.method
        )
        started_at = utc_now()
        t0 = time.monotonic_ns()
        status: int | None = None

        def failed(message: str, kind: str = ERROR) -> Measurement:
            extra = {"wall_ns": time.monotonic_ns() - t0, "http_status": status}
            return Measurement.failure(
                message,
                unit=self.reader.unit,
                cold=cold,
                started_at=started_at,
                status=kind,
                extra=extra,
            )

        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                body = response.read()
                wall_ns = time.monotonic_ns() - t0
                status = int(response.status)
                reported = response.headers.get(self.cold_header) if self.cold_header else None
        except urllib.error.HTTPError as exc:
            status = exc.code
            text = _text(exc.read())
            return failed(f"HTTP {exc.code} {exc.reason}" + (f": {text}" if text else ""))
        except urllib.error.URLError as exc:
            if _is_timeout(exc.reason):
                return failed(f"no response within {self.timeout:g} s", TIMEOUT)
            return failed(f"cannot reach {self.url}: {_reason(exc.reason)}")
        except TimeoutError:
            return failed(f"no response within {self.timeout:g} s", TIMEOUT)
        except (OSError, ValueError) as exc:
            # Connection reset mid-body, malformed responses, ...
            return failed(f"{self.url}: {_reason(exc)}")
        if reported is not None:
            cold = reported.strip().lower() in ("1", "true", "yes", "cold")
        text = _text(body, limit=None)
        extra = {"wall_ns": wall_ns, "http_status": status, "bytes": len(body)}
        try:
            value = self.reader.read(text, wall_ns=wall_ns)
        except ValueError as exc:
            return failed(str(exc))
        return Measurement(
            value=value, unit=self.reader.unit, cold=cold, started_at=started_at, extra=extra
        )

    def close(self) -> None:
        self._runner.kill_all()

    def _config(self) -> dict[str, Any]:
        hook: Any = None
        if self._hook_argv is not None:
            hook = self._hook_argv
        elif self._hook is not None:
            hook = getattr(self._hook, "__qualname__", repr(self._hook))
        return {
            "url": self.url,
            "method": self.method,
            "payload": self.payload if not isinstance(self.payload, bytes) else "<bytes>",
            "headers": self.headers,
            "timeout": self.timeout,
            "cold_start": hook,
            "cold_header": self.cold_header,
            **self.reader.config(),
        }


def _encode(payload: Any) -> tuple[bytes | None, str | None]:
    if payload is None:
        return None, None
    if isinstance(payload, bytes):
        return payload, "application/octet-stream"
    if isinstance(payload, str):
        return payload.encode(), "text/plain; charset=utf-8"
    if isinstance(payload, (dict, list)):
        try:
            return json.dumps(payload).encode(), "application/json"
        except (TypeError, ValueError) as exc:
            raise ValueError(f"payload is not JSON-serialisable: {exc}") from None
    raise ValueError(f"payload must be a dict, list, str or bytes; got {type(payload).__name__}")


def _is_timeout(reason: Any) -> bool:
    return isinstance(reason, (TimeoutError, socket.timeout)) or "timed out" in str(reason)


def _reason(reason: Any) -> str:
    if isinstance(reason, OSError) and reason.strerror:
        return str(reason.strerror)
    return str(reason)


def _text(body: bytes, limit: int | None = 200) -> str:
    text = body.decode("utf-8", "replace")
    if limit is None:
        return text
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."
