"""Why protocol B's figures differ from the Metior paper's: the analysis.

Four gaps remain between ``reproduce_metior.txt`` and the paper (He et al.,
ASE 2021, Section IV) at 3% error:

1. executions per test, ours 390 (mean) / 363 (P90) against 290 / 306.2;
2. the P90 unstoppable list, ours three configurations against the paper's
   one (Chameleon YCSB-M);
3. PT4Cloud's executions, ours 3.96 times Metior's against 3.1 times;
4. CoV's accuracy on AWS, ours 96% against 89%.

Each is examined from the data: the scored per-test frames that
``reproduce_metior --tests-out`` writes (stride 10, 3%, 5% and 10% error,
in ``benchmarks/results/reproduce_metior_e*_stride10_tests.csv.gz``), and a
few short replays of variants (CoV's judgement interval; Metior's block
scheme and last judgement on the three P90 configurations). Every line of
the summary gives the paper's figure, ours, the difference and the reason,
with the numbers the reason rests on computed here.

Run as ``python -m benchmarks.reproduce_metior --gaps`` (the one entry point
of the Metior reproduction).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks._traces import CloudTrace, data_root, load_pt4cloud  # noqa: E402
from benchmarks.reproduce_metior import PAPER_EXECUTIONS, PAPER_UNSTOPPABLE  # noqa: E402
from benchmarks.reproduce_metior import (  # noqa: E402
    PAPER_PT4CLOUD_RATIO as _PT4CLOUD_BY_ERROR,
)
from perfstats.replay import replay  # noqa: E402
from perfstats.replay.scoring import score_estimate  # noqa: E402
from perfstats.rules import CoV, Metior, Rule  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
TESTS = {e: RESULTS / f"reproduce_metior_e{e}_stride10_tests.csv.gz" for e in (3, 5, 10)}
# The paper's numbers, kept once in the protocol's script; the ratio by
# error in percent, as this script names its result files.
PAPER_PT4CLOUD_RATIO = {round(e * 100): r for e, r in _PT4CLOUD_BY_ERROR.items()}
#: CoV's accuracy (3% error) and executions over Metior's (Section IV-B5, IV-C).
PAPER_COV = {("aws", "mean"): 89.0, ("aws", "p90"): 89.0}
PAPER_COV.update({("chameleon", "mean"): 61.0, ("chameleon", "p90"): 45.0})
PAPER_COV_RATIO = 0.04
STAT: dict[str, str | float] = {"mean": "mean", "p90": 0.9}
STRIDE = 10


def _metior(frame: pd.DataFrame, stat: str, technique: str = "Metior") -> pd.DataFrame:
    return frame[(frame["technique"] == technique) & (frame["statistic"] == stat)]


def _unstoppable(part: pd.DataFrame, below: float = 0.5) -> list[str]:
    share = part.groupby("trace")["stopped"].mean()
    return sorted(share[share < below].index)


# -- 1. executions per test ---------------------------------------------------


def executions(frame: pd.DataFrame) -> dict[str, Any]:
    """Metior's executions per test under the readings of "executions per test"."""
    out: dict[str, Any] = {}
    for stat in ("mean", "p90"):
        m = _metior(frame, stat)
        ours_un = _unstoppable(m)
        prev = np.where(m["stopped"], m["stop_n"] - m["day"], m["stop_n"])
        variants = {
            "all tests, runs used (S')": m["stop_n"].mean(),
            "leaving out our unstoppable configurations": m[~m["trace"].isin(ours_un)][
                "stop_n"
            ].mean(),
            "leaving out the paper's unstoppable list": m[
                ~m["trace"].isin(PAPER_UNSTOPPABLE[stat])
            ]["stop_n"].mean(),
            "stopped tests only": m[m["stopped"]]["stop_n"].mean(),
            "all tests, the previous set S (one day fewer)": float(prev.mean()),
            "mean of the configurations' means": m.groupby("trace")["stop_n"].mean().mean(),
        }
        floor = float((2 * m["day"]).mean())
        excess = (m["stop_n"] - 2 * m["day"]).groupby(m["trace"]).sum() / len(m)
        top = excess.sort_values(ascending=False).head(6)
        shares = m.groupby("trace")["stopped"].mean()
        out[stat] = {
            "paper": PAPER_EXECUTIONS[stat],
            "variants": {k: round(float(v), 1) for k, v in variants.items()},
            "first_judgement_floor": round(floor, 1),
            "aws_at_floor_pct": round(
                100.0
                * float(
                    (m[m["cloud"] == "aws"]["stop_n"] == 2 * m[m["cloud"] == "aws"]["day"]).mean()
                ),
                1,
            ),
            "top_excess": [
                {
                    "trace": t,
                    "runs_above_floor_per_test": round(float(v), 1),
                    "stopped_share": round(float(shares[t]), 2),
                }
                for t, v in top.items()
            ],
            "ours_unstoppable": ours_un,
        }
    return out


# -- 2. the P90 unstoppable list ---------------------------------------------


def stop_shares(frame: pd.DataFrame) -> dict[str, Any]:
    """Share of stopped tests per Chameleon configuration and the lists by threshold."""
    out: dict[str, Any] = {}
    for stat in ("mean", "p90"):
        m = _metior(frame, stat)
        shares = m.groupby("trace")["stopped"].mean()
        low = shares[shares < 0.9].sort_values()
        lists = {"none stops": _unstoppable(m, 1e-9)}
        lists.update({f"share < {b:g}": _unstoppable(m, b) for b in (0.1, 0.3, 0.5)})
        matching = [k for k, v in lists.items() if v == sorted(PAPER_UNSTOPPABLE[stat])]
        out[stat] = {
            "shares": {t: round(float(v), 2) for t, v in low.items()},
            "lists": lists,
            "thresholds_matching_paper": matching,
            "paper": list(PAPER_UNSTOPPABLE[stat]),
        }
    return out


def _replay(
    traces: Sequence[CloudTrace],
    make: Callable[[CloudTrace], Rule],
    statistic: str | float,
    *,
    limit_days: int | None = 14,
) -> pd.DataFrame:
    """Replay and score; ``limit_days=None`` lets a test run to the end of the test part."""
    tests = {t.name: t.test for t in traces}
    truths = {t.name: t.truth for t in traces}
    stops = replay(
        {t.name: make(t) for t in traces},
        tests,
        starts={t.name: list(t.starts(STRIDE)) for t in traces},
        max_n=None if limit_days is None else {t.name: limit_days * t.day for t in traces},
        workers=1,
        progress=False,
    )
    scored = score_estimate(stops, tests, truths, statistic=statistic, error=0.03)
    scored["cloud"] = scored["trace"].map({t.name: t.cloud for t in traces})
    return scored


def p90_variants(traces: dict[str, CloudTrace], names: Sequence[str]) -> list[dict[str, Any]]:
    """Metior's P90 stop share under its block scheme and its data limit.

    The limit is two weeks (the last judgement at day 14), the reference
    code's twelve judgements (the last at day 13), or the rest of the three
    weeks (``None``: Section IV-B2 says the tests ended "once all 3-week data
    were used").
    """
    chosen = [traces[n] for n in names]
    rows = []
    plan: list[tuple[str, int | None]] = [
        ("superflow", 14),
        ("superflow", 13),
        ("superflow", None),
        ("moving", 14),
        ("moving", 13),
    ]
    for kind, days in plan:

        def make(t: CloudTrace, kind: str = kind) -> Rule:
            return Metior(
                error=0.03,
                statistic=0.9,
                interval=t.day,
                min_block_length=6 * t.hour,
                block_kind=kind,
                block_from="previous",
                rng=0,
            )

        scored = _replay(chosen, make, 0.9, limit_days=days)
        shares = scored.groupby("trace")["stopped"].mean()
        rows.append(
            {
                "block_kind": kind,
                "last_judgement_day": days,
                "stopped_share": {t: round(float(v), 2) for t, v in shares.items()},
            }
        )
    return rows


# -- 3. PT4Cloud over Metior ------------------------------------------------------


def pt4cloud_ratio(frames: dict[int, pd.DataFrame]) -> dict[str, Any]:
    """PT4Cloud's and Metior's executions at each error and their ratio."""
    out: dict[str, Any] = {}
    for e, frame in frames.items():
        rows = {}
        for stat in ("mean", "p90"):
            m = _metior(frame, stat)
            p = _metior(frame, stat, "PT4Cloud")
            days = float((p["stop_n"] / p["day"]).mean())
            rows[stat] = {
                "metior": round(float(m["stop_n"].mean()), 1),
                "pt4cloud": round(float(p["stop_n"].mean()), 1),
                "pt4cloud_days": round(days, 2),
                "pt4cloud_stopped_pct": round(100.0 * float(p["stopped"].mean()), 1),
                "ratio": round(float(p["stop_n"].mean() / m["stop_n"].mean()), 2),
                "ratio_stoppable": round(
                    float(
                        p[p["stopped"]]["stop_n"].mean()
                        / m[~m["trace"].isin(_unstoppable(m))]["stop_n"].mean()
                    ),
                    2,
                ),
                "metior_floor": round(float((2 * m["day"]).mean()), 1),
            }
        out[str(e)] = {"paper": PAPER_PT4CLOUD_RATIO[e], **rows}
    return out


# -- 4. CoV's judgement interval ----------------------------------------------------


def cov_variants(traces: dict[str, CloudTrace], metior_runs: float) -> list[dict[str, Any]]:
    """CoV judged every hour of runs (ours) or after every run."""
    rows = []
    for label, every_run in (("every hour of runs (ours)", False), ("after every run", True)):

        def make(t: CloudTrace, every_run: bool = every_run) -> Rule:
            return CoV(threshold=0.01, window=5, interval=1 if every_run else t.hour)

        row: dict[str, Any] = {"interval": label}
        for stat in ("mean", "p90"):
            scored = _replay(list(traces.values()), make, STAT[stat])
            for cloud in ("aws", "chameleon"):
                part = scored[scored["cloud"] == cloud]
                row[f"{cloud}_{stat}_pct"] = round(100.0 * float(part["accurate"].mean()), 2)
            row["runs"] = round(float(scored["stop_n"].mean()), 1)
        row["runs_over_metior"] = round(row["runs"] / metior_runs, 3)
        rows.append(row)
    return rows


# -- the summary ---------------------------------------------------------------------


def summary_lines(res: dict[str, Any]) -> list[str]:
    """One line per gap: paper | ours | difference | reason."""
    lines = ["Summary: item | paper | ours | difference | reason"]
    for stat in ("mean", "p90"):
        ex = res["executions"][stat]
        v = ex["variants"]
        ours = v["all tests, runs used (S')"]
        left = v["leaving out our unstoppable configurations"]
        prev = v["all tests, the previous set S (one day fewer)"]
        top = ", ".join(
            f"{t['trace']} {t['runs_above_floor_per_test']:.0f}" for t in ex["top_excess"][:4]
        )
        lines.append(
            f"executions per test ({stat}) | {ex['paper']:g} | {ours:.1f} | "
            f"{ours - ex['paper']:+.1f} | ours counts every test, and a test that never "
            f"stops costs two weeks; leaving out the unstoppable configurations, as the "
            f"paper does for accuracy, gives {left:.1f} ({left - ex['paper']:+.1f}), the "
            f"likeliest reading as it fits both statistics (counting the previous set S "
            f"gives {prev:.1f}: the mean only), and the paper's unstopped tests ran on to "
            f"the end of the three weeks, which would raise its average, not lower it. "
            f"{_stride_note(stat, ours)} The excess over "
            f"the first-judgement floor "
            f"({ex['first_judgement_floor']:.0f} runs, where {ex['aws_at_floor_pct']:.0f}% "
            f"of AWS tests stop) comes from Chameleon: {top} runs per test"
        )
    sh = res["stop_shares"]["p90"]
    shares = ", ".join(f"{t} {s:.2f}" for t, s in list(sh["shares"].items())[:4])
    var = res["p90_variants"]
    moving = next(r for r in var if r["block_kind"] == "moving" and r["last_judgement_day"] == 14)
    ref13 = next(r for r in var if r["block_kind"] == "superflow" and r["last_judgement_day"] == 13)
    weeks3 = next(
        r for r in var if r["block_kind"] == "superflow" and r["last_judgement_day"] is None
    )
    ours_list = sh["lists"]["share < 0.5"]
    extra_traces = [t for t in ours_list if t not in sh["paper"]]
    most = max(r["stopped_share"].get(t, 0.0) for r in var for t in extra_traces)
    mean_match = ", ".join(res["stop_shares"]["mean"]["thresholds_matching_paper"]) or "none"
    p90_match = ", ".join(sh["thresholds_matching_paper"]) or "none"
    lines.append(
        f"P90 unstoppable configurations | {', '.join(sh['paper'])} | "
        f"{', '.join(ours_list)} | +{len(ours_list) - len(sh['paper'])} | "
        f"share of tests that stop: {shares}; of the paper's five for the mean "
        f"{_paper_list_shares(res['stop_shares']['mean'])}. The paper's mean list is "
        f"reproduced by "
        f"the thresholds {mean_match}, its P90 list by {p90_match}: no one threshold gives "
        f"both, so IMA-L and YCSB-S differ in the stops, not in the cut. Textbook moving "
        f"blocks stop more ({_shares(moving)}); the reference code's last judgement at "
        f"13 days fewer ({_shares(ref13)}); tests running on to the end of the three "
        f"weeks (Section IV-B2's wording) barely more ({_shares(weeks3)}). The paper "
        f"says no test of its unstoppable configurations stopped and reports P90 errors "
        f"for YCSB-C-S (at most 3.6%) and IMA-C-L, so its tests stopped there; ours stop "
        f"at most {100 * most:.0f}% of them under any variant: unexplained"
    )
    for e, r in res["pt4cloud_ratio"].items():
        ratio = float(np.mean([r["mean"]["ratio"], r["p90"]["ratio"]]))
        each = f"mean {r['mean']['ratio']:.2f}x, P90 {r['p90']['ratio']:.2f}x"
        implied = r["paper"] * PAPER_EXECUTIONS["mean"] if e == "3" else None
        extra = (
            f"; the paper's 3.1 x 290 = {implied:.0f} runs is fewer than the two weeks "
            f"PT4Cloud's one-week intervals need at least ({r['mean']['pt4cloud']:.0f} runs "
            f"here), so the paper's PT4Cloud cannot have judged weekly and counted all "
            f"runs used: unexplained beyond that"
            if implied
            else f"; Metior here uses {r['mean']['metior']:.0f} runs "
            f"(floor {r['mean']['metior_floor']:.0f}), PT4Cloud still two weeks"
        )
        lines.append(
            f"PT4Cloud executions / Metior's at {e}% | {r['paper']:g}x | {ratio:.2f}x ({each}) | "
            f"{ratio - r['paper']:+.2f}x | our PT4Cloud judges once, at two weeks "
            f"({r['mean']['pt4cloud_days']:.1f} days per test, whatever the error; "
            f"{r['mean']['pt4cloud_stopped_pct']:.0f}% stop){extra}"
        )
    cov = res["cov_variants"]
    ours, each = cov[0], cov[1]
    for stat in ("mean", "p90"):
        for cloud in ("aws", "chameleon"):
            paper = PAPER_COV[(cloud, stat)]
            o = ours[f"{cloud}_{stat}_pct"]
            lines.append(
                f"CoV accurate % ({cloud}, {stat}) | {paper:g} | {o:.2f} | {o - paper:+.2f} | "
                f"the paper does not state CoV's judgement interval; ours judges every hour "
                f"of runs (five judgements, about 20 runs, before it can stop); after every "
                f"run it gives "
                f"{each[f'{cloud}_{stat}_pct']:.2f}% and {each['runs']:.1f} runs per test "
                f"({each['runs_over_metior']:.3f}x Metior's; paper {PAPER_COV_RATIO}x), "
                f"against {ours['runs']:.1f} runs ({ours['runs_over_metior']:.3f}x) hourly"
            )
    return lines


def _paper_list_shares(entry: dict[str, Any]) -> str:
    shares = entry["shares"]
    return ", ".join(f"{t.split('-', 1)[1]} {shares.get(t, 1.0):.2f}" for t in entry["paper"])


def _stride_note(stat: str, ours: float) -> str:
    """Stride 1 (reproduce_metior.json, every start point) against our stride 10."""
    path = RESULTS / "reproduce_metior.json"
    if not path.is_file():
        return "(No stride-1 run to compare start positions with.)"
    rows = json.loads(path.read_text(encoding="utf-8"))["rows"]
    one = next(
        r["mean_executions"]
        for r in rows
        if (r["technique"], r["statistic"], r["cloud"]) == ("Metior", stat, "all")
    )
    return (
        f"Start positions do not matter: every start point (stride 1) gives {one:.1f}, "
        f"every tenth {ours:.1f}."
    )


def _shares(row: dict[str, Any]) -> str:
    return ", ".join(f"{t.split('-', 1)[1]} {s:.2f}" for t, s in row["stopped_share"].items())


def main(*, json_path: Path | None, tests: dict[int, Path] | None = None) -> int:
    """Print the analysis of the four gaps; save it as JSON."""
    paths = tests or TESTS
    for p in paths.values():
        if not p.is_file():
            raise FileNotFoundError(
                f"{p} is missing: write it with reproduce_metior --tests-out (see the README)"
            )
    frames = {e: pd.read_csv(p) for e, p in paths.items()}
    base = frames[3]
    traces = {t.name: t for t in load_pt4cloud(data_root("pt4cloud"))}
    p90_names = _unstoppable(_metior(base, "p90"))
    res: dict[str, Any] = {
        "tests": {str(e): p.name for e, p in paths.items()},
        "stride": STRIDE,
        "executions": executions(base),
        "stop_shares": stop_shares(base),
        "p90_variants": p90_variants(traces, p90_names),
        "pt4cloud_ratio": pt4cloud_ratio(frames),
        "cov_variants": cov_variants(traces, float(_metior(base, "mean")["stop_n"].mean())),
    }
    print(f"Tests: {', '.join(p.name for p in paths.values())}; replays at stride {STRIDE}")
    print("\n1. Metior's executions per test at 3% under each reading")
    for stat, ex in res["executions"].items():
        print(f"  {stat} (paper {ex['paper']:g}):")
        for k, v in ex["variants"].items():
            print(f"    {k:48} {v:7.1f}  ({v - ex['paper']:+.1f})")
        floor = ex["first_judgement_floor"]
        print(f"    {'first judgement (2 days) floor':48} {floor:7.1f}")
        for t in ex["top_excess"]:
            print(
                f"    {t['trace']:18} {t['runs_above_floor_per_test']:6.1f} runs per test above "
                f"the floor; {t['stopped_share']:.2f} of its tests stop"
            )
    print("\n2. Share of Metior's tests that stop (configurations under 0.9), 3%")
    for stat, sh in res["stop_shares"].items():
        print(f"  {stat}: {sh['shares']}")
        for k, v in sh["lists"].items():
            print(f"    unstoppable if {k:11}: {', '.join(v)}")
        print(f"    paper: {', '.join(sh['paper'])}")
    print("  P90 variants on those configurations (share stopped):")
    for r in res["p90_variants"]:
        print(
            f"    blocks {r['block_kind']:9} last judgement day "
            f"{r['last_judgement_day'] or 'end of 3 weeks'}: "
            f"{_shares(r)}"
        )
    print("\n3. PT4Cloud's and Metior's executions per test")
    for e, r in res["pt4cloud_ratio"].items():
        for stat in ("mean", "p90"):
            x = r[stat]
            print(
                f"  {e:>2}% {stat:4}: Metior {x['metior']:6.1f} (floor {x['metior_floor']:.0f}), "
                f"PT4Cloud {x['pt4cloud']:6.1f} ({x['pt4cloud_days']:.1f} days, "
                f"{x['pt4cloud_stopped_pct']:.0f}% stop): {x['ratio']:.2f}x "
                f"(stoppable only {x['ratio_stoppable']:.2f}x); paper {r['paper']:g}x"
            )
    print("\n4. CoV (threshold 0.01, window 5) by judgement interval, 3%")
    for r in res["cov_variants"]:
        print(
            f"  {r['interval']:26} AWS {r['aws_mean_pct']:6.2f} / {r['aws_p90_pct']:6.2f}  "
            f"Chameleon {r['chameleon_mean_pct']:6.2f} / {r['chameleon_p90_pct']:6.2f}  "
            f"(mean / P90 %); {r['runs']:.1f} runs, {r['runs_over_metior']:.3f}x Metior's"
        )
    print("  paper: AWS 89 / 89, Chameleon 61 / 45; 0.04x Metior's runs")
    print()
    print("\n".join(summary_lines(res)))
    if json_path is not None:
        json_path.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0
