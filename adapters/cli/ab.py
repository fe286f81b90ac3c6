"""``perfstats ab``: run an A-B suite from a config file and print the verdicts.

Also analyses a record again (``--from-record``), compares two runs of a
suite (``--against``) with ElastiBench's agreement and coverage, and
manages the benchmark function on AWS Lambda: ``perfstats ab deploy
CONFIG`` and ``perfstats ab teardown CONFIG``; ``perfstats ab CONFIG`` with
a ``[function]`` table deploys, runs and always tears down.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..ab.analysis import SuiteAnalysis, suite_agreement
from ..ab.config import function_of, load_config, load_suite
from ..ab.deployed_run import run_deployed
from ..ab.interleaving import SCHEDULES
from ..ab.lifecycle import Deployment, LifecycleError, deploy, lambda_client, teardown
from ..ab.persistence import read_ab_metadata, read_ab_record
from ..ab.runner import run_suite
from ..ab.verdicts import VERDICT_COLUMNS, analyse_record, verdict_rows
from ..records.plain import plain
from ..records.record import metadata_path
from ..report.billing import cost_text, load_prices, run_cost
from ..report.formatting import percent, table
from .output import emit_json, err, out
from .parser import EXIT_FAILED

HELP = "run an A-B performance-change suite (duet or RMIT) and judge every benchmark"
EXAMPLES = """\
examples:
  # run the suite a config describes, record every execution
  perfstats ab examples/ab_suite.toml --record ab.csv
  # the same suite as randomized multiple interleaved trials, 16 calls in flight
  perfstats ab examples/ab_suite.toml --schedule rmit --concurrency 16 --json
  # judge a record again, and compare it with another run of the suite
  perfstats ab --from-record ab.csv --against ab-again.csv
  # AWS Lambda: deploy the config's [function], run, tear down (also on Ctrl-C)
  perfstats ab lambda_suite.toml --record ab.csv --prices prices.json
  # ... or in separate steps
  perfstats ab deploy lambda_suite.toml
  perfstats ab teardown lambda_suite.toml

deploy tags the function with a random deployment id and records it in the
state folder ($PERFSTATS_STATE_DIR, default ~/.local/state/perfstats);
teardown deletes only a function whose tag matches the recorded id and
otherwise says why it refuses. The [function] name is a plain name: a
qualified name (fn:1) or an ARN is refused.

The config (TOML or YAML) names the schedule, calls, repeats, concurrency, a
target (a command or an HTTP function that runs each call's executions and
reports their timings as JSON, or one perfstats target per version) and the
benchmarks with their baseline and candidate parameters; see
perfstats.adapters.ab.config. Verdicts: the 99% bootstrap CI of the relative
median change (of the pairs' ratios for duet, and for rmit of each trial's
baseline-candidate pairs) above 0 is 'slower', below 0 'faster', else
'no change'; fewer than 10 successful results: 'too few results'.
"""


ACTIONS = ("deploy", "teardown")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of ``perfstats ab`` to its parser."""
    p.usage = "perfstats ab [options] [deploy|teardown] [CONFIG]"
    p.add_argument(
        "config",
        nargs="?",
        help="suite config (.toml, .yaml); or 'deploy' / 'teardown' followed by the config",
    )
    p.add_argument("action_config", nargs="?", help=argparse.SUPPRESS)
    p.add_argument("--record", metavar="CSV", help="write every execution to this new CSV")
    p.add_argument("--schedule", choices=SCHEDULES, help="override the config's schedule")
    p.add_argument("--calls", type=int, metavar="N", help="calls per benchmark (trials for rmit)")
    p.add_argument("--repeats", type=int, metavar="R", help="executions per version per call")
    p.add_argument("--concurrency", type=int, metavar="C", help="calls in flight")
    p.add_argument("--level", type=float, help="level of the change CI (default 0.99)")
    p.add_argument("--seed", type=int, help="seed of the orders and the bootstrap (recorded)")
    p.add_argument("--from-record", metavar="CSV", help="judge this record instead of running")
    p.add_argument("--against", metavar="CSV", help="another run's record to compare with")
    p.add_argument(
        "--prices", metavar="FILE", help="price table (JSON or TOML with date and region)"
    )
    p.add_argument(
        "--memory-mb", type=int, metavar="MB", help="memory of an HTTP function, to price the run"
    )
    p.add_argument(
        "--architecture", metavar="ARCH", help="architecture of an HTTP function (x86_64, arm64)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")


def command(args: argparse.Namespace, command_argv: list[str]) -> int:
    """Run ``perfstats ab`` with parsed arguments; returns the exit status."""
    try:
        return _command(args)
    except LifecycleError as exc:
        err(str(exc))
        return EXIT_FAILED


def _command(args: argparse.Namespace) -> int:
    if args.config in ACTIONS:
        return _lifecycle(args)
    if args.action_config is not None:
        raise ValueError(
            f"perfstats ab takes one config; {args.action_config!r} is one too many "
            f"(actions: {', '.join(ACTIONS)})"
        )
    prices = load_prices(args.prices)  # a bad table fails before anything runs
    if (args.config is None) == (args.from_record is None):
        raise ValueError("perfstats ab needs a config file or --from-record (one of them)")
    if args.from_record is not None:
        given = [
            o
            for o in ("record", "schedule", "calls", "repeats", "concurrency")
            if getattr(args, o) is not None
        ]
        if given:
            raise ValueError(f"--{given[0]} applies to a run, not to --from-record")
        info, analysis, measurements = _from_record(args.from_record, args.level, args.seed)
    else:
        info, analysis, measurements = _run(args)
    target = (info.get("suite") or {}).get("target") or {}
    cost = run_cost(
        measurements, target, prices=prices, memory_mb=args.memory_mb,
        architecture=args.architecture,
    )  # fmt: skip
    info["cost"] = None if cost is None else plain(cost)
    info["cost_text"] = cost_text(cost, target)
    agreement = None
    if args.against is not None:
        _, other, _ = _from_record(args.against, args.level, args.seed)
        agreement = suite_agreement(analysis, other)
    if args.json:
        frame = analysis.to_frame()
        data = {
            **info,
            "verdicts": analysis.counts(),
            "benchmarks": frame.to_dict("records") if len(frame) else [],
            "agreement": None
            if agreement is None
            else {"against": args.against, **plain(agreement)},
        }
        emit_json(data)
        return 0
    _show(info, analysis)
    if agreement is not None:
        out()
        out(
            f"agreement with {args.against}: {agreement.n} benchmarks judged in both; "
            f"agree {percent(agreement.agree)}, one-sided coverage "
            f"{percent(agreement.one_sided)} / {percent(agreement.one_sided_reverse)}, "
            f"two-sided {percent(agreement.two_sided)}"
        )
    return 0


def _lifecycle(args: argparse.Namespace) -> int:
    """``perfstats ab deploy CONFIG`` and ``perfstats ab teardown CONFIG``."""
    action, path = args.config, args.action_config
    if path is None:
        raise ValueError(f"perfstats ab {action} needs the config with the [function] table")
    data = load_config(path)
    found = function_of(data, base=Path(path).resolve().parent)
    if found is None:
        raise ValueError(f"{path} has no [function] table to {action}")
    spec, place = found
    client = lambda_client(
        place.get("region"), endpoint_url=place.get("endpoint_url"), profile=place.get("profile")
    )
    if action == "deploy":
        d = deploy(spec, client=client)
        if args.json:
            emit_json(d.to_dict())
        else:
            _show_deployment(d, "created" if d.created else "updated")
        return 0
    deleted = teardown(spec.name, client=client)
    if args.json:
        emit_json({"name": spec.name, "deleted": deleted})
    else:
        out(f"{spec.name}: {'deleted' if deleted else 'not deployed, nothing to delete'}")
    return 0


def _show_deployment(d: Deployment, how: str) -> None:
    out(
        f"function {d.name} {how}, version {d.version} published "
        f"({d.memory_mb} MB, {d.architecture}): {d.arn}"
    )


def _run(args: argparse.Namespace) -> tuple[dict[str, Any], SuiteAnalysis, Any]:
    progress = not args.no_progress and sys.stderr.isatty()
    overrides = {
        "schedule": args.schedule,
        "calls": args.calls,
        "repeats": args.repeats,
        "concurrency": args.concurrency,
        "level": args.level,
    }
    data = load_config(args.config)
    deployment: Deployment | None = None
    if data.get("function") is not None:
        seed = _seed(data)
        run, deployment = run_deployed(
            data,
            base=Path(args.config).resolve().parent,
            record=args.record,
            rng=args.seed if args.seed is not None else seed,
            progress=progress,
            **overrides,
        )
        suite = run.suite
    else:
        suite, seed = load_suite(args.config, **overrides)
        run = run_suite(
            suite,
            record=args.record,
            rng=args.seed if args.seed is not None else seed,
            progress=progress,
        )
    info = {
        "config": args.config,
        "deployment": None if deployment is None else deployment.to_dict(),
        "suite": suite.config(),
        "seed": run.seed,
        "record": str(run.record) if run.record else None,
        "elapsed_s": run.elapsed,
        "counts": run.metadata.get("counts"),
    }
    return info, run.analyse(), run.measurements


def _seed(data: dict[str, Any]) -> int | None:
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError(f"config: seed must be a non-negative integer; got {seed!r}")
    return seed


def _from_record(
    path: str, level: float | None, seed: int | None
) -> tuple[dict[str, Any], SuiteAnalysis, Any]:
    if not isinstance(read_ab_metadata(path).get("suite"), dict):
        read_ab_record(path)  # a missing or broken record says so first
        raise ValueError(
            f"{path}: no suite metadata beside the record ({metadata_path(path).name})"
        )
    measurements, meta, analysis = analyse_record(path, level=level, rng=seed)
    info = {
        "config": None,
        "suite": meta["suite"],
        "seed": meta.get("seed"),
        "record": path,
        "elapsed_s": meta.get("elapsed_s"),
        "counts": meta.get("counts"),
    }
    return info, analysis, measurements


def _show(info: dict[str, Any], analysis: SuiteAnalysis) -> None:
    s = info["suite"]
    target = s.get("target", {})
    out(
        f"suite    {s.get('schedule')}, {len(s.get('benchmarks', []))} benchmarks, "
        f"{s.get('calls')} calls x {s.get('repeats')} repeats, "
        f"{s.get('concurrency')} in flight, seed {info['seed']}"
    )
    out(f"target   {target.get('kind')}: {target.get('name')}")
    if info["record"]:
        out(f"record   {info['record']}")
    d = info.get("deployment")
    if d:
        out(
            f"function {d['name']} version {d['version']} ({d['memory_mb']} MB, "
            f"{d['architecture']}), deployed for the run and deleted"
        )
    out(f"analysis {analysis.pairing}, {100 * analysis.level:g}% CI of the relative median change")
    c = info.get("counts") or {}
    elapsed = info.get("elapsed_s")
    took = f" in {elapsed:.1f} s" if isinstance(elapsed, (int, float)) else ""
    out(
        f"ran      {c.get('executions', '?')} executions ({c.get('ok', '?')} ok, "
        f"{c.get('error', '?')} error, {c.get('timeout', '?')} timeout){took}"
    )
    if info.get("cost_text"):
        out(f"cost     {info['cost_text']}")
    out()
    headers = dict(VERDICT_COLUMNS, ci=f"{100 * analysis.level:g}% CI")
    rows = [{headers[k]: row[k] for k in headers} for row in verdict_rows(analysis)]
    out(table(rows))
    n = analysis.counts()
    out()
    out(
        f"{len(analysis.verdicts)} benchmarks: {n['slower']} slower, {n['faster']} faster, "
        f"{n['no change']} no change, {n['too few results']} with too few results "
        f"(< {analysis.min_results})"
    )
