"""Run the real benchmarking tools the importer tests read the output of."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def run_tool(cmd: list[str], cwd: Path, env: dict[str, str] | None = None, ok: int = 0) -> str:
    """Run a tool; fail the test with its output when it exits with other than ``ok``."""
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == ok, f"{cmd[0]} failed:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}"
    return res.stdout


def asv_project(repo: Path, bench_source: str, home: Path) -> tuple[str, dict[str, str]]:
    """An asv project in ``repo`` with one benchmark file, committed, its machine set up.

    Returns the commit hash to give ``asv run --set-commit-hash`` and the
    environment (``HOME`` at ``home``) to run asv in.
    """
    (repo / "benchmarks").mkdir(parents=True)
    (repo / "benchmarks" / "__init__.py").write_text("")
    (repo / "benchmarks" / "bench.py").write_text(bench_source)
    (repo / "asv.conf.json").write_text(json.dumps({
        "version": 1, "project": "demo", "project_url": "", "repo": ".",
        "environment_type": "existing", "benchmark_dir": "benchmarks",
        "results_dir": "results", "html_dir": "html", "branches": ["HEAD"],
    }))  # fmt: skip
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    run_tool(["git", "init", "-q"], repo)
    run_tool([*git, "add", "-A"], repo)
    run_tool([*git, "commit", "-qm", "init"], repo)
    head = run_tool(["git", "rev-parse", "HEAD"], repo).strip()
    env = {**os.environ, "HOME": str(home)}
    run_tool([sys.executable, "-m", "asv", "machine", "--yes"], repo, env)
    return head, env
