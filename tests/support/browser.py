"""Headless Chromium for the tests that look at a page as a user would."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def chromium(
    url: str, profile: Path, *extra: str, window: tuple[int, int]
) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium on ``url`` with its own profile; fail on a non-zero exit."""
    binary = shutil.which("chromium")
    assert binary is not None, "chromium is not installed: run .ci/install-browser.sh"
    argv = [
        binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={profile}", f"--window-size={window[0]},{window[1]}",
        "--enable-logging=stderr", "--v=0", *extra, url,
    ]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done
