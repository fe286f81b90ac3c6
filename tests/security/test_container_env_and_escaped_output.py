"""Container environment values never appear on a command line; user values
that start with ``-`` are refused; control characters and terminal escapes in a
target's output or name are shown escaped, never printed raw.

The environment test runs real podman containers (busybox image built here)
while a thread reads every process's ``/proc/PID/cmdline`` and watches for the
env files perfstats creates.
"""

from __future__ import annotations

import os
import stat
import subprocess
import tempfile
import threading
import uuid
from pathlib import Path

import pytest
from perfstats.adapters import SSH, Container, run
from support.services import PodmanImage, require

from perfstats.rules import Fixed


class Watcher:
    """Reads every /proc/PID/cmdline, and the env files' modes, until stopped."""

    def __init__(self, secret: str) -> None:
        self.secret = secret.encode()
        self.seen_in: list[str] = []
        self.scans = 0
        self.env_files: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        tmp = Path(tempfile.gettempdir())
        while not self._stop.is_set():
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                except OSError:
                    continue
                if self.secret in cmdline:
                    self.seen_in.append(cmdline.replace(b"\0", b" ").decode(errors="replace"))
            for path in tmp.glob("perfstats-env-*"):
                try:
                    self.env_files[path.name] = path.lstat().st_mode
                except OSError:
                    pass
            self.scans += 1

    def __enter__(self) -> Watcher:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@pytest.mark.parametrize("mode", ["cold", "warm"])
def test_container_env_never_on_a_command_line(
    podman_image: PodmanImage, mode: str, monkeypatch
) -> None:
    monkeypatch.setenv("CONTAINERS_CONF", str(podman_image.containers_conf))
    secret = f"Env{uuid.uuid4().hex}"
    tricky = "a b 'c' \"d\" $HOME #x=y=z"
    env = {"DB_PASSWORD": secret, "TRICKY": tricky, "EXPECTED": tricky}
    # The container checks the values itself, so neither is on its command line.
    script = 'sleep 0.3; test "$TRICKY" = "$EXPECTED" && echo "n=${#DB_PASSWORD}"'
    target = Container(podman_image.image, ["sh", "-c", script], mode=mode, env=env, network="none",
                       regex=r"n=(\d+)", unit="chars")  # fmt: skip
    before = set(Path(tempfile.gettempdir()).glob("perfstats-env-*"))
    with Watcher(secret) as watcher:
        result = run(target, Fixed(n=3), progress=False)
    df = result.measurements
    assert (df["status"] == "ok").all(), df["error"].tolist()
    assert (df["value"] == len(secret)).all()  # the container got the exact value
    assert watcher.scans > 3
    assert watcher.seen_in == []
    # Env files were used, readable by this user only, and are gone.
    assert watcher.env_files, "no env file seen while the containers ran"
    assert {stat.S_IMODE(m) for m in watcher.env_files.values()} == {0o600}
    assert set(Path(tempfile.gettempdir()).glob("perfstats-env-*")) == before


@pytest.mark.parametrize(
    "make",
    [
        lambda img: Container("--privileged", ["true"]),
        lambda img: Container("-v/:/host", ["true"]),
        lambda img: Container(img, ["true"], network="--privileged"),
        lambda img: Container(img, ["true"], env={"A\nB": "x"}),
        lambda img: Container(img, ["true"], env={"A": "line\nX=injected"}),
        lambda img: SSH("-oProxyCommand=sh", ["true"]),
        lambda img: SSH("127.0.0.1", ["true"], user="-oProxyCommand=sh"),
    ],
)
def test_values_that_would_be_options_are_refused(podman_image: PodmanImage, make, monkeypatch):
    monkeypatch.setenv("CONTAINERS_CONF", str(podman_image.containers_conf))
    with pytest.raises(ValueError, match=r"must not start with '-'|must be a|env: "):
        make(podman_image.image)


ESCAPES = ("\x1b", "\x07", "\x9b", "\u202e", "\x08", "\r")


def test_escapes_in_target_names_and_output_are_shown_not_printed(tmp_path) -> None:
    # A target that prints a title change, a screen clear, a bell, a
    # right-to-left override and a cursor move, under a label doing the same.
    # (A line break in a name is the record format's concern: test_metadata_per_record_and_names.)
    noisy = "printf '\\033]0;pwned\\007\\033[2J\\342\\200\\256evil\\033[1A' >&2; exit 1"
    record = tmp_path / "run.csv"
    label = "name\x1b[31m\u202ered\x07\x08fake"
    commands = [
        ["run", "--rule", "fixed", "-r", "n=2", "--record", str(record), "--max-failures",
         "2", "-t", f"label={label}", "--", "sh", "-c", noisy],
        ["report", str(record)],
        ["report", str(record), "--json"],
    ]  # fmt: skip
    printed = ""
    codes = []
    for argv in commands:
        done = subprocess.run(
            [require("perfstats"), *argv],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        codes.append(done.returncode)
        printed += done.stdout + done.stderr
    assert codes == [1, 0, 0], printed
    # The output is there, escaped ...
    assert "pwned" in printed and "\\x1b]0;pwned\\x07" in printed and "\\u202e" in printed
    # ... and no raw control character or override reached the terminal.
    found = {repr(c) for c in ESCAPES if c in printed}
    assert found == set()
