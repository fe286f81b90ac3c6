"""The reporting protocol: how a suite asks a target to run a call, and reads its answer.

The request is one JSON object (on a command's standard input, or as the
body of an HTTP POST)::

    {"benchmark": "sort", "call": 7, "trial": 2,
     "versions": {"baseline": {...}, "candidate": {...}},
     "executions": [["candidate", 1], ["baseline", 1], ["baseline", 2], ...]}

``versions`` holds the parameters of the versions this call runs (both for
a duet call). Function targets (HTTP, Lambda) add the fields of
ElastiBench's request (Schirmer et al. 2024, Section V): ``benchmarks``
(the benchmarks to run: the call's one), ``randomize`` (benchmarks and the
two versions in a random order; the executions listed already are) and
``timeout_s`` (how long the runner may take). The target runs the
executions in the order given, timing each itself, and answers with one
JSON object::

    {"results": [{"version": "candidate", "repeat": 1, "value": 1234567},
                 {"version": "baseline", "repeat": 1, "error": "what failed"}, ...],
     "unit": "ns", "pid": 4242}

one result per execution, in the same order, each with a ``value`` or an
``error``. ``unit`` is optional; other top-level fields (an instance id, a
pid) are kept in the record's ``extra`` column. An answer that does not
match the request is a failure of every execution of the call: a value is
never attributed to an execution it may not belong to.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Any

from ..records.measurement import Measurement
from .benchmark import Benchmark
from .interleaving import Call
from .suite_target import failed_call


def request_of(
    call: Call,
    benchmark: Benchmark,
    *,
    randomize: bool | None = None,
    timeout_s: float | None = None,
) -> dict[str, Any]:
    """The request of ``call`` as plain data.

    With ``randomize`` or ``timeout_s`` (function targets), ElastiBench's
    fields ``benchmarks``, ``randomize`` and ``timeout_s`` are added.

    Examples
    --------
    >>> from perfstats.adapters.ab.benchmark import Benchmark
    >>> from perfstats.adapters.ab.interleaving import rmit_plan
    >>> call = rmit_plan(["a"], calls=1, repeats=2, rng=0)[0]
    >>> req = request_of(call, Benchmark("a", {"n": 1}, {"n": 2}))
    >>> list(req["versions"]) == [call.executions[0].version], req["executions"][1][1]
    (True, 2)
    >>> r = request_of(call, Benchmark("a"), randomize=True, timeout_s=60)
    >>> r["benchmarks"], r["randomize"], r["timeout_s"]
    (['a'], True, 60.0)
    """
    request: dict[str, Any] = {
        "benchmark": benchmark.name,
        "call": call.call,
        "trial": call.trial,
        "versions": {v: benchmark.params(v) for v in call.versions},
        "executions": [[e.version, e.repeat] for e in call.executions],
    }
    if randomize is not None or timeout_s is not None:
        request.update(
            benchmarks=[benchmark.name],
            randomize=True if randomize is None else bool(randomize),
            timeout_s=None if timeout_s is None else float(timeout_s),
        )
    return request


def encode_request(
    call: Call,
    benchmark: Benchmark,
    *,
    randomize: bool | None = None,
    timeout_s: float | None = None,
) -> bytes:
    """The request of ``call`` as UTF-8 JSON (see :func:`request_of`)."""
    return json.dumps(
        request_of(call, benchmark, randomize=randomize, timeout_s=timeout_s)
    ).encode()


def read_results(
    text: str,
    call: Call,
    *,
    unit: str,
    started_at: datetime,
    extra: dict[str, Any] | None = None,
) -> list[Measurement]:
    """Turn a target's answer into one measurement per execution of ``call``.

    Parameters
    ----------
    text : str
        The answer (JSON).
    call : Call
        The call it answers.
    unit : str
        Unit of the values when the answer names none.
    started_at : datetime
        When the call started (every execution of the call gets it).
    extra : dict, optional
        Call-level numbers for the record (wall time, HTTP status); the
        answer's own extra fields are added.

    Examples
    --------
    >>> from perfstats.adapters.ab.interleaving import rmit_plan
    >>> from perfstats.adapters.records.measurement import utc_now
    >>> call = rmit_plan(["a"], calls=1, repeats=2, rng=0)[0]
    >>> v = call.executions[0].version
    >>> answer = ('{"results": [{"version": "%s", "repeat": 1, "value": 5}, '
    ...           '{"version": "%s", "repeat": 2, "error": "boom"}]}' % (v, v))
    >>> [(m.status, m.value) for m in read_results(answer, call, unit="ns",
    ...                                             started_at=utc_now())]
    [('ok', 5.0), ('error', None)]
    """
    base = dict(extra or {})
    try:
        answer = _parse(text, call)
    except ValueError as exc:
        return failed_call(call, str(exc), unit=unit, started_at=started_at, extra=base)
    unit = answer.get("unit", unit) if isinstance(answer.get("unit"), str) else unit
    base.update({k: v for k, v in answer.items() if k not in ("results", "unit")})
    out: list[Measurement] = []
    for result in answer["results"]:
        if "value" in result:
            out.append(Measurement(float(result["value"]), unit, None, started_at, extra=base))
        else:
            out.append(
                Measurement.failure(
                    str(result["error"]), unit=unit, cold=None, started_at=started_at, extra=base
                )
            )
    return out


def _parse(text: str, call: Call) -> dict[str, Any]:
    """The answer as a dict whose results match the call; ValueError says how not."""
    try:
        answer = json.loads(text)
    except json.JSONDecodeError:
        raise ValueError(f"the answer is not JSON: {_excerpt(text)}") from None
    if not isinstance(answer, dict) or not isinstance(answer.get("results"), list):
        raise ValueError(f"the answer has no list of results: {_excerpt(text)}")
    results = answer["results"]
    if len(results) != len(call.executions):
        raise ValueError(
            f"the answer has {len(results)} results for {len(call.executions)} executions"
        )
    for i, (result, execution) in enumerate(zip(results, call.executions, strict=True), start=1):
        if not isinstance(result, dict):
            raise ValueError(f"result {i} is not an object: {result!r}")
        said = (result.get("version"), result.get("repeat"))
        if said != (execution.version, execution.repeat):
            raise ValueError(
                f"result {i} is for {said[0]!r} repeat {said[1]!r}, but execution {i} "
                f"was {execution.version!r} repeat {execution.repeat}"
            )
        if "value" in result:
            value = result["value"]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"result {i} has a value that is not a number: {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"result {i} has a value that is not finite: {value!r}")
        elif not isinstance(result.get("error"), str):
            raise ValueError(f"result {i} has neither a value nor an error message")
    return answer


def _excerpt(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[:limit] + "...")
