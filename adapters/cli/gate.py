"""``perfstats gate``: fail a CI job on a real regression, say "equivalent" when nothing changed."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from perfstats.regression_gate.render import gate_junit, gate_markdown, gate_table

from ..ab.file_gate import gate_files, redacted
from ..records.files import write_atomic
from ..records.outputs import check_output
from .output import emit_json, err, out
from .parser import UsageError, names_argument

FORMATS = ("table", "markdown", "json")
EXIT_INCONCLUSIVE = 3
# Beyond this a bootstrap's resamples outgrow a CI runner's memory, and the
# CI bounds stopped moving long before.
MAX_RESAMPLES = 1_000_000

HELP = "regression gate: judge a contender against a baseline, benchmark by benchmark"
EXAMPLES = """\
examples:
  perfstats gate base/ cont/
  perfstats gate base/ cont/ --threshold 5% --statistic p90 --config gate.toml
  perfstats gate main.json pr.json --format markdown >> "$GITHUB_STEP_SUMMARY"
  perfstats gate base.csv cont.csv --format json --junit gate.xml --strict --seed 1

inputs: BASELINE and CONTENDER are each a perfstats record (run.csv with
run.meta.json beside it; the benchmark is named by its target, or by the
file's stem with --names file), a directory of records, a CSV with columns
benchmark,value[,unit][,direction] (one row per run; direction lower or
higher: which values are better), or a results file of pyperf,
hyperfine, Google Benchmark, pytest-benchmark, asv, JMH, criterion or
'go test -bench' (format sniffed). Benchmarks are matched by name; those on
one side only are listed and not judged.

verdicts: regression (the CI of the relative change lies above +threshold
and the Benjamini-Hochberg adjusted p-value is below --fdr), improvement
(below -threshold, likewise), equivalent (the CI lies inside +-threshold,
with at least 5 runs a side), inconclusive (otherwise; "runs needed" says
how many more runs a side would likely decide it; a benchmark of one
run on a side, such as asv's mem_ and track_ benchmarks, is inconclusive
with that reason and the rest of the suite is judged). For a throughput or a
rate (JMH thrpt, Go MB/s, a Google Benchmark *_per_second counter, a
CSV's direction column = higher) higher is better: a rise is an
improvement. Runs a tool recorded as failed (hyperfine's non-zero exit
codes, Google Benchmark's error_occurred) are left out and counted; a
benchmark with no successful run on a side is an error: its row says
"error" with the reason, every output is written, a line on stderr names
it, and the exit status is 2.

config (--config gate.toml): per-benchmark thresholds by name or glob
  [thresholds]
  "io_*" = "5%"
  parse_large = 0.03

exit status: 0 no regression, 1 at least one regression, 2 usage or input
error, or a benchmark with no successful run (message on stderr), 3 an
inconclusive benchmark with --strict.

JSON (--format json), schema "perfstats.gate/1":
  {"schema": "perfstats.gate/1",
   "inputs": {"baseline": PATH, "contender": PATH},
   "suite": {"statistic": "median" | "mean" | "q=0.9", "threshold": 0.02,
             "fdr": 0.05, "level": 0.95, "paired": false,
             "min_equivalent_runs": 5, "n_benchmarks": N,
             "counts": {"regression": N, "improvement": N, "equivalent": N,
                        "inconclusive": N},
             "geomean": {"ratio": R, "ci_low": L, "ci_high": H, "method": TEXT},
             "runs_needed_method": TEXT, "exit_code": 0 | 1,
             "exit_code_strict": 0 | 1 | 3},
   "benchmarks": [{"name", "unit", "n_baseline", "n_contender",
                   "ratio" (contender / baseline of the statistic),
                   "ci_low", "ci_high" (CI of the ratio), "p_value" (rank test),
                   "p_adjusted" (Benjamini-Hochberg), "cliffs_delta",
                   "verdict", "runs_needed" (int or null), "threshold",
                   "reason", "direction" ("lower" or "higher": which values
                   are better), "n_failed" (failed runs left out, both
                   sides)}, ...],
   "unmatched": {"baseline": [NAME, ...], "contender": [NAME, ...]}}
  Numbers that do not exist (e.g. a CI bound of an empty bootstrap) are null.
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of ``perfstats gate`` to its parser."""
    p.add_argument("baseline", help="baseline results: a record, a directory, or a tool's file")
    p.add_argument("contender", help="contender results, as the baseline")
    p.add_argument(
        "--statistic",
        default="median",
        metavar="S",
        help="median (default), mean, a percentile such as p90, or a quantile such as 0.9",
    )
    p.add_argument(
        "--threshold",
        default="2%",
        metavar="DELTA",
        help="relative threshold: 2%% (default) or 0.02",
    )
    p.add_argument("--fdr", type=float, default=0.05, help="false discovery rate (0.05)")
    p.add_argument("--level", type=float, default=0.95, help="confidence level of the CIs (0.95)")
    p.add_argument("--paired", action="store_true", help="the i-th runs of both sides ran together")
    p.add_argument("--config", metavar="FILE", help="TOML file with per-benchmark thresholds")
    p.add_argument(
        "--format", choices=FORMATS, default="table", help="output on stdout (default: table)"
    )
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML, one test per benchmark")
    p.add_argument("--strict", action="store_true", help="exit 3 when a benchmark is inconclusive")
    names_argument(p)
    p.add_argument(
        "--metric",
        default="auto",
        metavar="NAME",
        help="for records with several series: 'auto' (default) judges each benchmark of a "
        "suite and each judged metric; 'value' only the primary value; a name, that series",
    )
    p.add_argument(
        "--resamples", type=int, default=5000, metavar="B", help="bootstrap resamples (5000)"
    )
    p.add_argument("--seed", type=int, help="seed of the bootstrap (reproducible verdicts)")
    p.add_argument(
        "--higher-is-better",
        action="append",
        default=[],
        metavar="GLOB",
        help="benchmarks (names or glob patterns) whose higher values are better, where "
        "the files do not say (an asv track_* rate, a pyperf or CSV throughput); repeatable",
    )


def command(args: argparse.Namespace, command_argv: list[str]) -> int:
    """Run ``perfstats gate`` with parsed arguments; returns the exit status."""
    for side in (args.baseline, args.contender):
        if not Path(side).exists():
            raise UsageError(f"{side} does not exist")
    if not 1 <= args.resamples <= MAX_RESAMPLES:
        raise UsageError(
            f"--resamples must be between 1 and {MAX_RESAMPLES:,} (each resample keeps a copy "
            f"of a benchmark's runs); got {args.resamples:,}"
        )
    if args.junit:
        _check_junit(args.junit, [args.baseline, args.contender, args.config])
    result = redacted(
        gate_files(
            args.baseline,
            args.contender,
            config=args.config,
            names=args.names,
            statistic=args.statistic,
            threshold=args.threshold,
            fdr=args.fdr,
            level=args.level,
            paired=args.paired,
            n_resamples=args.resamples,
            rng=args.seed,
            higher_is_better=args.higher_is_better,
            metric=args.metric,
        )
    )
    if args.junit:
        try:
            write_atomic(args.junit, gate_junit(result, strict=args.strict))
        except OSError as exc:
            raise UsageError(f"cannot write {args.junit}: {exc.strerror}") from None
    if args.format == "json":
        data = json.loads(result.to_json())
        data = {
            "schema": data.pop("schema"),
            "inputs": {"baseline": args.baseline, "contender": args.contender},
            **data,
        }
        # Redacted as data (names are data, not settings), so it stays JSON.
        emit_json(data, secret_keys=False)
    elif args.format == "markdown":
        out(gate_markdown(result).rstrip("\n"))
    else:
        out(gate_table(result))
    for b in result.benchmarks:
        if b.verdict == "error":
            err(f"benchmark {b.name!r} has {b.reason}")
    return result.exit_code(strict=args.strict)


def _check_junit(junit: str, inputs: list[str | None]) -> None:
    """Refuse a JUnit path that is an input, a link to one, or inside an input directory."""
    given = [i for i in inputs if i is not None]
    try:
        check_output(junit, given, what="--junit")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    where = os.path.realpath(junit)
    for source in given:
        if Path(source).is_dir():
            folder = os.path.realpath(source)
            if os.path.commonpath([where, folder]) == folder:
                raise UsageError(
                    f"--junit {junit} is inside the input directory {source}, where the next "
                    "run would read it; choose another path"
                )
