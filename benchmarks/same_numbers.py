"""Fingerprint of the randomised rules' decisions and intervals, to compare two trees.

    python -m benchmarks.same_numbers save before.json     # on the old tree
    python -m benchmarks.same_numbers compare before.json  # on the new one

A speed change that must keep every number (for example cached seeds and
stream keys, validation skipped on the rules' hot path, a selection kernel
for the bounds) is checked by running the same fixed-seed cases on both
trees: SuperFlow 2/3 (every block kind) and Metior (both forms, mean,
quantile, ``block_from``, the reference block scheme) decisions, judged
afresh and after the judgement at ``n - 5`` (the memo), and
``percentile_ci`` of the bootstrap (every engine, an int seed and a shared
Generator) and block methods; data i.i.d., AR(1) and heavily tied, sizes 10
to 3,000, seeds 0-5. ``compare`` prints ``N cases, D differences`` and
exits 1 when any decision's reason or details, or any interval, differs.
A tool for changes of the library, not part of a paper's reproduction.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import perfstats  # noqa: E402
from perfstats.rules import Metior, SuperFlow  # noqa: E402

SIZES = (10, 11, 12, 17, 25, 40, 64, 100, 257, 500, 1000, 2047, 2048, 3000)
QUANTILE_SETS: tuple[Any, ...] = ([0.25, 0.5, 0.75], 0.5, [0.9, 0.1], [0.5, 0.5, 0.99])


def sample(kind: str, n: int, seed: int) -> np.ndarray:
    """Data of one case: ``"iid"`` log-normal, ``"ar"`` AR(1) log-normal or ``"ties"``."""
    rng = np.random.default_rng(seed)
    if kind == "iid":
        return rng.lognormal(3.0, 0.05, n)
    if kind == "ar":
        e = rng.standard_normal(n)
        z = np.empty(n)
        z[0] = e[0]
        for t in range(1, n):
            z[t] = 0.6 * z[t - 1] + e[t]
        return np.exp(3.0 + 0.03 * z)
    return np.round(rng.lognormal(3.0, 0.05, n), 1)


def _interval(iv: Any) -> list[Any]:
    return [iv.estimate, iv.low, iv.high, iv.level, iv.method, iv.n, iv.q, iv.block_length]


def _decision(d: Any) -> list[Any]:
    return [d.stop, d.n, d.rule, d.reason, repr(d.details)]


def _rules(seed: int) -> dict[str, Any]:
    return {
        "sf2": SuperFlow(method="bootstrap", rng=seed),
        "sf2p90": SuperFlow(
            method="bootstrap", q=[0.9, 0.5], level=0.9, error=0.02, rng=seed + 100
        ),
        "sf3": SuperFlow(method="block", rng=seed),
        "sf3sf": SuperFlow(method="block", block_kind="superflow", rng=seed),
        "sf3st": SuperFlow(method="block", block_kind="stationary", n_resamples=300, rng=seed),
        "met": Metior(rng=seed),
        "met_iv": Metior(form="interval", statistic="p90", block_from="previous", rng=seed),
        "met_mean": Metior(statistic="mean", min_block_length=3, rng=seed),
        "met_sf": Metior(block_kind="superflow", error=0.01, rng=seed),
    }


def _intervals(got: Any) -> list[list[Any]]:
    return [_interval(iv) for iv in (got if isinstance(got, tuple) else (got,))]


def fingerprint() -> dict[str, Any]:
    """Every case's decision or intervals, keyed by a name of the case."""
    out: dict[str, Any] = {}
    for seed in range(6):
        for kind in ("iid", "ar", "ties"):
            for n in SIZES:
                x = sample(kind, n, seed)
                tag = f"{kind}/{n}/{seed}"
                for name, rule in _rules(seed).items():
                    out[f"{name}/{tag}"] = _decision(rule.check(x))
                    if n >= 20:
                        again = type(rule)(**rule.config())
                        again.check(x[: n - 5])
                        out[f"{name}/inc/{tag}"] = _decision(again.check(x))
                for qs in QUANTILE_SETS:
                    for engine in ("auto", "chain", "direct", "order"):
                        got = perfstats.percentile_ci(
                            x, qs, method="bootstrap", rng=seed, engine=engine,
                            n_resamples=500 if n > 1000 else 1000,
                        )  # fmt: skip
                        out[f"pci/{qs}/{engine}/{tag}"] = _intervals(got)
                    if n >= 11:
                        got = perfstats.percentile_ci(
                            x, qs, method="block", rng=seed, n_resamples=400
                        )
                        out[f"pciblk/{qs}/{tag}"] = _intervals(got)
                gen = np.random.default_rng(seed)
                both = [
                    perfstats.percentile_ci(x, [0.25, 0.5, 0.75], method="bootstrap", rng=gen)
                    for _ in range(2)
                ]
                out[f"pci/gen/{tag}"] = _intervals(both[0] + both[1])
    # Through JSON so that a saved and a fresh fingerprint compare alike
    # (floats survive it exactly: their repr round-trips).
    result: dict[str, Any] = json.loads(json.dumps(out))
    return result


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] not in ("save", "compare"):
        print(__doc__)
        return 2
    mode, path = args[0], Path(args[1])
    now = fingerprint()
    if mode == "save":
        path.write_text(json.dumps(now))
        print(f"{len(now)} cases saved to {path}")
        return 0
    before = json.loads(path.read_text())
    differ = [k for k in before if before[k] != now.get(k)]
    missing = sorted(set(before) ^ set(now))
    print(f"{len(before)} cases, {len(differ)} differences, {len(missing)} cases in one file only")
    for k in differ[:20]:
        print(f"differs: {k}: {before[k]} -> {now.get(k)}")
    return 1 if differ or missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
