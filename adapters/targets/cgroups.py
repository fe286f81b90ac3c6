"""CPU time and memory peak of a control group (a container's) around one run.

A container's processes live in a cgroup of their own, whose counters the
kernel keeps for all of them together:

* cgroup v2 (one unified hierarchy): ``cpu.stat`` (``user_usec``,
  ``system_usec``) and ``memory.peak`` (the most memory charged at once,
  page cache included; writing to it resets the peak seen through that
  open file, on kernels that support it);
* cgroup v1 (one hierarchy per controller): ``cpuacct.usage_user`` and
  ``cpuacct.usage_sys`` (nanoseconds) of the ``cpuacct`` controller, and
  ``memory.max_usage_in_bytes`` of the ``memory`` controller (writing ``0``
  resets it).

A process's cgroup is read from ``/proc/PID/cgroup`` and found on the
mounts listed in ``/proc/self/mountinfo``. The CPU time of a run is the
difference of the counters after and before it; the peak is read after a
reset before it. Runs sharing the group at the same time (concurrent
``exec``\\ s into one warm container) share the counters.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..records.series import SeriesValue

SOURCE = "cgroup"
CPU_USER, CPU_SYSTEM, MEMORY_PEAK = "cgroup_cpu_user", "cgroup_cpu_system", "cgroup_memory_peak"


@dataclass
class Start:
    """The counters at the start of a run, and the open file the peak is read from."""

    user_ns: int | None
    system_ns: int | None
    peak_file: int | None = None
    problems: dict[str, str] = field(default_factory=dict)


class CgroupCounters:
    """The CPU and memory counters of one cgroup.

    Parameters
    ----------
    version : {1, 2}
    cpu : list of Path
        v2: ``[cpu.stat]``; v1: ``[cpuacct.usage_user, cpuacct.usage_sys]``;
        empty where the controller is not there.
    memory_peak : Path or None
        v2 ``memory.peak`` or v1 ``memory.max_usage_in_bytes``.

    Examples
    --------
    >>> import os, tempfile, pathlib
    >>> from perfstats.adapters.targets.cgroups import CgroupCounters
    >>> group = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (group / "cpu.stat").write_text("usage_usec 30\\nuser_usec 20\\nsystem_usec 10\\n")
    >>> counters = CgroupCounters(2, [group / "cpu.stat"], None)
    >>> start = counters.start()
    >>> _ = (group / "cpu.stat").write_text("usage_usec 90\\nuser_usec 70\\nsystem_usec 20\\n")
    >>> found = counters.series(start)
    >>> found["cgroup_cpu_user"].value, found["cgroup_cpu_system"].value
    (50000.0, 10000.0)
    """

    def __init__(self, version: int, cpu: list[Path], memory_peak: Path | None) -> None:
        self.version = version
        self.cpu = cpu
        self.memory_peak = memory_peak

    @classmethod
    def of_pid(
        cls, pid: int, proc: str | os.PathLike[str] = "/proc", mountinfo: str | None = None
    ) -> CgroupCounters:
        """The counters of the cgroup that process ``pid`` is in.

        ``LookupError`` says why there are none.

        ``proc`` and ``mountinfo`` (default ``PROC/self/mountinfo``) point
        elsewhere than the live system in tests.
        """
        proc = Path(proc)
        try:
            groups = _cgroups_of(proc / str(pid) / "cgroup")
            mounts = _cgroup_mounts(Path(mountinfo) if mountinfo else proc / "self" / "mountinfo")
        except OSError as exc:
            raise LookupError(f"cannot read the cgroup of process {pid}: {exc}") from None
        v1_cpu = _v1_dir(groups, mounts, "cpuacct")
        v1_memory = _v1_dir(groups, mounts, "memory")
        unified = _v2_dir(groups, mounts)
        cpu: list[Path] = []
        peak: Path | None = None
        version = 1
        if v1_cpu is not None and (v1_cpu / "cpuacct.usage_user").exists():
            cpu = [v1_cpu / "cpuacct.usage_user", v1_cpu / "cpuacct.usage_sys"]
        if v1_memory is not None and (v1_memory / "memory.max_usage_in_bytes").exists():
            peak = v1_memory / "memory.max_usage_in_bytes"
        if unified is not None:
            if not cpu and (unified / "cpu.stat").exists():
                cpu, version = [unified / "cpu.stat"], 2
            if peak is None and (unified / "memory.peak").exists():
                peak = unified / "memory.peak"
        if not cpu and peak is None:
            raise LookupError(
                f"no cpu.stat, memory.peak or cgroup v1 cpuacct/memory counters "
                f"for the cgroup of process {pid}"
            )
        return cls(version, cpu, peak)

    def _cpu_ns(self) -> tuple[int, int]:
        if self.version == 2:
            stat = dict(
                line.split(None, 1) for line in self.cpu[0].read_text().splitlines() if " " in line
            )
            return int(stat["user_usec"]) * 1000, int(stat["system_usec"]) * 1000
        user, system = (int(p.read_text().strip()) for p in self.cpu)
        return user, system

    def start(self) -> Start:
        """Read the CPU counters and reset the memory peak, before a run."""
        problems: dict[str, str] = {}
        user = system = None
        if self.cpu:
            try:
                user, system = self._cpu_ns()
            except (OSError, ValueError, KeyError) as exc:
                problems["cpu"] = f"cannot read {self.cpu[0]}: {exc}"
        peak_file = None
        if self.memory_peak is not None:
            try:
                if self.version == 1 and self.memory_peak.name == "memory.max_usage_in_bytes":
                    self.memory_peak.write_text("0\n")
                else:
                    # memory.peak resets per open file: keep it open for the read.
                    peak_file = os.open(self.memory_peak, os.O_RDWR)
                    os.write(peak_file, b"reset\n")
            except OSError as exc:
                if peak_file is not None:
                    os.close(peak_file)
                    peak_file = None
                problems["memory"] = f"cannot reset {self.memory_peak.name}: {exc.strerror or exc}"
        return Start(user, system, peak_file, problems)

    def series(self, start: Start) -> dict[str, SeriesValue]:
        """The run's CPU time and memory peak since ``start``, as series."""
        out: dict[str, SeriesValue] = {}
        try:
            if self.cpu:
                out.update(self._cpu_series(start))
            if self.memory_peak is not None:
                out[MEMORY_PEAK] = self._peak_series(start)
        finally:
            if start.peak_file is not None:
                os.close(start.peak_file)
        return out

    def _cpu_series(self, start: Start) -> dict[str, SeriesValue]:
        problem = start.problems.get("cpu")
        if problem is None:
            try:
                user, system = self._cpu_ns()
            except (OSError, ValueError, KeyError) as exc:
                problem = f"cannot read {self.cpu[0]}: {exc}"
        if problem is not None or start.user_ns is None or start.system_ns is None:
            why = problem or "no counters at the start"
            return {
                name: SeriesValue(None, "ns", source=SOURCE, error=why)
                for name in (CPU_USER, CPU_SYSTEM)
            }
        return {
            CPU_USER: SeriesValue(float(user - start.user_ns), "ns", source=SOURCE),
            CPU_SYSTEM: SeriesValue(float(system - start.system_ns), "ns", source=SOURCE),
        }

    def _peak_series(self, start: Start) -> SeriesValue:
        assert self.memory_peak is not None
        problem = start.problems.get("memory")
        if problem is None:
            try:
                if start.peak_file is not None:
                    text = os.pread(start.peak_file, 64, 0).decode("ascii")
                else:
                    text = self.memory_peak.read_text()
                return SeriesValue(float(int(text.strip())), "B", source=SOURCE)
            except (OSError, ValueError) as exc:
                problem = f"cannot read {self.memory_peak.name}: {exc}"
        return SeriesValue(None, "B", source=SOURCE, error=problem)

    def config(self) -> dict[str, object]:
        """The files read, for records."""
        return {
            "version": self.version,
            "cpu": [str(p) for p in self.cpu],
            "memory_peak": None if self.memory_peak is None else str(self.memory_peak),
        }


def _cgroups_of(path: Path) -> dict[str, str]:
    """Controller (``""`` for v2) to the group's path, from ``/proc/PID/cgroup``."""
    groups = {}
    for line in path.read_text().splitlines():
        _, controllers, group = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            groups[controller] = group
    return groups


@dataclass(frozen=True)
class _Mount:
    root: str
    point: str
    fstype: str
    options: frozenset[str]


def _cgroup_mounts(mountinfo: Path) -> list[_Mount]:
    mounts = []
    for line in mountinfo.read_text().splitlines():
        before, sep, after = line.partition(" - ")
        if not sep:
            continue
        fields, tail = before.split(), after.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        # mountinfo escapes spaces and the like as octal (\040).
        point = fields[4].encode().decode("unicode_escape")
        mounts.append(_Mount(fields[3], point, tail[0], frozenset(tail[2].split(","))))
    return mounts


def _inside(mount: _Mount, group: str) -> Path | None:
    root = mount.root.rstrip("/")
    if root and not (group == root or group.startswith(root + "/")):
        return None
    folder = Path(mount.point) / group[len(root) :].lstrip("/")
    return folder if folder.is_dir() else None


def _v1_dir(groups: dict[str, str], mounts: list[_Mount], controller: str) -> Path | None:
    if controller not in groups:
        return None
    for mount in mounts:
        if mount.fstype == "cgroup" and controller in mount.options:
            found = _inside(mount, groups[controller])
            if found is not None:
                return found
    return None


def _v2_dir(groups: dict[str, str], mounts: list[_Mount]) -> Path | None:
    if "" not in groups:
        return None
    for mount in mounts:
        if mount.fstype == "cgroup2":
            found = _inside(mount, groups[""])
            if found is not None:
                return found
    return None
