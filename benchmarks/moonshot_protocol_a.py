"""A moonshot: SuperFlow 1's protocol A accuracy and credibility with <= 85% of its runs?

Candidates are real rules replayed with protocol A (the replay and scoring of
``benchmarks/reproduce_superflow.py``), printed beside SuperFlow 1:

* ``SuperFlow-exact-bootstrap``: SuperFlow's
  stability check (S_pre and S_cur) on exact-bootstrap percentile intervals;
* ``SuperFlow-order``: the same check on exact binomial order-statistic
  intervals;
* ``SuperFlow-1-level90``: SuperFlow 1 with 90% intervals (narrower, so it
  stops earlier);
* ``KS-and-SuperFlow-1``: SuperFlow 1 whose stop also needs SHARP's KS
  between the halves below 0.15 (distribution-wide self-similarity on top
  of the three quartiles).

``--oracle`` adds the bound no rule can beat: for every trace and every
prefix the accuracy and credibility against the whole trace are computed,
and per trace the prefix maximising ``accuracy + w * credibility - lam * n``
is picked; the best (w, lam) with mean accuracy at least SuperFlow 1's and
mean runs at most 85% of its is reported. It knows the answer, so it only
shows how much room there is.

It goes beyond SuperFlow's reproduction (``benchmarks/reproduce_superflow.py``,
whose replay, scoring and tables it reuses), so it is not part of it.

Usage::

    python -m benchmarks.moonshot_protocol_a [--oracle] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

# Run as a script too: the package of this checkout, not an installed one.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._traces import data_root, load_scope  # noqa: E402
from benchmarks.reproduce_superflow import (  # noqa: E402
    PERCENTILES,
    run,
    summary,
    table,
)
from perfstats.replay.scoring import accuracy, credible  # noqa: E402
from perfstats.rules import KSHalves, Rule, SuperFlow  # noqa: E402
from perfstats.rules.decision import Decision  # noqa: E402

TARGET = 0.85


class Both(Rule):
    """Stop when every one of ``rules`` says stop (reason: the last one's)."""

    name = "Both"

    def __init__(self, *rules: Rule) -> None:
        self.rules = rules
        self._interval = rules[0].interval
        self._min_n = max(r.min_n for r in rules)

    def config(self) -> dict[str, Any]:
        return {"rules": [repr(r) for r in self.rules]}

    def _decide(self, data: np.ndarray) -> Decision:
        decisions = [r.check(data) for r in self.rules]
        stop = all(d.stop for d in decisions)
        reason = "; ".join(d.reason for d in decisions)
        return Decision(stop=stop, n=int(data.size), rule=self.name, reason=reason)


def candidates() -> dict[str, Rule]:
    return {
        "SuperFlow-1": SuperFlow(method="order-normal"),
        "SuperFlow-exact-bootstrap": SuperFlow(method="exact-bootstrap"),
        "SuperFlow-order": SuperFlow(method="order"),
        "SuperFlow-1-level90": SuperFlow(method="order-normal", level=0.9),
        "KS-and-SuperFlow-1": Both(
            SuperFlow(method="order-normal"), KSHalves(threshold=0.15, interval=5, min_n=10)
        ),
    }


def oracle(data: dict[str, dict[str, np.ndarray]], runs_cap: float, acc_floor: float) -> dict:
    grid = np.arange(10, 1001, 5)
    acc_rows, cred_rows = [], []
    for traces in data.values():
        for x in traces.values():
            acc_rows.append([accuracy(x[:n], x) for n in grid])
            cred_rows.append(
                [float(np.mean(credible(x[:n], x, [0.25, 0.5, 0.75, 0.9]))) for n in grid]
            )
    acc = np.asarray(acc_rows)
    cred = np.asarray(cred_rows)
    rows = np.arange(acc.shape[0])
    best: dict[str, float] | None = None
    for w in np.linspace(0.0, 3.0, 31):
        for lam in np.geomspace(1e-6, 1e-2, 60):
            pick = (acc + w * cred - lam * grid).argmax(axis=1)
            n = float(grid[pick].mean())
            a = float(acc[rows, pick].mean())
            c = float(cred[rows, pick].mean())
            if n <= runs_cap and a >= acc_floor and (best is None or 100 * c > best["credible"]):
                best = {"mean_stop_n": n, "accuracy": 100 * a, "credible": 100 * c}
    return best or {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oracle", action="store_true", help="also compute the oracle bound")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    data = load_scope(data_root())
    rows = run(candidates(), data, workers=args.workers)
    print(table(rows, anchors=False))
    print(summary(rows, anchors=False))
    sf1 = [r for r in rows if r["technique"] == "SuperFlow-1"]
    sf1_n = float(np.mean([r["mean_stop_n"] for r in sf1]))
    sf1_acc = float(np.mean([r["accuracy"] for r in sf1]))
    print(f"\ntarget: accuracy >= {sf1_acc:.2f}, credibility as SuperFlow 1's, ")
    print(f"mean stop n <= {TARGET * sf1_n:.1f} ({TARGET:.0%} of SuperFlow 1's {sf1_n:.1f})")
    for name in dict.fromkeys(r["technique"] for r in rows):
        mine = [r for r in rows if r["technique"] == name]
        n = float(np.mean([r["mean_stop_n"] for r in mine]))
        acc = float(np.mean([r["accuracy"] for r in mine]))
        cred = [float(np.mean([r["credible"][p] for r in mine])) for p in PERCENTILES]
        wins = n <= TARGET * sf1_n and acc >= sf1_acc
        print(
            f"{name:26} runs {100 * n / sf1_n:5.1f}% of SuperFlow 1's, accuracy {acc:.2f}, "
            f"credible {' / '.join(f'{c:.1f}' for c in cred)}: {'WINS' if wins else 'no'}"
        )
    payload: dict[str, Any] = {"rows": rows}
    if args.oracle:
        bound = oracle(data, TARGET * sf1_n, sf1_acc / 100.0)
        payload["oracle"] = bound
        print(f"\noracle bound at <= {TARGET:.0%} of the runs: {bound}")
    if args.json:
        args.json.write_text(json.dumps(payload, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
