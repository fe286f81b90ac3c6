"""The pytest plugin's results in pytest-benchmark's JSON, for dashboards that read that format.

The file is what ``pytest --benchmark-json FILE --benchmark-save-data``
writes: ``machine_info``, ``commit_info``, ``datetime``, ``version`` and one
entry per benchmark whose ``stats`` hold pytest-benchmark's own summary
(computed by its :class:`pytest_benchmark.stats.Stats`, so every figure is
the one pytest-benchmark itself would give) and every call's time in
``data`` (seconds, one call per round: ``iterations`` is 1). The
perfstats verdict (rule, why it stopped, the median's CI) is in each
entry's ``extra_info["perfstats"]``. ``pytest-benchmark compare FILE``
and perfstats' own importer (``perfstats gate``) read it.

pytest-benchmark must be installed: its machine and commit information and
its statistics are used, not copied.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from ..records.files import write_atomic
from ..records.plain import plain
from .pytest_calls import CallsResult

NS_PER_SECOND = 1e9


def needs_pytest_benchmark() -> str | None:
    """None when pytest-benchmark can be imported, else why the export cannot be written."""
    try:
        import pytest_benchmark.stats  # noqa: F401
    except ImportError as exc:
        return (
            "--perfstats-benchmark-json writes pytest-benchmark's format with pytest-benchmark's "
            f"own statistics; install pytest-benchmark ({exc})"
        )
    return None


def to_pytest_benchmark(results: Sequence[CallsResult]) -> dict[str, Any]:
    """The results that stopped without error, as a pytest-benchmark JSON document.

    Examples
    --------
    >>> from perfstats.adapters.cli.pytest_calls import time_calls
    >>> from perfstats.adapters.cli.pytest_benchmark_json import to_pytest_benchmark
    >>> from perfstats.rules import Fixed
    >>> _, result = time_calls(sum, ([1, 2],), rule=Fixed(n=5), name="t.py::test_sum")
    >>> doc = to_pytest_benchmark([result])
    >>> bench = doc["benchmarks"][0]
    >>> bench["fullname"], bench["stats"]["rounds"], len(bench["stats"]["data"])
    ('t.py::test_sum', 5, 5)
    """
    from pytest_benchmark import __version__
    from pytest_benchmark.plugin import pytest_benchmark_generate_machine_info
    from pytest_benchmark.utils import get_commit_info

    return {
        "machine_info": pytest_benchmark_generate_machine_info(),
        "commit_info": get_commit_info(),
        "benchmarks": [_entry(r) for r in results if not r.failed and r.runs],
        "datetime": datetime.now(timezone.utc).isoformat(),
        "version": __version__,
    }


def _entry(result: CallsResult) -> dict[str, Any]:
    from pytest_benchmark.stats import Stats

    stats = Stats()
    seconds = [v / NS_PER_SECOND for v in result.values]
    for v in seconds:
        stats.update(v)
    summary = stats.as_dict()
    summary["data"] = seconds
    summary["iterations"] = 1
    extra = dict(result.extra)
    return {
        "group": None,
        "name": str(extra.get("test", result.name.rsplit("::", 1)[-1])),
        "fullname": result.name,
        "params": extra.get("params"),
        "param": extra.get("param"),
        "extra_info": {
            "perfstats": plain(
                {
                    "rule": result.rule,
                    "stopped_by": result.stopped_by,
                    "reason": result.reason,
                    "median": result.estimate / NS_PER_SECOND,
                    "ci_low": result.low / NS_PER_SECOND,
                    "ci_high": result.high / NS_PER_SECOND,
                    "level": result.level,
                    "warmup": result.warmup,
                    "record": result.record,
                }
            )
        },
        "options": {
            "timer": "perf_counter_ns",
            "min_rounds": 1,
            "max_time": None,
            "disable_gc": False,
            # pytest-benchmark's own value: False, or the warm-up's count.
            "warmup": result.warmup or False,
        },
        "stats": summary,
    }


def write_pytest_benchmark(path: str | os.PathLike[str], results: Sequence[CallsResult]) -> None:
    """Write :func:`to_pytest_benchmark` of ``results`` to ``path`` (replaced atomically)."""
    text = json.dumps(to_pytest_benchmark(results), indent=4, default=str) + "\n"
    write_atomic(path, text)
