"""The Container target on podman with runc and a busybox image built here."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time

import pytest
from perfstats.adapters import Container, read_record, run
from perfstats.adapters.targets.container import LABEL
from support.services import PodmanImage

from perfstats.rules import Fixed


@pytest.fixture(autouse=True)
def containers_conf(podman_image: PodmanImage, monkeypatch) -> None:
    monkeypatch.setenv("CONTAINERS_CONF", str(podman_image.containers_conf))


def _leftovers(session: str) -> list[str]:
    out = subprocess.run(
        ["podman", "ps", "-a", "-q", "--filter", f"label={LABEL}={session}"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return out.stdout.split()


@pytest.mark.parametrize("mode", ["cold", "warm"])
def test_modes_measure_and_leave_no_container(
    podman_image: PodmanImage, mode: str, tmp_path
) -> None:
    target = Container(podman_image.image, ["/bin/echo", "hi"], mode=mode, network="none")
    result = run(target, Fixed(n=4), record=tmp_path / "c.csv", progress=False)
    df = result.measurements
    assert (df["status"] == "ok").all() and len(df) == 4 and (df["value"] > 0).all()
    assert df["cold"].tolist() == [mode == "cold"] * 4
    assert _leftovers(target.session) == []


def test_reported_value_inside_the_container(podman_image: PodmanImage) -> None:
    with Container(podman_image.image, ["/bin/sh", "-c", "echo took=$((6*7))"], mode="warm",
                   network="none", regex=r"took=(\d+)", unit="ms") as target:  # fmt: skip
        m = target.invoke()
        assert m.ok and m.value == 42.0 and m.cold is False
        assert len(_leftovers(target.session)) == 1  # the warm container, while open
    assert _leftovers(target.session) == []


def test_failures_and_timeouts_are_recorded_and_cleaned_up(podman_image: PodmanImage) -> None:
    target = Container(podman_image.image, ["/bin/sh", "-c", "exit 7"], network="none")
    m = target.invoke()
    assert m.status == "error" and m.error is not None and m.error.startswith("exit status 7")
    slow = Container(podman_image.image, ["/bin/sleep", "30"], network="none", timeout=1.5)
    m = slow.invoke()
    assert m.status == "timeout" and m.value is None
    slow.close()
    target.close()
    assert _leftovers(slow.session) == [] and _leftovers(target.session) == []


def test_bad_image_or_engine_fail_before_running() -> None:
    with pytest.raises(ValueError, match="not available to podman"):
        Container("localhost/perfstats-no-such-image:0", ["/bin/true"])
    with pytest.raises(ValueError, match="engine must be one of"):
        Container("x", ["/bin/true"], engine="lxc")
    with pytest.raises(ValueError, match="mode must be one of"):
        Container("x", ["/bin/true"], mode="tepid")


def test_interrupting_the_cli_removes_the_warm_container(
    podman_image: PodmanImage, tmp_path
) -> None:
    path = tmp_path / "i.csv"
    cmd = [
        sys.executable, "-m", "perfstats.adapters.cli", "run", "--rule", "fixed", "-r", "n=500",
        "--target", "container", "-t", f"image={podman_image.image}", "-t", "mode=warm",
        "-t", "network=none", "--record", str(path), "--no-progress", "--json",
        "--", "/bin/sleep", "0.05",
    ]  # fmt: skip
    env = {**os.environ, "CONTAINERS_CONF": str(podman_image.containers_conf)}
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 90
    while not path.exists() or path.read_text().count("\n") < 4:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "--resume" in err
    df = read_record(path)
    assert len(df) >= 3 and (df["status"] == "ok").all()
    used = {json.loads(extra)["container"] for extra in df["extra"]}
    assert len(used) == 1  # one warm container served every run
    gone = subprocess.run(
        ["podman", "container", "exists", used.pop()], env=env, capture_output=True
    )
    assert gone.returncode == 1  # podman: 1 = no such container


def test_a_warm_containers_cgroup_gives_cpu_time_and_memory_peak(
    podman_image: PodmanImage,
) -> None:
    # busybox dd holds one block of bs bytes: a 48 MiB buffer, then a 4 KiB one.
    big = ["/bin/sh", "-c", "dd if=/dev/zero of=/dev/null bs=48M count=8 2>/dev/null"]
    with Container(podman_image.image, big, mode="warm", network="none", cgroup=True) as target:
        m = target.invoke()
        assert m.ok, m.error
        peak, user, system = (
            m.series["cgroup_memory_peak"],
            m.series["cgroup_cpu_user"],
            m.series["cgroup_cpu_system"],
        )
        assert peak.unit == "B" and peak.source == "cgroup" and user.unit == "ns"
        assert 48 * 2**20 <= peak.value < 80 * 2**20  # type: ignore[operator]
        assert user.value is not None and system.value is not None
        assert user.value + system.value > 0
        assert target.config()["cgroup"]["memory_peak"] is not None
    small = ["/bin/sh", "-c", "dd if=/dev/zero of=/dev/null bs=4k count=8 2>/dev/null"]
    with Container(podman_image.image, small, mode="warm", network="none", cgroup=True) as target:
        first, second = target.invoke(), target.invoke()
        # The peak is reset before each run: a small run reports a small peak.
        for m in (first, second):
            assert m.ok and m.series["cgroup_memory_peak"].value < 16 * 2**20  # type: ignore[operator]


def test_a_cold_container_says_it_has_no_cgroup_counters(
    podman_image: PodmanImage, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        target = Container(
            podman_image.image,
            ["/bin/sh", "-c", "echo rps=12"],
            network="none",
            cgroup=True,
            metrics=[{"name": "rps", "regex": r"rps=(\d+)", "direction": "higher"}],
        )
    assert [r.getMessage() for r in caplog.records] == [
        "container: no cgroup counters (a cold container's cgroup is removed with it; "
        "use mode='warm' for them); the runs go on without them"
    ]
    m = target.invoke()
    assert m.ok and dict(m.series) == {"rps": m.series["rps"]} and m.series["rps"].value == 12.0
    assert target.config()["cgroup"] == {"problem": target.cgroup_problem}
