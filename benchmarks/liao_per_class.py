"""Liao et al. per request type: where the model's and the load tests' verdicts part.

Command of the committed results::

    python -m benchmarks.liao_per_class --scenarios fixed,variant2 --versions L2-High \\
        --reps 3 --duration 12 --warmup 3 --span-reps 2 --repeat 3 \\
        --json benchmarks/results/liao_per_class.json

In the repeated evaluation the model's verdict on variant2 (the
checkout-heavy mix) at L2-High, a busy wait in the catalogue's
``filter_items`` that only ``browse`` requests run, sits just under the
0.147 threshold where the load tests' mostly lie just over it
(``benchmarks/results/liao_rounds_busiest.txt``, ``liao_rounds.txt``,
``liao_rounds_seed30250.txt``, ``liao_rounds_types.txt`` and
``liao_rounds_types_seed30250.txt``; pooled in ``liao_pooled_oracle.txt``).
This script runs the evaluation's own steps
(:mod:`benchmarks.reproduce_liao`: the load tests of
:func:`~benchmarks.reproduce_liao.run_oracle` with the original between the
versions, the model of :func:`~benchmarks.reproduce_liao.calibrated_model`
with its calibration load tests, the predictions of
:func:`~benchmarks.reproduce_liao.predict`) and
splits both sides by request type:

* per type: its share of the requests, Cliff's delta and the ratio of the
  medians (version against original), the spread (IQR, and IQR / median)
  and the median of the original's response times;
* the whole-mix delta split into one contribution per type
  (:func:`contributions`), and the slowed type's delta against each type
  of the original (:func:`cross_deltas`), which is where a shift of one
  type moves the whole mix's delta;
* counterfactuals on the load tests' own response times
  (:func:`counterfactuals`): only the slowed type changed (the others'
  requests of the version replaced by the original's), and the model's
  shift of the slowed type put on the load tests' original (and the load
  tests' shift on the model's original);
* from ``--span-reps`` more load tests with spans: the slowed type's time
  per component (wall and CPU) against the model's mean time per station,
  and every type's time in the services (root span) against the model's.

The model's per-type response times come from simulating the model again
with the factors and seed :func:`~benchmarks.reproduce_liao.predict` used
(the same samples; the whole-mix delta is checked to be the one it
reported). ``--quick`` runs a short version of everything for a test.

References
----------
L. Liao, S. Eismann, H. Li, C.-P. Bezemer, D. E. Costa, A. van Hoorn and
W. Shang, "Early Detection of Performance Regressions by Bridging Local
Performance Data and Architectural Models", ICSE 2025.

J. Romano, J. D. Kromrey, J. Coraggio and J. Skowronek, "Appropriate
statistics for ordinal level data: Should we really be using t-test and
Cohen's d for evaluating group differences on the NSSE and other surveys?",
Annual Meeting of the Florida Association of Institutional Research, 2006.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import perfstats
from benchmarks import reproduce_liao as rl
from examples.shop.injection import LOCATIONS, Injection
from examples.shop.loadtest import LoadTestRun, run_load_test

RESULTS = Path(__file__).resolve().parent / "results"
DEFAULT_JSON = RESULTS / "liao_per_class.json"
#: The request type each location's regression slows (its only caller).
SLOWED = {"L1": None, "L2": "browse", "L3": None}


def pooled(runs: Sequence[LoadTestRun]) -> tuple[np.ndarray, np.ndarray]:
    """Response times (ms) and request types of load tests, pooled as the oracle pools them."""
    return (
        np.concatenate([r.response_ms for r in runs]),
        np.concatenate([r.kinds for r in runs]).astype(str),
    )


def simulated(result: Any) -> tuple[np.ndarray, np.ndarray]:
    """Response times (ms) and classes of a simulation, in its class order."""
    times = [np.asarray(v, dtype=float) * 1e3 for v in result.response_times.values()]
    kinds = [np.full(v.size, k) for k, v in result.response_times.items()]
    return np.concatenate(times), np.concatenate(kinds).astype(str)


def delta(a: np.ndarray, b: np.ndarray) -> float:
    """Cliff's delta of ``a`` against ``b`` (positive: ``a`` slower), NaN if one is empty."""
    if a.size == 0 or b.size == 0:
        return float("nan")
    return float(perfstats.cliffs_delta(a, b).delta)


def spread(x: np.ndarray) -> dict[str, float]:
    """Median, IQR and IQR / median of response times (ms)."""
    if x.size == 0:
        return {"median": float("nan"), "iqr": float("nan"), "iqr_rel": float("nan")}
    q1, med, q3 = (float(v) for v in np.quantile(x, [0.25, 0.5, 0.75]))
    return {"median": med, "iqr": q3 - q1, "iqr_rel": (q3 - q1) / med if med > 0 else float("nan")}


def per_type(
    b: np.ndarray, kb: np.ndarray, a: np.ndarray, ka: np.ndarray, kinds: Sequence[str]
) -> dict[str, dict[str, Any]]:
    """Per request type: shares, Cliff's delta, median ratio and spreads, version vs original.

    >>> b = np.array([1.0, 2.0, 10.0, 11.0]); kb = np.array(["x", "x", "y", "y"])
    >>> row = per_type(b, kb, b + [1, 1, 0, 0], kb, ["x", "y"])["x"]
    >>> row["share_before"], row["cliffs_delta"], row["median_ratio"]
    (0.5, 0.75, 1.6666666666666667)
    """
    out = {}
    for k in kinds:
        xb, xa = b[kb == k], a[ka == k]
        sb, sa = spread(xb), spread(xa)
        out[k] = {
            "n_before": int(xb.size),
            "n_after": int(xa.size),
            "share_before": float(xb.size / b.size),
            "share_after": float(xa.size / a.size),
            "cliffs_delta": delta(xa, xb),
            "median_ratio": sa["median"] / sb["median"] if sb["median"] > 0 else float("nan"),
            "median_shift_ms": sa["median"] - sb["median"],
            "before": sb,
            "after": sa,
        }
    return out


def contributions(
    b: np.ndarray, kb: np.ndarray, a: np.ndarray, ka: np.ndarray, kinds: Sequence[str]
) -> dict[str, float]:
    """The whole mix's Cliff's delta as a sum of one term per request type.

    Cliff's delta of the version ``a`` against the original ``b`` is the
    share-weighted sum over types of delta(``a`` of type i, all of ``b``); the
    same sum for ``b`` against itself is 0. Type i's term is its share in
    ``a`` times its delta against ``b``, minus its share in ``b`` times the
    delta of its original requests against ``b``: how much further up the
    original's ranks the type's requests moved. The terms add up to the
    whole mix's delta exactly.

    >>> b = np.array([1.0, 2.0, 10.0, 11.0]); kb = np.array(["x", "x", "y", "y"])
    >>> c = contributions(b, kb, b + [20, 20, 0, 0], kb, ["x", "y"])
    >>> c, round(sum(c.values()), 12) == round(delta(b + [20, 20, 0, 0], b), 12)
    ({'x': 0.75, 'y': 0.0}, True)
    """
    out = {}
    for k in kinds:
        xa, xb = a[ka == k], b[kb == k]
        after = xa.size / a.size * delta(xa, b) if xa.size else 0.0
        before = xb.size / b.size * delta(xb, b) if xb.size else 0.0
        out[k] = after - before
    return out


def cross_deltas(
    b: np.ndarray, kb: np.ndarray, a: np.ndarray, ka: np.ndarray, kind: str, kinds: Sequence[str]
) -> dict[str, dict[str, float]]:
    """Type ``kind``'s delta against each type of the original, before and after.

    ``before``: the original's requests of ``kind`` against the original's
    requests of type j; ``after``: the version's. The whole mix's delta
    grows with ``after - before`` weighted by type j's share.
    """
    xb, xa = b[kb == kind], a[ka == kind]
    return {j: {"before": delta(xb, b[kb == j]), "after": delta(xa, b[kb == j])} for j in kinds}


def with_shift(x: np.ndarray, kx: np.ndarray, kind: str, shift_ms: float) -> np.ndarray:
    """``x`` with the requests of ``kind`` ``shift_ms`` slower."""
    return np.where(kx == kind, x + shift_ms, x)


def counterfactuals(
    real: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    model: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    kind: str,
    shares: Mapping[str, float],
) -> dict[str, float]:
    """Whole-mix deltas of the load tests and the model with one thing swapped.

    * ``real_only_slowed_type``: the load tests with the version's requests
      of the other types replaced by the original's (is the mix's delta
      carried by the slowed type alone?);
    * ``real_with_model_shift``: the load tests' original with the slowed
      type moved by the model's median shift (ms), against the original;
    * ``model_with_real_shift``: the model's original with the slowed type
      moved by the load tests' median shift, against the model's original;
    * ``real_with_real_shift`` / ``model_with_model_shift``: each side's
      original with its own median shift, the same constant shift as the
      swaps (the swaps are read against these: a version's own response
      times shift some requests more than others);
    * ``real_model_shares`` / ``model_real_shares``: the whole mix's delta
      with the types weighted by the other side's shares of the original
      (the workload's mix, in the model).
    """
    b, kb, a, ka = real
    mb, mkb, ma, mka = model
    others = kb != kind
    only = np.concatenate([a[ka == kind], b[others]])
    real_shift = float(np.median(a[ka == kind]) - np.median(b[kb == kind]))
    model_shift = float(np.median(ma[mka == kind]) - np.median(mb[mkb == kind]))
    kinds = sorted(shares)
    return {
        "real_only_slowed_type": delta(only, b),
        "real_shift_ms": real_shift,
        "model_shift_ms": model_shift,
        "real_with_model_shift": delta(with_shift(b, kb, kind, model_shift), b),
        "model_with_real_shift": delta(with_shift(mb, mkb, kind, real_shift), mb),
        # the same constant shifts on each side's own original: the baselines
        # the two swaps above are read against
        "real_with_real_shift": delta(with_shift(b, kb, kind, real_shift), b),
        "model_with_model_shift": delta(with_shift(mb, mkb, kind, model_shift), mb),
        "real_model_shares": reweighted(b, kb, a, ka, kinds, shares),
        "model_real_shares": reweighted(
            mb, mkb, ma, mka, kinds, {k: float(np.mean(kb == k)) for k in kinds}
        ),
    }


def reweighted(
    b: np.ndarray,
    kb: np.ndarray,
    a: np.ndarray,
    ka: np.ndarray,
    kinds: Sequence[str],
    shares: Mapping[str, float],
) -> float:
    """Cliff's delta of ``a`` against ``b`` with both sides' types weighted by ``shares``.

    >>> b = np.array([1.0, 2.0]); kb = np.array(["x", "y"])
    >>> reweighted(b, kb, b + 5, kb, ["x", "y"], {"x": 0.5, "y": 0.5})
    1.0
    """
    total = sum(shares[k] for k in kinds)
    out = 0.0
    for i in kinds:
        for j in kinds:
            d = delta(a[ka == i], b[kb == j])
            if not np.isnan(d):
                out += shares[i] * shares[j] / total**2 * d
    return out


def aa_per_type(runs: Sequence[LoadTestRun], kinds: Sequence[str]) -> dict[str, Any]:
    """Cliff's delta between every pair of the original's load tests, whole mix and per type.

    How far two load tests of the same code drift apart, per type: a
    type's shift in a version beyond this is not the machine's.
    """
    pairs: list[dict[str, Any]] = []
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            x, kx = runs[j].response_ms, runs[j].kinds.astype(str)
            y, ky = runs[i].response_ms, runs[i].kinds.astype(str)
            pairs.append(
                {
                    "pair": [i, j],
                    "all": delta(x, y),
                    **{k: delta(x[kx == k], y[ky == k]) for k in kinds},
                }
            )
    abs_max = {k: max((abs(p[k]) for p in pairs), default=float("nan")) for k in ["all", *kinds]}
    return {"pairs": pairs, "abs_max": abs_max}


def model_samples(
    version: str, model: rl.Model, name: str, pred: Mapping[str, Any], rng: int, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The model's response times of ``predict``'s run: simulated again with its factors and seed.

    Raises if the whole-mix delta differs from the one ``predict`` reported
    (then these would not be its samples).
    """
    res = perfstats.predict_regression(
        model.network(rl.SCENARIOS[name]), pred["demand_factors"], n_requests=n, rng=rng,
        alpha=rl.ALPHA, per_class=False,
    )  # fmt: skip
    if abs(float(res.cliffs_delta) - pred["cliffs_delta"]) > 1e-9:
        raise RuntimeError(
            f"{name} {version}: the simulation again gave delta {res.cliffs_delta}, "
            f"predict {pred['cliffs_delta']}"
        )
    mb, mkb = simulated(res.before)
    ma, mka = simulated(res.after)
    return mb, mkb, ma, mka


def _side(
    verdict: Mapping[str, Any],
    samples: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    kind: str,
    kinds: Sequence[str],
) -> dict[str, Any]:
    """One side's verdict (load tests or model) with its per-type split."""
    return {
        **{k: verdict[k] for k in ("cliffs_delta", "p_value", "regression", "cpu_mpd")},
        "per_type": per_type(*samples, kinds),
        "contributions": contributions(*samples, kinds),
        "cross": cross_deltas(*samples, kind, kinds),
    }


def analyse(
    name: str,
    version: str,
    base: Sequence[LoadTestRun],
    runs: Sequence[LoadTestRun],
    model: rl.Model,
    pred: Mapping[str, Any],
    rng: int,
    n: int,
) -> dict[str, Any]:
    """Everything of one scenario and version, load tests against model, per request type."""
    workload = rl.SCENARIOS[name]
    kinds = sorted(workload.shares())
    real = (*pooled(base), *pooled(runs))
    sim = model_samples(version, model, name, pred, rng, n)
    kind = SLOWED[version.split("-")[0]] or max(
        pred["cliffs_delta_by_class"], key=lambda k: pred["cliffs_delta_by_class"][k]
    )
    oracle = rl.oracle_verdict(base, runs)
    return {
        "scenario": name,
        "version": version,
        "component": LOCATIONS[version.split("-")[0]],
        "slowed_type": kind,
        "mix": workload.shares(),
        "oracle": {**_side(oracle, real, kind, kinds), "n_runs": [len(base), len(runs)]},
        "model": {**_side(pred, sim, kind, kinds), "demand_factors": pred["demand_factors"]},
        "counterfactuals": counterfactuals(real, sim, kind, workload.shares()),
    }


def span_tests(
    name: str, version: str, *, reps: int, duration: float, warmup: float, seed: int
) -> tuple[list[LoadTestRun], list[LoadTestRun]]:
    """Load tests of the original and ``version`` with their spans, taking turns.

    :func:`~benchmarks.reproduce_liao.run_oracle` keeps the spans of the
    fixed workload's original only; these show where a version's requests
    spend the time they gained.
    """
    base: list[LoadTestRun] = []
    runs: list[LoadTestRun] = []
    for k in range(reps):
        for v, out in (("original", base), (version, runs)):
            inj = Injection() if v == "original" else Injection.parse(v)
            out.append(
                run_load_test(inj, rl.SCENARIOS[name], duration=duration, warmup=warmup,
                              seed=seed + 31 * k + 7, keep_spans=True)
            )  # fmt: skip
    return base, runs


def span_times(runs: Sequence[LoadTestRun], kind: str) -> dict[str, dict[str, float]]:
    """Per component (span name) in the traces of ``kind``: mean and median wall and CPU ms.

    ``"response"`` is the load generator's response time of ``kind``
    (from the scheduled send to the end of the reply).
    """
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for r in runs:
        traces = {s["trace_id"] for s in r.spans if s["parent_id"] is None and s["name"] == kind}
        for s in r.spans:
            if s["trace_id"] in traces:
                wall.setdefault(s["name"], []).append((s["end"] - s["start"]) * 1e3)
                cpu.setdefault(s["name"], []).append(float(s["cpu"]) * 1e3)
    x, kx = pooled(runs)
    resp = x[kx == kind]
    out = {
        "response": {
            "n": int(resp.size),
            "wall_mean": float(resp.mean()) if resp.size else float("nan"),
            "wall_median": float(np.median(resp)) if resp.size else float("nan"),
        }
    }
    for name, w in wall.items():
        out[name] = {
            "n": len(w),
            "wall_mean": float(np.mean(w)),
            "wall_median": float(np.median(w)),
            "cpu_mean": float(np.mean(cpu[name])),
            "cpu_median": float(np.median(cpu[name])),
        }
    return out


def root_times(runs: Sequence[LoadTestRun]) -> dict[str, dict[str, float]]:
    """Per request type: its root span's wall ms (time in the services) and its response ms.

    What the response time holds beyond the root span (the load
    generator's threads, the connection to the gateway) is the same for
    every type if it does not change Cliff's delta between types.
    """
    roots: dict[str, list[float]] = {}
    for r in runs:
        for s in r.spans:
            if s["parent_id"] is None:
                roots.setdefault(str(s["name"]), []).append((s["end"] - s["start"]) * 1e3)
    x, kx = pooled(runs)
    out = {}
    for kind, w in sorted(roots.items()):
        resp = x[kx == kind]
        out[kind] = {
            "root_mean": float(np.mean(w)),
            "root_median": float(np.median(w)),
            "response_mean": float(resp.mean()) if resp.size else float("nan"),
            "response_median": float(np.median(resp)) if resp.size else float("nan"),
        }
    return out


def model_residence(
    model: rl.Model, name: str, factors: Mapping[str, Any], kind: str
) -> dict[str, dict[str, float]]:
    """The model's mean time (ms) of ``kind`` at each station, original and version (analytic)."""
    net = model.network(rl.SCENARIOS[name])
    before = net.solve().residence_time[kind]
    after = net.with_demand_factors(factors).solve().residence_time[kind]
    out = {s: {"before": before[s] * 1e3, "after": after[s] * 1e3} for s in before}
    out["total"] = {k: sum(v[k] for v in out.values()) for k in ("before", "after")}
    return out


def run(
    scenarios: Sequence[str],
    versions: Sequence[str],
    settings: rl.Settings,
    *,
    seed: int,
    span_reps: int,
) -> dict[str, Any]:
    """The load tests, the model and the predictions of reproduce_liao, split per request type.

    Then ``span_reps`` load tests with spans per version and scenario
    (:func:`span_tests`): the slowed type's time per component.
    """
    t0 = time.time()
    duration, warmup = settings.duration, settings.warmup
    load = rl.run_oracle(scenarios, versions, duration=duration, warmup=warmup,
                         reps=settings.reps, seed=seed, bar=None,
                         original_every=settings.original_every)  # fmt: skip
    model, calibration = rl.calibrated_model(load["fixed"][0], settings, seed=seed)
    rows = []
    aa = {}
    for name in scenarios:
        base, by_version = load[name]
        aa[name] = aa_per_type(base, sorted(rl.SCENARIOS[name].shares()))
        for i, version in enumerate(versions):
            pred, _ = rl.predict(
                version, model, rl.SCENARIOS[name], rng=seed + i,
                component_runs=settings.component_runs,
                simulated_requests=settings.simulated_requests,
            )  # fmt: skip
            rows.append(
                analyse(
                    name,
                    version,
                    base,
                    by_version[version],
                    model,
                    pred,
                    seed + i,
                    settings.simulated_requests,
                )
            )
    for row in rows if span_reps > 0 else []:
        kind = row["slowed_type"]
        sb, sv = span_tests(row["scenario"], row["version"], reps=span_reps, duration=duration,
                            warmup=warmup, seed=seed)  # fmt: skip
        row["spans"] = {
            "n_runs": span_reps,
            "before": span_times(sb, kind),
            "after": span_times(sv, kind),
            "model_residence": model_residence(
                model, row["scenario"], row["model"]["demand_factors"], kind
            ),
            "types_before": root_times(sb),
            "model_mean_before": {
                k: v * 1e3
                for k, v in model.network(rl.SCENARIOS[row["scenario"]])
                .solve()
                .response_time.items()
            },
        }
    return {
        "settings": {
            "scenarios": list(scenarios), "versions": list(versions), "duration_s": duration,
            "warmup_s": warmup, "reps": settings.reps, "seed": seed,
            "component_runs": settings.component_runs,
            "simulated_requests": settings.simulated_requests, "slowdown": settings.slowdown,
            "calibration_drives": settings.calibration_drives, "span_reps": span_reps,
            "threshold": rl.SMALL_DELTA, "python": sys.version.split()[0],
        },
        "model": {
            "demands_ms": {s: {k: v * 1e3 for k, v in d.items()} for s, d in model.demands.items()},
            "scv": model.scv,
            "slowdown": model.slowdown,
            "calibration": calibration,
        },
        "aa": aa,
        "rows": rows,
        "wall_s": time.time() - t0,
    }  # fmt: skip


def _f(x: float, fmt: str = "+.3f") -> str:
    return "nan" if x is None or np.isnan(x) else format(x, fmt)


def format_text(doc: Mapping[str, Any]) -> str:
    """The per-type tables, one block per scenario and version."""
    st = doc["settings"]
    lines = [
        f"{st['reps']} load test(s) per version ({st['duration_s']:g} s after {st['warmup_s']:g} s"
        f" warm-up), the original before, between and after them; model of reproduce_liao "
        f"({'load-dependent' if st['slowdown'] else 'fixed'} demands), "
        f"{st['simulated_requests']} simulated requests per version",
        "model demands ms: " + "; ".join(
            f"{s} " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(d.items()))
            for s, d in doc["model"]["demands_ms"].items()
        ) + "; scv " + ", ".join(f"{s} {v:.3f}" for s, v in doc["model"]["scv"].items()),
    ]  # fmt: skip
    cal = doc["model"].get("calibration")
    if cal is not None:
        lines.append(
            "calibration load tests of the original (model load "
            f"{cal['target_load']:g}): "
            + "; ".join(
                f"{'+'.join(w['mix'])} {w['rate']:.0f}/s for {w['station']}, "
                f"{len(w['runs'])} test(s), CPU % "
                + " ".join(
                    f"{s[:3]} {np.mean([r['cpu_percent'][s] for r in w['runs']]):.0f}"
                    for s in w["runs"][0]["cpu_percent"]
                )
                for w in cal["workloads"]
            )
            + "; slowdown by calls in flight 1, 2, ...: "
            + "; ".join(
                f"{s} " + ("none" if t is None else " ".join(f"{g:.3f}" for g in t))
                for s, t in doc["model"]["slowdown"].items()
            )
        )
    for name, aa in doc["aa"].items():
        lines.append(
            f"A/A {name} (originals pairwise, max |delta|): "
            + ", ".join(f"{k} {v:.3f}" for k, v in aa["abs_max"].items())
        )
    for row in doc["rows"]:
        o, m, cf = row["oracle"], row["model"], row["counterfactuals"]
        lines += [
            "",
            f"== {row['scenario']} {row['version']} ({row['component']}, slows "
            f"{row['slowed_type']}); mix "
            + ", ".join(f"{k} {v:.2f}" for k, v in row["mix"].items())
            + f"; whole-mix delta load tests {_f(o['cliffs_delta'])} (p {o['p_value']:.2g}, "
            f"{'R' if o['regression'] else '-'}), model {_f(m['cliffs_delta'])} "
            f"({'R' if m['regression'] else '-'})",
            f"{'':9}| {'share orig/ver':>14} {'delta':>6} {'med x':>6} {'shift':>6} "
            f"{'median':>6} {'IQR':>5} {'IQR/m':>5} {'contrib':>7} "
            f"| {'share':>5} {'delta':>6} {'med x':>6} {'shift':>6} {'median':>6} {'IQR':>5} "
            f"{'IQR/m':>5} {'contrib':>7}",
            f"{'type':<9}| {'load tests (ms; median, IQR of the original)':<66}| model",
        ]
        for k in sorted(o["per_type"]):
            r, s = o["per_type"][k], m["per_type"][k]
            lines.append(
                f"{k:<9}| {r['share_before']:>6.3f}/{r['share_after']:.3f} "
                f"{_f(r['cliffs_delta']):>6} {_f(r['median_ratio'], '.3f'):>6} "
                f"{_f(r['median_shift_ms'], '+.2f'):>6} {_f(r['before']['median'], '.2f'):>6} "
                f"{_f(r['before']['iqr'], '.2f'):>5} {_f(r['before']['iqr_rel'], '.2f'):>5} "
                f"{_f(o['contributions'][k]):>7} "
                f"| {s['share_before']:>5.3f} {_f(s['cliffs_delta']):>6} "
                f"{_f(s['median_ratio'], '.3f'):>6} {_f(s['median_shift_ms'], '+.2f'):>6} "
                f"{_f(s['before']['median'], '.2f'):>6} {_f(s['before']['iqr'], '.2f'):>5} "
                f"{_f(s['before']['iqr_rel'], '.2f'):>5} {_f(m['contributions'][k]):>7}"
            )
        kind = row["slowed_type"]
        lines.append(
            f"   {kind} against each type of the original, delta before -> after: load tests "
            + ", ".join(f"{j} {_f(v['before'])} -> {_f(v['after'])}" for j, v in o["cross"].items())
            + "; model "
            + ", ".join(f"{j} {_f(v['before'])} -> {_f(v['after'])}" for j, v in m["cross"].items())
        )
        lines.append(
            f"   counterfactual whole-mix deltas: load tests with only {kind} changed "
            f"{_f(cf['real_only_slowed_type'])}; {kind} moved by a constant, the load tests' "
            f"median shift ({_f(cf['real_shift_ms'], '+.2f')} ms) or the model's "
            f"({_f(cf['model_shift_ms'], '+.2f')} ms): load tests' original "
            f"{_f(cf['real_with_real_shift'])} / {_f(cf['real_with_model_shift'])}, model's "
            f"original {_f(cf['model_with_real_shift'])} / {_f(cf['model_with_model_shift'])}; "
            "load tests at the model's shares "
            f"{_f(cf['real_model_shares'])}; model at the load tests' shares "
            f"{_f(cf['model_real_shares'])}"
        )
        if "spans" in row:
            sp = row["spans"]
            b, v = sp["before"], sp["after"]
            parts = []
            for comp in b:
                if comp not in v:
                    continue
                cell = (
                    f"{comp} {b[comp]['wall_mean']:.2f} -> {v[comp]['wall_mean']:.2f} "
                    f"(median {b[comp]['wall_median']:.2f} -> {v[comp]['wall_median']:.2f}"
                )
                if "cpu_mean" in b[comp]:
                    cell += f"; CPU {b[comp]['cpu_mean']:.2f} -> {v[comp]['cpu_mean']:.2f}"
                parts.append(cell + ")")
            lines.append(
                f"   {kind}'s time per component, {sp['n_runs']} load test(s) with spans per "
                "version (mean wall ms, original -> version): " + "; ".join(parts)
            )
            lines.append(
                f"   model's mean time of {kind} per station (ms, original -> version): "
                + "; ".join(
                    f"{s} {r['before']:.2f} -> {r['after']:.2f}"
                    for s, r in sp["model_residence"].items()
                )
            )
        if "spans" in row:
            tb, mm = row["spans"]["types_before"], row["spans"]["model_mean_before"]
            lines.append(
                "   original, per type (ms): load tests' root span mean/median and response "
                "median; model mean/median: "
                + "; ".join(
                    f"{k} {t['root_mean']:.2f}/{t['root_median']:.2f} "
                    f"{t['response_median']:.2f}; {mm.get(k, float('nan')):.2f}/"
                    f"{m['per_type'][k]['before']['median']:.2f}"
                    for k, t in tb.items()
                    if k in m["per_type"]
                )
            )
        lines.append(
            "   CPU change load tests/model (points): "
            + ", ".join(f"{s} {o['cpu_mpd'][s]:+.2f}/{m['cpu_mpd'][s]:+.2f}" for s in o["cpu_mpd"])
        )
    lines.append(f"wall {doc['wall_s']:.0f} s")
    return "\n".join(lines)


#: The figures of one row that the summary over runs lists.
SUMMARY_KEYS = (
    "oracle", "model", "only_slowed_type", "real_with_real_shift", "real_with_model_shift",
    "model_with_model_shift", "model_with_real_shift",
    "real_shift_ms", "model_shift_ms", "slowed_contribution_real", "slowed_contribution_model",
    "others_contribution_real",
)  # fmt: skip


def row_summary(row: Mapping[str, Any]) -> dict[str, float]:
    """One row's headline figures (see :data:`SUMMARY_KEYS`)."""
    o, m, cf, kind = row["oracle"], row["model"], row["counterfactuals"], row["slowed_type"]
    return {
        "oracle": o["cliffs_delta"],
        "model": m["cliffs_delta"],
        "only_slowed_type": cf["real_only_slowed_type"],
        "real_with_real_shift": cf["real_with_real_shift"],
        "real_with_model_shift": cf["real_with_model_shift"],
        "model_with_model_shift": cf["model_with_model_shift"],
        "model_with_real_shift": cf["model_with_real_shift"],
        "real_shift_ms": cf["real_shift_ms"],
        "model_shift_ms": cf["model_shift_ms"],
        "slowed_contribution_real": o["contributions"][kind],
        "slowed_contribution_model": m["contributions"][kind],
        "others_contribution_real": sum(v for k, v in o["contributions"].items() if k != kind),
    }


def repeat_summary(docs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per scenario and version: the headline figures of every run, their mean, the verdicts."""
    out: dict[str, Any] = {}
    for doc in docs:
        for row in doc["rows"]:
            key = f"{row['scenario']} {row['version']}"
            entry = out.setdefault(key, {"runs": [], "oracle_regression": [],
                                         "model_regression": []})  # fmt: skip
            entry["runs"].append(row_summary(row))
            entry["oracle_regression"].append(bool(row["oracle"]["regression"]))
            entry["model_regression"].append(bool(row["model"]["regression"]))
    for entry in out.values():
        entry["mean"] = {k: float(np.mean([r[k] for r in entry["runs"]])) for k in SUMMARY_KEYS}
    return out


def format_summary(summary: Mapping[str, Any]) -> str:
    """The headline figures per run (one column each) and their mean."""
    lines = ["== summary: per run, then the mean (whole-mix Cliff's delta unless said)"]
    labels = {
        "oracle": "load tests",
        "model": "model",
        "only_slowed_type": "load tests, only the slowed type changed",
        "real_with_real_shift": "load tests' original + their shift",
        "real_with_model_shift": "load tests' original + model's shift",
        "model_with_model_shift": "model's original + its shift",
        "model_with_real_shift": "model's original + load tests' shift",
        "real_shift_ms": "slowed type's median shift ms, load tests",
        "model_shift_ms": "slowed type's median shift ms, model",
        "slowed_contribution_real": "slowed type's contribution, load tests",
        "slowed_contribution_model": "slowed type's contribution, model",
        "others_contribution_real": "other types' contribution, load tests",
    }
    for key, entry in summary.items():
        verdicts = " ".join(
            ("R" if o else "-") + "/" + ("R" if m else "-")
            for o, m in zip(entry["oracle_regression"], entry["model_regression"], strict=True)
        )
        lines.append(f"{key}: verdict load tests/model per run {verdicts}")
        for k in SUMMARY_KEYS:
            fmt = "+.2f" if k.endswith("_ms") else "+.3f"
            cells = " ".join(format(r[k], fmt) for r in entry["runs"])
            lines.append(f"   {labels[k]:<44} {cells}   mean {format(entry['mean'][k], fmt)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scenarios", default="fixed,variant2", help="comma-separated workloads of reproduce_liao"
    )
    parser.add_argument("--versions", default="L2-High", help="comma-separated, e.g. L2-High")
    parser.add_argument("--reps", type=int, default=3, help="load tests per version")
    parser.add_argument("--duration", type=float, default=12.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=20250)
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="independent runs of everything (fresh seeds, load tests, model)",
    )
    parser.add_argument(
        "--span-reps",
        type=int,
        default=2,
        help="load tests with spans per version, for the time per component (0: none)",
    )
    parser.add_argument(
        "--json", type=Path, default=DEFAULT_JSON, help="results (and a .txt beside them)"
    )
    parser.add_argument(
        "--calibration-drives",
        default="every",
        choices=rl.CALIBRATION_DRIVES,
        help="calibration load tests for every station (default), the busiest only, or "
        "every request type alone (reproduce_liao's --calibration-drives)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one short load test per version, short calibration tests, few runs (a test)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be >= 1, got {args.repeat}")
    scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    versions = [v.strip() for v in args.versions.split(",") if v.strip()]
    for s in scenarios:
        if s not in rl.SCENARIOS:
            parser.error(f"unknown scenario {s!r}; choose from {', '.join(rl.SCENARIOS)}")
    for v in versions:
        if v not in rl.VERSIONS:
            parser.error(f"unknown version {v!r}; choose from {', '.join(rl.VERSIONS)}")
    settings = rl.Settings(duration=args.duration, warmup=args.warmup, reps=args.reps,
                           calibration_drives=args.calibration_drives)  # fmt: skip
    span_reps = args.span_reps
    if args.quick:
        settings = rl.Settings(duration=1.5, warmup=0.5, reps=1, component_runs=4,
                               simulated_requests=1_000,
                               calibration_drives=args.calibration_drives)  # fmt: skip
        span_reps = min(args.span_reps, 1)
    docs = [
        run(scenarios, versions, settings, seed=rl.round_seed(args.seed, r), span_reps=span_reps)
        for r in range(args.repeat)
    ]
    doc: dict[str, Any] = {"runs": docs, "summary": repeat_summary(docs)}
    command = "python -m benchmarks.liao_per_class " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    text = f"# command: {command}\n" + "\n\n".join(
        f"##### run {r + 1} of {len(docs)} (seed {d['settings']['seed']})\n" + format_text(d)
        for r, d in enumerate(docs)
    )
    text += "\n\n" + format_summary(doc["summary"])
    print(text)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"command": command, **doc}, indent=1, default=float) + "\n")
    args.json.with_suffix(".txt").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
