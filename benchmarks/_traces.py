"""The real traces every reproduction reads, loaded in one place.

Two sets live under ``$PERFSTATS_DATA`` (default ``../shared/data`` beside
the repository):

* ``scope/cold.csv`` and ``scope/warm.csv``: the SCOPE serverless traces of
  SuperFlow's protocol A, 65 functions (columns) x 1,000 invocations each,
  cold and warm starts;
* ``pt4cloud/``: the 33 eight-week cloud traces of PT4Cloud and Metior, one
  ``.txt`` file each, listed in ``manifest.csv`` with their split into a
  three-week test part and a five-week ground truth.

Missing data is an error naming the folder, never an empty set.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

#: The two SCOPE files, in the order every reproduction reads them.
STARTS = ("cold", "warm")


def data_root(need: str = "scope") -> Path:
    """``$PERFSTATS_DATA`` or ``../shared/data`` beside the repository.

    ``need`` is the set that must be there (``"scope"`` or ``"pt4cloud"``).
    """
    env = os.environ.get("PERFSTATS_DATA")
    root = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "data"
    wanted = root / "pt4cloud" / "manifest.csv" if need == "pt4cloud" else root / need
    if not wanted.exists():
        raise FileNotFoundError(f"no {need} data under {root} (set PERFSTATS_DATA)")
    return root


def load_scope(
    root: Path | None = None, *, quick: bool = False, every: int = 1
) -> dict[str, dict[str, np.ndarray]]:
    """``{start: {function: runs}}``; every ``every``-th function (quick: every fifth)."""
    folder = (root if root is not None else data_root("scope")) / "scope"
    step = 5 if quick else every
    out: dict[str, dict[str, np.ndarray]] = {}
    for start in STARTS:
        path = folder / f"{start}.csv"
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing; set PERFSTATS_DATA to the data folder")
        frame = pd.read_csv(path)
        names = list(frame.columns)[::step]
        out[start] = {str(name): frame[name].to_numpy(dtype=np.float64) for name in names}
    return out


@dataclass(frozen=True)
class CloudTrace:
    """One PT4Cloud configuration: test part, ground truth and its time scale."""

    name: str
    cloud: str
    test: np.ndarray
    truth: np.ndarray

    @property
    def n_test(self) -> int:
        return int(self.test.size)

    @property
    def day(self) -> int:
        """One run interval: a day of runs, ``floor(floor(2 n_test / 3) / 14)``."""
        return (2 * self.n_test // 3) // 14

    @property
    def hour(self) -> int:
        """Runs per hour, ``ceil(n_test / 3 / 7 / 24)``."""
        return math.ceil(self.n_test / 3 / 7 / 24)

    @property
    def runs(self) -> np.ndarray:
        """The whole eight weeks, test part then ground truth."""
        return np.concatenate([self.test, self.truth])

    def starts(self, stride: int) -> range:
        """Start points of the tests: every ``stride``-th point of the first week."""
        return range(0, -(-self.n_test // 3), stride)


def load_pt4cloud(
    root: Path | None = None, *, names: Sequence[str] | None = None
) -> list[CloudTrace]:
    """The traces of ``manifest.csv`` in its order, split into test part and ground truth."""
    folder = (root if root is not None else data_root("pt4cloud")) / "pt4cloud"
    manifest = pd.read_csv(folder / "manifest.csv")
    traces = []
    for record in manifest.to_dict("records"):
        file = str(record["file"])
        name = file.removesuffix(".txt")
        if names is not None and name not in names:
            continue
        x = np.loadtxt(folder / file, dtype=np.float64, ndmin=1)
        if x.size != int(record["n_total"]):
            raise ValueError(f"{file} has {x.size} points; manifest says {record['n_total']}")
        n_test = int(record["n_test"])
        traces.append(CloudTrace(name, str(record["cloud"]), x[:n_test], x[n_test:]))
    return traces


def pt4cloud_by_name(root: Path | None = None) -> dict[str, np.ndarray]:
    """``{name: all runs}`` of the 33 cloud traces, in the order of their file names."""
    return {t.name: t.runs for t in sorted(load_pt4cloud(root), key=lambda t: t.name + ".txt")}
