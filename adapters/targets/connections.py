"""HTTP requests timed from send to last byte, on fresh or kept-alive connections."""

from __future__ import annotations

import http.client
import socket
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from email.message import Message
from urllib.parse import urlsplit

from ..records.measurement import utc_now

# Errors of a kept-alive connection the server closed while it was idle: the
# request never reached the function, so it is sent again on a new one.
_STALE = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)


@dataclass(frozen=True)
class Response:
    """One HTTP exchange: status, headers, body and its timing.

    ``wall_ns`` runs from just before the request is sent to the last byte
    of the body; ``reused`` tells whether a kept-alive connection carried it.
    """

    status: int
    reason: str
    headers: Message
    body: bytes
    started_at: datetime
    wall_ns: int
    reused: bool


class HttpClient:
    """Send requests to one URL, one connection per thread.

    ``timeout`` bounds each whole request (connect, send and every read of
    the answer), not each read: a server that trickles its answer is cut off
    at the deadline with a :class:`TimeoutError`.

    With ``keep_alive=False`` every request opens (and closes) its own
    connection, as a new client would, so the timing includes TCP and TLS
    set-up. With ``keep_alive=True`` each thread keeps its connection open
    between requests, as SDKs and browsers do, so the timing covers the
    request alone; a connection the server closed while idle is replaced
    and the request sent again, timed afresh.

    Examples
    --------
    >>> from perfstats.adapters.targets.connections import HttpClient
    >>> client = HttpClient("http://127.0.0.1:8080/f", timeout=5, keep_alive=True)
    >>> client.send("GET", None, {}).status  # doctest: +SKIP
    200
    """

    def __init__(self, url: str, *, timeout: float, keep_alive: bool) -> None:
        parts = urlsplit(url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.timeout = timeout
        self.keep_alive = keep_alive
        self._local = threading.local()
        self._open: set[http.client.HTTPConnection] = set()
        self._lock = threading.Lock()

    def _new(self) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        conn = cls(self._host, self._port, timeout=self.timeout)
        with self._lock:
            self._open.add(conn)
        return conn

    def _drop(self, conn: http.client.HTTPConnection) -> None:
        conn.close()
        with self._lock:
            self._open.discard(conn)
        if getattr(self._local, "conn", None) is conn:
            self._local.conn = None

    def send(self, method: str, body: bytes | None, headers: dict[str, str]) -> Response:
        """Send one request; network errors propagate after the connection is dropped."""
        conn = getattr(self._local, "conn", None) if self.keep_alive else None
        if conn is not None:
            try:
                return self._exchange(conn, method, body, headers, reused=True)
            except _STALE:
                pass  # the idle connection was closed by the server: retry below
        return self._exchange(self._new(), method, body, headers, reused=False)

    def _exchange(
        self,
        conn: http.client.HTTPConnection,
        method: str,
        body: bytes | None,
        headers: dict[str, str],
        *,
        reused: bool,
    ) -> Response:
        # Started before the clock: starting its timer thread is not the request's time.
        deadline = _Deadline(conn, self.timeout)
        started_at = utc_now()
        t0 = time.monotonic_ns()
        try:
            conn.request(method, self._target, body=body, headers=headers)
            response = conn.getresponse()
            data = response.read()
            wall_ns = time.monotonic_ns() - t0
        except BaseException:
            self._drop(conn)
            if deadline.expired():
                raise TimeoutError(f"no complete response within {self.timeout:g} s") from None
            raise
        finally:
            deadline.cancel()
        if deadline.expired():
            # The cut connection may have looked like the end of the body.
            self._drop(conn)
            raise TimeoutError(f"no complete response within {self.timeout:g} s")
        if self.keep_alive and not response.will_close:
            self._local.conn = conn
        else:
            self._drop(conn)
        return Response(
            status=response.status,
            reason=response.reason,
            headers=response.headers,
            body=data,
            started_at=started_at,
            wall_ns=wall_ns,
            reused=reused,
        )

    def close(self) -> None:
        """Close every connection (of every thread)."""
        with self._lock:
            conns = list(self._open)
            self._open.clear()
        for conn in conns:
            conn.close()
        self._local = threading.local()


class _Deadline:
    """A bound on one whole exchange: connect, send, and every read of the answer.

    A socket timeout bounds each read alone, so a server that sends a byte
    every half second would hold a request open for ever; at the deadline
    this shuts the connection's socket down, which ends any read in
    progress, and :meth:`expired` tells the caller why it ended.
    """

    def __init__(self, conn: http.client.HTTPConnection, seconds: float) -> None:
        self._conn = conn
        self._expired = threading.Event()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        self._expired.set()
        sock = self._conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already closed: the exchange is over anyway

    def expired(self) -> bool:
        return self._expired.is_set()

    def cancel(self) -> None:
        self._timer.cancel()
