"""Liao et al.'s sets of rounds pooled: each round scored against all the other rounds.

One round of ``python -m benchmarks.reproduce_liao --rounds`` judges a
version by one load test, and the A/A pairs of the unchanged shop show
that one load test is not enough for a verdict near the threshold. Sets of
rounds run in different hours, with different seeds or calibrations, are
together many independent load tests of the same versions. This script
pools them: for every round, a version's *pooled verdict* is the verdict of
the majority of the load tests of all the *other* rounds (leaving the
round's own load test out, so that it does not vote for itself), and both
the round's model and, as a yardstick, the round's own oracle are scored
against it. A version is *clear* when at least three quarters of all
rounds give the same verdict.

Each set is a rounds JSON file, optionally named ``FILE=LABEL``; without a
label the set is named by the calibration and seed its settings record.

Usage::

    python -m benchmarks.liao_pooled_oracle \\
        benchmarks/results/liao_rounds_busiest.json=busiest \\
        benchmarks/results/liao_rounds.json \\
        benchmarks/results/liao_rounds_seed30250.json \\
        benchmarks/results/liao_rounds_types.json \\
        benchmarks/results/liao_rounds_types_seed30250.json \\
        --json benchmarks/results/liao_pooled_oracle.json

prints the table and, with ``--json``, also writes it beside the JSON file
(``.txt``) under the command that made it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

#: Share of all rounds that makes a version's verdict clear.
CLEAR = 0.75


class Verdicts(NamedTuple):
    """One version's verdicts in one round: the load test's and the model's."""

    oracle_delta: float
    oracle: bool
    model_delta: float
    model: bool


@dataclass(frozen=True)
class RoundSet:
    """One rounds file: its label and, per round, workload and version, the two verdicts."""

    label: str
    path: str
    scenarios: tuple[str, ...]
    versions: tuple[str, ...]
    #: rounds[r][scenario][version]
    rounds: tuple[dict[str, dict[str, Verdicts]], ...]


def load_set(spec: str) -> RoundSet:
    """Read ``FILE`` or ``FILE=LABEL``, a JSON document of ``reproduce_liao --rounds``."""
    path, _, label = spec.partition("=")
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a readable JSON file ({exc})") from exc
    settings = doc.get("settings", {})
    if "rounds" not in doc or "versions" not in settings or "scenarios" not in settings:
        raise ValueError(f"{path}: not the JSON of reproduce_liao --rounds (no rounds)")
    if not label:
        drives = settings.get("calibration_drives")
        if drives is None:
            raise ValueError(
                f"{path} does not record its calibration; name the set as {path}=LABEL"
            )
        label = f"{drives} seed {settings['seed']}"
    scenarios = tuple(settings["scenarios"])
    versions = tuple(settings["versions"])
    rounds = []
    for rnd in doc["rounds"]:
        per: dict[str, dict[str, Verdicts]] = {}
        for name in scenarios:
            rows = {row["version"]: row for row in rnd[name]}
            per[name] = {
                v: Verdicts(
                    float(rows[v]["load_test"]["cliffs_delta"]),
                    bool(rows[v]["load_test"]["regression"]),
                    float(rows[v]["model"]["cliffs_delta"]),
                    bool(rows[v]["model"]["regression"]),
                )
                for v in versions
            }
        rounds.append(per)
    if not rounds:
        raise ValueError(f"{path}: no round finished")
    return RoundSet(label, path, scenarios, versions, tuple(rounds))


def pool(sets: Sequence[RoundSet]) -> dict[str, Any]:
    """The pooled verdicts and every round's score against them; the JSON document."""
    if not sets:
        raise ValueError("no rounds file given")
    scenarios, versions = sets[0].scenarios, sets[0].versions
    for s in sets[1:]:
        if s.scenarios != scenarios or s.versions != versions:
            raise ValueError(
                f"{s.path} has other workloads or versions than {sets[0].path}; "
                "only sets of the same evaluation pool"
            )
    if len({s.label for s in sets}) != len(sets):
        raise ValueError("two sets share a label; name them as FILE=LABEL")
    votes = {
        name: {v: [rnd[name][v].oracle for s in sets for rnd in s.rounds] for v in versions}
        for name in scenarios
    }
    n_rounds = sum(len(s.rounds) for s in sets)
    if n_rounds < 3:
        raise ValueError(f"{n_rounds} round(s) in all: pooling needs at least 3")
    out: dict[str, Any] = {"sets": [], "versions": {}, "rounds": n_rounds}
    for name in scenarios:
        out["versions"][name] = {}
        for v in versions:
            oracle_d = [rnd[name][v].oracle_delta for s in sets for rnd in s.rounds]
            share = float(np.mean(votes[name][v]))
            out["versions"][name][v] = {
                "share_regression": share,
                "clear": bool(share >= CLEAR or share <= 1.0 - CLEAR),
                "majority": None if share == 0.5 else bool(share > 0.5),
                "oracle_delta_median": float(np.median(oracle_d)),
                "oracle_delta_range": [float(min(oracle_d)), float(max(oracle_d))],
                "model_delta_median": {
                    s.label: float(np.median([rnd[name][v].model_delta for rnd in s.rounds]))
                    for s in sets
                },
            }
    k = 0
    for s in sets:
        entry: dict[str, Any] = {"label": s.label, "path": s.path, "rounds": []}
        for rnd in s.rounds:
            score: dict[str, Any] = {}
            for name in scenarios:
                model = {"agree": 0, "FP": 0, "FN": 0, "agree_clear": 0}
                oracle = {"agree": 0, "FP": 0, "FN": 0, "agree_clear": 0}
                decided = clear = 0
                for v in versions:
                    others = votes[name][v][:k] + votes[name][v][k + 1 :]
                    share = float(np.mean(others))
                    if share == 0.5:
                        continue
                    truth = share > 0.5
                    is_clear = out["versions"][name][v]["clear"]
                    decided += 1
                    clear += is_clear
                    for verdict, tally in (
                        (rnd[name][v].model, model),
                        (rnd[name][v].oracle, oracle),
                    ):
                        if verdict == truth:
                            tally["agree"] += 1
                            tally["agree_clear"] += is_clear
                        elif verdict:
                            tally["FP"] += 1
                        else:
                            tally["FN"] += 1
                score[name] = {"decided": decided, "clear": clear, "model": model, "oracle": oracle}
            entry["rounds"].append(score)
            k += 1
        out["sets"].append(entry)
    return out


def format_pooled(doc: Mapping[str, Any]) -> str:
    """Per set and round the model's and the round's oracle's agreement; per version the votes."""
    labels = [s["label"] for s in doc["sets"]]
    width = max(12, *(len(label) for label in labels))
    lines = [
        f"{doc['rounds']} rounds pooled; each round scored against the majority of the other "
        "rounds' load tests",
        "agreement of the model (and of the round's own oracle) with it, of the decided versions;"
        f" clear = at least {CLEAR:.0%} of all rounds agree",
        f"{'set':<{width}} {'round':>5} {'workload':<9} {'model':>6} {'FP':>3} {'FN':>3} "
        f"{'clear':>6} | {'oracle':>6} {'FP':>3} {'FN':>3} {'clear':>6}",
    ]
    for s in doc["sets"]:
        for r, score in enumerate(s["rounds"], start=1):
            for name, sc in score.items():
                m, o = sc["model"], sc["oracle"]
                lines.append(
                    f"{s['label']:<{width}} {r:>5} {name:<9} "
                    f"{m['agree']:>2}/{sc['decided']:<3} {m['FP']:>3} {m['FN']:>3} "
                    f"{m['agree_clear']:>2}/{sc['clear']:<3} | "
                    f"{o['agree']:>2}/{sc['decided']:<3} {o['FP']:>3} {o['FN']:>3} "
                    f"{o['agree_clear']:>2}/{sc['clear']:<3}"
                )
    lines += ["", "totals over all rounds (model | round's oracle)"]
    for s in doc["sets"]:
        for name in s["rounds"][0]:
            tot = {
                who: {
                    key: sum(sc[name][who][key] for sc in s["rounds"])
                    for key in ("agree", "FP", "FN", "agree_clear")
                }
                for who in ("model", "oracle")
            }
            decided = sum(sc[name]["decided"] for sc in s["rounds"])
            clear = sum(sc[name]["clear"] for sc in s["rounds"])
            m, o = tot["model"], tot["oracle"]
            lines.append(
                f"{s['label']:<{width}} {name:<9} model {m['agree']}/{decided} "
                f"(FP {m['FP']}, FN {m['FN']}; clear {m['agree_clear']}/{clear}) | oracle "
                f"{o['agree']}/{decided} (FP {o['FP']}, FN {o['FN']}; clear "
                f"{o['agree_clear']}/{clear})"
            )
    scores = [sc for s in doc["sets"] for rnd in s["rounds"] for sc in rnd.values()]
    for who, name in (("model", "the model"), ("oracle", "a round's own oracle")):
        worst = min(scores, key=lambda sc: sc[who]["agree"] - sc["decided"])
        lines.append(
            f"{name}: at worst {worst[who]['agree']}/{worst['decided']} in a workload's round, "
            f"false positives {sum(sc[who]['FP'] for sc in scores)} in all "
            f"({max(sc[who]['FP'] for sc in scores)} at most in one)"
        )
    lines += ["", "per version: share of rounds with a regression, oracle delta median [range], "
              "model delta median per set"]  # fmt: skip
    lines.append(f"{'workload':<9} {'version':<10} {'R share':>7} {'clear':>5} {'oracle d':>8} "
                 f"{'range':>15} " + " ".join(f"{label:>{width}}" for label in labels))  # fmt: skip
    for name, per in doc["versions"].items():
        for v, pv in per.items():
            lo, hi = pv["oracle_delta_range"]
            lines.append(
                f"{name:<9} {v:<10} {pv['share_regression']:>7.2f} "
                f"{'yes' if pv['clear'] else 'no':>5} {pv['oracle_delta_median']:>+8.3f} "
                f"{f'[{lo:+.2f}, {hi:+.2f}]':>15} "
                + " ".join(f"{pv['model_delta_median'][label]:>+{width}.3f}" for label in labels)
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", help="rounds JSON files, each FILE or FILE=LABEL")
    parser.add_argument(
        "--json", type=Path, help="also write the pooled document here, and the table beside it"
    )
    args = parser.parse_args(argv)
    try:
        doc = pool([load_set(spec) for spec in args.sets])
    except ValueError as exc:
        parser.error(str(exc))
    command = "python -m benchmarks.liao_pooled_oracle " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    text = f"# command: {command}\n" + format_pooled(doc) + "\n"
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"command": command, **doc}, indent=1) + "\n")
        args.json.with_suffix(".txt").write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
