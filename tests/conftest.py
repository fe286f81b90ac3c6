"""Shared test fixtures: the real traces and a moto server (real services: ``tests/support``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from support.services import MotoServer, moto_server

REPO = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    """PERFSTATS_DATA, or ../shared/data beside the repository.

    A missing folder is an error, never a skip: the real-data tests must run.
    """
    path = Path(os.environ.get("PERFSTATS_DATA", REPO.parent / "shared" / "data"))
    if not (path / "scope").is_dir() or not (path / "pt4cloud").is_dir():
        raise RuntimeError(
            f"real traces not found at {path}; set PERFSTATS_DATA to the shared data folder"
        )
    return path


@pytest.fixture(scope="session")
def perfstats_data() -> Path:
    return data_dir()


@pytest.fixture(scope="session")
def scope_traces(perfstats_data: Path) -> dict[str, np.ndarray]:
    """The 130 serverless traces, keyed ``"cold/Func1"`` ... ``"warm/Func65"``."""
    out: dict[str, np.ndarray] = {}
    for start in ("cold", "warm"):
        frame = pd.read_csv(perfstats_data / "scope" / f"{start}.csv")
        for name in frame.columns:
            out[f"{start}/{name}"] = frame[name].to_numpy(dtype=np.float64)
    return out


@pytest.fixture(scope="session")
def cloud_traces(perfstats_data: Path) -> dict[str, np.ndarray]:
    """The 33 eight-week cloud traces of the PT4Cloud/Metior data set."""
    manifest = pd.read_csv(perfstats_data / "pt4cloud" / "manifest.csv")
    return {
        str(name): np.loadtxt(perfstats_data / "pt4cloud" / str(name)) for name in manifest["file"]
    }


# Support files are run by the tests (as function sources, workload scripts),
# not test modules: keep doctest collection from importing them.
collect_ignore_glob = ["support/*"]


@pytest.fixture(scope="module")
def moto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoServer]:
    """A moto server (AWS APIs on loopback) shared by the tests of one module."""
    with moto_server(tmp_path_factory.mktemp("moto")) as server:
        yield server
