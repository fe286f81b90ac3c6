"""Package energy from RAPL counters laid out as the kernel's powercap folder, and without them."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest
from perfstats.adapters import Command
from perfstats.adapters.targets.rapl import ROOT, RaplReader

PY = sys.executable


def _zone(root: Path, folder: str, name: str, energy: int, max_range: int) -> Path:
    zone = root / folder
    zone.mkdir(parents=True)
    (zone / "name").write_text(f"{name}\n")
    (zone / "energy_uj").write_text(f"{energy}\n")
    (zone / "max_energy_range_uj").write_text(f"{max_range}\n")
    (zone / "enabled").write_text("1\n")
    return zone


@pytest.fixture
def powercap(tmp_path: Path) -> Path:
    """Two packages with a core subdomain each, laid out as the kernel does."""
    root = tmp_path / "powercap"
    _zone(root, "intel-rapl:0", "package-0", 5_000_000, 262_143_328_850)
    _zone(root, "intel-rapl:0:0", "core", 1_000_000, 262_143_328_850)
    _zone(root, "intel-rapl:1", "package-1", 262_143_000_000, 262_143_328_850)
    _zone(root, "intel-rapl:1:0", "core", 1_000_000, 262_143_328_850)
    (root / "intel-rapl").mkdir()  # the control type's own folder
    (root / "intel-rapl" / "enabled").write_text("1\n")
    return root


def test_packages_are_found_and_subdomains_left_out(powercap: Path) -> None:
    reader = RaplReader(powercap)
    assert reader.available and reader.problem is None
    assert [d.name for d in reader.domains] == ["package-0", "package-1"]
    assert reader.config()["domains"] == ["package-0", "package-1"]


def test_energy_of_a_run_with_a_counter_that_wraps(powercap: Path) -> None:
    # The run itself moves the counters: package-0 by 2.5 J, package-1 past
    # its range (328850 uJ to the wrap, then 671150 uJ: 1 J).
    script = (
        f"import pathlib; root = pathlib.Path({str(powercap)!r})\n"
        "(root / 'intel-rapl:0' / 'energy_uj').write_text('7500000\\n')\n"
        "(root / 'intel-rapl:1' / 'energy_uj').write_text('671150\\n')\n"
    )
    target = Command([PY, "-I", "-S", "-c", script], energy=True)
    target.rapl = RaplReader(powercap)
    m = target.invoke()
    assert m.ok, m.error
    p0, p1 = m.series["energy_package-0"], m.series["energy_package-1"]
    assert (p0.value, p0.unit, p0.source) == (2.5, "J", "rapl")
    assert p1.value == pytest.approx(1.0, abs=1e-9)


def test_a_counter_that_went_unreadable_is_a_series_error(powercap: Path) -> None:
    reader = RaplReader(powercap)
    before = reader.snapshot()
    (powercap / "intel-rapl:1" / "energy_uj").unlink()
    found = reader.series(before)
    assert found["energy_package-0"].value == 0.0
    assert found["energy_package-1"].value is None
    assert "No such file or directory" in str(found["energy_package-1"].error)


def test_unreadable_counters_say_which_and_why(powercap: Path) -> None:
    for zone in ("intel-rapl:0", "intel-rapl:1"):
        (powercap / zone / "energy_uj").write_text("not a number\n")
    reader = RaplReader(powercap)
    assert not reader.available
    assert str(reader.problem).startswith("RAPL: energy counters not readable (intel-rapl:0: ")


def test_a_folder_without_packages(tmp_path: Path) -> None:
    reader = RaplReader(tmp_path)
    assert not reader.available
    assert reader.problem == f"RAPL: no intel-rapl package domain under {str(tmp_path)!r}"


def test_on_this_machine_a_missing_powercap_gives_the_message_and_runs_go_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    here = RaplReader()
    with caplog.at_level(logging.WARNING):
        target = Command(["true"], energy=True)
    m = target.invoke()
    assert m.ok
    if here.available:
        assert any(k.startswith("energy_") for k in m.series) and not caplog.records
    else:
        # This machine kind (a VM) has no /sys/class/powercap.
        assert not Path(ROOT).exists() or here.problem is not None
        assert [r.getMessage() for r in caplog.records] == [
            f"{here.problem}; energy is not recorded, the run goes on"
        ]
        assert not any(k.startswith("energy_") for k in m.series)
    assert target.config()["energy"]["problem"] == here.problem
