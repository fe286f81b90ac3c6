"""A process's cgroup counters, v1 and v2, in folders laid out as the kernel's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from perfstats.adapters.targets.cgroups import CgroupCounters

GROUP = "/machine/libpod-abc"


def _proc(tmp: Path, cgroup_lines: str, mountinfo: str) -> Path:
    proc = tmp / "proc"
    (proc / "42").mkdir(parents=True)
    (proc / "self").mkdir()
    (proc / "42" / "cgroup").write_text(cgroup_lines)
    (proc / "self" / "mountinfo").write_text(mountinfo)
    return proc


def test_a_v2_group(tmp_path: Path) -> None:
    mount = tmp_path / "cgroup"
    group = mount / GROUP.lstrip("/")
    group.mkdir(parents=True)
    (group / "cpu.stat").write_text("usage_usec 100\nuser_usec 60\nsystem_usec 40\n")
    (group / "memory.peak").write_text("1048576\n")
    info = f"30 24 0:26 / {mount} rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
    proc = _proc(tmp_path, f"0::{GROUP}\n", info)
    counters = CgroupCounters.of_pid(42, proc=proc)
    assert counters.version == 2 and counters.cpu == [group / "cpu.stat"]
    assert counters.memory_peak == group / "memory.peak"
    start = counters.start()
    (group / "cpu.stat").write_text("usage_usec 400\nuser_usec 260\nsystem_usec 140\n")
    found = counters.series(start)
    assert found["cgroup_cpu_user"].value == 200_000.0
    assert found["cgroup_cpu_system"].value == 100_000.0
    # A plain file takes the reset write like any other: the value read is then not a number.
    assert found["cgroup_memory_peak"].value is None
    assert "cannot read memory.peak" in str(found["cgroup_memory_peak"].error)


def test_v1_controllers_on_their_own_mounts(tmp_path: Path) -> None:
    cpu_mount, mem_mount = tmp_path / "cpuacct", tmp_path / "memory"
    cpu_group, mem_group = (
        cpu_mount / "machine" / "libpod-abc",
        mem_mount / "machine" / "libpod-abc",
    )
    cpu_group.mkdir(parents=True)
    mem_group.mkdir(parents=True)
    (cpu_group / "cpuacct.usage_user").write_text("1000\n")
    (cpu_group / "cpuacct.usage_sys").write_text("500\n")
    (mem_group / "memory.max_usage_in_bytes").write_text("9999\n")
    info = (
        f"31 24 0:27 / {cpu_mount} rw shared:5 - cgroup cgroup rw,cpuacct\n"
        f"32 24 0:28 / {mem_mount} rw shared:6 - cgroup cgroup rw,memory\n"
        "33 24 0:29 / /proc rw - proc proc rw\n"
    )
    proc = _proc(tmp_path, f"4:memory:{GROUP}\n2:cpu,cpuacct:{GROUP}\n0::/\n", info)
    counters = CgroupCounters.of_pid(42, proc=proc)
    assert counters.version == 1
    start = counters.start()
    # The peak was reset (v1: writing 0), then the run charged memory.
    assert (mem_group / "memory.max_usage_in_bytes").read_text() == "0\n"
    (mem_group / "memory.max_usage_in_bytes").write_text("7340032\n")
    (cpu_group / "cpuacct.usage_user").write_text("4000\n")
    found = counters.series(start)
    assert found["cgroup_cpu_user"].value == 3000.0 and found["cgroup_cpu_system"].value == 0.0
    assert found["cgroup_memory_peak"].value == 7340032.0


def test_no_counters_is_a_lookup_error_that_says_why(tmp_path: Path) -> None:
    proc = _proc(tmp_path, f"0::{GROUP}\n", "")
    with pytest.raises(LookupError, match=r"no cpu\.stat, memory\.peak or cgroup v1"):
        CgroupCounters.of_pid(42, proc=proc)
    with pytest.raises(LookupError, match="cannot read the cgroup of process 7"):
        CgroupCounters.of_pid(7, proc=proc)


def test_this_process_has_a_cgroup_here() -> None:
    counters = CgroupCounters.of_pid(os.getpid())
    assert counters.cpu or counters.memory_peak is not None
