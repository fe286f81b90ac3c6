"""``pytest -n 2 --dist loadfile`` keeps the podman test files on one worker.

Container targets remove the containers of killed runs host-wide when they
start, so two podman test files running at once on two workers would race
(tests/conftest.py, ``SERIAL_GROUPS``). A new podman test file must join the group.
"""

from __future__ import annotations

from pathlib import Path

from conftest import SERIAL_GROUPS, xdist_scope

REPO = Path(__file__).resolve().parents[1]


def _test_files() -> list[Path]:
    return sorted(
        p for p in (REPO / "tests").rglob("test_*.py") if "support" not in p.relative_to(REPO).parts
    )


def test_every_file_of_a_serial_group_exists() -> None:
    for paths in SERIAL_GROUPS.values():
        for path in paths:
            assert (REPO / path).is_file(), path


def test_every_podman_test_file_is_in_the_podman_group() -> None:
    podman = [
        p.relative_to(REPO).as_posix()
        for p in _test_files()
        if p.name != Path(__file__).name and "podman" in p.read_text(encoding="utf-8")
    ]
    assert podman, "no podman test file found: the search is broken"
    assert {path: xdist_scope(f"{path}::t") for path in podman} == dict.fromkeys(podman, "podman")


def test_other_files_are_their_own_scope() -> None:
    path = "tests/core/regression_gate/test_gate.py"
    assert xdist_scope(f"{path}::test_a[1]") == xdist_scope(f"{path}::test_b") == path


def test_ci_runs_the_readme_test_command() -> None:
    # README: the tests on two workers, then the `timing` tests alone.
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    command = next(
        line
        for line in readme.splitlines()
        if line.startswith(". .venv/bin/activate && python -m pytest")
    )
    readme_runs = [part.strip() for part in command.split("&&")[1:]]
    ci_runs = [
        line.strip()
        for line in (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if line.startswith("python -m pytest")
    ]
    assert (
        readme_runs
        == ci_runs
        == [
            'python -m pytest -n 2 -m "not timing"',
            "python -m pytest -m timing",
        ]
    )
