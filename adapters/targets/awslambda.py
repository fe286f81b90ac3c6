"""An AWS Lambda function invoked through boto3 as a target."""

from __future__ import annotations

import base64
import json
import logging
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..records.measurement import ERROR, TIMEOUT, Measurement, one_line, utc_now
from .arguments import check_choice, check_timeout
from .base import Target
from .lambda_report import LambdaReport, find_report
from .values import WALL_UNIT, ValueReader

METRICS = ("duration", "billed", "wall")
# The environment variable force_cold changes: any configuration change makes
# Lambda start new execution environments for the following invocations.
COLD_VARIABLE = "PERFSTATS_COLD_START"

logger = logging.getLogger(__name__)


def check_function_name(name: Any) -> str:
    """``name`` as a Lambda function name or ARN (a non-empty string)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a Lambda function name or ARN; got {name!r}")
    return name


@dataclass(frozen=True)
class Invocation:
    """One synchronous invocation with its log tail, or why it failed (``error``, ``status``)."""

    started_at: datetime
    response: Mapping[str, Any] = field(default_factory=dict)
    body: bytes = b""
    wall_ns: int = 0
    log: str = ""
    error: str | None = None
    status: str = ERROR


def invoke_with_log(
    client: Any, function_name: str, qualifier: str | None, payload: bytes, timeout: float
) -> Invocation:
    """Invoke ``function_name`` once, waiting for it, with the tail of its log.

    Both the Lambda target and the A-B suite's Lambda target call a function
    this way; a timeout, a refused call or a transport error comes back as
    ``error`` (and ``status``), not as an exception.
    """
    from botocore.exceptions import BotoCoreError, ClientError, ReadTimeoutError

    kwargs: dict[str, Any] = {
        "FunctionName": function_name,
        "InvocationType": "RequestResponse",
        "LogType": "Tail",
        "Payload": payload,
    }
    if qualifier:
        kwargs["Qualifier"] = qualifier
    started_at = utc_now()
    t0 = time.monotonic_ns()
    try:
        response = client.invoke(**kwargs)
        body = response["Payload"].read()
    except ReadTimeoutError:
        return Invocation(started_at, error=f"no response within {timeout:g} s", status=TIMEOUT)
    except ClientError as exc:
        error = exc.response.get("Error", {})
        return Invocation(started_at, error=f"{error.get('Code')}: {error.get('Message')}")
    except BotoCoreError as exc:
        return Invocation(started_at, error=str(exc))
    wall_ns = time.monotonic_ns() - t0
    log = base64.b64decode(response.get("LogResult") or "").decode("utf-8", "replace")
    return Invocation(started_at, response, body, wall_ns, log)


class LambdaFunction(Target):
    """Invoke an AWS Lambda function synchronously and read its REPORT line.

    Every invocation uses ``LogType="Tail"``; the REPORT line of the returned
    log gives Duration, Billed Duration, Memory Size, Max Memory Used and, on
    a cold start, Init Duration (kept in the measurement's ``extra``).
    ``cold`` is True exactly when Init Duration is present (None when the
    log has no REPORT line).

    Parameters
    ----------
    name : str
        Function name or ARN.
    payload : dict, list, str or bytes, optional
        Event; a dict or list is sent as JSON.
    region : str, optional
        AWS region (default: boto3's configuration).
    qualifier : str, optional
        Version or alias.
    force_cold : bool, default False
        Before every invocation, change an environment variable of the
        function's configuration and wait until the update is applied, so the
        invocation starts a new execution environment. The original
        variables are restored by :meth:`close`. Only for ``$LATEST``.
    metric : {"duration", "billed", "wall"}, default "duration"
        The value: REPORT Duration (ms), Billed Duration (ms), or the wall
        time of the API call as the driver timed it (ns).
    timeout : float, default 900
        Seconds to wait for a response (Lambda's maximum run time is 900 s).
    endpoint_url : str, optional
        Another Lambda API endpoint (an emulator such as moto).
    profile : str, optional
        AWS configuration profile.
    update_timeout : float, default 300
        With ``force_cold``, seconds to wait for the configuration update to
        be applied; past it, the invocation is recorded as a failure.
    regex, json_field, unit : optional
        Read the value from the function's response instead.
    label : str, optional
        Label for the record (default: ``"lambda <name>[:<qualifier>]"``).
    client : botocore client, optional
        A Lambda client to use instead of one the target creates from
        ``region``, ``profile`` and ``endpoint_url`` (a stub or a client
        configured elsewhere); its own read timeout and retries then apply,
        not the ones the target sets (``timeout``, no retries).

    Examples
    --------
    >>> from perfstats.adapters import LambdaFunction
    >>> f = LambdaFunction("thumbnail", payload={"size": 128}, region="eu-west-1")  # doctest: +SKIP
    >>> m = f.invoke()  # doctest: +SKIP
    >>> m.unit, m.extra["billed_duration_ms"]  # doctest: +SKIP
    ('ms', 13.0)
    """

    kind = "lambda"

    def __init__(
        self,
        name: str,
        *,
        payload: Any = None,
        region: str | None = None,
        qualifier: str | None = None,
        force_cold: bool = False,
        metric: str = "duration",
        timeout: float = 900.0,
        endpoint_url: str | None = None,
        profile: str | None = None,
        update_timeout: float = 300.0,
        regex: str | None = None,
        json_field: str | None = None,
        unit: str | None = None,
        label: str | None = None,
        client: Any = None,
    ) -> None:
        self.function_name = check_function_name(name)
        self.payload = payload
        self._payload_bytes = _encode(payload)
        self.region = region
        self.qualifier = qualifier
        self.force_cold = bool(force_cold)
        if self.force_cold and qualifier not in (None, "$LATEST"):
            raise ValueError(
                "force_cold changes the $LATEST configuration; it cannot force a cold start "
                f"of qualifier {qualifier!r}"
            )
        self.metric = check_choice(metric, "metric", METRICS)
        self.reader = ValueReader(regex=regex, json_field=json_field, unit=unit)
        if self.reader.reports:
            self.unit = self.reader.unit
        else:
            self.unit = WALL_UNIT if self.metric == "wall" else "ms"
        checked = check_timeout(timeout)
        self.timeout = 900.0 if checked is None else checked
        updated = check_timeout(update_timeout, "update_timeout")
        self.update_timeout = 300.0 if updated is None else updated
        self.endpoint_url = endpoint_url
        self.profile = profile
        self.name = label or f"lambda {name}" + (f":{qualifier}" if qualifier else "")
        self._client = client if client is not None else self._make_client()
        self.memory_mb: int | None = None
        self.architecture: str | None = None
        variables = self._current_environment()
        # The variable is perfstats' own: found here, it is a leftover of a
        # run killed before it restored the function; close() removes it.
        self._env_changed = COLD_VARIABLE in variables
        if self._env_changed:
            logger.warning(
                "%s holds %s, left by a perfstats run that was killed; it is removed at the end",
                self.function_name,
                COLD_VARIABLE,
            )
        self._original_env = {k: v for k, v in variables.items() if k != COLD_VARIABLE}
        self._cold_lock = threading.Lock()

    def _make_client(self) -> Any:
        try:
            import boto3
            from botocore.config import Config
            from botocore.exceptions import BotoCoreError
        except ImportError:
            raise ValueError(
                "the lambda target needs boto3: pip install 'perfstats[adapters]'"
            ) from None
        # No automatic retries: a retried call would be timed as one slow call.
        config = Config(
            read_timeout=self.timeout + 10,
            connect_timeout=30,
            retries={"total_max_attempts": 1, "mode": "standard"},
        )
        try:
            session = boto3.session.Session(profile_name=self.profile, region_name=self.region)
            return session.client("lambda", endpoint_url=self.endpoint_url, config=config)
        except BotoCoreError as exc:
            raise ValueError(f"cannot create a Lambda client: {exc}") from None

    def _current_environment(self) -> dict[str, str]:
        """Check that the function exists (fail before recording) and read its variables."""
        from botocore.exceptions import BotoCoreError, ClientError

        kwargs: dict[str, Any] = {"FunctionName": self.function_name}
        if self.qualifier:
            kwargs["Qualifier"] = self.qualifier
        try:
            config = self._client.get_function_configuration(**kwargs)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            raise ValueError(
                f"Lambda function {self.function_name!r}: {error.get('Code')}: "
                f"{error.get('Message')}"
            ) from None
        except BotoCoreError as exc:
            raise ValueError(f"Lambda function {self.function_name!r}: {exc}") from None
        # The size prices the run (perfstats.adapters.report.billing).
        self.memory_mb = int(config["MemorySize"]) if "MemorySize" in config else None
        self.architecture = str((config.get("Architectures") or ["x86_64"])[0])
        variables = (config.get("Environment") or {}).get("Variables") or {}
        return dict(variables)

    def invoke(self) -> Measurement:
        if not self.force_cold:
            return self._invoke()
        with self._cold_lock:
            started_at = utc_now()
            try:
                self._new_environment()
            except RuntimeError as exc:
                return Measurement.failure(
                    str(exc), unit=self.unit, cold=True, started_at=started_at
                )
            return self._invoke()

    def _new_environment(self) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        variables = {**self._original_env, COLD_VARIABLE: uuid.uuid4().hex}
        try:
            self._client.update_function_configuration(
                FunctionName=self.function_name, Environment={"Variables": variables}
            )
            self._env_changed = True
            self._wait_updated()
        except (ClientError, BotoCoreError) as exc:
            raise RuntimeError(f"force_cold: cannot update the configuration: {exc}") from None

    def _wait_updated(self) -> None:
        deadline = time.monotonic() + self.update_timeout
        while True:
            config = self._client.get_function_configuration(FunctionName=self.function_name)
            status = config.get("LastUpdateStatus", "Successful")
            if status == "Successful" and config.get("State", "Active") == "Active":
                return
            if status == "Failed":
                reason = config.get("LastUpdateStatusReason", "no reason given")
                raise RuntimeError(f"force_cold: the configuration update failed: {reason}")
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"force_cold: the update was not applied within {self.update_timeout:g} s"
                )
            time.sleep(0.5)

    def _invoke(self) -> Measurement:
        inv = invoke_with_log(
            self._client, self.function_name, self.qualifier, self._payload_bytes, self.timeout
        )
        started_at, response = inv.started_at, inv.response
        if inv.error is not None:
            return Measurement.failure(
                inv.error, unit=self.unit, cold=None, started_at=started_at, status=inv.status
            )
        extra: dict[str, Any] = {
            "wall_ns": inv.wall_ns,
            "status_code": response.get("StatusCode"),
            "executed_version": response.get("ExecutedVersion"),
            "forced_cold": self.force_cold,
        }
        try:
            report = find_report(inv.log)
        except ValueError as exc:
            return self._failed(str(exc), None, started_at, extra)
        if report is not None:
            extra.update(report.to_dict())
        cold = report.cold if report is not None else None
        function_error = response.get("FunctionError")
        if function_error:
            return self._failed(
                f"function error ({function_error}): {_error_message(inv.body)}",
                cold,
                started_at,
                extra,
                status=TIMEOUT if report is not None and report.status == "timeout" else ERROR,
            )
        try:
            value = self._value(report, inv.body, inv.wall_ns)
        except ValueError as exc:
            return self._failed(str(exc), cold, started_at, extra)
        return Measurement(
            value=value, unit=self.unit, cold=cold, started_at=started_at, extra=extra
        )

    def _value(self, report: LambdaReport | None, body: bytes, wall_ns: int) -> float:
        if self.reader.reports:
            return self.reader.read(body.decode("utf-8", "replace"), wall_ns=wall_ns)
        if self.metric == "wall":
            return float(wall_ns)
        if report is None:
            raise ValueError(
                f"no REPORT line in the invocation's log tail, so no {self.metric!r} "
                "(use metric='wall' to time the call instead)"
            )
        return report.duration_ms if self.metric == "duration" else report.billed_duration_ms

    def _failed(
        self,
        message: str,
        cold: bool | None,
        started_at: Any,
        extra: dict[str, Any],
        status: str = ERROR,
    ) -> Measurement:
        return Measurement.failure(
            message, unit=self.unit, cold=cold, started_at=started_at, status=status, extra=extra
        )

    def close(self) -> None:
        """Restore the environment variables force_cold changed."""
        with self._cold_lock:
            if not self._env_changed:
                return
            self._env_changed = False
            try:
                self._client.update_function_configuration(
                    FunctionName=self.function_name,
                    Environment={"Variables": self._original_env},
                )
            except Exception as exc:
                logger.warning(
                    "could not restore the environment of %s: %s", self.function_name, exc
                )

    def _config(self) -> dict[str, Any]:
        return {
            "function": self.function_name,
            "payload": self.payload if not isinstance(self.payload, bytes) else "<bytes>",
            "region": self.region,
            "qualifier": self.qualifier,
            "force_cold": self.force_cold,
            "metric": self.metric,
            "unit": self.unit,
            "timeout": self.timeout,
            "endpoint_url": self.endpoint_url,
            "profile": self.profile,
            "memory_mb": self.memory_mb,
            "architecture": self.architecture,
            **({k: v for k, v in self.reader.config().items()} if self.reader.reports else {}),
        }


def _encode(payload: Any) -> bytes:
    if payload is None:
        return b"{}"
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, str):
        return payload.encode()
    try:
        return json.dumps(payload).encode()
    except (TypeError, ValueError) as exc:
        raise ValueError(f"payload is not JSON-serialisable: {exc}") from None


def _error_message(body: bytes) -> str:
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return one_line(body.decode("utf-8", "replace"))
    if isinstance(data, dict):
        return one_line(f"{data.get('errorType', '')}: {data.get('errorMessage', '')}".strip(": "))
    return one_line(str(data))
