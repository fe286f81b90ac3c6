"""Package energy from the RAPL counters the Linux powercap framework exposes.

Each RAPL package domain is a folder ``intel-rapl:N`` under
``/sys/class/powercap`` (subdomains such as the cores are ``intel-rapl:N:M``,
left out here: their energy is part of the package's) with the files
``name`` (``package-0``, ``psys``), ``energy_uj`` (a counter of
microjoules) and ``max_energy_range_uj`` (the value after which the counter
wraps around to zero). AMD processors expose the same files under the
``intel-rapl`` names. The energy of a run is the difference of
``energy_uj`` after and before it; a counter that went down wrapped once,
adding ``max_energy_range_uj``. A run longer than one full range (minutes
to hours, by the package's power) cannot be told from a shorter one.

Since Linux 5.10 ``energy_uj`` is readable by root only (the counter is a
side channel); where it is missing or denied, a one-line message says so
and runs go on without energy.

The counter covers the whole package, every process on it: the energy of
a run is that of the package during the run, other work included.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..records.series import SeriesValue

logger = logging.getLogger(__name__)

SOURCE = "rapl"
ROOT = "/sys/class/powercap"
_PREFIXES = ("intel-rapl:",)


@dataclass(frozen=True)
class Domain:
    """One RAPL package domain: its folder, its name and its counter's range."""

    path: Path
    name: str
    max_range_uj: int

    def read(self) -> int:
        """The counter now, in microjoules."""
        return int((self.path / "energy_uj").read_text(encoding="ascii").strip())


class RaplReader:
    """Read the package energy counters before and after a run.

    Parameters
    ----------
    root : path, default "/sys/class/powercap"
        The powercap folder (a copy laid out like the kernel's, in tests).

    Attributes
    ----------
    domains : list of Domain
        The readable package domains; empty where none is (then
        :attr:`problem` says why).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from perfstats.adapters.targets.rapl import RaplReader
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> zone = root / "intel-rapl:0"
    >>> zone.mkdir()
    >>> for name, text in {"name": "package-0", "energy_uj": "990",
    ...                    "max_energy_range_uj": "1000"}.items():
    ...     _ = (zone / name).write_text(text + "\\n")
    >>> reader = RaplReader(root)
    >>> before = reader.snapshot()
    >>> _ = (zone / "energy_uj").write_text("40\\n")
    >>> reader.series(before)["energy_package-0"].value  # 10 + 40 microjoules
    5e-05
    """

    def __init__(self, root: str | os.PathLike[str] = ROOT) -> None:
        self.root = Path(root)
        self.problem: str | None = None
        self.domains: list[Domain] = []
        try:
            folders = sorted(
                p
                for p in self.root.iterdir()
                if p.name.startswith(_PREFIXES) and p.name.count(":") == 1
            )
        except OSError as exc:
            self.problem = f"RAPL: no powercap counters at {str(self.root)!r} ({_reason(exc)})"
            return
        if not folders:
            self.problem = f"RAPL: no intel-rapl package domain under {str(self.root)!r}"
            return
        problems = []
        for folder in folders:
            try:
                name = (folder / "name").read_text(encoding="ascii").strip() or folder.name
                max_range = int((folder / "max_energy_range_uj").read_text(encoding="ascii"))
                domain = Domain(folder, name, max_range)
                domain.read()
            except (OSError, ValueError) as exc:
                problems.append(f"{folder.name}: {_reason(exc)}")
                continue
            self.domains.append(domain)
        if not self.domains:
            self.problem = "RAPL: energy counters not readable (" + "; ".join(problems) + ")"

    @property
    def available(self) -> bool:
        """True when at least one package counter is readable."""
        return bool(self.domains)

    def warn(self) -> None:
        """Say once why there is no energy, if there is none."""
        if self.problem is not None:
            logger.warning("%s; energy is not recorded, the run goes on", self.problem)

    def snapshot(self) -> dict[str, int | str]:
        """Each domain's counter now (microjoules), or why it could not be read."""
        out: dict[str, int | str] = {}
        for domain in self.domains:
            try:
                out[domain.name] = domain.read()
            except (OSError, ValueError) as exc:
                out[domain.name] = _reason(exc)
        return out

    def series(self, before: Mapping[str, int | str]) -> dict[str, SeriesValue]:
        """The energy in joules of each domain since ``before``, as series ``energy_NAME``."""
        after = self.snapshot()
        out = {}
        for domain in self.domains:
            start, end = before.get(domain.name), after.get(domain.name)
            key = f"energy_{domain.name}"
            if not isinstance(start, int) or not isinstance(end, int):
                why = start if isinstance(start, str) else end
                out[key] = SeriesValue(None, "J", source=SOURCE, error=f"RAPL: {why}")
                continue
            delta = end - start
            if delta < 0:
                delta += domain.max_range_uj
            out[key] = SeriesValue(delta / 1e6, "J", source=SOURCE)
        return out

    def config(self) -> dict[str, object]:
        """The domains read (for records), or why there are none."""
        return {
            "root": str(self.root),
            "domains": [d.name for d in self.domains],
            "problem": self.problem,
        }


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)
