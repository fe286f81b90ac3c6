"""Protocol C: SHARP's evaluation of stopping rules, on the 130 SCOPE and 33 cloud traces.

Every rule replays each trace from its first run; where it stops, the runs
it used are compared with the whole trace by the Kolmogorov-Smirnov distance
and the NAMD of the means (``|mean(used) - mean(trace)| / mean(trace)``),
and the share of the trace's runs it saved is ``1 - stop_n / len(trace)``
(SHARP, Section V-C: its KS rule saved 89.8% of a 1,000-run ground truth
with a KS of 0.104; its Rodinia data are not available, so the protocol is
applied to these traces). Reported per rule and trace set: mean and P90 of
KS and NAMD, mean % saved.

Choices, stated:

* every rule is judged every 5 runs (the grid of protocol A) from its own
  ``min_n``, except ``SHARP-Auto``, which keeps SHARP's own schedule
  (first characterisation at 25 runs, then every 10);
* a test may use at most ``MAX_N = 1000`` runs, SHARP's ceiling ("an upper
  limit of 1000 runs is adequate"); a rule that has not stopped by then is
  charged 1,000 runs. SCOPE traces have exactly 1,000 runs; the cloud
  traces have 2,320 to 61,257, so their "% saved" is large for every rule
  and is best read against the other rules.

Also characterises all 163 traces (:func:`perfstats.characterize`) and
counts the steady-state classes.

The traces are read by ``benchmarks/_traces.py``.

Usage::

    python -m benchmarks.reproduce_sharp          # -> benchmarks/results/sharp_protocol_c.json
    python -m benchmarks.reproduce_sharp --quick  # every fifth trace
    python -m benchmarks.reproduce_sharp --rules SHARP-KS SHARP-RSE
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

# Run as a script too: the package of this checkout, not an installed one.
ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._traces import data_root, load_pt4cloud, load_scope  # noqa: E402
from benchmarks.reproduce_superflow import techniques  # noqa: E402
from perfstats import characterize  # noqa: E402
from perfstats.replay import replay  # noqa: E402
from perfstats.replay.scoring import score_prefix  # noqa: E402
from perfstats.rules import (  # noqa: E402
    GMM,
    HDI,
    RSE,
    Auto,
    BlockBootstrapMeans,
    CIWidth,
    Fixed,
    KSHalves,
    Rule,
)

RESULTS = Path(__file__).resolve().parent / "results" / "sharp_protocol_c.json"
INTERVAL = 5
MAX_N = 1000
SEED = 0


def rules(seed: int = SEED) -> dict[str, Rule]:
    """Every rule of protocol C, by name (SHARP's defaults on the grid of protocol A)."""
    others = techniques(interval=INTERVAL, error=0.01, seed=seed)
    return {
        "Fixed-100": Fixed(n=100),
        "SHARP-CI-0.05": CIWidth(error=0.05, interval=INTERVAL, min_n=15),
        "SHARP-KS": KSHalves(threshold=0.1, interval=INTERVAL, min_n=2 * INTERVAL),
        "SHARP-RSE": RSE(interval=INTERVAL),
        "SHARP-HDI": HDI(interval=INTERVAL, rng=seed),
        "SHARP-HDI-mean": HDI(of="mean", interval=INTERVAL, rng=seed),
        "SHARP-BB": BlockBootstrapMeans(interval=INTERVAL, rng=seed),
        "SHARP-GMM": GMM(interval=INTERVAL, rng=seed),
        "SHARP-GMM-2": GMM(threshold=2.0, interval=INTERVAL, rng=seed),
        "SHARP-Auto": Auto(rng=seed),
        "SuperFlow-1": others["SuperFlow-1"],
        "SuperFlow-2": others["SuperFlow-2"],
        "SuperFlow-3": others["SuperFlow-3"],
        "Metior": others["Metior"],
        "PT4Cloud": others["PT4Cloud"],
    }


#: The rules this benchmark evaluates, by name.
RULES: dict[str, Rule] = rules()


def load_traces(root: Path, *, quick: bool = False) -> dict[str, dict[str, np.ndarray]]:
    """``{"scope": {...130 traces}, "cloud": {...33 traces}}``; quick keeps every fifth."""
    scope = load_scope(root)
    out: dict[str, dict[str, np.ndarray]] = {"scope": {}, "cloud": {}}
    for start, traces in scope.items():
        for name, x in traces.items():
            out["scope"][f"{start}/{name}"] = x
    for trace in load_pt4cloud(root):
        out["cloud"][trace.name] = trace.runs
    if quick:
        out = {k: dict(list(v.items())[::5]) for k, v in out.items()}
    return out


def evaluate(
    chosen: dict[str, Rule],
    sets: dict[str, dict[str, np.ndarray]],
    *,
    workers: int | None = None,
    progress: bool = False,
) -> list[dict[str, Any]]:
    """One row per (rule, trace set)."""
    rows = []
    for name, rule in chosen.items():
        for set_name, traces in sets.items():
            t0 = time.perf_counter()
            stops = replay(rule, traces, max_n=MAX_N, workers=workers, progress=progress)
            scored = score_prefix(stops, traces)
            rows.append(
                {
                    "rule": name,
                    "trace_set": set_name,
                    "mean_ks": round(float(scored["ks"].mean()), 4),
                    "p90_ks": round(float(np.quantile(scored["ks"], 0.9)), 4),
                    "mean_namd": round(float(scored["namd"].mean()), 4),
                    "p90_namd": round(float(np.quantile(scored["namd"], 0.9)), 4),
                    "pct_saved": round(100.0 * float(scored["saved"].mean()), 2),
                    "mean_stop_n": round(float(scored["stop_n"].mean()), 1),
                    "stopped_pct": round(100.0 * float(scored["stopped"].mean()), 1),
                    "traces": len(traces),
                    "seconds": round(time.perf_counter() - t0, 2),
                }
            )
    return rows


def characterisation_counts(sets: dict[str, dict[str, np.ndarray]]) -> dict[str, Any]:
    """Steady-state classes and SHARP distribution classes per trace set."""
    out: dict[str, Any] = {}
    for set_name, traces in sets.items():
        states: collections.Counter[str] = collections.Counter()
        kinds: collections.Counter[str] = collections.Counter()
        per_trace = {}
        for name, x in traces.items():
            c = characterize(x)
            states[c.steady_state] += 1
            kinds[c.distribution] += 1
            per_trace[name] = {
                "steady_state": c.steady_state,
                "steady_state_start": c.steady_state_start,
                "change_points": len(c.change_points),
                "n_modes": c.n_modes,
                "distribution": c.distribution,
            }
        out[set_name] = {
            "steady_state": dict(states),
            "distribution": dict(kinds),
            "traces": per_trace,
        }
    return out


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'rule':16} {'set':5} {'mean KS':>8} {'P90 KS':>7} {'mean NAMD':>10} "
        f"{'P90 NAMD':>9} {'% saved':>8} {'stop n':>7} {'stopped':>8} {'s':>7}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r['rule']:16} {r['trace_set']:5} {r['mean_ks']:8.3f} {r['p90_ks']:7.3f} "
            f"{r['mean_namd']:10.4f} {r['p90_namd']:9.4f} {r['pct_saved']:8.1f} "
            f"{r['mean_stop_n']:7.1f} {r['stopped_pct']:7.1f}% {r['seconds']:7.1f}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=RESULTS, help="where to write the table")
    parser.add_argument("--quick", action="store_true", help="every fifth trace")
    parser.add_argument("--rules", nargs="+", help="subset of rule names")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: CPUs)")
    parser.add_argument("--progress", action="store_true", help="show progress bars")
    parser.add_argument("--no-characterisation", action="store_true")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message="ks_2samp: Exact calculation unsuccessful")
    chosen = dict(RULES)
    if args.rules:
        unknown = set(args.rules) - set(chosen)
        if unknown:
            parser.error(f"unknown rule(s) {sorted(unknown)}; know {sorted(chosen)}")
        chosen = {k: v for k, v in chosen.items() if k in args.rules}
    sets = load_traces(data_root(), quick=args.quick)
    rows = evaluate(chosen, sets, workers=args.workers, progress=args.progress)
    print(table(rows))
    payload: dict[str, Any] = {
        "protocol": "C",
        "interval": INTERVAL,
        "max_n": MAX_N,
        "seed": SEED,
        "quick": args.quick,
        "rows": rows,
    }
    if not args.no_characterisation:
        t0 = time.perf_counter()
        counts = characterisation_counts(sets)
        payload["characterisation"] = counts
        payload["characterisation_seconds"] = round(time.perf_counter() - t0, 1)
        for set_name, c in counts.items():
            print(f"{set_name}: steady state {c['steady_state']}; distribution {c['distribution']}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(payload, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
