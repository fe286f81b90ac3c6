"""Any HTTP-triggered function (Functions Framework, Knative, OpenFaaS, a Lambda URL)."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..records.measurement import ERROR, TIMEOUT, Measurement, utc_now
from .arguments import check_argv, check_headers, check_timeout, check_url, show_argv
from .base import Target
from .connections import HttpClient
from .processes import ProcessRunner
from .values import ValueReader

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD")

ColdStartHook = Callable[[], None]


class HttpFunction(Target):
    """Call a function over HTTP and time the request.

    Parameters
    ----------
    url : str
        ``http://`` or ``https://`` address of the function.
    method : str, default "POST"
        HTTP method of the request, one of ``GET``, ``POST``, ``PUT``,
        ``PATCH``, ``DELETE`` or ``HEAD`` (any letter case).
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
    keep_alive : bool, default False
        Reuse one connection per thread, so the value excludes TCP/TLS
        set-up (see :class:`~perfstats.adapters.targets.connections.HttpClient`).
        By default every request opens its own connection. Proxy variables
        are not used: the function is called directly.
    regex, json_field, unit : optional
        Read the value from the response body instead of timing the request.
    label : str, optional
        Label for the record (default: the method and URL, ``"GET http://..."``).

    Examples
    --------
    Nothing is sent until the first invocation:

    >>> from perfstats.adapters import HttpFunction
    >>> f = HttpFunction("http://127.0.0.1:8080/", payload={"n": 10})
    >>> f.kind, f.config()["method"], f.config()["url"]
    ('http', 'POST', 'http://127.0.0.1:8080/')
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
        keep_alive: bool = False,
        regex: str | None = None,
        json_field: str | None = None,
        unit: str | None = None,
        label: str | None = None,
    ) -> None:
        self.url = check_url(url)
        method = method.upper() if isinstance(method, str) else method
        if method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
        self.method = str(method)
        self.payload = payload
        self._body, content_type = _encode(payload)
        self.headers = check_headers(headers)
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
        self.keep_alive = bool(keep_alive)
        self._client = HttpClient(url, timeout=self.timeout, keep_alive=self.keep_alive)
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
                # A new instance means a new connection too.
                self._client.close()
            except Exception as exc:
                return Measurement.failure(
                    f"cold-start hook failed: {exc}",
                    unit=self.reader.unit,
                    cold=True,
                    started_at=started_at,
                )
            return self._request(cold=True)

    def _request(self, *, cold: bool | None) -> Measurement:
        started_at = utc_now()

        def failed(message: str, kind: str = ERROR, status: int | None = None) -> Measurement:
            return Measurement.failure(
                message,
                unit=self.reader.unit,
                cold=cold,
                started_at=started_at,
                status=kind,
                extra={"http_status": status},
            )

        try:
            response = self._client.send(self.method, self._body, self.headers)
        except TimeoutError:
            return failed(f"no response within {self.timeout:g} s", TIMEOUT)
        except OSError as exc:
            return failed(f"cannot reach {self.url}: {exc.strerror or exc}")
        except http.client.HTTPException as exc:
            return failed(f"{self.url}: {type(exc).__name__}: {exc}")
        started_at = response.started_at
        extra = {
            "wall_ns": response.wall_ns,
            "http_status": response.status,
            "bytes": len(response.body),
            "reused_connection": response.reused,
        }
        if response.status >= 400:
            text = _text(response.body)
            return failed(
                f"HTTP {response.status} {response.reason}" + (f": {text}" if text else ""),
                status=response.status,
            )
        if self.cold_header:
            reported = response.headers.get(self.cold_header)
            if reported is not None:
                cold = reported.strip().lower() in ("1", "true", "yes", "cold")
        try:
            value = self.reader.read(_text(response.body, limit=None), wall_ns=response.wall_ns)
        except ValueError as exc:
            return failed(str(exc), status=response.status)
        return Measurement(
            value=value, unit=self.reader.unit, cold=cold, started_at=started_at, extra=extra
        )

    def close(self) -> None:
        self._runner.kill_all()
        self._client.close()

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
            "keep_alive": self.keep_alive,
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


def _text(body: bytes, limit: int | None = 200) -> str:
    text = body.decode("utf-8", "replace")
    if limit is None:
        return text
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."
