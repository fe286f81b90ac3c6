"""Shared test fixtures: the real traces and a moto server (real services: ``tests/support``)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from support.services import (
    MotoServer,
    PodmanImage,
    aws_client,
    aws_env,
    busybox_image,
    moto_server,
)

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


@pytest.fixture(scope="session", autouse=True)
def _sigint_as_at_a_terminal() -> Iterator[None]:
    """Ctrl-C reaches the programs the tests start, even from a background job.

    A shell starts a background job with SIGINT ignored, and a child keeps an
    ignored signal across exec: the tools the interrupt tests start would
    then never see the SIGINT they send. Restoring Python's handler here
    gives those children the default disposition a terminal user's have.
    """
    before = signal.getsignal(signal.SIGINT)
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    if before == signal.SIG_IGN:
        signal.signal(signal.SIGINT, before)


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


# Test files whose real services share one host-wide resource: under
# pytest-xdist they run on one worker, one after another. They start podman
# containers, and a container target's start removes the containers of killed
# runs host-wide, which would race with the test that kills a run to check
# exactly that clean-up.
SERIAL_GROUPS = {
    "podman": (
        "tests/adapters/targets/test_container.py",
        "tests/faults/test_interrupts_clean_up.py",
        "tests/security/test_container_env_and_escaped_output.py",
    ),
}


def xdist_scope(nodeid: str) -> str:
    """The unit a pytest-xdist worker takes whole: a test's file, or its serial group.

    Examples
    --------
    >>> xdist_scope("tests/core/regression_gate/test_gate.py::test_x[1]")
    'tests/core/regression_gate/test_gate.py'
    >>> xdist_scope("tests/faults/test_interrupts_clean_up.py::test_y")
    'podman'
    """
    path = nodeid.split("::", 1)[0]
    for group, paths in SERIAL_GROUPS.items():
        if path in paths:
            return group
    return path


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``pytest -n 2 --dist loadfile`` with :data:`SERIAL_GROUPS` kept on one worker.

    A whole file goes to one worker (a module-scoped real service starts once,
    as in a serial run). xdist's own ``--dist loadgroup`` does nothing here: it
    tags a test by writing ``item._nodeid``, which pytest 9.2 no longer reads.
    """
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class FileOrGroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_scope(nodeid)

    return FileOrGroupScheduling(config, log)


# Support files are run by the tests (as function sources, workload scripts),
# not test modules: keep doctest collection from importing them.
collect_ignore_glob = ["support/*"]


@pytest.fixture(scope="module")
def moto(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MotoServer]:
    """A moto server (AWS APIs on loopback) shared by the tests of one module."""
    with moto_server(tmp_path_factory.mktemp("moto")) as server:
        yield server


@pytest.fixture
def moto_credentials(moto: MotoServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """boto3's environment (dummy keys, region, endpoint) pointed at the moto server.

    Deployments record their state in a folder of the test's own (unless the
    test chose one), never in the user's ``~/.local/state/perfstats``.
    """
    for key, value in aws_env(moto.endpoint).items():
        monkeypatch.setenv(key, value)
    if "PERFSTATS_STATE_DIR" not in os.environ:
        monkeypatch.setenv("PERFSTATS_STATE_DIR", str(tmp_path / "perfstats-state"))


@pytest.fixture(scope="module")
def moto_lambda(moto: MotoServer) -> Any:
    """A boto3 Lambda client of the module's moto server."""
    return aws_client("lambda", moto.endpoint)


@pytest.fixture(scope="module")
def lambda_role(moto: MotoServer) -> str:
    """The ARN of an execution role on the module's moto server, for deploying functions."""
    iam = aws_client("iam", moto.endpoint)
    return str(iam.create_role(RoleName="perfstats", AssumeRolePolicyDocument="{}")["Role"]["Arn"])


@pytest.fixture
def lambda_source(tmp_path: Path) -> Path:
    """A folder with a Lambda handler (``main.handler``) that returns its event."""
    folder = tmp_path / "fn"
    folder.mkdir()
    (folder / "main.py").write_text("def handler(event, context):\n    return event\n")
    return folder


@pytest.fixture(scope="module")
def podman_image(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PodmanImage]:
    """A busybox podman image built for the tests of one module, removed afterwards."""
    with busybox_image(tmp_path_factory.mktemp("podman")) as image:
        yield image
