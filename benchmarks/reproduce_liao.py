"""Liao et al.: system-level regression verdicts from component benchmarks, against load tests.

The evaluation of Liao et al. (Section IV, Tables I and II) on the example
shop of ``examples/shop`` (three services on 127.0.0.1):

* **Oracle.** For every version (no regression, and L1..L3 x Low/Medium/High
  = a busy wait of 10/50/250% of the component's own time) a real open-loop
  load test (Poisson arrivals, request mix of the scenario, warm-up
  excluded), repeated ``--reps`` times; the repetitions are interleaved
  (all versions once, then again, each round in another order) so that the
  machine's drift hits every version alike, and the original runs between
  every ``--original-every`` versions (:func:`round_order`): this machine's
  speed drifts by 20% over minutes, and an original measured only at the
  start of each round once made all nine versions of a workload look
  slower (or faster) than it. The scenarios take turns round by round
  (:func:`oracle_schedule`), so that the model's load tests and every
  scenario's span the same minutes. Response times are pooled over the
  repetitions; a version regresses when the rank-sum p <= 0.05 and Cliff's
  delta is positive and beyond negligible (:func:`perfstats.local_deviation`),
  the same rule as the model's verdict. CPU % per service comes from the
  processes' CPU time.
* **Model.** Built once from the load tests of the original version under
  the fixed workload (paper IV-E): the system call graph from the services'
  spans, the queueing network's demands by the utilisation law
  (:func:`perfstats.calibrate`). The variants reuse it with their own
  arrival rates.
* **Slowdown under load (beyond the paper).** A CPython service spends more
  CPU per call the more calls it serves at once (its threads take turns
  every switch interval), which a model with fixed demands misses when a
  regression pushes a service towards saturation. Calibration load tests
  of the *original* version measure each service's CPU per call against
  the calls in flight: one workload per request type that drives a
  station (``--calibration-drives every``, the default: every station is
  driven by the request type that spends the largest share of its demand
  there, at the rate the model says puts the station at
  ``--calibration-load``; so checkout drives pricing and browse the
  catalogue and the gateway), only the busiest station's
  (``--calibration-drives busiest``), or one per request type, each alone
  (``--calibration-drives types``: no type's demands are then the rest of
  the mixed test's CPU). The stations become load-dependent
  (``perfstats.system.queueing.Station(slowdown=...)``) and their demands those of
  a request served alone. Each calibration workload's single request type
  also gets its demand at each service it visits from that workload's
  utilisation law (exact for one type, where splitting a mixed test's CPU
  by span time is not); the other types share the rest of the mixed
  test's CPU. Nothing of a regressed version enters the model.
  ``--slowdown none`` gives the paper's load-independent stations without
  a calibration.
* **Prediction.** Per version: the shop's component test suites before and
  after (30 runs each, and a cProfile profile), then the pipeline of
  :func:`perfstats.detect_system_regression` (local deviations, mapping onto
  the system graph, propagation to service demands, simulation of the
  model before and after). Its wall time includes the component benchmarks.
  Two departures from the paper, each with an ablation switch: a deviated
  component's change is carried as its relative change (the median of
  its per-run ratios after/before, runs of the two versions back to back)
  times its CPU time per call in the system's spans (the benchmark process
  and the services run at different speeds on this machine; ``--local-md``
  carries the local MD as the paper does), and each station's service
  times have the variability measured from the spans (``--service-times exponential``
  for the textbook exponential).

* **Repeated rounds** (``--rounds R --aa K``). First the oracle's own
  noise: ``K`` load tests of the unchanged shop per workload (the
  workloads taking turns), every pair's Cliff's delta and rank-sum p, and
  the load-test duration (or the number of pooled load tests) that would
  keep ``|delta|`` under "small" (0.147) in 95% of pairs
  (:func:`aa_summary`); ``--aa-pool P`` pools ``P`` load tests into each
  of the ``K`` samples, the oracle's own sample size when ``P`` is
  ``--reps``. Then ``R`` independent evaluations, each with its
  own load tests, calibration load tests, component benchmarks and model,
  the versions in another order each round: agreement per workload as
  min/median/max over the rounds, each version's oracle verdict stable
  (the same in every round) or not, agreement on the stable verdicts, the
  CPU figures' max ``|difference|`` per round (:func:`rounds_summary`).
  The JSON and text are rewritten after the A/A tests and every round.

Scenarios: ``fixed`` (the original workload), ``variant1`` (higher arrival
rate), ``variant2`` (another request mix), ``variant3`` (both).

Usage::

    python -m benchmarks.reproduce_liao --scenario all \
        --json benchmarks/results/system_regression.json
    python -m benchmarks.reproduce_liao --scenario fixed --versions L1-High,L3-Low \
        --duration 5 --reps 1
    python -m benchmarks.reproduce_liao --scenario all --rounds 3 --aa 5 --reps 1 \
        --duration 12 --warmup 3 --json benchmarks/results/liao_rounds.json

References: L. Liao, S. Eismann, H. Li, C.-P. Bezemer, D. E. Costa, A. van
Hoorn and W. Shang, "Early Detection of Performance Regressions by Bridging
Local Performance Data and Architectural Models", ICSE 2025.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

import numpy as np
from tqdm import tqdm

import perfstats
from examples.shop.cluster import ORDER
from examples.shop.component_benchmark import relative_changes, run_components
from examples.shop.component_tests import SUITES
from examples.shop.injection import INTENSITIES, LOCATIONS, Injection
from examples.shop.loadgen import Workload
from examples.shop.loadtest import LoadTestRun, run_load_test
from examples.shop.server import switch_interval
from perfstats.system.calibration import Calibration, calibrate, slowdown_tables
from perfstats.system.propagation import propagate_per_class

FIXED_MIX = {"browse": 0.5, "product": 0.3, "checkout": 0.2}
OTHER_MIX = {"browse": 0.2, "product": 0.3, "checkout": 0.5}
BASE_RATE = 50.0
HIGH_RATE = 80.0
SCENARIOS: dict[str, Workload] = {
    "fixed": Workload(BASE_RATE, FIXED_MIX),
    "variant1": Workload(HIGH_RATE, FIXED_MIX),
    "variant2": Workload(BASE_RATE, OTHER_MIX),
    "variant3": Workload(HIGH_RATE, OTHER_MIX),
}
VERSIONS = tuple(f"{loc}-{level}" for loc in LOCATIONS for level in INTENSITIES)
ALPHA = 0.05
COMPONENT_RUNS = 30
#: Versions between two load tests of the original in a round (round_order).
ORIGINAL_EVERY = 3
# ciw simulates a few thousand requests a second here; 5,000 per version (with
# common random numbers) keep the simulation noise of Cliff's delta near 0.01
# and the prediction within seconds.
SIMULATED_REQUESTS = 5_000
# The calibration load test puts the model's busiest station at this
# utilisation (by the model): high enough for several calls in flight most
# of the time, below saturation so that the test stays a steady state.
CALIBRATION_LOAD = 0.85
CALIBRATION_REPS = 3
# Calibration tests in all, at most, while the busiest station's slowdown
# table still lacks calls (see run_calibration).
CALIBRATION_MAX_REPS = 8
#: Which stations the calibration load tests drive (calibration_targets).
CALIBRATION_DRIVES = ("every", "busiest", "types")


@dataclass(frozen=True)
class Model:
    """The architectural model recovered from the original version's load tests.

    ``calibration`` holds the queueing model's parameters
    (:func:`perfstats.calibrate`); ``system_graphs`` the call graph of each
    request type.
    """

    system_graphs: dict[str, Any]
    calibration: Calibration
    wall_s: float
    service_times: str = "measured"
    #: Whether the stations are load-dependent (a calibration load test was used).
    load_dependent: bool = field(default=False)

    @property
    def demands(self) -> dict[str, dict[str, float]]:
        return {s: dict(d) for s, d in self.calibration.demands.items()}

    @property
    def scv(self) -> dict[str, float]:
        return dict(self.calibration.scv)

    @property
    def component_cpu(self) -> dict[str, dict[str, float]]:
        return {k: dict(v) for k, v in self.calibration.component_cpu.items()}

    @property
    def slowdown(self) -> dict[str, tuple[float, ...] | None] | None:
        return dict(self.calibration.slowdown) if self.load_dependent else None

    def network(self, workload: Workload) -> Any:
        return self.calibration.network(workload.arrival_rates())


def system_graphs(spans: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Request type -> its system call graph (:meth:`perfstats.CallGraph.from_spans`).

    Span times are wall-clock and leave out the CPU a service spends outside
    any span (its HTTP stack), so they are not the model's demands: the
    propagation divides each change by the model's demand instead
    (``perfstats.propagate(..., demand_before=...)``).
    """
    kinds = sorted({str(s["name"]) for s in spans if s["parent_id"] is None})
    return {kind: perfstats.CallGraph.from_spans(spans, root=kind) for kind in kinds}


def local_graph(profile: Any) -> Any:
    """The call graph of the shop's component tests (one node per shop component)."""
    service_of = {name: service for service, suite in SUITES.items() for name in suite}
    modules = {f"{service}.py" for service in SUITES}

    def name(func: tuple[str, int, str]) -> str | None:
        filename, _, funcname = func
        if funcname in service_of and filename.rsplit("/", 1)[-1] in modules:
            return funcname
        return None

    return perfstats.CallGraph.from_pstats(profile, subsystem=service_of, name=name)


def busiest_station(model: Model) -> str:
    """The station the fixed workload loads most, by the load-independent model."""
    offered = model.network(SCENARIOS["fixed"]).offered_load()
    return max(offered, key=offered.__getitem__)


def station_driver(model: Model, station: str) -> str:
    """The request type that spends the largest share of its demand at ``station``.

    It drives the station while loading the other services least.
    """
    total: dict[str, float] = {}
    for d in model.demands.values():
        for kind, v in d.items():
            total[kind] = total.get(kind, 0.0) + v
    own = model.demands[station]
    return max(own, key=lambda k: own[k] / total[k])


def calibration_workload(model: Model, load: float = CALIBRATION_LOAD) -> Workload:
    """The busiest station's calibration load test's workload, from the load-independent model.

    The busiest station under the fixed workload is the one a regression
    pushes towards saturation first. One request type drives it
    (:func:`station_driver`), at the rate that puts the station at ``load``.
    """
    if not 0.0 < load < 1.0:
        raise ValueError(f"calibration load must be in (0, 1), got {load!r}")
    busiest = busiest_station(model)
    kind = station_driver(model, busiest)
    return Workload(load / model.demands[busiest][kind], {kind: 1.0})


def calibration_targets(
    model: Model, load: float = CALIBRATION_LOAD, drives: str = "every"
) -> list[tuple[str, Workload]]:
    """The calibration load tests' workloads, each with the station that sets its rate.

    ``drives="busiest"``: :func:`calibration_workload` only. ``"every"``:
    every station is driven by its :func:`station_driver`, and each such
    request type runs alone at the rate that puts the most loaded of the
    stations it drives at ``load`` (by the load-independent model), so that
    no station lacks a slowdown table because the busiest one's request
    type never reaches it (a checkout never reaches the catalogue).
    ``"types"``: every request type runs alone, at the rate that puts the
    station where it spends most at ``load``, so that no type's demand is
    what is left of a mixed test's CPU once the others' are taken out (that
    rest also holds whatever CPU the mix costs beyond its types alone). The
    workloads come in order of their stations' load under the fixed
    workload, the busiest's first.
    """
    if drives not in CALIBRATION_DRIVES:
        raise ValueError(f"drives must be one of {CALIBRATION_DRIVES}, got {drives!r}")
    if drives == "busiest":
        return [(busiest_station(model), calibration_workload(model, load))]
    if not 0.0 < load < 1.0:
        raise ValueError(f"calibration load must be in (0, 1), got {load!r}")
    offered = model.network(SCENARIOS["fixed"]).offered_load()
    targets: dict[str, tuple[str, float]] = {}
    for station in sorted(offered, key=offered.__getitem__, reverse=True):
        own = model.demands[station]
        kinds = list(own) if drives == "types" else [station_driver(model, station)]
        for kind in kinds:
            rate = load / own[kind]
            if kind not in targets or rate < targets[kind][1]:
                targets[kind] = (station, rate)
    order = sorted(targets.items(), key=lambda item: -offered[item[1][0]])
    return [(station, Workload(rate, {kind: 1.0})) for kind, (station, rate) in order]


def run_calibration(
    workload: Workload,
    *,
    duration: float,
    warmup: float,
    seed: int,
    reps: int = CALIBRATION_REPS,
    station: str | None = None,
    max_reps: int = CALIBRATION_MAX_REPS,
) -> list[LoadTestRun]:
    """Load tests of the original version at the calibration workload, with spans.

    ``reps`` tests, then, given a ``station``, more (``max_reps`` in all at
    most) until that station's slowdown table has a second bin of
    :data:`perfstats.system.calibration.MIN_BIN_CALLS` calls. Short tests (as in
    CI) may see too few calls with two requests in flight, and the station
    would then be modelled as load-independent by chance; the first
    ``reps`` tests, and so a long evaluation's numbers, are the same either way.
    """
    if not 1 <= reps <= max_reps:
        raise ValueError(f"need 1 <= reps <= max_reps, got reps={reps}, max_reps={max_reps}")
    runs: list[LoadTestRun] = []
    while len(runs) < reps or (
        station is not None
        and len(runs) < max_reps
        and slowdown_tables([r.spans for r in runs], [station])[station] is None
    ):
        runs.append(run_load_test(Injection(), workload, duration=duration, warmup=warmup,
                                  seed=seed + 7919 * (len(runs) + 1), keep_spans=True))  # fmt: skip
    return runs


def build_model(runs: Sequence[LoadTestRun], *, service_times: str = "measured") -> Model:
    """Demands by the utilisation law, per request type a system graph, per service the scv.

    The queueing model's parameters are :func:`perfstats.calibrate`'s; one
    single-server station per service (a CPython process runs its CPU-bound
    work one thread at a time), one request class per request type.
    ``service_times="exponential"`` gives every station exponential service
    times (scv 1) instead of the variability measured from the spans.
    """
    t0 = time.perf_counter()
    calibration = calibrate(runs, stations=ORDER, service_times=service_times)
    graphs = system_graphs([s for run in runs for s in run.spans])
    return Model(graphs, calibration, time.perf_counter() - t0, service_times)


def with_calibration(
    model: Model,
    runs: Sequence[LoadTestRun],
    calibration: Sequence[LoadTestRun] | Sequence[Sequence[LoadTestRun]],
) -> Model:
    """``model`` (built from ``runs``) with load-dependent stations from ``calibration``.

    ``calibration``: load tests of the original version at a higher load
    (:func:`run_calibration`), one list of them or one list per calibration
    workload; each service's slowdown with the calls in flight comes from
    them, and the demands become those of a request served alone
    (:func:`perfstats.calibrate` with a calibration).
    """
    t0 = time.perf_counter()
    cal = calibrate(runs, calibration, stations=ORDER, service_times=model.service_times)
    return replace(
        model, calibration=cal, load_dependent=True,
        wall_s=model.wall_s + time.perf_counter() - t0,
    )  # fmt: skip


@dataclass(frozen=True)
class Settings:
    """How an evaluation measures: its load tests, component benchmarks, model and simulation.

    :func:`evaluate` takes these as keywords; :func:`calibrated_model` and
    the per-request-type evaluation (``benchmarks/liao_per_class.py``) take
    them as one object.
    """

    duration: float
    warmup: float
    reps: int
    component_runs: int = COMPONENT_RUNS
    simulated_requests: int = SIMULATED_REQUESTS
    service_times: str = "measured"
    slowdown: bool = True
    calibration_load: float = CALIBRATION_LOAD
    calibration_drives: str = "every"
    original_every: int = ORIGINAL_EVERY


def calibrated_model(
    runs: Sequence[LoadTestRun],
    settings: Settings,
    *,
    seed: int,
    calibration_runs: Sequence[LoadTestRun] | Sequence[Sequence[LoadTestRun]] | None = None,
    on_calibration: Callable[[list[list[LoadTestRun]]], None] | None = None,
    bar: tqdm | None = None,
) -> tuple[Model, dict[str, Any] | None]:
    """The model of the original's load tests ``runs``, and what its calibration ran.

    :func:`build_model`, then with ``settings.slowdown`` the calibration load
    tests of :func:`calibration_targets` (``calibration_runs`` if given, one
    list per workload or a flat list for a single one; else run here by
    :func:`run_calibration`, one workload after the other, and handed to
    ``on_calibration``) and :func:`with_calibration`. The second value
    describes the calibration for the results (``None`` without one).
    """
    model = build_model(runs, service_times=settings.service_times)
    if not settings.slowdown:
        return model, None
    targets = calibration_targets(model, settings.calibration_load, settings.calibration_drives)
    if calibration_runs is None:
        if bar is not None:
            bar.set_postfix_str("calibration load test")
        groups = [
            run_calibration(
                workload, duration=settings.duration, warmup=settings.warmup,
                # each workload's seeds follow the previous one's (at most max_reps)
                seed=seed + 7919 * CALIBRATION_MAX_REPS * i, station=station,
            )
            for i, (station, workload) in enumerate(targets)
        ]  # fmt: skip
        if on_calibration is not None:
            on_calibration(groups)
    elif calibration_runs and isinstance(calibration_runs[0], LoadTestRun):
        # a flat list (a pickle from before several workloads) is one workload
        groups = [list(cast(Sequence[LoadTestRun], calibration_runs))]
    else:
        groups = [list(g) for g in cast(Sequence[Sequence[LoadTestRun]], calibration_runs)]
    if len(groups) != len(targets):
        raise ValueError(
            f"{len(groups)} calibration workload(s) given, the model needs {len(targets)} "
            f"({settings.calibration_drives!r})"
        )
    model = with_calibration(model, runs, groups)
    workloads: list[dict[str, Any]] = [
        {
            "station": station,
            "rate": workload.rate,
            "mix": dict(workload.mix),
            "runs": [run_summary(r) for r in group],
            "load_tests_s": float(sum(r.wall_s for r in group)),
        }
        for (station, workload), group in zip(targets, groups, strict=True)
    ]
    return model, {
        "target_load": settings.calibration_load,
        "drives": settings.calibration_drives,
        # the busiest station's workload, as before several workloads
        "workload": {"rate": workloads[0]["rate"], "mix": workloads[0]["mix"]},
        "workloads": workloads,
        "runs": [run_summary(r) for group in groups for r in group],
        "load_tests_s": float(sum(w["load_tests_s"] for w in workloads)),
    }


# --- the oracle -------------------------------------------------------------


def oracle_verdict(before: Sequence[LoadTestRun], after: Sequence[LoadTestRun]) -> dict[str, Any]:
    """The load tests' verdict: pooled response times, mean CPU % per service."""
    b = np.concatenate([r.response_ms for r in before])
    a = np.concatenate([r.response_ms for r in after])
    dev = perfstats.local_deviation(b, a, alpha=ALPHA, unit="ms")
    # Which request types are slower on their own, for the table's reader.
    kb = np.concatenate([r.kinds for r in before])
    ka = np.concatenate([r.kinds for r in after])
    slower_types = []
    for kind in sorted(set(kb.tolist()) & set(ka.tolist())):
        xb, xa = b[kb == kind], a[ka == kind]
        if xb.size >= 2 and xa.size >= 2:
            d = perfstats.local_deviation(xb, xa, alpha=ALPHA, unit="ms")
            if d.deviated and d.cliffs_delta > 0:
                slower_types.append(str(kind))
    cpu = {
        s: float(np.mean([r.cpu_percent[s] for r in after]))
        - float(np.mean([r.cpu_percent[s] for r in before]))
        for s in ORDER
    }
    return {
        "mpd_ms": dev.md,
        "cliffs_delta": dev.cliffs_delta,
        "magnitude": dev.magnitude,
        "p_value": dev.pvalue,
        # The direction is Cliff's delta's, as in the model's verdict
        # (perfstats.predict_regression) and the paper: a few requests
        # stalled for a second by a busy host move the mean of either side
        # more than a regression that slows most requests.
        "regression": bool(dev.deviated and dev.cliffs_delta > 0),
        # Per request type (not the verdict: on this shared machine the
        # load tests' own A/A noise moves one type's delta by up to 0.34).
        "slower_request_types": slower_types,
        "regression_by_mean": bool(dev.deviated and dev.md > 0),
        "cpu_mpd": cpu,
        "mean_ms_before": dev.mean_before,
        "mean_ms_after": dev.mean_after,
        "n_before": dev.n_before,
        "n_after": dev.n_after,
    }


def oracle_noise(base: Sequence[LoadTestRun]) -> dict[str, Any]:
    """A/A: Cliff's delta between the original version's own repetitions.

    How far two load tests of the same code disagree on this machine at
    this time; a version's effect below this is not told apart by one run.
    """
    deltas = [
        perfstats.cliffs_delta(base[j].response_ms, base[i].response_ms).delta
        for i in range(len(base))
        for j in range(i + 1, len(base))
    ]
    return {
        "aa_cliffs_delta": deltas,
        "aa_abs_max": max((abs(d) for d in deltas), default=0.0),
        "mean_ms": [r.mean_ms for r in base],
    }


# The threshold of a "small" Cliff's delta (Romano et al.): the oracle's own
# A/A delta should stay below it, or a version's effect of that size is noise.
SMALL_DELTA = 0.147
# Two-sided 95% normal quantile: |delta| <= z * sd in 95% of A/A pairs.
Z95 = 1.959963984540054


def aa_samples(runs: Sequence[LoadTestRun], pool: int = 1) -> list[np.ndarray]:
    """The A/A samples: ``pool`` load tests' response times pooled per sample.

    A sample takes every ``len(runs) // pool``-th run, so that its load
    tests lie apart in time, as a version's repetitions do in a round
    (:func:`round_order`): sample ``g`` pools runs ``g, g + m, g + 2m, ...``.
    """
    if pool < 1 or len(runs) % pool:
        raise ValueError(f"need pool >= 1 dividing the {len(runs)} A/A runs, got pool={pool}")
    m = len(runs) // pool
    return [np.concatenate([r.response_ms for r in runs[g::m]]) for g in range(m)]


def aa_pairs(runs: Sequence[LoadTestRun], pool: int = 1) -> list[dict[str, Any]]:
    """Every pair of A/A samples: Cliff's delta, rank-sum p and the oracle's verdict.

    The samples are :func:`aa_samples`; ``pool`` set to the oracle's
    ``reps`` makes them the size the oracle judges a version by. The
    verdict is :func:`oracle_verdict`'s rule on the two samples alone: a
    pair judged a regression is a false alarm the oracle raises by itself.
    """
    samples = aa_samples(runs, pool)
    out = []
    for i in range(len(samples)):
        for j in range(i + 1, len(samples)):
            dev = perfstats.local_deviation(samples[i], samples[j], alpha=ALPHA, unit="ms")
            out.append(
                {
                    "pair": [i, j],
                    "cliffs_delta": float(dev.cliffs_delta),
                    "p_value": float(dev.pvalue),
                    "regression": bool(dev.deviated and dev.cliffs_delta > 0),
                    "n": [int(samples[i].size), int(samples[j].size)],
                }
            )
    return out


def aa_summary(
    pairs: Sequence[Mapping[str, Any]], duration: float, pool: int = 1
) -> dict[str, Any]:
    """The A/A deltas' distribution and the load-test time that would keep them small.

    Under no change, Cliff's delta of two samples of sizes ``n1, n2`` has
    the sampling variance ``(n1 + n2 + 1) / (3 n1 n2)`` (the rank-sum
    statistic's null variance); what the A/A pairs vary beyond it is
    between-run variance (the machine's speed from one load test to the
    next), which a longer test does not reduce. With both parts normal,
    ``|delta| <= 0.147`` in 95% of pairs needs ``z95 * sqrt(between +
    sampling) <= 0.147``; the sampling part falls as 1/duration, so a
    duration achieves it only when the between-run part alone is below
    ``(0.147 / z95)**2``. ``pooled_runs_needed`` is how many load tests per
    version, pooled, would bring both parts under that bound at this
    duration (if the runs' drifts are independent). ``duration`` is one
    load test's; ``pool`` load tests make one sample of the pairs (both
    parts then scale with ``1 / pool``, and the needs are given per load
    test).
    """
    if not pairs:
        return {"n_pairs": 0}
    d = np.array([p["cliffs_delta"] for p in pairs])
    pv = np.array([p["p_value"] for p in pairs])
    sampling = float(
        np.mean([(n1 + n2 + 1) / (3.0 * n1 * n2) for n1, n2 in (p["n"] for p in pairs)])
    )
    observed = float(np.mean(d**2))
    between = max(0.0, observed - sampling)
    bound = (SMALL_DELTA / Z95) ** 2
    # one load test's variances are pool times those of a pooled sample
    between_one, sampling_one = between * pool, sampling * pool
    if between_one >= bound:
        needed: float | None = None
    else:
        needed = duration * sampling_one / (bound - between_one)
    # k runs pooled per side divide both parts by about k (if the runs' drifts are independent)
    pooled = max(1, int(np.ceil(observed * pool / bound)))
    return {
        "n_pairs": int(d.size),
        "abs_delta": {
            "median": float(np.median(np.abs(d))),
            "p95": float(np.quantile(np.abs(d), 0.95)),
            "max": float(np.max(np.abs(d))),
        },
        "share_small": float(np.mean(np.abs(d) < SMALL_DELTA)),
        "share_p_le_alpha": float(np.mean(pv <= ALPHA)),
        "false_alarms": int(sum(p["regression"] for p in pairs)),
        "p_value": {"min": float(pv.min()), "median": float(np.median(pv))},
        "sd_observed": float(np.sqrt(observed)),
        "sd_sampling": float(np.sqrt(sampling)),
        "sd_between_runs": float(np.sqrt(between)),
        "duration_s": duration,
        "pool": pool,
        "duration_needed_s": needed,
        "pooled_runs_needed": pooled,
    }


def run_aa(
    scenarios: Sequence[str],
    n: int,
    *,
    duration: float,
    warmup: float,
    seed: int,
    bar: tqdm | None = None,
) -> dict[str, list[LoadTestRun]]:
    """``n`` load tests of the unchanged shop per workload, the workloads taking turns.

    Each test has its own arrival times (its own seed), as two load tests
    of one version in the evaluation's rounds do.
    """
    out: dict[str, list[LoadTestRun]] = {name: [] for name in scenarios}
    for k in range(n):
        for name in scenarios:
            if bar is not None:
                bar.set_postfix_str(f"A/A {name} {k + 1}/{n}")
            out[name].append(
                run_load_test(Injection(), SCENARIOS[name], duration=duration, warmup=warmup,
                              seed=seed + 50_000 + 101 * k + list(SCENARIOS).index(name))
            )  # fmt: skip
            if bar is not None:
                bar.update(1)
    return out


# --- the prediction ---------------------------------------------------------


def calibrated(
    deviations: dict[str, Any],
    cpu: dict[str, float] | None,
    relative: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """The deviations with each MD moved to the system's speed (per request type).

    The component benchmark runs in another process, at another time, often
    on another core than the services: on this machine the same loop takes
    1.3 ms in one process and 2 ms in another. What carries over is the
    relative change; it times the component's CPU time per call in the
    system's spans (for this request type: a quote prices three items in a
    checkout and one in a product page) is the change the services see.
    The relative change is ``relative[name]`` where given (the paired
    estimate of :func:`examples.shop.component_benchmark.relative_changes`), else
    ``md / mean_before``. Components the spans do not know keep their local
    MD.
    """
    if cpu is None:
        return deviations
    out: dict[str, Any] = {}
    for name, dev in deviations.items():
        if dev.deviated and name in cpu and dev.mean_before > 0:
            rel = (relative or {}).get(name, dev.md / dev.mean_before)
            out[name] = rel * cpu[name]
        else:
            out[name] = dev
    return out


def demand_factors_per_class(
    deviations: dict[str, Any],
    local: Any,
    graphs: dict[str, Any],
    demands: dict[str, dict[str, float]],
    component_cpu: dict[str, dict[str, float]] | None = None,
    relative: Mapping[str, float] | None = None,
) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """Demand factors per request type, and the deviated components no graph holds.

    A service's change per request is relative to its demand in the model
    (``demands[service][request_type]``, CPU by the utilisation law), not to
    its span time, which is wall-clock and leaves out the HTTP stack: a
    component's change then adds to the demand what it adds to the CPU time.
    Each request type gets the deviations carried at the system's speed for
    that type (:func:`calibrated`); the library's
    :func:`perfstats.system.propagation.propagate_per_class` maps and
    propagates them per request type, as
    :func:`perfstats.detect_system_regression` does with ``baseline="model"``.
    """
    carried = {
        kind: calibrated(
            deviations, None if component_cpu is None else component_cpu.get(kind), relative
        )
        for kind in graphs
    }
    base = {kind: {svc: d[kind] for svc, d in demands.items() if kind in d} for kind in graphs}
    result = propagate_per_class(carried, local, graphs, demand_before=base)
    factors = {kind: dict(f) for kind, f in result.demand_factors.items()}
    return factors, dict(result.unmapped)


def predict(
    version: str,
    model: Model,
    workload: Workload,
    *,
    rng: int,
    component_runs: int = COMPONENT_RUNS,
    simulated_requests: int = SIMULATED_REQUESTS,
    calibrate: bool = True,
) -> tuple[dict[str, Any], float]:
    """The approach's verdict for one version, and its wall time (seconds).

    ``calibrate`` carries each deviated component's relative change at the
    system's speed (:func:`calibrated`) instead of its local MD.

    The wall time covers the component benchmarks of both versions and every
    step of the pipeline.
    """
    t0 = time.perf_counter()
    before, after = run_components(Injection(), Injection.parse(version), runs=component_runs)
    deviations = {
        c: perfstats.local_deviation(before.times[c], after.times[c], alpha=ALPHA, unit="s")
        for c in before.times
    }
    relative = relative_changes(before, after, [c for c, d in deviations.items() if d.deviated])
    network = model.network(workload)
    factors, unmapped = demand_factors_per_class(
        deviations, local_graph(before.profile), model.system_graphs, model.demands,
        model.component_cpu if calibrate else None, relative,
    )
    factors = {k: v for k, v in factors.items() if k in network.classes}
    # The paper's verdict: pooled response times, like the oracle's.
    pred = perfstats.predict_regression(
        network, factors, n_requests=simulated_requests, rng=rng, alpha=ALPHA, per_class=False
    )
    wall = time.perf_counter() - t0
    return (
        {
            "mpd_ms": float(pred.mpd * 1e3),
            "cliffs_delta": float(pred.cliffs_delta),
            "magnitude": str(pred.magnitude),
            "p_value": float(pred.pvalue),
            "regression": bool(pred.regression),
            "cpu_mpd": {s: float(pred.cpu_mpd[s]) for s in ORDER},
            "mpd_ms_by_class": {k: float(v * 1e3) for k, v in pred.mpd_by_class.items()},
            "cliffs_delta_by_class": {k: float(v) for k, v in pred.cliffs_delta_by_class.items()},
            "reason": str(pred.reason),
            "demand_factors": factors,
            "deviated_components": {
                c: {"md_ms": d.md * 1e3, "cliffs_delta": d.cliffs_delta}
                for c, d in deviations.items()
                if d.deviated
            },
            "unmapped": unmapped,
        },
        wall,
    )


def outcome(model_regression: bool, oracle_regression: bool) -> str:
    if model_regression:
        return "TP" if oracle_regression else "FP"
    return "FN" if oracle_regression else "TN"


# --- one scenario -----------------------------------------------------------


def round_order(versions: Sequence[str], rep: int, reps: int, every: int) -> list[str]:
    """The load tests of round ``rep`` (0-based) of ``reps``: versions and ``"original"``.

    The versions are rotated by ``rep * every`` so that each sits at another
    point of every round, and the original runs before each group of
    ``every`` versions (and once more at the end of the last round): the
    machine's speed drifts over minutes, and an original measured only at
    the start of each round made every version of a round that slowed down
    look like a regression (``every=0``: the original only at the start).

    >>> round_order(["a", "b", "c", "d"], 1, 2, 2)
    ['original', 'c', 'd', 'original', 'a', 'b', 'original']
    >>> round_order(["a", "b", "c"], 0, 3, 0)
    ['original', 'a', 'b', 'c']
    """
    if not versions:
        return ["original"]
    k = len(versions)
    if every <= 0:
        return ["original", *versions]
    shift = (rep * every) % k
    rotated = [*versions[shift:], *versions[:shift]]
    order: list[str] = []
    for start in range(0, k, every):
        order += ["original", *rotated[start : start + every]]
    if rep == reps - 1:
        order.append("original")
    return order


def load_tests_in(n_versions: int, reps: int, every: int) -> int:
    """How many load tests one scenario's rounds hold."""
    return sum(len(round_order(["v"] * n_versions, r, reps, every)) for r in range(reps))


def oracle_workloads(scenarios: Sequence[str]) -> list[str]:
    """The workloads the oracle measures: the fixed one (the model's) first, then ``scenarios``."""
    return ["fixed"] + [s for s in scenarios if s != "fixed"]


def oracle_schedule(
    scenarios: Sequence[str], versions: Sequence[str], reps: int, every: int
) -> list[tuple[str, int, str]]:
    """Every load test of :func:`run_oracle` in the order run: ``(scenario, round, version)``.

    Round by round, and within a round every scenario in turn (each in
    :func:`round_order`'s order), so that the model's load tests (the fixed
    workload's original) and every scenario's load tests span the same
    minutes: the machine's speed drifts over minutes, and a drift should hit
    the model and every scenario alike, as the rounds make it hit every
    version alike. The fixed workload's original is measured in every round
    even when the fixed scenario is not asked for.

    >>> oracle_schedule(["variant1"], ["a"], 2, 3)  # doctest: +NORMALIZE_WHITESPACE
    [('fixed', 0, 'original'), ('variant1', 0, 'original'), ('variant1', 0, 'a'),
     ('fixed', 1, 'original'), ('variant1', 1, 'original'), ('variant1', 1, 'a'),
     ('variant1', 1, 'original')]
    """
    names = oracle_workloads(scenarios)
    order: list[tuple[str, int, str]] = []
    for rep in range(reps):
        for name in names:
            if name in scenarios:
                vs = round_order(versions, rep, reps, every)
            else:
                vs = round_order((), rep, reps, 0)
            order += [(name, rep, v) for v in vs]
    return order


def run_summary(run: LoadTestRun) -> dict[str, Any]:
    return {
        "mean_ms": run.mean_ms,
        "n": int(run.response_ms.size),
        "errors": run.errors,
        "cpu_percent": run.cpu_percent,
        "wall_s": run.wall_s,
    }


LoadRuns = dict[str, tuple[list[LoadTestRun], dict[str, list[LoadTestRun]]]]


def oracle_load_tests(scenarios: Sequence[str], n_versions: int, reps: int, every: int) -> int:
    """How many load tests :func:`run_oracle` runs."""
    return len(oracle_schedule(scenarios, ["v"] * n_versions, reps, every))


def run_oracle(
    scenarios: Sequence[str],
    versions: Sequence[str],
    *,
    duration: float,
    warmup: float,
    reps: int,
    seed: int,
    bar: tqdm | None,
    original_every: int = ORIGINAL_EVERY,
) -> LoadRuns:
    """Every load test, in :func:`oracle_schedule`'s order: the original's and each version's.

    The fixed scenario's original version is always measured (with spans):
    the model is built from it. Every run of one scenario's round shares its
    Poisson arrival times (one seed per scenario and round).
    """
    out: LoadRuns = {
        name: ([], {v: [] for v in (versions if name in scenarios else ())})
        for name in oracle_workloads(scenarios)
    }
    for name, rep, version in oracle_schedule(scenarios, versions, reps, original_every):
        if bar is not None:
            bar.set_postfix_str(f"{name} rep {rep + 1} {version}")
        inj = Injection() if version == "original" else Injection.parse(version)
        run = run_load_test(
            inj,
            SCENARIOS[name],
            duration=duration,
            warmup=warmup,
            seed=seed + 1000 * rep + list(SCENARIOS).index(name),
            keep_spans=name == "fixed" and version == "original",
        )
        base, runs = out[name]
        (base if version == "original" else runs[version]).append(run)
        if bar is not None:
            bar.update(1)
    return out


def evaluate(
    scenarios: Sequence[str],
    versions: Sequence[str],
    *,
    duration: float,
    warmup: float,
    reps: int,
    seed: int = 20250,
    progress: bool = True,
    load_runs: LoadRuns | None = None,
    component_runs: int = COMPONENT_RUNS,
    simulated_requests: int = SIMULATED_REQUESTS,
    service_times: str = "measured",
    calibrate: bool = True,
    slowdown: bool = True,
    calibration_load: float = CALIBRATION_LOAD,
    calibration_runs: Sequence[LoadTestRun] | Sequence[Sequence[LoadTestRun]] | None = None,
    on_calibration: Callable[[list[list[LoadTestRun]]], None] | None = None,
    original_every: int = ORIGINAL_EVERY,
    calibration_drives: str = "every",
) -> dict[str, Any]:
    """Run the load tests (unless given) and predictions; the JSON document of the results.

    ``slowdown`` makes the stations load-dependent, from ``calibration_runs``
    (run here at ``calibration_load`` unless given, and then handed to
    ``on_calibration``; one list per workload of :func:`calibration_targets`
    with ``calibration_drives``).
    """
    n_tests = 0
    if load_runs is None:
        n_tests = oracle_load_tests(scenarios, len(versions), reps, original_every)
    bar = tqdm(total=n_tests + len(scenarios) * len(versions), disable=not progress, desc="system")
    if load_runs is None:
        load_runs = run_oracle(
            scenarios, versions, duration=duration, warmup=warmup, reps=reps, seed=seed, bar=bar,
            original_every=original_every,
        )
    # Import what the pipeline uses (scipy.stats, networkx, ciw) before any
    # prediction is timed: a process pays it once, whatever it predicts.
    import ciw  # noqa: F401
    import networkx  # noqa: F401
    import scipy.stats  # noqa: F401

    settings = Settings(
        duration=duration, warmup=warmup, reps=reps, component_runs=component_runs,
        simulated_requests=simulated_requests, service_times=service_times, slowdown=slowdown,
        calibration_load=calibration_load, calibration_drives=calibration_drives,
        original_every=original_every,
    )  # fmt: skip
    model, calibration = calibrated_model(
        load_runs["fixed"][0], settings, seed=seed, calibration_runs=calibration_runs,
        on_calibration=on_calibration, bar=bar,
    )  # fmt: skip
    t_model = model.wall_s
    out: dict[str, Any] = {}
    wall_load = 0.0
    wall_pred = 0.0
    for name in scenarios:
        base, runs = load_runs[name]
        rows = []
        for i, version in enumerate(versions):
            bar.set_postfix_str(f"{name} predict {version}")
            pred, pred_wall = predict(
                version, model, SCENARIOS[name], rng=seed + i,
                component_runs=component_runs, simulated_requests=simulated_requests,
                calibrate=calibrate,
            )
            bar.update(1)
            oracle = oracle_verdict(base, runs[version])
            load_wall = float(sum(r.wall_s for r in runs[version]))
            wall_load += load_wall
            wall_pred += pred_wall
            loc, level = version.split("-")
            rows.append(
                {
                    "version": version,
                    "location": loc,
                    "component": LOCATIONS[loc],
                    "intensity": level,
                    "injected_share": INTENSITIES[level],
                    "load_test": oracle,
                    "model": pred,
                    "outcome": outcome(pred["regression"], oracle["regression"]),
                    "cpu_abs_diff": {
                        s: abs(pred["cpu_mpd"][s] - oracle["cpu_mpd"][s]) for s in ORDER
                    },
                    "wall_s": {
                        "prediction": pred_wall,
                        "load_test": load_wall,
                        "ratio": pred_wall / load_wall,
                    },
                    "load_test_runs": [run_summary(r) for r in runs[version]],
                }
            )
        out[name] = rows
        out.setdefault("original_runs", {})[name] = [run_summary(r) for r in base]
        out.setdefault("oracle_noise", {})[name] = oracle_noise(base)
    bar.close()
    out["wall_s"] = {
        "prediction": wall_pred,
        "load_tests": wall_load,
        "model_construction": t_model,
        "prediction_per_version_max": max(
            (r["wall_s"]["prediction"] for s in scenarios for r in out[s]), default=0.0
        ),
    }
    out["summary"] = summary(out, scenarios)
    out["model"] = {
        "stations": list(ORDER),
        "servers": 1,
        "demands_ms": {s: {k: v * 1e3 for k, v in d.items()} for s, d in model.demands.items()},
        "service_times": service_times,
        "calibrated": calibrate,
        "slowdown": None if model.slowdown is None else dict(model.slowdown),
        "calibration": calibration,
        "scv": dict(model.scv),
        "arrival_rates": {s: SCENARIOS[s].arrival_rates() for s in SCENARIOS},
    }
    out["settings"] = {
        "duration_s": duration,
        "warmup_s": warmup,
        "reps": reps,
        "original_every": original_every,
        "seed": seed,
        "component_runs": component_runs,
        "simulated_requests": simulated_requests,
        "scenarios": {s: {"rate": w.rate, "mix": dict(w.mix)} for s, w in SCENARIOS.items()},
        # What the services started by this process run with (SHOP_SWITCH_INTERVAL);
        # it moves both the oracle's response times and its CPU (examples/shop/README.md).
        "shop_switch_interval_s": switch_interval(),
        "cpu_count": os.cpu_count(),
        "loadavg_at_end": list(os.getloadavg()),
        "python": sys.version.split()[0],
    }
    return out


def summary(out: dict[str, Any], scenarios: Sequence[str]) -> dict[str, Any]:
    res: dict[str, Any] = {}
    for name in scenarios:
        rows = out[name]
        counts = {k: sum(r["outcome"] == k for r in rows) for k in ("TP", "TN", "FP", "FN")}
        res[name] = {
            **counts,
            "agree": counts["TP"] + counts["TN"],
            "n": len(rows),
            "cpu_abs_diff_max": max(max(r["cpu_abs_diff"].values()) for r in rows),
            "prediction_s_max": max(r["wall_s"]["prediction"] for r in rows),
            "ratio_max": max(r["wall_s"]["ratio"] for r in rows),
        }
    return res


def format_tables(out: dict[str, Any], scenarios: Sequence[str]) -> str:
    """Table I/II layout: per version, load test vs model, outcome and CPU |delta|."""
    lines = []
    for name in scenarios:
        w = SCENARIOS[name]
        lines.append(f"== {name}: {w.rate:g} req/s, mix {dict(w.mix)}")
        lines.append(
            f"{'version':<10} {'test MPD ms':>11} {'delta':>6} {'p':>8} | "
            f"{'model MPD ms':>12} {'delta':>6} {'p':>8} | {'out':<3} | "
            f"{'CPU MPD test/model per service (points)':<44} {'max|d|':>6} | "
            f"{'pred s':>6} {'test s':>6}"
        )
        for r in out[name]:
            t, m = r["load_test"], r["model"]
            cpu = " ".join(
                f"{s[:3]} {t['cpu_mpd'][s]:+.1f}/{m['cpu_mpd'][s]:+.1f}" for s in ORDER
            )
            lines.append(
                f"{r['version']:<10} {t['mpd_ms']:>11.2f} {t['cliffs_delta']:>6.3f} "
                f"{t['p_value']:>8.2g} | "
                f"{m['mpd_ms']:>12.2f} {m['cliffs_delta']:>6.3f} {m['p_value']:>8.2g} | "
                f"{r['outcome']:<3} | {cpu:<44} {max(r['cpu_abs_diff'].values()):>6.2f} | "
                f"{r['wall_s']['prediction']:>6.1f} {r['wall_s']['load_test']:>6.1f}"
            )
        s = out["summary"][name]
        noise = out["oracle_noise"][name]["aa_cliffs_delta"]
        lines.append(
            "   A/A (original vs itself, between repetitions): Cliff's delta "
            + ", ".join(f"{d:+.3f}" for d in noise)
        )
        lines.append(
            f"   agreement {s['agree']}/{s['n']} (TP {s['TP']}, TN {s['TN']}, FP {s['FP']}, "
            f"FN {s['FN']}); max CPU |delta| {s['cpu_abs_diff_max']:.2f} points; "
            f"prediction <= {s['prediction_s_max']:.1f} s, "
            f"ratio to load test <= {s['ratio_max']:.3f}"
        )
        lines.append("")
    ws = out["wall_s"]
    lines.append(
        f"wall: predictions {ws['prediction']:.0f} s in all, load tests {ws['load_tests']:.0f} s "
        f"in all; model construction {ws['model_construction']:.2f} s"
    )
    cal = out["model"]["calibration"]
    if cal is None:
        lines.append("stations: load-independent (the paper's model)")
    else:
        workloads = cal.get("workloads") or [
            {"station": "the busiest station", **cal["workload"], "runs": cal["runs"],
             "load_tests_s": cal["load_tests_s"]}
        ]  # fmt: skip
        for w in workloads:
            cpu = "; ".join(
                ", ".join(f"{s} {r['cpu_percent'][s]:.0f}%" for s in ORDER) for r in w["runs"]
            )
            lines.append(
                f"calibration: original version, {w['rate']:.0f} req/s of "
                f"{'+'.join(w['mix'])} (model load {cal['target_load']:g} at {w['station']}), "
                f"{len(w['runs'])} load tests, {w['load_tests_s']:.0f} s; measured CPU {cpu}"
            )
        for name, table in out["model"]["slowdown"].items():
            cells = "load-independent" if table is None else " ".join(f"{g:.3f}" for g in table)
            lines.append(f"   slowdown {name:<10} by calls in flight 1, 2, ...: {cells}")
    return "\n".join(lines)


# --- repeated rounds ----------------------------------------------------------


def round_seed(seed: int, r: int) -> int:
    """Round ``r``'s seed: fresh arrival times, calibration and simulation per round."""
    return seed + 100_003 * r


def rotated(versions: Sequence[str], r: int, every: int) -> list[str]:
    """The versions rotated by ``r * every``: each round runs them in another order."""
    if not versions:
        return []
    shift = (r * max(every, 1)) % len(versions)
    return [*versions[shift:], *versions[:shift]]


def rounds_summary(
    rounds: Sequence[Mapping[str, Any]], scenarios: Sequence[str], versions: Sequence[str]
) -> dict[str, Any]:
    """Agreement over rounds per workload, and each version's oracle verdict stable or not.

    A version's oracle verdict is stable when every round's load tests gave
    the same verdict. The headline counts, per round, the stable versions
    on which the model agrees with the oracle; unstable ones are counted
    apart (the oracle itself cannot tell them).
    """

    def stats(xs: Sequence[float]) -> dict[str, float]:
        return {"min": float(min(xs)), "median": float(np.median(xs)), "max": float(max(xs))}

    out: dict[str, Any] = {}
    for name in scenarios:
        rows = [{r["version"]: r for r in rnd[name]} for rnd in rounds]
        per_version: dict[str, Any] = {}
        for v in versions:
            oracle = [bool(rows_r[v]["load_test"]["regression"]) for rows_r in rows]
            model = [bool(rows_r[v]["model"]["regression"]) for rows_r in rows]
            per_version[v] = {
                "oracle": oracle,
                "model": model,
                "oracle_stable": len(set(oracle)) == 1,
                "model_stable": len(set(model)) == 1,
                "outcomes": [rows_r[v]["outcome"] for rows_r in rows],
                "oracle_delta": [rows_r[v]["load_test"]["cliffs_delta"] for rows_r in rows],
                "model_delta": [rows_r[v]["model"]["cliffs_delta"] for rows_r in rows],
            }
        stable = [v for v in versions if per_version[v]["oracle_stable"]]
        agree_all = [rnd["summary"][name]["agree"] for rnd in rounds]
        agree_stable = [
            sum(per_version[v]["outcomes"][i] in ("TP", "TN") for v in stable)
            for i in range(len(rounds))
        ]
        fp = [rnd["summary"][name]["FP"] for rnd in rounds]
        fp_stable = [
            sum(per_version[v]["outcomes"][i] == "FP" for v in stable) for i in range(len(rounds))
        ]
        cpu = [rnd["summary"][name]["cpu_abs_diff_max"] for rnd in rounds]
        pred = [r["wall_s"]["prediction"] for rnd in rounds for r in rnd[name]]
        test = [r["wall_s"]["load_test"] for rnd in rounds for r in rnd[name]]
        out[name] = {
            "n": len(versions),
            "agree_per_round": agree_all,
            "agree": stats(agree_all),
            "stable": len(stable),
            "unstable": [v for v in versions if v not in stable],
            "agree_stable_per_round": agree_stable,
            "agree_stable": stats(agree_stable),
            "fp_per_round": fp,
            "fp_stable_per_round": fp_stable,
            "cpu_abs_diff_max_per_round": cpu,
            "cpu_abs_diff_max": stats(cpu),
            "prediction_s": stats(pred),
            "load_test_s": stats(test),
            "ratio_max": float(max(p / t for p, t in zip(pred, test, strict=True))),
            "versions": per_version,
        }
    return out


def evaluate_rounds(
    scenarios: Sequence[str],
    versions: Sequence[str],
    *,
    rounds: int,
    aa: int,
    duration: float,
    warmup: float,
    reps: int,
    seed: int,
    progress: bool = True,
    component_runs: int = COMPONENT_RUNS,
    simulated_requests: int = SIMULATED_REQUESTS,
    slowdown: bool = True,
    on_partial: Callable[[dict[str, Any]], None] | None = None,
    calibration_drives: str = "every",
    aa_pool: int = 1,
) -> dict[str, Any]:
    """A/A load tests of the unchanged shop, then ``rounds`` independent evaluations.

    Every round has its own load tests (the versions interleaved with the
    original, :func:`oracle_schedule`, in an order rotated from round to
    round), its own calibration load tests, component benchmarks and
    model. The A/A part pairs ``aa`` samples per workload, each pooling
    ``aa_pool`` load tests (:func:`aa_samples`). ``on_partial`` receives
    the document after the A/A tests and after each round, so that a long
    run loses nothing when it is stopped. ``rounds=0`` runs the A/A part
    only.
    """
    if rounds < 0 or aa < 0 or aa_pool < 1 or rounds + aa == 0:
        raise ValueError(
            f"need rounds >= 0, aa >= 0 (not both 0) and aa_pool >= 1, got rounds={rounds}, "
            f"aa={aa}, aa_pool={aa_pool}"
        )
    t0 = time.time()
    doc: dict[str, Any] = {
        "settings": {
            "rounds": rounds, "aa": aa, "aa_pool": aa_pool, "duration_s": duration,
            "warmup_s": warmup,
            "reps": reps, "seed": seed, "round_seeds": [round_seed(seed, r) for r in range(rounds)],
            "aa_seed": seed, "component_runs": component_runs,
            "simulated_requests": simulated_requests, "slowdown": slowdown,
            "calibration_drives": calibration_drives,
            "scenarios": list(scenarios), "versions": list(versions),
            "shop_switch_interval_s": switch_interval(), "cpu_count": os.cpu_count(),
            "python": sys.version.split()[0], "started_unix": t0,
        },
        "aa": {},
        "rounds": [],
    }  # fmt: skip
    bar = tqdm(total=aa * aa_pool * len(scenarios), disable=not progress, desc="A/A")
    t_aa = time.time()
    aa_runs = run_aa(
        scenarios, aa * aa_pool, duration=duration, warmup=warmup, seed=seed, bar=bar
    )
    bar.close()
    for name, runs in aa_runs.items():
        pairs = aa_pairs(runs, aa_pool)
        doc["aa"][name] = {
            "runs": [run_summary(r) for r in runs],
            "pairs": pairs,
            "summary": aa_summary(pairs, duration, aa_pool),
        }
    doc["wall_s"] = {"aa": time.time() - t_aa, "rounds": []}
    if on_partial is not None:
        on_partial(doc)
    for r in range(rounds):
        t_r = time.time()
        res = evaluate(
            scenarios, rotated(versions, r, ORIGINAL_EVERY), duration=duration, warmup=warmup,
            reps=reps, seed=round_seed(seed, r), progress=progress,
            component_runs=component_runs, simulated_requests=simulated_requests,
            slowdown=slowdown, calibration_drives=calibration_drives,
        )  # fmt: skip
        res["round"] = r
        doc["rounds"].append(res)
        doc["wall_s"]["rounds"].append(time.time() - t_r)
        doc["summary"] = rounds_summary(doc["rounds"], scenarios, versions)
        # The originals of each round are A/A pairs too (minutes apart).
        doc["aa_within_rounds"] = {
            name: aa_summary(
                [
                    {"cliffs_delta": d, "p_value": float("nan"), "regression": False,
                     "n": [o["n"] for o in rnd["original_runs"][name][:2]]}
                    for rnd in doc["rounds"]
                    for d in rnd["oracle_noise"][name]["aa_cliffs_delta"]
                ],
                duration,
            )
            for name in scenarios
        }  # fmt: skip
        doc["settings"]["rounds_done"] = r + 1
        doc["wall_s"]["total"] = time.time() - t0
        if on_partial is not None:
            on_partial(doc)
    return doc


def format_rounds(doc: Mapping[str, Any]) -> str:
    """The A/A table, then agreement per workload over the rounds."""
    st = doc["settings"]
    pool = st.get("aa_pool", 1)
    lines = [
        f"A/A: {st['aa']} load tests of the unchanged shop per workload, "
        f"{st['duration_s']:g} s each after {st['warmup_s']:g} s warm-up"
        if pool == 1
        else f"A/A: {st['aa']} samples of the unchanged shop per workload, each {pool} load "
        f"tests pooled, {st['duration_s']:g} s each after {st['warmup_s']:g} s warm-up",
        f"{'workload':<9} {'pairs':>5} {'|d| med':>7} {'p95':>6} {'max':>6} {'<0.147':>6} "
        f"{'p<=.05':>6} {'FA':>3} | {'sd obs':>6} {'sampl':>6} {'betw':>6} | "
        f"{'duration for 95% < 0.147':<26} {'pooled runs':>11}",
    ]
    for name, a in doc["aa"].items():
        s = a["summary"]
        if not s.get("n_pairs"):
            continue
        need = "impossible (between-run)" if s["duration_needed_s"] is None else (
            f"{s['duration_needed_s']:.0f} s")  # fmt: skip
        pooled = str(s["pooled_runs_needed"])
        lines.append(
            f"{name:<9} {s['n_pairs']:>5} {s['abs_delta']['median']:>7.3f} "
            f"{s['abs_delta']['p95']:>6.3f} {s['abs_delta']['max']:>6.3f} "
            f"{s['share_small']:>6.2f} {s['share_p_le_alpha']:>6.2f} {s['false_alarms']:>3} | "
            f"{s['sd_observed']:>6.3f} {s['sd_sampling']:>6.3f} {s['sd_between_runs']:>6.3f} | "
            f"{need:<26} {pooled:>11}"
        )
        lines.append(
            "   deltas " + ", ".join(f"{p['cliffs_delta']:+.3f}" for p in a["pairs"])
            + "; p " + ", ".join(f"{p['p_value']:.2g}" for p in a["pairs"])
        )
    for name, s in doc.get("aa_within_rounds", {}).items():
        if s.get("n_pairs"):
            lines.append(
                f"   within rounds {name}: {s['n_pairs']} pairs of originals, |d| median "
                f"{s['abs_delta']['median']:.3f}, p95 {s['abs_delta']['p95']:.3f}, max "
                f"{s['abs_delta']['max']:.3f}, share < 0.147 {s['share_small']:.2f}"
            )
    lines.append("")
    done = len(doc["rounds"])
    if st["rounds"]:
        lines.append(f"{done} of {st['rounds']} rounds, {st['reps']} load test(s) per version "
                     f"per round; seeds {st['round_seeds'][:done]}")  # fmt: skip
    for name, s in doc.get("summary", {}).items():
        lines.append(
            f"== {name}: agreement per round {s['agree_per_round']} of {s['n']} "
            f"(min/median/max {s['agree']['min']:g}/{s['agree']['median']:g}/"
            f"{s['agree']['max']:g}); oracle stable on {s['stable']} of {s['n']}, unstable "
            f"{s['unstable'] or 'none'}; on the stable ones {s['agree_stable_per_round']} of "
            f"{s['stable']}; FP per round {s['fp_per_round']} "
            f"(on stable {s['fp_stable_per_round']})"
        )
        lines.append(
            "   CPU max |difference| per round "
            + ", ".join(f"{c:.2f}" for c in s["cpu_abs_diff_max_per_round"])
            + f" points; prediction {s['prediction_s']['min']:.1f}-{s['prediction_s']['max']:.1f}"
            f" s, load test {s['load_test_s']['min']:.1f}-{s['load_test_s']['max']:.1f} s per "
            f"version, ratio <= {s['ratio_max']:.3f}"
        )
        for v, pv in s["versions"].items():
            oracle = "".join("R" if x else "-" for x in pv["oracle"])
            model = "".join("R" if x else "-" for x in pv["model"])
            lines.append(
                f"   {v:<10} oracle {oracle:<5} {'stable  ' if pv['oracle_stable'] else 'UNSTABLE'}"
                f" model {model:<5} {' '.join(pv['outcomes'])}  oracle d "
                + " ".join(f"{d:+.3f}" for d in pv["oracle_delta"])
                + "  model d " + " ".join(f"{d:+.3f}" for d in pv["model_delta"])
            )
    ws = doc.get("wall_s", {})
    lines.append(
        f"wall: A/A {ws.get('aa', 0):.0f} s"
        + (", rounds " + ", ".join(f"{w:.0f}" for w in ws["rounds"]) + " s"
           if ws.get("rounds") else "")
    )  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="all",
                        help=f"a workload ({', '.join(SCENARIOS)}), several comma-separated, "
                        "or all (default)")
    parser.add_argument("--versions", default=",".join(VERSIONS),
                        help="comma-separated, e.g. L1-High,L2-Low (default: all nine)")
    parser.add_argument("--duration", type=float, default=10.0,
                        help="measured seconds per load test, after the warm-up")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up seconds (excluded)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of each load test")
    parser.add_argument("--original-every", type=int, default=ORIGINAL_EVERY,
                        help="versions between two load tests of the original in a round "
                             "(0: the original only at the start of each round)")
    parser.add_argument("--seed", type=int, default=20250)
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument("--save-runs", type=Path, default=None,
                        help="also pickle the load tests' measurements here")
    parser.add_argument("--load-runs", type=Path, default=None,
                        help="judge the load tests pickled by --save-runs instead of running them")
    parser.add_argument("--service-times", default="measured", choices=["measured", "exponential"],
                        help="the model's service-time variability: measured from the spans "
                        "(default) or exponential (scv 1) for every station")
    parser.add_argument("--local-md", action="store_true",
                        help="carry the component benchmarks' MDs as measured (the paper) "
                        "instead of their relative changes at the system's speed")
    parser.add_argument("--slowdown", default="measured", choices=["measured", "none"],
                        help="load-dependent stations from a calibration load test of the "
                        "original version (default), or the paper's fixed demands")
    parser.add_argument("--calibration-load", type=float, default=CALIBRATION_LOAD,
                        help="utilisation (by the model) of the busiest station in the "
                        "calibration load test")
    parser.add_argument("--calibration-drives", default="every", choices=CALIBRATION_DRIVES,
                        help="calibration load tests for every station, each driven by the "
                        "request type that loads it most (default), for the busiest only, or "
                        "one for each request type alone")
    parser.add_argument("--calibration", type=Path, default=None,
                        help="pickle of the calibration load tests: read if it exists, "
                        "else written after running them")
    parser.add_argument("--rounds", type=int, default=0,
                        help="repeat the evaluation in this many independent rounds (fresh "
                        "load tests, calibration and component benchmarks), after --aa A/A "
                        "load tests per workload; --reps is then per round")
    parser.add_argument("--aa", type=int, default=5,
                        help="A/A samples of the unchanged shop per workload, each of "
                        "--aa-pool load tests (with --rounds or --aa-only)")
    parser.add_argument("--aa-only", action="store_true",
                        help="run only the A/A load tests of --rounds (no rounds)")
    parser.add_argument("--aa-pool", type=int, default=1,
                        help="load tests pooled into each A/A sample, taken apart in time "
                        "(--reps gives the oracle's own sample size)")
    parser.add_argument("--oracle-only", action="store_true",
                        help="run and save the load tests (needs --save-runs), predict nothing")
    args = parser.parse_args(argv)
    if args.scenario == "all":
        scenarios = list(SCENARIOS)
    else:
        scenarios = [s.strip() for s in args.scenario.split(",") if s.strip()]
        for s in scenarios:
            if s not in SCENARIOS:
                parser.error(f"unknown workload {s!r}; choose from {', '.join(SCENARIOS)} or all")
        if not scenarios or len(set(scenarios)) < len(scenarios):
            parser.error(f"--scenario needs distinct workloads, got {args.scenario!r}")
    versions = [v.strip() for v in args.versions.split(",") if v.strip()]
    for v in versions:
        if v not in VERSIONS:
            parser.error(f"unknown version {v!r}; choose from {', '.join(VERSIONS)}")
    if args.aa_pool < 1:
        parser.error(f"--aa-pool needs at least 1 load test, got {args.aa_pool}")
    if args.aa_only:
        if args.aa < 2:
            parser.error(f"--aa-only needs --aa of at least 2 samples, got {args.aa}")
        args.rounds = 0
    if args.aa_only or args.rounds:
        return _main_rounds(args, scenarios, versions, argv)
    load_runs: LoadRuns | None = None
    if args.load_runs is not None:
        with args.load_runs.open("rb") as fh:
            saved = pickle.load(fh)
        load_runs = saved["runs"]
        args.duration, args.warmup, args.reps = saved["duration"], saved["warmup"], saved["reps"]
        # Load tests saved before the original ran among the versions had it first only.
        args.original_every = saved.get("original_every", 0)
    elif args.save_runs is not None:
        bar = tqdm(total=oracle_load_tests(scenarios, len(versions), args.reps,
                                           args.original_every),
                   disable=args.no_progress, desc="load tests")
        load_runs = run_oracle(scenarios, versions, duration=args.duration, warmup=args.warmup,
                               reps=args.reps, seed=args.seed, bar=bar,
                               original_every=args.original_every)
        bar.close()
        args.save_runs.parent.mkdir(parents=True, exist_ok=True)
        with args.save_runs.open("wb") as fh:
            pickle.dump({"runs": load_runs, "duration": args.duration, "warmup": args.warmup,
                         "reps": args.reps, "original_every": args.original_every}, fh)
    if args.oracle_only:
        if args.save_runs is None:
            parser.error("--oracle-only needs --save-runs")
        return 0
    calibration_runs = None
    if args.calibration is not None and args.calibration.exists():
        with args.calibration.open("rb") as fh:
            calibration_runs = pickle.load(fh)

    def keep_calibration(runs: list[list[LoadTestRun]]) -> None:
        if args.calibration is not None:
            args.calibration.parent.mkdir(parents=True, exist_ok=True)
            with args.calibration.open("wb") as fh:
                pickle.dump(runs, fh)

    out = evaluate(
        scenarios, versions, duration=args.duration, warmup=args.warmup, reps=args.reps,
        seed=args.seed, progress=not args.no_progress, load_runs=load_runs,
        service_times=args.service_times, calibrate=not args.local_md,
        slowdown=args.slowdown == "measured", calibration_load=args.calibration_load,
        calibration_runs=calibration_runs, on_calibration=keep_calibration,
        original_every=args.original_every, calibration_drives=args.calibration_drives,
    )
    if args.load_runs is not None:
        # The load tests ran in an earlier process (--save-runs); only the
        # model, the predictions and the verdicts were computed here.
        out["settings"]["load_tests_from"] = str(args.load_runs)
    text = format_tables(out, scenarios)
    print(text)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1, default=float) + "\n")
        args.json.with_suffix(".txt").write_text(text + "\n")
    return 0


def _main_rounds(
    args: argparse.Namespace, scenarios: list[str], versions: list[str], argv: list[str] | None
) -> int:
    command = "python -m benchmarks.reproduce_liao " + " ".join(
        sys.argv[1:] if argv is None else argv
    )

    def write(doc: dict[str, Any]) -> None:
        if args.json is None:
            return
        args.json.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.json.with_suffix(".json.part")
        tmp.write_text(json.dumps({"command": command, **doc}, indent=1, default=float) + "\n")
        tmp.replace(args.json)
        args.json.with_suffix(".txt").write_text(
            f"# command: {command}\n" + format_rounds(doc) + "\n"
        )

    doc = evaluate_rounds(
        scenarios, versions, rounds=args.rounds, aa=args.aa, duration=args.duration,
        warmup=args.warmup, reps=args.reps, seed=args.seed, progress=not args.no_progress,
        slowdown=args.slowdown == "measured", on_partial=write,
        calibration_drives=args.calibration_drives, aa_pool=args.aa_pool,
    )  # fmt: skip
    print(format_rounds(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
