"""``perfstats history``: change points over the commits of a branch, benchmark by benchmark."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import pandas as pd

from ..ab.inputs import ORDERS, read_history
from ..records.redaction import redact_text
from ..report.formatting import quantity, table
from .output import emit_json, out
from .parser import UsageError, names_argument

FORMATS = ("table", "json")
AGGREGATES = ("median", "mean", "min")
# What each order of the commits is, said in the table's last line.
ORDER_WORDS = {"date": "date order", "file": "the order the file lists them", "name": "name order"}

HELP = "find change points in a benchmark history (e-divisive means)"
EXAMPLES = """\
examples:
  perfstats history history.csv
  perfstats history history.csv --pvalue 0.01 --permutations 200 --seed 1 --plot history.png
  perfstats history runs/ --format json

SOURCE is a CSV with columns commit, benchmark and value (date and unit
optional), one row per run; or a directory with one entry per commit: a
file (a perfstats record, a tidy CSV, another tool's results; the commit
is what the tool recorded, else the file's stem) or a folder named by the
commit holding such files. Commits are ordered (--order auto) by date when
every one has a date (a record's first run, a tool's recorded date, the
CSV's date column); else a CSV that lists each commit's rows together
keeps its order (the order it was written in: hash-named commits keep
theirs); else by name. The output says which order was used. Each
commit's runs of a benchmark become one value (--aggregate, the median by
default). A benchmark whose commits give times in different units (ms,
then s) is compared in seconds; other mixed units are refused.

Each change point is the first commit of a new level, with the relative
change of the median from the level before to the level after, its 95%
bootstrap CI, and the permutation test's p-value.

JSON (--format json): {"source": PATH, "options": {...}, "order" ("date",
"file" or "name": the order used), "benchmarks":
{NAME: {"unit", "direction" ("lower" or "higher": which values are
better), "commits": [...], "values": [...], "n", "pvalue",
"permutations", "min_size", "statistic", "level", "change_points":
[{"index", "label" (the commit), "before", "after", "change", "ci_low",
"ci_high", "relative", "p_value", "energy"}, ...]}}}
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Add the options of ``perfstats history`` to its parser."""
    p.add_argument("source", help="CSV with commit, benchmark, value; or a directory of commits")
    p.add_argument(
        "--pvalue", type=float, default=0.05, help="significance of each split (0.05)"
    )
    p.add_argument(
        "--permutations", type=int, default=100, metavar="N", help="shuffles per test (100)"
    )
    p.add_argument(
        "--min-size", type=int, default=2, metavar="K", help="fewest commits in a level (2)"
    )
    p.add_argument(
        "--aggregate",
        choices=AGGREGATES,
        default="median",
        help="how a commit's runs become one value (median)",
    )
    names_argument(p)
    p.add_argument(
        "--order",
        choices=ORDERS,
        default="auto",
        help="order of the commits: by date, as the file lists them, by name (auto)",
    )
    p.add_argument("--format", choices=FORMATS, default="table", help="output (default: table)")
    p.add_argument("--plot", metavar="FILE", help="draw the histories to FILE (.png, .pdf, .svg)")
    p.add_argument("--seed", type=int, help="seed of the permutations and the bootstrap")


def command(args: argparse.Namespace, command_argv: list[str]) -> int:
    """Run ``perfstats history`` with parsed arguments; returns the exit status."""
    from perfstats import history_change_points

    frame = read_history(args.source, names=args.names, order=args.order)
    order = str(frame.attrs.get("order", args.order))
    # read_history puts the rows in history order, so the positions' order
    # of first appearance is the history's.
    results = history_change_points(
        frame,
        position="commit",
        aggregate=args.aggregate,
        pvalue=args.pvalue,
        permutations=args.permutations,
        min_size=args.min_size,
        rng=args.seed,
    )
    series = {
        str(name): rows.groupby("commit", sort=False)["value"].agg(args.aggregate)
        for name, rows in frame.groupby("benchmark", sort=False)
    }
    units = {
        str(name): next((str(u) for u in rows["unit"] if u is not None and u == u), "")
        for name, rows in frame.groupby("benchmark", sort=False)
    }
    better = {
        str(name): str(rows["direction"].iloc[0])
        for name, rows in frame.groupby("benchmark", sort=False)
    }
    if args.plot:
        _plot(args.plot, series, results, units, better)
    if args.format == "json":
        data: dict[str, Any] = {
            "source": args.source,
            "options": {
                "pvalue": args.pvalue,
                "permutations": args.permutations,
                "min_size": args.min_size,
                "aggregate": args.aggregate,
                "seed": args.seed,
            },
            "order": order,
            "benchmarks": {
                name: {
                    "unit": units[name] or None,
                    "direction": better[name],
                    "commits": [str(c) for c in series[name].index],
                    "values": [float(v) for v in series[name]],
                    **res.to_dict(),
                }
                for name, res in results.items()
            },
        }
        # Redacted as data (benchmark names are keys, not settings), so it stays JSON.
        emit_json(data, secret_keys=False)
        return 0
    for i, (name, res) in enumerate(results.items()):
        if i:
            out()
        s = series[name]
        out(
            f"{name}: {res.n} commits ({s.index[0]} .. {s.index[-1]}), "
            f"{_count(len(res), 'change point')}"
        )
        if len(res):
            out(table([_row(p, units[name], res.level) for p in res.points]))
    n_points = sum(len(r) for r in results.values())
    out()
    out(
        f"{_count(len(results), 'benchmark')}, {_count(n_points, 'change point')} "
        "(e-divisive means, "
        f"p <= {args.pvalue:g}, {args.permutations} permutations; "
        f"magnitudes: {args.aggregate} per commit, relative change of the median with "
        "its bootstrap CI)"
    )
    why = " (not every commit has a date)" if args.order == "auto" and order != "date" else ""
    out(f"commits in {ORDER_WORDS[order]}{why}")
    return 0


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _row(point: Any, unit: str, level: float) -> dict[str, Any]:
    if point.relative:
        change = f"{point.change:+.2%}"
        ci = f"[{point.low:+.2%}, {point.high:+.2%}]"
    else:
        change = f"{point.change:+.4g}"
        ci = f"[{point.low:+.4g}, {point.high:+.4g}]"
    return {
        "index": point.index,
        "commit": str(point.label),
        "before": quantity(point.before, unit),
        "after": quantity(point.after, unit),
        "change": change,
        f"{level * 100:g}% CI": ci,
        "p-value": f"{point.pvalue:.3g}",
    }


#: Panels of one --plot image: beyond it the benchmarks with change points
#: come first and the rest are counted, on the image and on stderr.
MAX_PANELS = 48
#: Columns of small multiples once there are more benchmarks than fit one column.
PANEL_COLUMNS = 4
_ONE_COLUMN = 3


def plotted(results: dict[str, Any], cap: int = MAX_PANELS) -> tuple[list[str], int]:
    """The benchmarks --plot draws, in order, and how many it leaves out.

    Benchmarks with a change point come first (in history order), then the
    others, up to ``cap``.
    """
    names = sorted(results, key=lambda n: len(results[n]) == 0)
    return names[:cap], max(0, len(names) - cap)


def _plot(path: str, series: dict[str, pd.Series], results: dict[str, Any],
          units: dict[str, str], better: dict[str, str]) -> Any:  # fmt: skip
    """Draw the histories to ``path``: one column, or small multiples with a cap."""
    try:
        from matplotlib.figure import Figure

        from perfstats.plots import history
    except ImportError:
        raise UsageError(
            "--plot needs matplotlib (pip install 'perfstats[plots]')"
        ) from None
    names, left_out = plotted(results)
    if len(names) <= _ONE_COLUMN:
        cols, size = 1, (8.0, 3.0)
    else:
        cols, size = PANEL_COLUMNS, (4.0, 2.6)
    rows = -(-len(names) // cols)
    fig = Figure(figsize=(size[0] * cols, size[1] * rows + (0.4 if left_out else 0.0)),
                 layout="constrained")  # fmt: skip
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    small = cols > 1
    for ax, name in zip(axes, names, strict=False):
        history(series[name], results[name], ax=ax, unit=units[name] or None,
                title=redact_text(name), better=better[name])  # fmt: skip
        if small:
            ax.title.set_fontsize(8)
            ax.tick_params(labelsize=7)
            ax.xaxis.label.set_fontsize(7)
            ax.yaxis.label.set_fontsize(7)
    for ax in axes[len(names):]:
        ax.set_visible(False)
    if left_out:
        note = (
            f"{len(names)} of {len(results)} benchmarks drawn (those with change points "
            f"first); {left_out} left out: the table and --format json list every one"
        )
        fig.suptitle(note, fontsize=10)
        sys.stderr.write(f"perfstats: --plot: {note}\n")
    try:
        fig.savefig(path)
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot write the plot {path}: {exc}") from None
    return fig
