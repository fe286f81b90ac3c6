"""adapters/ installs as perfstats.adapters, every subpackage with it: from a wheel and editable.

Each check builds a fresh virtual environment without perfstats, installs
perfstats into it (its dependencies are borrowed from the running
environment through a plain path in a .pth file, which adds the directory but
runs none of its own .pth hooks, so the running environment's editable
install cannot leak in), and imports perfstats.adapters from a neutral
directory.
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

_PROBE = (
    "import perfstats, perfstats.adapters, perfstats.rules; "
    "print(perfstats.__file__); print(perfstats.adapters.__file__)"
)


def _packages() -> list[str]:
    """Every package in the repository: each folder of perfstats/ and adapters/ with an __init__."""
    names = []
    roots = ((REPO / "perfstats", "perfstats"), (REPO / "adapters", "perfstats.adapters"))
    for root, prefix in roots:
        for init in sorted(root.rglob("__init__.py")):
            parts = init.parent.relative_to(root).parts
            if "__pycache__" not in parts:
                names.append(".".join((prefix, *parts)))
    return names


def _import_each(python: Path, cwd: Path, names: list[str]) -> dict[str, str]:
    """Import each package in ``python`` from ``cwd``; the file each came from."""
    code = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]:\n"
        "    print(name, importlib.import_module(name).__file__)\n"
    )
    done = subprocess.run(
        [str(python), "-c", code, *names], capture_output=True, text=True, check=True, cwd=cwd
    )
    return dict(line.split(" ", 1) for line in done.stdout.splitlines())


def _fresh_env(root: Path) -> Path:
    # No pip of its own (ensurepip takes most of the set-up): the running
    # pip installs into it with --python.
    venv.EnvBuilder(with_pip=False, clear=True).create(root)
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # Every site-packages folder the running interpreter sees: a worktree's
    # environment may itself borrow its packages from another one.
    own = sysconfig.get_paths()["purelib"]
    deps = [own, *(p for p in sys.path if p.endswith("site-packages") and p != own)]
    (Path(purelib) / "borrowed_dependencies.pth").write_text("\n".join(deps) + "\n")
    return python


def _pip(python: Path, *args: str) -> None:
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    subprocess.run(
        [*pip, "install", "--quiet", "--no-deps", *args],
        check=True,
        cwd=REPO,
    )


def _probe(python: Path, cwd: Path) -> list[str]:
    done = subprocess.run(
        [str(python), "-c", _PROBE], capture_output=True, text=True, check=True, cwd=cwd
    )
    return done.stdout.split()


@pytest.mark.slow
def test_wheel_installs_perfstats_adapters(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(wheels),
            str(REPO),
        ],
        check=True,
    )
    (wheel,) = wheels.glob("perfstats-*.whl")
    python = _fresh_env(tmp_path / "env")
    _pip(python, str(wheel))
    core, adapters = _probe(python, tmp_path)
    env = str(tmp_path / "env")
    assert core.startswith(env) and adapters.startswith(env)
    assert adapters.endswith("perfstats/adapters/__init__.py")
    assert (Path(core).parent / "py.typed").is_file()
    # Every subpackage is in the wheel and imports from the installed copy.
    names = _packages()
    assert {"perfstats.adapters.targets", "perfstats.adapters.cli"} <= set(names)
    files = _import_each(python, tmp_path, names)
    assert sorted(files) == sorted(names)
    outside = {name: f for name, f in files.items() if not f.startswith(env)}
    assert not outside, f"imported from outside the wheel install: {outside}"
    # The console script's module path, as pyproject names it.
    done = subprocess.run(
        [str(python), "-m", "perfstats.adapters.cli", "--help"],
        capture_output=True, text=True, check=True, cwd=tmp_path,
    )  # fmt: skip
    assert "replay" in done.stdout and "report" in done.stdout


@pytest.mark.slow
def test_editable_install_maps_adapters_folder(tmp_path: Path) -> None:
    python = _fresh_env(tmp_path / "env")
    _pip(python, "-e", str(REPO))
    core, adapters = _probe(python, tmp_path)
    assert Path(core) == REPO / "perfstats" / "__init__.py"
    assert Path(adapters) == REPO / "adapters" / "__init__.py"
