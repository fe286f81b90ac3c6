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

``--similarity`` (Section V-B, "point-summary vs distribution based"):
SHARP compared the runs of each of five days pairwise by KS and NAMD (10
pairs per benchmark and machine, 330 in all) and found many pairs with a
high KS but a low NAMD. Its Rodinia runs are not available; the 33 cloud
traces ran back to back for eight weeks, so each is cut into five
consecutive segments of equal run count ("days" of about eleven days
each), compared pairwise: 10 pairs per trace, 330 in all, as in the paper.
NAMD is the mean-based form (:func:`perfstats.namd`, unpaired): the
paper's printed formula pairs the runs index by index, which cannot give
the zero NAMD it reports for two different days. Writes the table, the
KS-versus-NAMD scatter (Figure 5a) and the heatmaps of the trace with the
widest KS-NAMD disagreement (Figure 5b).

``--synthetic``: the distribution classes of SHARP's ten synthetic
distributions (Section IV-c: normal, log-normal, uniform, log-uniform,
logistic, bimodal, multimodal, autocorrelated sinusoidal, Cauchy,
constant), 1,000 runs each over 20 seeds, by perfstats's classifier and by
the same checks with the thresholds of SHARP's code (constant when the
range is within 10% of the mean; a fit accepted at p > 0.2 where perfstats
uses p > 0.1 and exact equality), each difference with its reason.

The traces are read by ``benchmarks/_traces.py``.

Usage::

    python -m benchmarks.reproduce_sharp          # -> benchmarks/results/sharp_protocol_c.json
    python -m benchmarks.reproduce_sharp --quick  # every fifth trace
    python -m benchmarks.reproduce_sharp --rules SHARP-KS SHARP-RSE
    python -m benchmarks.reproduce_sharp --similarity  # -> sharp_similarity.{txt,json,png}
    python -m benchmarks.reproduce_sharp --synthetic   # -> sharp_synthetic.{txt,json}
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
from perfstats import characterize, ks, namd  # noqa: E402
from perfstats.characterization import distribution_class  # noqa: E402
from perfstats.precision import acf  # noqa: E402
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

RESULTS_DIR = Path(__file__).resolve().parent / "results"
RESULTS = RESULTS_DIR / "sharp_protocol_c.json"
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


# SHARP's figures for its KS rule (Section V-C, Takeaway 2), on Rodinia GPU
# runs under Knative with a 1,000-run ground truth.
PAPER_KS_RULE = {"pct_saved": 89.8, "ks": 0.104}


def paper_beside_ours(rows: list[dict[str, Any]]) -> str:
    """SHARP's KS-rule figures beside this run's, with the difference and why."""
    lines = [f"{'SHARP-KS':10} {'set':5} {'% saved':>8} {'paper':>6} {'diff':>6} "
             f"{'mean KS':>8} {'paper':>6} {'diff':>7}"]  # fmt: skip
    for r in rows:
        if r["rule"] != "SHARP-KS":
            continue
        saved, paper_saved = r["pct_saved"], PAPER_KS_RULE["pct_saved"]
        lines.append(
            f"{'':10} {r['trace_set']:5} {saved:8.1f} {paper_saved:6.1f} "
            f"{saved - paper_saved:+6.1f} {r['mean_ks']:8.3f} {PAPER_KS_RULE['ks']:6.3f} "
            f"{r['mean_ks'] - PAPER_KS_RULE['ks']:+7.3f}"
        )
    lines.append(
        "why: other data. SHARP's Rodinia runs are not public; SCOPE's 1,000-run "
        "traces are the nearest (same 1,000-run ceiling), the cloud traces are longer "
        "than 1,000 runs, so their '% saved' counts against the whole trace."
    )
    return "\n".join(lines)


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


# --- Section V-B: day-pairwise KS and NAMD -------------------------------------

DAYS = 5
# SHARP's KS rule stops below 0.1: the distance it treats as "the same".
KS_SAME = 0.1
# A mean difference under 1% is what a point summary would call no change.
NAMD_SAME = 0.01
# The paper's two figures for this section, stated with the claim they back.
PAPER_SIMILARITY = {
    "pairs": 330,
    "dissimilar_share_text": "more than half of daily performance distributions were dissimilar",
    "example": "Hotspot, machine 2, days 3 and 5: NAMD 0, KS 0.21",
}


def day_pairs(x: np.ndarray, days: int = DAYS) -> list[dict[str, Any]]:
    """KS and NAMD of every pair of ``days`` consecutive equal-count segments of ``x``."""
    size = x.size // days
    if size < 2:
        raise ValueError(f"a trace of {x.size} runs has too few for {days} segments")
    parts = [x[d * size : (d + 1) * size] for d in range(days)]
    out = []
    for i in range(days):
        for j in range(i + 1, days):
            out.append(
                {
                    "day_a": i + 1,
                    "day_b": j + 1,
                    "ks": float(ks(parts[i], parts[j]).statistic),
                    "namd": float(namd(parts[i], parts[j])),
                }
            )
    return out


def similarity(traces: dict[str, np.ndarray], days: int = DAYS) -> dict[str, Any]:
    """Every trace's day pairs and the counts that back or contradict SHARP's takeaway."""
    rows = [{"trace": name, **pair} for name, x in traces.items() for pair in day_pairs(x, days)]
    ks_values = np.array([r["ks"] for r in rows])
    namd_values = np.array([r["namd"] for r in rows])
    dissimilar = ks_values >= KS_SAME
    hidden = dissimilar & (namd_values < NAMD_SAME)
    return {
        "days": days,
        "pairs": len(rows),
        "traces": len(traces),
        "dissimilar_share": float(np.mean(dissimilar)),
        "hidden_by_namd": int(hidden.sum()),
        "hidden_share_of_dissimilar": float(hidden.sum() / max(int(dissimilar.sum()), 1)),
        "spearman_ks_namd": float(_spearman(ks_values, namd_values)),
        "rows": rows,
    }


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    from scipy import stats

    return float(stats.spearmanr(a, b).statistic)


def widest_disagreement(result: dict[str, Any]) -> str:
    """The trace whose day pair has the largest KS with a NAMD under NAMD_SAME."""
    quiet = [r for r in result["rows"] if r["namd"] < NAMD_SAME]
    pool = quiet or result["rows"]
    return str(max(pool, key=lambda r: r["ks"])["trace"])


def similarity_table(result: dict[str, Any]) -> str:
    n = result["pairs"]
    share = 100.0 * result["dissimilar_share"]
    lines = [
        f"{n} day pairs ({result['traces']} cloud traces x 10; paper: "
        f"{PAPER_SIMILARITY['pairs']} pairs of Rodinia runs)",
        f"dissimilar (KS >= {KS_SAME}): {share:.1f}% of pairs; paper: "
        f"'{PAPER_SIMILARITY['dissimilar_share_text']}'",
        f"of those, NAMD < {100 * NAMD_SAME:g}% (a point summary sees no change): "
        f"{result['hidden_by_namd']} ({100.0 * result['hidden_share_of_dissimilar']:.1f}%)",
        f"Spearman correlation of KS and NAMD over the pairs: {result['spearman_ks_namd']:.2f}",
        f"paper's example: {PAPER_SIMILARITY['example']}",
        "",
        f"{'trace':22} {'max KS':>7} {'its NAMD':>9} {'pairs KS>=0.1':>14}",
    ]
    by_trace: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for r in result["rows"]:
        by_trace[r["trace"]].append(r)
    for name, pairs in by_trace.items():
        top = max(pairs, key=lambda r: r["ks"])
        count = sum(r["ks"] >= KS_SAME for r in pairs)
        lines.append(f"{name:22} {top['ks']:7.3f} {top['namd']:9.4f} {count:>11}/10")
    return "\n".join(lines)


def similarity_figures(result: dict[str, Any], folder: Path) -> list[Path]:
    """Figure 5a (KS against NAMD, every pair) and 5b (one trace's day heatmaps)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result["rows"]
    fig, ax = plt.subplots(figsize=(6.0, 4.2))
    ax.scatter([r["namd"] for r in rows], [r["ks"] for r in rows], s=10, alpha=0.6)
    ax.axhline(KS_SAME, color="grey", linestyle="--", linewidth=0.8)
    ax.axvline(NAMD_SAME, color="grey", linestyle=":", linewidth=0.8)
    ax.set_xscale("symlog", linthresh=1e-3)
    ax.set_xlabel("NAMD between two day segments")
    ax.set_ylabel("KS distance")
    ax.set_title(f"{len(rows)} day pairs of the cloud traces")
    scatter = folder / "sharp_similarity_scatter.png"
    fig.tight_layout()
    fig.savefig(scatter, dpi=110)
    plt.close(fig)

    name = widest_disagreement(result)
    days = result["days"]
    grids = {k: np.zeros((days, days)) for k in ("ks", "namd")}
    for r in rows:
        if r["trace"] == name:
            for k, grid in grids.items():
                grid[r["day_a"] - 1, r["day_b"] - 1] = grid[r["day_b"] - 1, r["day_a"] - 1] = r[k]
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.8))
    for ax, (k, grid) in zip(axes, grids.items(), strict=True):
        im = ax.imshow(grid, cmap="viridis")
        ax.set_xticks(range(days), [str(d + 1) for d in range(days)])
        ax.set_yticks(range(days), [str(d + 1) for d in range(days)])
        for i in range(days):
            for j in range(days):
                light = grid[i, j] > 0.6 * grid.max()
                ax.text(j, i, f"{grid[i, j]:.3f}", ha="center", va="center",
                        color="black" if light else "white", fontsize=7)  # fmt: skip
        ax.set_title(f"{k.upper()} between segments")
        fig.colorbar(im, ax=ax, shrink=0.8)
    fig.suptitle(name)
    heatmap = folder / "sharp_similarity_heatmap.png"
    fig.tight_layout()
    fig.savefig(heatmap, dpi=110)
    plt.close(fig)
    return [scatter, heatmap]


# --- SHARP's ten synthetic distributions ---------------------------------------

SYNTHETIC_N = 1000
SYNTHETIC_SEEDS = 20
# SHARP's code: "constant" when the range is within 10% of the mean, a fit
# accepted at p > 0.2. perfstats: exactly equal values, p > 0.1.
SHARP_CONSTANT_RANGE = 0.10
SHARP_FIT_PVALUE = 0.2
# What a classifier that names the generating family should say; None where
# neither classifier has a class for the family.
EXPECTED = {
    "normal": "normal",
    "lognormal": "lognormal",
    "uniform": "uniform",
    "log-uniform": None,
    "logistic": None,
    "bimodal": "multimodal",
    "multimodal": "multimodal",
    "autocorrelated sinusoid": "autocorrelated",
    "cauchy": None,
    "constant": "constant",
    "near-constant (+-1%)": None,
}
REASONS = {
    "uniform": "a fit at p > 0.1 (0.2) turns away about one in ten (five) true uniform "
    "samples by design; they fall to the next checks (modes, else unknown)",
    "logistic": "no logistic class: its tails are a little heavier than the normal's, "
    "which a KS test on 1,000 runs sees only sometimes",
    "log-uniform": "no log-uniform class: neither uniform nor lognormal fits",
    "cauchy": "no Cauchy class: heavy tails fail every fit",
    "near-constant (+-1%)": "SHARP's code calls a range within 10% of the mean constant; "
    "perfstats calls only equal values constant and fits the rest (here: uniform)",
}


def synthetic(name: str, rng: np.random.Generator, n: int = SYNTHETIC_N) -> np.ndarray:
    """One sample of SHARP's synthetic distribution ``name`` (positive, around 100)."""
    t = np.arange(n)
    match name:
        case "normal":
            return rng.normal(100.0, 5.0, n)
        case "lognormal":
            return 100.0 * rng.lognormal(0.0, 0.5, n)
        case "uniform":
            return rng.uniform(90.0, 110.0, n)
        case "log-uniform":
            return np.exp(rng.uniform(np.log(10.0), np.log(1000.0), n))
        case "logistic":
            return rng.logistic(100.0, 3.0, n)
        case "bimodal":
            return np.where(rng.random(n) < 0.5, rng.normal(100, 3, n), rng.normal(130, 3, n))
        case "multimodal":
            centre = rng.choice(np.array([100.0, 120.0, 145.0]), n)
            return centre + rng.normal(0.0, 2.0, n)
        case "autocorrelated sinusoid":
            return 100.0 + 10.0 * np.sin(2.0 * np.pi * t / 100.0) + rng.normal(0.0, 1.0, n)
        case "cauchy":
            return 100.0 + rng.standard_cauchy(n)
        case "constant":
            return np.full(n, 100.0)
        case "near-constant (+-1%)":
            return rng.uniform(99.0, 101.0, n)
    raise ValueError(f"unknown synthetic distribution {name!r}; know {sorted(EXPECTED)}")


def sharp_thresholds_class(x: np.ndarray) -> str:
    """perfstats's order of checks with the thresholds of SHARP's code."""
    from scipy import stats

    mean = float(np.mean(x))
    if float(np.ptp(x)) <= SHARP_CONSTANT_RANGE * abs(mean):
        return "constant"
    step = np.diff(x)
    if bool(np.all(step >= 0)) or bool(np.all(step <= 0)):
        return "monotonic"
    if float(acf(x, nlags=1)[1]) >= 0.8:
        return "autocorrelated"
    if stats.kstest(x, "norm", args=(mean, float(np.std(x, ddof=1)))).pvalue > SHARP_FIT_PVALUE:
        return "normal"
    if float(np.min(x)) > 0:
        lx = np.log(x)
        fit = (float(np.mean(lx)), float(np.std(lx, ddof=1)))
        if stats.kstest(lx, "norm", args=fit).pvalue > SHARP_FIT_PVALUE:
            return "lognormal"
    lo = float(np.min(x))
    if stats.kstest(x, "uniform", args=(lo, float(np.ptp(x)))).pvalue > SHARP_FIT_PVALUE:
        return "uniform"
    if characterize(x).n_modes > 1:
        return "multimodal"
    return "unknown"


def synthetic_study(seeds: int = SYNTHETIC_SEEDS, n: int = SYNTHETIC_N) -> list[dict[str, Any]]:
    """Per synthetic distribution: the classes each classifier gives over ``seeds`` samples."""
    rows = []
    for name, expected in EXPECTED.items():
        ours: collections.Counter[str] = collections.Counter()
        theirs: collections.Counter[str] = collections.Counter()
        for seed in range(seeds):
            x = synthetic(name, np.random.default_rng(seed), n)
            ours[distribution_class(x)] += 1
            theirs[sharp_thresholds_class(x)] += 1
        rows.append(
            {
                "distribution": name,
                "expected": expected,
                "perfstats": dict(ours.most_common()),
                "sharp_thresholds": dict(theirs.most_common()),
                "reason": REASONS.get(name, ""),
            }
        )
    return rows


def synthetic_table(rows: list[dict[str, Any]], seeds: int = SYNTHETIC_SEEDS) -> str:
    def spell(counts: dict[str, int]) -> str:
        return ", ".join(f"{k} {v}" for k, v in counts.items())

    lines = [
        f"classes over {seeds} samples of {SYNTHETIC_N} runs each; SHARP's thresholds: constant "
        f"= range within {100 * SHARP_CONSTANT_RANGE:g}% of the mean, fits at "
        f"p > {SHARP_FIT_PVALUE}; perfstats: equal values, p > 0.1",
        "",
    ]
    for r in rows:
        expected = r["expected"] or "(no class)"
        lines.append(f"{r['distribution']}  [expected: {expected}]")
        lines.append(f"    perfstats:        {spell(r['perfstats'])}")
        lines.append(f"    SHARP thresholds: {spell(r['sharp_thresholds'])}")
        if r["reason"]:
            lines.append(f"    why: {r['reason']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=RESULTS, help="where to write the table")
    parser.add_argument("--quick", action="store_true", help="every fifth trace")
    parser.add_argument("--rules", nargs="+", help="subset of rule names")
    parser.add_argument("--workers", type=int, default=None, help="processes (default: CPUs)")
    parser.add_argument("--progress", action="store_true", help="show progress bars")
    parser.add_argument("--no-characterisation", action="store_true")
    parser.add_argument(
        "--similarity", action="store_true", help="Section V-B: day-pairwise KS and NAMD"
    )
    parser.add_argument(
        "--synthetic", action="store_true", help="the classes of SHARP's synthetic distributions"
    )
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore", message="ks_2samp: Exact calculation unsuccessful")
    if args.similarity:
        result = similarity({t.name: t.runs for t in load_pt4cloud(data_root())})
        text = similarity_table(result)
        print(text)
        (RESULTS_DIR / "sharp_similarity.json").write_text(json.dumps(result, indent=1))
        similarity_figures(result, RESULTS_DIR)
        return 0
    if args.synthetic:
        rows = synthetic_study()
        print(synthetic_table(rows))
        (RESULTS_DIR / "sharp_synthetic.json").write_text(json.dumps(rows, indent=1))
        return 0
    chosen = dict(RULES)
    if args.rules:
        unknown = set(args.rules) - set(chosen)
        if unknown:
            parser.error(f"unknown rule(s) {sorted(unknown)}; know {sorted(chosen)}")
        chosen = {k: v for k, v in chosen.items() if k in args.rules}
    sets = load_traces(data_root(), quick=args.quick)
    rows = evaluate(chosen, sets, workers=args.workers, progress=args.progress)
    print(table(rows))
    if any(r["rule"] == "SHARP-KS" for r in rows):
        print()
        print(paper_beside_ours(rows))
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
