"""An HTTP function as a suite target: the request POSTed, the results in the response.

References
----------
.. [Schirmer2024] Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud
   FaaS Platforms", IC2E 2024; see the References of :mod:`perfstats.comparison.change`.
"""

from __future__ import annotations

import http.client
from collections.abc import Mapping
from typing import Any

from ..records.measurement import TIMEOUT, Measurement, utc_now
from ..targets.arguments import check_headers, check_timeout, check_url
from ..targets.connections import HttpClient
from .benchmark import Benchmark
from .interleaving import Call
from .protocol import encode_request, read_results
from .suite_target import SuiteTarget, failed_call


class ReportingHttp(SuiteTarget):
    """POST each call's request to a function, which runs and times the executions.

    This is ElastiBench's set-up (Schirmer et al. 2024, Section IV): the function image
    holds both versions, so a duet call runs both in the same function
    instance, and the function reports each execution's time (see
    :mod:`perfstats.adapters.ab.protocol`). Any HTTP-triggered function
    works: Google's Functions Framework, Knative, OpenFaaS, a Lambda URL.

    Parameters
    ----------
    url : str
        ``http://`` or ``https://`` address of the function.
    timeout : float, default 900
        Seconds for one call (ElastiBench used Lambda's 15 minutes).
    headers : dict, optional
        Extra request headers (authorization headers are redacted in
        records).
    keep_alive : bool, default False
        Reuse one connection per thread.
    unit : str, default ""
        Unit of the values when the function does not name one.
    label : str, optional
        Label for the record.
    randomize : bool, default True
        Sent as ElastiBench's ``randomize`` (with ``timeout_s``, the
        timeout); see :mod:`perfstats.adapters.ab.protocol`.
    memory_mb : int, optional
        Memory configured for the function, to price the run (an HTTP
        function does not say); with ``architecture`` (default ``x86_64``).
    architecture : str, optional
        CPU architecture of the function (e.g. ``"x86_64"`` or ``"arm64"``),
        whose price per GB-second prices the run (see
        :func:`perfstats.planning.faas_cost`); ``x86_64`` when ``memory_mb``
        is given without it. Recorded only with ``memory_mb``: without a
        memory size the run is not priced.

    Examples
    --------
    >>> from perfstats.adapters.ab.reporting_http import ReportingHttp
    >>> f = ReportingHttp("http://127.0.0.1:8080/", unit="ns")
    >>> f.config()["url"]
    'http://127.0.0.1:8080/'
    """

    kind = "http"

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 900.0,
        headers: Mapping[str, str] | None = None,
        keep_alive: bool = False,
        unit: str = "",
        label: str | None = None,
        randomize: bool = True,
        memory_mb: int | None = None,
        architecture: str | None = None,
    ) -> None:
        self.url = check_url(url)
        if memory_mb is not None and (
            isinstance(memory_mb, bool) or not isinstance(memory_mb, int) or memory_mb < 1
        ):
            raise ValueError(f"memory_mb must be a positive integer (MB); got {memory_mb!r}")
        if architecture is not None and not isinstance(architecture, str):
            raise ValueError(f"architecture must be a name like 'x86_64'; got {architecture!r}")
        self.memory_mb = memory_mb
        if not isinstance(randomize, bool):
            raise ValueError(f"randomize must be true or false; got {randomize!r}")
        self.randomize = randomize
        self.architecture = architecture or ("x86_64" if memory_mb is not None else None)
        checked = check_timeout(timeout)
        if checked is None:
            raise ValueError("timeout must be a positive number of seconds for HTTP targets")
        self.timeout = checked
        self.headers = {"Content-Type": "application/json", **check_headers(headers)}
        self.keep_alive = bool(keep_alive)
        if not isinstance(unit, str):
            raise ValueError(f"unit must be a string; got {unit!r}")
        self.unit = unit
        self.name = label or f"POST {url}"
        self._client = HttpClient(url, timeout=self.timeout, keep_alive=self.keep_alive)

    def call(self, call: Call, benchmark: Benchmark) -> list[Measurement]:
        started_at = utc_now()
        try:
            response = self._client.send(
                "POST",
                encode_request(call, benchmark, randomize=self.randomize, timeout_s=self.timeout),
                self.headers,
            )
        except TimeoutError:
            return failed_call(
                call,
                f"no response within {self.timeout:g} s",
                unit=self.unit,
                started_at=started_at,
                status=TIMEOUT,
            )
        except OSError as exc:
            return failed_call(
                call,
                f"cannot reach {self.url}: {exc.strerror or exc}",
                unit=self.unit,
                started_at=started_at,
            )
        except http.client.HTTPException as exc:
            return failed_call(
                call,
                f"{self.url}: {type(exc).__name__}: {exc}",
                unit=self.unit,
                started_at=started_at,
            )
        extra: dict[str, Any] = {"call_wall_ns": response.wall_ns, "http_status": response.status}
        text = response.body.decode("utf-8", "replace")
        if response.status >= 400:
            flat = " ".join(text.split())[:200]
            message = f"HTTP {response.status} {response.reason}" + (f": {flat}" if flat else "")
            return failed_call(
                call, message, unit=self.unit, started_at=response.started_at, extra=extra
            )
        return read_results(text, call, unit=self.unit, started_at=response.started_at, extra=extra)

    def close(self) -> None:
        self._client.close()

    def _config(self) -> dict[str, Any]:
        return {
            "url": self.url,
            "timeout": self.timeout,
            "headers": self.headers,
            "keep_alive": self.keep_alive,
            "unit": self.unit,
            "randomize": self.randomize,
            **({"memory_mb": self.memory_mb, "architecture": self.architecture}
               if self.memory_mb is not None else {}),
        }  # fmt: skip
