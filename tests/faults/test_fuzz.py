"""Fuzz: random bytes, unicode, extreme numbers and wrong shapes get a result or a clear error.

Every public function of ``perfstats.__all__`` that takes data (found by
introspection; each has an argument adapter here, or is listed in
``NOT_DATA`` with the reason it takes none) and every stopping rule's
``check`` receive inputs drawn by hypothesis. Accepted: a result, or a
ValueError/TypeError with a message. Never another exception (ZeroDivision,
IndexError, a numba error), never a RuntimeWarning (a NaN computed from an
overflow or 0/0), never a float NaN in a result computed from finite data.

Every CLI subcommand runs in-process through
``perfstats.adapters.cli.main(argv)`` with random arguments and input files of
random content. Accepted: exit 0, or exit 2 with a one-line error; never a
traceback or an "internal error".

Bounded: at most 40 values per sample, a modest ``max_examples``, and
``derandomize=True`` so that CI sees the same examples every run.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import os
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import perfstats
from perfstats import Monitor, rules

FUZZ = settings(
    max_examples=100,
    derandomize=True,
    deadline=10_000,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

GOOD = np.random.default_rng(0).lognormal(3.0, 0.3, 40)
EXTREMES = [0.0, -0.0, 5e-324, 1e-300, 1e-160, 1e160, 1e300, 1.7976931348623157e308, -1e300]
FINITE = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.sampled_from(EXTREMES),
    st.floats(min_value=1e-3, max_value=1e3),
)
ANY_FLOAT = st.one_of(FINITE, st.sampled_from([math.nan, math.inf, -math.inf]))


def _samples() -> st.SearchStrategy[Any]:
    """Data in every shape a user might hand over, most of it wrong."""
    lists = st.lists(ANY_FLOAT, min_size=0, max_size=40)
    finite_lists = st.lists(FINITE, min_size=0, max_size=40)
    positive = st.lists(
        st.one_of(st.floats(min_value=5e-324, max_value=1e308), st.sampled_from(EXTREMES[2:6])),
        min_size=1,
        max_size=40,
    )
    scaled = st.tuples(st.sampled_from([1e-300, 1e-160, 1.0, 1e160, 1e300]), st.integers(0, 9)).map(
        lambda s: (GOOD[: 10 + 3 * s[1]] * s[0]).tolist()
    )
    constant = st.tuples(FINITE, st.integers(1, 40)).map(lambda t: [t[0]] * t[1])
    return st.one_of(
        lists,
        finite_lists,
        positive,
        scaled,
        constant,
        finite_lists.map(np.asarray),
        finite_lists.map(pd.Series),
        st.lists(st.integers(-(2**70), 2**70), max_size=40),
        st.lists(st.booleans(), max_size=10),
        st.text(max_size=20),
        st.binary(max_size=20),
        st.lists(st.text(max_size=5), max_size=10),
        FINITE.map(np.float64).map(np.asarray),  # 0-d
        FINITE,
        st.lists(st.lists(FINITE, min_size=1, max_size=4), max_size=6),  # ragged or 2-D
        st.lists(FINITE, min_size=4, max_size=20).map(
            lambda v: np.asarray(v[: len(v) // 2 * 2]).reshape(2, -1)
        ),
        st.dictionaries(st.text(max_size=3), FINITE, max_size=4),
        st.none(),
        st.lists(st.complex_numbers(allow_nan=False, max_magnitude=1e6), max_size=5),
        finite_lists.map(lambda v: (x for x in v)),  # a generator
    )


SAMPLES = _samples()


def _pair(f: Callable[..., Any]) -> list[Callable[[Any], Any]]:
    """Two-sample functions: the fuzzed sample on either side of a good one."""
    return [lambda d: f(d, GOOD), lambda d: f(GOOD, d)]


def _mapping(f: Callable[..., Any]) -> list[Callable[[Any], Any]]:
    return [
        lambda d: f({"x": d}, {"x": GOOD}),
        lambda d: f({"x": GOOD}, {"x": d}),
        lambda d: f(d, d),
    ]


def _faas(d: Any) -> Any:
    return perfstats.faas_cost(d, memory_mb=128, architecture="x86_64")


def _repetitions(d: Any) -> Any:
    ref = perfstats.relative_change(GOOD, GOOD * 1.1, n_resamples=200, rng=1)
    return perfstats.repetitions_needed(
        ref, d, GOOD[: len(d)] if _sized(d) else GOOD, n_resamples=200, rng=1
    )


def _sized(d: Any) -> bool:
    try:
        return 0 < len(d) <= GOOD.size
    except TypeError:
        return False


def _history(d: Any) -> Any:
    frame = pd.DataFrame({"benchmark": "b", "commit": np.arange(40) // 2, "value": GOOD})
    if _sized(d):
        frame = frame.iloc[: len(d)].assign(value=list(d))
    return perfstats.history_change_points(frame if d is not None else d, permutations=20)


def _schedule(d: Any) -> Any:
    return perfstats.schedule({"a": d}, sampling_interval=1.0)


# Every function in perfstats.__all__ that takes data, with the calls that hand it the fuzz.
ADAPTERS: dict[str, list[Callable[[Any], Any]]] = {
    "acf": [perfstats.acf],
    "benjamini_hochberg": [perfstats.benjamini_hochberg],
    "bootstrap_distribution": [
        lambda d: perfstats.bootstrap_distribution(d, "median", n_resamples=50, rng=1),
        lambda d: perfstats.bootstrap_distribution(GOOD, d, n_resamples=50, rng=1),
    ],
    "change_agreement": _mapping(perfstats.change_agreement),
    "change_points": [
        lambda d: perfstats.change_points(d, permutations=20, n_resamples=100, rng=1)
    ],
    "characterize": [perfstats.characterize],
    "cliffs_delta": _pair(perfstats.cliffs_delta),
    "compare": _pair(lambda a, b: perfstats.compare(a, b, n_resamples=200, rng=1)),
    "consistent_ci_curve": [perfstats.consistent_ci_curve],
    "faas_cost": [_faas],
    "find_modes": [perfstats.find_modes],
    "gate": [
        lambda d: perfstats.gate({"x": d}, {"x": GOOD}, n_resamples=200, rng=1),
        lambda d: perfstats.gate({"x": GOOD}, {"x": d}, n_resamples=200, rng=1),
        lambda d: perfstats.gate(d, d, n_resamples=200, rng=1),
    ],
    "hdi": [perfstats.hdi],
    "history_change_points": [_history],
    "kl_similarity": _pair(perfstats.kl_similarity),
    "ks": _pair(perfstats.ks),
    "local_deviation": _pair(perfstats.local_deviation),
    "namd": _pair(perfstats.namd),
    "optimal_block_length": [perfstats.optimal_block_length],
    "parse_threshold": [perfstats.parse_threshold],
    "pelt": [perfstats.pelt],
    "percentile_ci": [
        lambda d: perfstats.percentile_ci(d, 0.5),
        lambda d: perfstats.percentile_ci(d, [0.1, 0.9], method="block", n_resamples=100, rng=1),
        lambda d: perfstats.percentile_ci(d, 0.9, method="exact-bootstrap"),
        lambda d: perfstats.percentile_ci(GOOD, d),
    ],
    "possible_changes": [perfstats.possible_changes],
    "relative_change": _pair(lambda a, b: perfstats.relative_change(a, b, n_resamples=200, rng=1)),
    "repetitions_needed": [_repetitions],
    "schedule": [_schedule],
    "steady_state_start": [perfstats.steady_state_start],
    "wilcoxon_ranksum": _pair(perfstats.wilcoxon_ranksum),
    "wilcoxon_signedrank": [*_pair(perfstats.wilcoxon_signedrank), perfstats.wilcoxon_signedrank],
}

# Public functions that take no measurements, or only model objects built elsewhere.
NOT_DATA = {
    "calibrate": "load tests (spans, busy times, completions), checked by its own tests",
    "faas_prices": "a price table, checked by its own tests",
    "predict_regression": "a queueing model object, not data",
    "detect_system_regression": "call graphs and a queueing model",
    "propagate": "deviation results and call graphs",
}


def _functions() -> Iterator[str]:
    for name in perfstats.__all__:
        obj = getattr(perfstats, name)
        if inspect.isfunction(obj):
            yield name


def test_every_public_function_is_fuzzed_or_takes_no_data() -> None:
    names = set(_functions())
    assert names, "no public functions found"
    assert names == set(ADAPTERS) | set(NOT_DATA), names ^ (set(ADAPTERS) | set(NOT_DATA))


def _floats_in(value: Any, depth: int = 0) -> Iterator[float]:
    if depth > 3:
        return
    if isinstance(value, float):
        yield value
    elif isinstance(value, np.ndarray) and value.dtype.kind == "f":
        yield from value.ravel().tolist()
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _floats_in(getattr(value, field.name), depth + 1)
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _floats_in(item, depth + 1)


def _all_finite_numbers(d: Any) -> bool:
    try:
        arr = np.asarray(d, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return arr.ndim == 1 and arr.size > 0 and bool(np.isfinite(arr).all())


def _accepts(call: Callable[[Any], Any], data: Any) -> Any:
    """Run ``call(data)``: a result, or a ValueError/TypeError with a message; nothing else."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            return call(data)
        except (ValueError, TypeError) as exc:
            assert str(exc).strip(), f"{type(exc).__name__} without a message"
            return None


CASES = [(name, i) for name, calls in sorted(ADAPTERS.items()) for i in range(len(calls))]


@pytest.mark.parametrize(("name", "i"), CASES, ids=[f"{n}-{i}" for n, i in CASES])
@FUZZ
@given(data=SAMPLES)
def test_public_function_gives_a_result_or_a_clear_error(name: str, i: int, data: Any) -> None:
    _accepts(ADAPTERS[name][i], data)


# NaN in a result is an answer only where a statistic is undefined; from finite, varied,
# moderate data these never return one.
NAN_FREE = ["percentile_ci", "relative_change", "cliffs_delta", "ks", "namd", "kl_similarity",
            "optimal_block_length", "hdi"]  # fmt: skip


@pytest.mark.parametrize("name", NAN_FREE)
@FUZZ
@given(
    data=st.lists(st.floats(min_value=1e-300, max_value=1e300), min_size=12, max_size=40).filter(
        lambda v: len(set(v)) > 3
    )
)
def test_finite_data_give_no_nan(name: str, data: list[float]) -> None:
    for call in ADAPTERS[name]:
        result = _accepts(call, data)
        assert not any(math.isnan(v) for v in _floats_in(result)), (name, result)


RULE_OPTIONS: dict[str, dict[str, Any]] = {
    "superflow": {},
    "metior": {"n_resamples": 100, "rng": 1},
    "basic-bootstrap": {"n_resamples": 100, "rng": 1},
    "block-means": {"n_resamples": 100, "rng": 1},
    "hdi": {"n_resamples": 100, "rng": 1},
    "gmm": {"max_components": 2, "rng": 1},
    "auto": {"rng": 1},
}


@pytest.mark.parametrize("rule", sorted(rules.RULES))
@FUZZ
@given(data=SAMPLES)
def test_rule_check_and_monitor_give_a_result_or_a_clear_error(rule: str, data: Any) -> None:
    def check(d: Any) -> Any:
        return rules.by_name(rule, **RULE_OPTIONS.get(rule, {})).check(d)

    def monitor(d: Any) -> Any:
        return Monitor(rules.by_name(rule, **RULE_OPTIONS.get(rule, {})), max_n=60).add(d)

    if isinstance(data, Iterator):  # read once: give each call its own
        data = list(data)
        _accepts(check, iter(data))
        _accepts(monitor, iter(data))
        return
    _accepts(check, data)
    _accepts(monitor, data)


# Equal values of any magnitude and count are the class "constant": the rounding of their mean
# (57.123456789 repeated 55 times has a mean a unit in the last place away) must not read as a
# spread, nor as a bandwidth too narrow for the density grid.
@FUZZ
@given(
    value=st.one_of(FINITE, st.floats(min_value=-1e6, max_value=1e6)),
    count=st.integers(5, 200),
    nudge=st.booleans(),
)
def test_constant_series_of_any_value_is_constant(value: float, count: int, nudge: bool) -> None:
    from perfstats.characterization import distribution_class

    data = [value] * count
    c = _accepts(perfstats.characterize, data)
    # Values whose sum overflows float64 are refused with a message (``_accepts``); any other
    # constant series is characterised as one.
    if c is not None:
        assert c.distribution == "constant", (value, count, c)
        assert (c.sd, c.mean, c.n_modes, c.steady_state) == (0.0, value, 1, "flat")
        assert distribution_class(data) == "constant"
        decision = rules.Auto(rng=1).check(data)
        if count >= 25:  # SHARP-Auto's fewest runs
            assert "constant" in decision.reason, decision
    else:
        assert abs(value) * count > 1e300, value
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        if nudge:
            # One value a unit in the last place away: not constant, but still no crash.
            data[-1] = float(np.nextafter(value, 0.0)) if value != 0.0 else 5e-324
            modes = _accepts(perfstats.find_modes, data)
            assert modes is None or modes.count >= 1
            _accepts(perfstats.characterize, data)
            _accepts(rules.Auto(rng=1).check, data)


# ---------------------------------------------------------------------------------------------
# The command line


TEXT = st.text(
    st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12
)  # argv cannot carry NUL
NUMBERISH = st.one_of(
    FINITE.map(repr),
    st.sampled_from(["nan", "inf", "-inf", "1e999", "-0", "0x10", "1_000", "", " ", "yes", "none"]),
    st.integers(-(10**20), 10**20).map(str),
)
CELL = st.one_of(NUMBERISH, TEXT.filter(lambda s: "\n" not in s and "\r" not in s))


def _csv_text() -> st.SearchStrategy[str]:
    header = st.lists(
        st.one_of(st.sampled_from(["value", "status", "unit", "run", "a", "b", ""]), TEXT),
        min_size=1,
        max_size=4,
    )

    def table(cols: list[str]) -> st.SearchStrategy[str]:
        row = st.lists(CELL, min_size=len(cols), max_size=len(cols)).map(lambda r: ",".join(r))
        return st.lists(row, max_size=25).map(
            lambda rows: "\n".join([",".join(cols), *rows]) + "\n"
        )

    return st.one_of(header.flatmap(table), TEXT, st.just(""))


CONTENT = st.one_of(_csv_text(), st.binary(max_size=200))


def _write(path: Path, content: str | bytes) -> str:
    if isinstance(content, str):
        path.write_bytes(content.encode("utf-8", "surrogatepass"))
    else:
        path.write_bytes(content)
    return path.name


def _safe(token: str) -> bool:
    # Random tokens stay inside the test's directory and never start a command.
    return token != "--" and not token.startswith("/") and ".." not in token and "~" not in token


TOKENS = st.lists(
    st.one_of(TEXT, NUMBERISH, st.sampled_from(["-o", "--json", "--help", "-r"])), max_size=4
).filter(lambda ts: all(_safe(t) for t in ts))

SUBCOMMAND_FLAGS: dict[str, list[str]] = {
    "compare": ["--column", "--level", "--seed", "--paired", "--per-pair", "--json"],
    "replay": ["--rule", "-r", "--seed", "--max-n", "--json"],
    "report": ["--json"],
    "ab": ["--against", "--level", "--seed", "--json"],
    "run": ["--rule", "-r", "--seed", "--max-seconds", "--concurrency", "--max-failures", "--json"],
    "gate": ["--threshold", "--fdr", "--statistic", "--level", "--paired", "--seed", "--format",
             "--strict", "--names"],
    # --permutations is left out: a random large count is a legitimate, long run.
    "history": ["--pvalue", "--min-size", "--format", "--seed"],
    "export": ["--format", "--metric", "--name", "--json"],
}  # fmt: skip
# Exit codes a command may end with besides 0 and 2 (the gate's verdicts).
VERDICT_STATUSES: dict[str, tuple[int, ...]] = {"gate": (1, 3)}
RULE_NAMES = st.one_of(st.sampled_from(sorted(rules.RULES)), TEXT)
OPTION = st.tuples(
    st.sampled_from(["error", "level", "method", "ci", "q", "quantiles", "threshold", "interval",
                     "min_n", "n", "statistic", "n_resamples", "rng", "colour"]),
    st.one_of(NUMBERISH, TEXT, st.sampled_from(["p90", "(0.25, 1.5)", "[]", "{}", "order", "(1,"])),
).map(lambda kv: f"{kv[0]}={kv[1]}")  # fmt: skip


def _flag_values(command: str) -> st.SearchStrategy[list[str]]:
    def value(flag: str) -> st.SearchStrategy[list[str]]:
        if flag in ("--paired", "--per-pair", "--json", "--strict"):
            return st.just([flag])
        if flag == "--rule":
            return RULE_NAMES.map(lambda v: [flag, v])
        if flag == "-r":
            return OPTION.map(lambda v: [flag, v])
        return st.one_of(NUMBERISH, TEXT).map(lambda v: [flag, v])

    flags = st.lists(st.sampled_from(SUBCOMMAND_FLAGS[command]), max_size=3)
    return flags.flatmap(lambda fs: st.tuples(*[value(f) for f in fs])).map(
        lambda parts: [t for p in parts for t in p]
    )


def _run_cli(
    argv: list[str], capsys: pytest.CaptureFixture[str], also: tuple[int, ...] = ()
) -> None:
    from perfstats.adapters.cli import main

    capsys.readouterr()
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        status = exc.code if isinstance(exc.code, int) else 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err, (argv, captured.err)
    assert "internal error" not in captured.err, (argv, captured.err)
    assert status in (0, 2, *also), (argv, status, captured.err)
    if status == 2:
        # A deprecated option spelling adds one warning line before the error.
        lines = [
            line
            for line in captured.err.splitlines()
            if line.strip() and not line.startswith("perfstats: warning: ")
        ]
        assert len(lines) == 1 and lines[0].startswith("perfstats"), (argv, captured.err)


CLI = settings(FUZZ, max_examples=25)


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    return tmp_path


@pytest.mark.parametrize(
    "command", ["compare", "replay", "report", "ab", "gate", "history", "export"]
)
@CLI
@given(data=st.data())
def test_cli_subcommand_with_random_files_and_arguments(
    command: str, data: st.DataObject, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _write(workdir / "a.csv", data.draw(CONTENT, "a.csv"))
    second = _write(workdir / "b.csv", data.draw(CONTENT, "b.csv"))
    flags = data.draw(_flag_values(command), "flags")
    noise = data.draw(TOKENS, "noise")
    if command == "compare":
        argv = ["compare", first, second, *flags]
    elif command == "replay":
        argv = ["replay", first, "--workers", "1", "--no-progress", *flags]
    elif command == "report":
        argv = ["report", first, *flags]
    elif command == "gate":
        argv = ["gate", first, second, *flags]
    elif command == "history":
        argv = ["history", first, *flags]
    elif command == "export":
        argv = ["export", first, "-o", second, *flags]
    else:
        argv = ["ab", "--from-record", first, "--no-progress", *flags]
        if "--against" in argv:
            argv[argv.index("--against") + 1 : argv.index("--against") + 2] = [second]
    also = VERDICT_STATUSES.get(command, ())
    _run_cli([*argv, *noise] if data.draw(st.booleans(), "noisy") else argv, capsys, also)


@CLI
@given(flags=_flag_values("run"), noise=TOKENS)
def test_cli_run_with_random_arguments(
    flags: list[str], noise: list[str], workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The built-in workload only (no target command is ever started), two runs at most.
    if "--concurrency" in flags:
        i = flags.index("--concurrency") + 1
        flags[i] = flags[i] if flags[i].strip().lstrip("-").isdigit() and len(flags[i]) < 3 else "2"
    _run_cli(["run", "--builtin", "--max-n", "2", "--no-progress", *flags, *noise], capsys)


@CLI
@given(
    argv=st.lists(st.one_of(TEXT, NUMBERISH), max_size=5).filter(
        lambda ts: all(_safe(t) for t in ts)
    )
)
def test_cli_with_random_argument_strings(
    argv: list[str], workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if argv and argv[0] == "run":  # "run" alone would start the built-in workload for 500 runs
        argv = [*argv, "--max-n", "2", "--no-progress"]
    _run_cli(argv, capsys)


def test_the_fuzzed_commands_are_all_the_commands() -> None:
    from perfstats.adapters.cli.main import COMMANDS

    assert set(COMMANDS) == set(SUBCOMMAND_FLAGS)


def test_fuzz_files_are_written_where_the_test_runs(workdir: Path) -> None:
    assert Path(os.getcwd()) == workdir
