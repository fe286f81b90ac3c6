"""An AWS Lambda function as a suite target: ElastiBench's benchmark runner in a function.

Each call invokes the function synchronously with the call's request (see
:mod:`perfstats.adapters.ab.protocol`) plus the fields of ElastiBench's
request (Schirmer et al. 2024, Section V): ``benchmarks`` (the benchmarks
to run, here the call's one), ``randomize`` (whether benchmarks and the two
versions run in a random order; perfstats' plan already randomises the
executions it lists) and ``timeout_s`` (how long the runner may take). The
function answers with the results; the REPORT line of the log tail gives
the billed duration, which prices the run
(:mod:`perfstats.adapters.report.billing`).

References
----------
.. [Schirmer2024] Schirmer et al., "ElastiBench: Scalable Continuous Benchmarking on Cloud
   FaaS Platforms", IC2E 2024; see the References of :mod:`perfstats.comparison.change`.
"""

from __future__ import annotations

import json
from typing import Any

from ..records.measurement import Measurement
from ..targets.arguments import check_timeout
from ..targets.awslambda import check_function_name, invoke_with_log
from ..targets.lambda_report import find_report
from .benchmark import Benchmark
from .interleaving import Call
from .lifecycle import lambda_client
from .protocol import read_results, request_of
from .suite_target import SuiteTarget, failed_call


class ReportingLambda(SuiteTarget):
    """Invoke a Lambda function once per call; it runs the executions and reports them.

    Parameters
    ----------
    name : str
        Function name or ARN.
    qualifier : str, optional
        Version or alias (a deployment's published version).
    region, endpoint_url, profile : str, optional
        Where the function is (``endpoint_url``: an emulator such as moto).
    timeout : float, default 900
        Seconds one call may take; sent as ``timeout_s``.
    randomize : bool, default True
        Sent as ``randomize``.
    unit : str, default ""
        Unit of the values when the function names none.
    label : str, optional
        Label for the record.
    client : boto3 Lambda client, optional
        Client that reads the function's configuration and invokes it, in
        place of the one built from ``region``, ``endpoint_url`` and
        ``profile`` (which makes no retries, since a retried call would be
        timed as one, and waits a little longer than ``timeout`` for a
        response); a test's stub or a client set up otherwise.

    Attributes
    ----------
    memory_mb : int
        Memory configured for the function (read from Lambda).
    architecture : str
        Its architecture (``arm64`` or ``x86_64``).

    Examples
    --------
    >>> from perfstats.adapters.ab.reporting_lambda import ReportingLambda
    >>> f = ReportingLambda("bench", qualifier="3", region="eu-west-1")  # doctest: +SKIP
    >>> f.memory_mb, f.architecture  # doctest: +SKIP
    (2048, 'arm64')
    """

    kind = "lambda"

    def __init__(
        self,
        name: str,
        *,
        qualifier: str | None = None,
        region: str | None = None,
        endpoint_url: str | None = None,
        profile: str | None = None,
        timeout: float = 900.0,
        randomize: bool = True,
        unit: str = "",
        label: str | None = None,
        client: Any = None,
    ) -> None:
        self.function_name = check_function_name(name)
        self.qualifier = None if qualifier is None else str(qualifier)
        self.region = region
        self.endpoint_url = endpoint_url
        self.profile = profile
        checked = check_timeout(timeout)
        self.timeout = 900.0 if checked is None else checked
        if not isinstance(randomize, bool):
            raise ValueError(f"randomize must be true or false; got {randomize!r}")
        self.randomize = randomize
        if not isinstance(unit, str):
            raise ValueError(f"unit must be a string; got {unit!r}")
        self.unit = unit
        self.name = label or f"lambda {name}" + (f":{self.qualifier}" if self.qualifier else "")
        # No retries of invocations: a retried call would be timed as one.
        self._client = client if client is not None else lambda_client(
            region, endpoint_url=endpoint_url, profile=profile, attempts=1,
            read_timeout=self.timeout + 10,
        )  # fmt: skip
        config = self._configuration()
        self.memory_mb = int(config.get("MemorySize", 128))
        self.architecture = str((config.get("Architectures") or ["x86_64"])[0])

    def _configuration(self) -> dict[str, Any]:
        from botocore.exceptions import BotoCoreError, ClientError

        kwargs: dict[str, Any] = {"FunctionName": self.function_name}
        if self.qualifier:
            kwargs["Qualifier"] = self.qualifier
        try:
            return dict(self._client.get_function_configuration(**kwargs))
        except ClientError as exc:
            error = exc.response.get("Error", {})
            raise ValueError(
                f"Lambda function {self.name!r}: {error.get('Code')}: {error.get('Message')}"
            ) from None
        except BotoCoreError as exc:
            raise ValueError(f"Lambda function {self.name!r}: {exc}") from None

    def call(self, call: Call, benchmark: Benchmark) -> list[Measurement]:
        request = request_of(call, benchmark, randomize=self.randomize, timeout_s=self.timeout)
        inv = invoke_with_log(
            self._client, self.function_name, self.qualifier, json.dumps(request).encode(),
            self.timeout,
        )  # fmt: skip
        started_at, response = inv.started_at, inv.response
        if inv.error is not None:
            return failed_call(
                call, inv.error, unit=self.unit, started_at=started_at, status=inv.status
            )
        extra: dict[str, Any] = {
            "call_wall_ns": inv.wall_ns,
            "status_code": response.get("StatusCode"),
            "executed_version": response.get("ExecutedVersion"),
        }
        try:
            report = find_report(inv.log)
        except ValueError:
            report = None
        if report is not None:
            extra.update(report.to_dict())
        text = inv.body.decode("utf-8", "replace")
        if response.get("FunctionError"):
            flat = " ".join(text.split())[:200]
            return failed_call(
                call, f"function error ({response['FunctionError']}): {flat}", unit=self.unit,
                started_at=started_at, extra=extra,
            )  # fmt: skip
        return read_results(text, call, unit=self.unit, started_at=started_at, extra=extra)

    def _config(self) -> dict[str, Any]:
        return {
            "function": self.function_name,
            "qualifier": self.qualifier,
            "region": self.region,
            "endpoint_url": self.endpoint_url,
            "profile": self.profile,
            "timeout": self.timeout,
            "randomize": self.randomize,
            "unit": self.unit,
            "memory_mb": self.memory_mb,
            "architecture": self.architecture,
        }
