"""Ctrl-C twice, SIGTERM and SIGHUP clean up; a later run removes a killed run's leftovers.

Real processes: ``perfstats run`` in a child, signals sent to it, then what
is left is looked for with ``pgrep`` and ``podman ps``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import pytest
from perfstats.adapters import Container
from support.cli import rows, start, wait_for
from support.services import PodmanImage

LONG = ["run", "--rule", "fixed", "-r", "n=100000", "--record", "run.csv", "--no-progress"]


def _signal(proc: subprocess.Popen[str], sequence: list[signal.Signals]) -> None:
    for i, signum in enumerate(sequence):
        if i:
            time.sleep(0.3)  # the next one lands in the middle of the clean-up
        os.kill(proc.pid, signum)


def _pids(pattern: str) -> list[str]:
    return subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()


SEQUENCES = {
    "sigterm": [signal.SIGTERM],
    "sighup": [signal.SIGHUP],
    "ctrl-c-twice": [signal.SIGINT, signal.SIGINT],
}


@pytest.mark.parametrize("how", list(SEQUENCES))
def test_command_process_tree_killed(tmp_path: Path, how: str) -> None:
    marker = f"sleep 3{uuid.uuid4().int % 10**6:06d}"
    # A shell with two children, one in the background: the whole tree must go.
    driver = start([*LONG, "--", "sh", "-c", f"{marker} & {marker}; wait"], tmp_path)
    try:
        wait_for(lambda: len(_pids(marker)) >= 2, 60, "the command's processes")
        _signal(driver, SEQUENCES[how])
        _, err = driver.communicate(timeout=60)
        assert driver.returncode == 130, (driver.returncode, err)
        wait_for(lambda: not _pids(marker), 5, f"no {marker!r} left")
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
        for pid in _pids(marker):
            os.kill(int(pid), signal.SIGKILL)


def _containers(image: PodmanImage) -> list[str]:
    out = subprocess.run(
        ["podman", "ps", "-a", "-q", "--filter", f"ancestor={image.image}"],
        capture_output=True, text=True, check=True,
        env={**os.environ, "CONTAINERS_CONF": str(image.containers_conf)},
    )  # fmt: skip
    return out.stdout.split()


def _warm_run(tmp_path: Path, image: PodmanImage) -> subprocess.Popen[str]:
    return start(
        [*LONG, "--target", "container", "-t", f"image={image.image}", "-t", "mode=warm",
         "--", "sleep", "0.2"],
        tmp_path, env={"CONTAINERS_CONF": str(image.containers_conf)},
    )  # fmt: skip


@pytest.mark.service
@pytest.mark.parametrize("how", ["ctrl-c-twice", "sighup"])
def test_warm_container_removed(tmp_path: Path, podman_image: PodmanImage, how: str) -> None:
    driver = _warm_run(tmp_path, podman_image)
    try:
        wait_for(lambda: rows(tmp_path / "run.csv") >= 2, 90, "the warm container's runs")
        assert _containers(podman_image)
        _signal(driver, SEQUENCES[how])
        _, err = driver.communicate(timeout=120)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert _containers(podman_image) == [], err


@pytest.mark.service
def test_leftovers_of_a_killed_run_removed_by_the_next(
    tmp_path: Path, podman_image: PodmanImage, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver = _warm_run(tmp_path, podman_image)
    wait_for(lambda: rows(tmp_path / "run.csv") >= 1, 90, "the warm container's runs")
    driver.kill()  # no clean-up at all
    driver.communicate()
    left = _containers(podman_image)
    assert left, "kill -9 should have left the warm container"
    monkeypatch.setenv("CONTAINERS_CONF", str(podman_image.containers_conf))
    # A later run (here: a new target, as each run makes one) removes them at its start.
    with Container(podman_image.image, ["true"], mode="warm") as later:
        assert sorted(c[:12] for c in later.remove_leftovers()) == []
        assert _containers(podman_image) == []
