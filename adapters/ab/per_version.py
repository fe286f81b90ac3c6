"""Any perfstats target per version: an A-B suite over Command, Container, SSH, HTTP or Lambda."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..records.measurement import Measurement, utc_now
from ..targets.base import Target
from ..targets.registry import target_by_name
from .benchmark import Benchmark
from .interleaving import VERSIONS, Call
from .suite_target import SuiteTarget


class TargetPerVersion(SuiteTarget):
    """Each version of each benchmark is its own :class:`~perfstats.adapters.Target`.

    A call invokes its version's target once per repeat, back to back. The
    two versions never share an invocation, so this serves the RMIT
    schedule only; a duet needs a target that runs both versions in one
    invocation (:class:`~perfstats.adapters.ab.reporting_command.ReportingCommand`,
    :class:`~perfstats.adapters.ab.reporting_http.ReportingHttp`).

    Parameters
    ----------
    targets : mapping
        ``{benchmark: {"baseline": Target, "candidate": Target}}``.
    label : str, optional
        Label for the record.

    Examples
    --------
    >>> from perfstats.adapters import Command
    >>> from perfstats.adapters.ab.benchmark import Benchmark
    >>> from perfstats.adapters.ab.interleaving import rmit_plan
    >>> from perfstats.adapters.ab.per_version import TargetPerVersion
    >>> t = TargetPerVersion({"echo": {"baseline": Command(["echo", "v=1"], regex=r"v=(\\d)"),
    ...                                "candidate": Command(["echo", "v=2"], regex=r"v=(\\d)")}})
    >>> call = rmit_plan(["echo"], calls=1, repeats=2, rng=0)[0]
    >>> len(t.call(call, Benchmark("echo"))), t.both_versions
    (2, False)
    """

    kind = "targets"
    both_versions = False

    def __init__(
        self, targets: Mapping[str, Mapping[str, Target]], *, label: str | None = None
    ) -> None:
        if not isinstance(targets, Mapping) or not targets:
            raise ValueError("targets must map each benchmark to its two versions' targets")
        checked: dict[str, dict[str, Target]] = {}
        for name, versions in targets.items():
            if not isinstance(versions, Mapping) or sorted(versions) != sorted(VERSIONS):
                raise ValueError(
                    f"benchmark {name!r} needs exactly a baseline and a candidate target"
                )
            for version, target in versions.items():
                if not isinstance(target, Target):
                    raise ValueError(
                        f"benchmark {name!r} {version}: not a perfstats target: {target!r}"
                    )
            checked[str(name)] = dict(versions)
        self.targets = checked
        self.name = label or f"{len(checked)} benchmarks x 2 targets"

    @classmethod
    def from_specs(cls, benchmarks: Sequence[Benchmark]) -> TargetPerVersion:
        """Build every version's target from its parameters.

        Each version's parameters are a target ``kind`` (default
        ``"command"``), its ``argv`` (command, container, ssh) and the
        target's keyword options, e.g. ``{"argv": ["./bench"], "regex":
        "ns=(\\\\d+)", "unit": "ns"}``.

        Parameters
        ----------
        benchmarks : sequence of Benchmark
            The suite's benchmarks, each version's parameters
            (:meth:`~perfstats.adapters.ab.benchmark.Benchmark.params`) as
            above. A version without a ``label`` option is labelled with the
            benchmark's name and the version, e.g. ``"sort/candidate"``.

        Returns
        -------
        TargetPerVersion
            The two versions' targets of every benchmark, under its name.

        Raises
        ------
        ValueError
            When a version's ``kind`` is unknown, or its ``argv`` or options do
            not suit that target; the message names the benchmark and version.
            Whatever is raised, the targets built until then are closed first.

        Examples
        --------
        >>> from perfstats.adapters.ab.benchmark import Benchmark
        >>> spec = {"argv": ["echo", "t=3"], "regex": r"t=(\\d)", "unit": "ms"}
        >>> t = TargetPerVersion.from_specs([Benchmark("e", spec, spec)])
        >>> t.targets["e"]["candidate"].name
        'e/candidate'
        """
        built: dict[str, dict[str, Target]] = {}
        try:
            for bench in benchmarks:
                built[bench.name] = {}
                for version in VERSIONS:
                    spec = bench.params(version)
                    kind = spec.pop("kind", "command")
                    argv = spec.pop("argv", [])
                    spec.setdefault("label", f"{bench.name}/{version}")
                    try:
                        built[bench.name][version] = target_by_name(str(kind), argv, spec)
                    except ValueError as exc:
                        raise ValueError(f"benchmark {bench.name!r} {version}: {exc}") from None
        except BaseException:
            for versions in built.values():
                for target in versions.values():
                    target.close()
            raise
        return cls(built)

    def call(self, call: Call, benchmark: Benchmark) -> list[Measurement]:
        out: list[Measurement] = []
        for execution in call.executions:
            target = self.targets[call.benchmark][execution.version]
            try:
                out.append(target.invoke())
            except Exception as exc:
                out.append(
                    Measurement.failure(
                        f"{type(exc).__name__}: {exc}", unit="", cold=None, started_at=utc_now()
                    )
                )
        return out

    def close(self) -> None:
        for versions in self.targets.values():
            for target in versions.values():
                target.close()

    def _config(self) -> dict[str, Any]:
        return {
            "targets": {
                name: {v: t.config() for v, t in versions.items()}
                for name, versions in self.targets.items()
            }
        }
