"""One benchmark of an A-B suite: a name and the parameters of its two versions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .interleaving import BASELINE, CANDIDATE


@dataclass(frozen=True)
class Benchmark:
    """A benchmark with a baseline and a candidate version.

    Parameters
    ----------
    name : str
        Unique within the suite.
    baseline, candidate : mapping
        What tells the target how to run each version. For a reporting
        target (:class:`~perfstats.adapters.ab.reporting_command.ReportingCommand`,
        :class:`~perfstats.adapters.ab.reporting_http.ReportingHttp`) these are sent
        to it as they are; for
        :class:`~perfstats.adapters.ab.per_version.TargetPerVersion` each is a
        target's ``kind`` and options. An A/A test gives both the same.

    Examples
    --------
    >>> from perfstats.adapters.ab.benchmark import Benchmark
    >>> b = Benchmark("sort", {"kernel": "sort", "units": 10}, {"kernel": "sort", "units": 11})
    >>> b.params("candidate")["units"]
    11
    """

    name: str
    baseline: Mapping[str, Any] = field(default_factory=dict)
    candidate: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"a benchmark name must be a non-empty string; got {self.name!r}")
        for version in (BASELINE, CANDIDATE):
            value = getattr(self, version)
            if not isinstance(value, Mapping):
                raise ValueError(
                    f"benchmark {self.name!r}: {version} must be a table of parameters; "
                    f"got {value!r}"
                )
            object.__setattr__(self, version, dict(value))

    def params(self, version: str) -> dict[str, Any]:
        """The parameters of ``version`` (``"baseline"`` or ``"candidate"``)."""
        if version == BASELINE:
            return dict(self.baseline)
        if version == CANDIDATE:
            return dict(self.candidate)
        raise ValueError(f"version must be baseline or candidate; got {version!r}")
