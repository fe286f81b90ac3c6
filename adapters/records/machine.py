"""Describe the machine and software a run happened on, for its metadata."""

from __future__ import annotations

import os
import platform
import socket
import sys
from importlib import metadata
from typing import Any

PACKAGES = (
    "perfstats", "numpy", "scipy", "numba", "pandas", "statsmodels", "arch",
    "boto3", "botocore", "tqdm",
)  # fmt: skip


def machine_info() -> dict[str, Any]:
    """CPU model, cores, memory, OS and kernel of this machine.

    Examples
    --------
    >>> from perfstats.adapters.records.machine import machine_info
    >>> sorted(machine_info())[:3]
    ['architecture', 'cores_logical', 'cores_usable']
    """
    return {
        "architecture": platform.machine(),
        "cores_logical": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "cpu_model": _cpu_model(),
        "hostname": socket.gethostname(),
        "kernel": platform.release(),
        "memory_bytes": _memory_bytes(),
        "os": _os_name(),
        "platform": platform.platform(),
    }


def software_info() -> dict[str, Any]:
    """Python and package versions.

    Examples
    --------
    >>> from perfstats.adapters.records.machine import software_info
    >>> "numpy" in software_info()["packages"]
    True
    """
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "python_executable": sys.executable,
        "packages": versions,
    }


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "cpu model"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or None


def _memory_bytes() -> int | None:
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def _os_name() -> str:
    try:
        release = platform.freedesktop_os_release()
        return release.get("PRETTY_NAME") or release.get("NAME") or platform.system()
    except OSError:
        return f"{platform.system()} {platform.version()}"
