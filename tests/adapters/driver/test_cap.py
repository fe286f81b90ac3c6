"""diagnose_cap: none when the rule stops, the cap named, remedies for the rule's options."""

from __future__ import annotations

import sys

from perfstats.adapters import Command, run
from perfstats.adapters.driver.cap import CapDiagnosis, diagnose_cap

NOISY = "import random; print(f't={100 + 10 * random.random():.3f}')"


def _noisy() -> Command:
    return Command([sys.executable, "-c", NOISY], regex=r"t=([\d.]+)", unit="ms")


def test_a_run_its_rule_stopped_has_no_diagnosis() -> None:
    result = run(_noisy(), "fixed", rule_options={"n": 5}, progress=False)
    assert result.stopped_by == "rule" and diagnose_cap(result) is None


def test_a_run_out_of_time_names_max_seconds_and_its_remedy() -> None:
    result = run(_noisy(), "superflow", max_seconds=1.0, progress=False, rng=1)
    assert result.stopped_by == "max_seconds"
    diagnosis = diagnose_cap(result)
    assert diagnosis is not None and diagnosis.n == result.values.size
    why, todo = diagnosis.lines()
    assert why.startswith("why it ended at max_seconds: ")
    assert "raise --max-seconds" in todo and "--max-n" not in todo


def test_the_looser_error_suggested_is_above_the_widest_interval_reached() -> None:
    def loosen(error: float, reached: float | None) -> str:
        d = CapDiagnosis("spread", "max_n", 100, None, widest_error=reached,
                         options={"error": error})  # fmt: skip
        return d.remedies()[0]

    assert loosen(0.002, 0.007) == (
        "loosen the rule (--rule-option error=0.01; its widest interval reached 0.7%)"
    )
    assert loosen(0.01, 0.045).startswith("loosen the rule (--rule-option error=0.05;")
    assert loosen(0.01, None) == "loosen the rule (--rule-option error=0.02)"
    assert loosen(0.4, 0.9) == (
        "loosen the rule (--rule-option error=a larger value; its widest interval reached 90.0%)"
    )


def test_a_threshold_rule_is_told_to_loosen_without_a_direction() -> None:
    d = CapDiagnosis("spread", "max_n", 100, None, options={"threshold": 0.9})
    assert d.remedies() == [
        "loosen the rule's threshold (--rule-option threshold=...)",
        "raise --max-n",
    ]
    assert CapDiagnosis("spread", "max_n", 100, None).remedies() == ["raise --max-n"]
