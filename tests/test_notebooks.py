"""The notebooks run top to bottom on the real data, and are committed without outputs.

Each notebook is executed in a fresh Jupyter kernel with nbclient, in its
own folder, with ``PERFSTATS_QUICK=1`` (a subset of the traces, so CI stays
fast) and ``PERFSTATS_DATA`` pointing at the shared traces. A cell that
raises fails the test, and so does a notebook that draws no picture. The
notebooks end with assertions of the papers' qualitative findings on the
data, so a regression in the library that changes those findings fails
here too. They run two at a time, each from its own process: most of a
notebook's time is its kernel starting and importing, on one core.
"""

from __future__ import annotations

import base64
import io
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
from PIL import Image

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
# Seconds a single cell may take in quick mode before the test fails.
CELL_TIMEOUT = 300
# Executes one notebook in a fresh kernel and writes it, outputs and all, to
# a second path; a cell that raises exits non-zero with nbclient's message.
# The kernel talks over Unix sockets, not TCP: a TCP kernel's ports are picked
# free and bound only once the kernel has started, and on a busy machine
# another process (another kernel, a test's client) can take one in between;
# the kernel then dies with "Address already in use". Each kernel's sockets
# live in a folder of its own, since socket names are numbered from 1.
_EXECUTE = """
import shutil, sys, tempfile
from pathlib import Path
import nbformat
from nbclient import NotebookClient
from traitlets.config import Config
src, dst, timeout = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
nb = nbformat.read(src, as_version=4)
sockets = tempfile.mkdtemp(prefix="nbk-")
config = Config()
config.KernelManager.transport = "ipc"
config.KernelManager.ip = sockets + "/kernel"
try:
    NotebookClient(nb, timeout=timeout, kernel_name="python3", config=config,
                   resources={"metadata": {"path": str(src.parent)}}).execute()
finally:
    shutil.rmtree(sockets, ignore_errors=True)
nbformat.write(nb, dst)
"""


def _execute(path: Path, out: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-c", _EXECUTE, str(path), str(out), str(CELL_TIMEOUT)]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800)


@pytest.fixture(scope="module")
def executed(
    request: pytest.FixtureRequest,
    perfstats_data: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[Path, tuple[Path, subprocess.CompletedProcess[str]]]:
    """The selected notebooks executed in quick mode, two at a time: copy and process."""
    # Only the notebooks whose run test was collected (``-k`` may pick one).
    paths = [
        Path(str(item.callspec.params["path"]))
        for item in request.session.items
        if isinstance(item, pytest.Function)
        and item.originalname == "test_notebook_runs_top_to_bottom_in_quick_mode"
    ]
    # The kernels inherit this environment.
    env = {**os.environ, "PERFSTATS_QUICK": "1", "PERFSTATS_DATA": str(perfstats_data)}
    folder = tmp_path_factory.mktemp("executed")
    outs = [folder / path.name for path in paths]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda p, o: _execute(p, o, env), paths, outs))
    return {path: (out, proc) for path, out, proc in zip(paths, outs, done, strict=True)}


def test_there_are_the_four_notebooks() -> None:
    names = [p.name for p in PATHS]
    assert len(names) >= 4
    for topic in ("percentile_intervals", "stopping_rules", "metior", "comparing_versions"):
        assert any(topic in name for name in names), topic


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_notebook_is_committed_without_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [], f"cell {i} of {path.name} has outputs; strip them"
            assert cell.execution_count is None, f"cell {i} of {path.name} has a count"


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_notebook_runs_top_to_bottom_in_quick_mode(
    path: Path, executed: dict[Path, tuple[Path, subprocess.CompletedProcess[str]]]
) -> None:
    out, proc = executed[path]
    assert proc.returncode == 0, f"{path.name} failed:\n{proc.stderr[-4000:]}"
    nb = nbformat.read(out, as_version=4)
    pictures = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error"
            png = output.get("data", {}).get("image/png")
            if png:
                pictures.append(Image.open(io.BytesIO(base64.b64decode(png))))
    assert len(pictures) >= 3, f"{path.name} drew {len(pictures)} pictures"
    for picture in pictures:
        assert picture.size[0] > 200 and picture.size[1] > 150
    # Executing must not have written outputs back into the committed file.
    committed = nbformat.read(path, as_version=4)
    assert all(c.outputs == [] for c in committed.cells if c.cell_type == "code")
