"""How long must a simulation of perfstats.system.queueing run? Precision of the mean.

Protocol: the M/M/1 queue at 50% utilisation (lambda 1, mu 2, analytic mean
response time 1 s) is simulated ``--reps`` times per length ``n`` with
independent seeds; we report the root-mean-square relative error of the
simulated mean response time against the analytic value, the share of runs
within 1% and 3%, and the wall time of one run. The default length of
``.simulate`` (``DEFAULT_REQUESTS``) is chosen from this table.

Second table (``--mpd``): the precision of a *difference*, as
``predict_regression`` computes it. The same M/M/1 queue with the demand
raised by 10% (analytic MPD 0.2222 s, +22%) and left unchanged is predicted
``--reps`` times per length with independent seeds (both versions share one
seed: common random numbers); we report the RMS error of the MPD against the
analytic value, the spread of Cliff's delta, and the wall time of one
prediction.

Third table (``--timing``): wall and CPU seconds of one ``predict_regression``
with its default length on a three-service, three-class model (bottleneck at
50% utilisation), with the machine's load average beside them (the machine
is shared; CPU seconds are what the prediction itself costs).

It supports Liao et al.'s reproduction (the simulation length of the
system-level prediction) but reports none of the paper's figures.

Usage::

    python -m benchmarks.queueing_precision [--reps 30] [--n 20000,100000] [--mpd | --timing]
                                            [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from perfstats import predict_regression
from perfstats.system.queueing import OpenNetwork, Station


def mpd_table(net: OpenNetwork, lengths: list[int], reps: int) -> list[dict[str, float]]:
    truth = net.with_demand_factors({"cpu": 1.1}).solve().response_time["req"] - 1.0
    rows = []
    for n in lengths:
        errors, deltas, walls = [], [], []
        for rep in range(reps):
            t = time.perf_counter()
            res = predict_regression(net, {"cpu": 1.1}, n_requests=n, rng=20_000 + rep)
            walls.append(time.perf_counter() - t)
            errors.append(res.mpd / truth - 1.0)
            deltas.append(res.cliffs_delta)
        err = np.asarray(errors)
        row = {
            "n_requests": n,
            "reps": reps,
            "analytic_mpd_s": truth,
            "mpd_rms_rel_error": float(np.sqrt(np.mean(err**2))),
            "cliffs_delta_mean": float(np.mean(deltas)),
            "cliffs_delta_sd": float(np.std(deltas, ddof=1)),
            "wall_s_median_prediction": float(np.median(walls)),
        }
        rows.append(row)
        print(json.dumps(row))
    return rows


def timing_table(reps: int) -> list[dict[str, float]]:
    model = OpenNetwork(
        [
            Station("gateway", demands={"browse": 0.002, "buy": 0.003, "search": 0.002}),
            Station("catalogue", servers=2, demands={"browse": 0.020, "search": 0.030}),
            Station("pricing", demands={"buy": 0.020, "browse": 0.004}),
        ],
        arrival_rates={"browse": 30.0, "buy": 10.0, "search": 10.0},
    )
    rows = []
    for rep in range(reps):
        wall, cpu = time.perf_counter(), time.process_time()
        res = predict_regression(model, {"catalogue": 1.5}, rng=rep)
        row = {
            "n_requests": res.n_requests,
            "wall_s": time.perf_counter() - wall,
            "cpu_s": time.process_time() - cpu,
            "load_average_1min": os.getloadavg()[0],
            "bottleneck_utilisation_before": max(model.offered_load().values()),
        }
        rows.append(row)
        print(json.dumps(row))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--n", default="20000,100000")
    parser.add_argument("--json", default=None)
    parser.add_argument("--mpd", action="store_true", help="only the MPD table")
    parser.add_argument("--timing", action="store_true", help="only the timing table")
    args = parser.parse_args()
    if args.timing:
        timing = timing_table(args.reps)
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(timing, fh, indent=2)
        return
    net = OpenNetwork([Station("cpu", demands={"req": 0.5})], arrival_rates={"req": 1.0})
    lengths = [int(v) for v in args.n.split(",")]
    if args.mpd:
        rows: list[dict[str, float]] = mpd_table(net, lengths, args.reps)
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(rows, fh, indent=2)
        return
    truth = net.solve().response_time["req"]
    rows = []
    for n in lengths:
        errors, walls = [], []
        for rep in range(args.reps):
            t = time.perf_counter()
            sim = net.simulate(n_requests=n, rng=10_000 + rep)
            walls.append(time.perf_counter() - t)
            errors.append(sim.mean_response_time["req"] / truth - 1.0)
        err = np.asarray(errors)
        row = {
            "n_requests": n,
            "reps": args.reps,
            "rms_rel_error": float(np.sqrt(np.mean(err**2))),
            "within_1pct": float(np.mean(np.abs(err) <= 0.01)),
            "within_3pct": float(np.mean(np.abs(err) <= 0.03)),
            "wall_s_median": float(np.median(walls)),
        }
        rows.append(row)
        print(json.dumps(row))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=2)


if __name__ == "__main__":
    main()
