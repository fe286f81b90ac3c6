"""A container as a target: a fresh container per run (cold) or exec into one (warm)."""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..records.measurement import Measurement, utc_now
from ..records.series import SeriesValue
from .arguments import (
    check_argv,
    check_choice,
    check_env,
    check_not_option,
    check_timeout,
    show_argv,
)
from .base import Target
from .cgroups import CgroupCounters
from .command import check_metrics, outcome_measurement
from .processes import ProcessRunner, owner_alive, owner_token
from .values import ValueReader, ValueReaders

ENGINES = ("podman", "docker")
MODES = ("cold", "warm")
LABEL = "perfstats.session"
# The run that created a container (processes.owner_token): a later run
# removes the containers of a run that was killed before it could.
OWNER_LABEL = "perfstats.owner"
# Seconds allowed for housekeeping calls (inspect, start, remove) to the engine.
_ENGINE_TIMEOUT = 120.0

logger = logging.getLogger(__name__)


class Container(Target):
    """Run ``argv`` in a container of ``image`` through the podman or docker CLI.

    ``mode="cold"`` starts a fresh container per invocation (``run --rm``),
    so the measurement includes creating and starting it; ``mode="warm"``
    starts one long-lived container at the first invocation and ``exec``\\ s
    into it. Every container this target creates carries a label with a
    session id, and :meth:`close` removes them all, also after an error,
    a timeout or an interrupt. A run killed before it could (``kill -9``, a
    crash) leaves them behind: each also carries its owner's pid, start time
    and host, and every new Container removes those whose owner is gone.

    Parameters
    ----------
    image : str
        A local image; it must exist already (pull it before measuring, so
        that no measurement includes a download).
    argv : list of str
        Command run inside the container.
    engine : {"podman", "docker"}, default "podman"
        The CLI to call.
    mode : {"cold", "warm"}, default "cold"
    timeout : float, optional
        Seconds per invocation.
    env : dict, optional
        Environment variables set inside the container. They reach the
        engine through an env file (created for each call, readable by this
        user only, removed right after), never on its command line, where
        every user of the machine could read them.
    network : str, optional
        ``--network`` value (e.g. ``"none"``); default: the engine's default.
    engine_args : list of str, optional
        Global engine options placed before the sub-command (e.g.
        ``["--runtime", "/usr/sbin/runc"]``).
    run_args : list of str, optional
        Extra options for ``run`` (e.g. ``["--memory", "256m"]``).
    keepalive : list of str, default ``["sleep", "2147483647"]``
        The warm container's main process.
    regex, json_field, unit : optional
        Read the value from the output instead of timing the call.
    label : str, optional
        Label for the record (default: the engine, mode, image and command).
    metrics : list of dict or ValueReader, optional
        More values read from the output, each a series (as for
        :class:`~perfstats.adapters.targets.Command`).
    cgroup : bool, default False
        Record the CPU time and memory peak of each run from the warm
        container's cgroup (series ``cgroup_cpu_user``,
        ``cgroup_cpu_system`` in ns, ``cgroup_memory_peak`` in bytes; see
        :mod:`~perfstats.adapters.targets.cgroups`). A cold container's
        cgroup goes with it, so only ``mode="warm"`` has them; where the
        engine does not expose them, a message says so and runs go on.

    Examples
    --------
    >>> from perfstats.adapters import Container
    >>> with Container("localhost/bb:latest", ["/bin/true"], mode="warm") as c:  # doctest: +SKIP
    ...     c.invoke().cold
    False
    """

    kind = "container"

    def __init__(
        self,
        image: str,
        argv: Sequence[str],
        *,
        engine: str = "podman",
        mode: str = "cold",
        timeout: float | None = None,
        env: Mapping[str, str] | None = None,
        network: str | None = None,
        engine_args: Sequence[str] = (),
        run_args: Sequence[str] = (),
        keepalive: Sequence[str] = ("sleep", "2147483647"),
        regex: str | None = None,
        json_field: str | None = None,
        unit: str | None = None,
        label: str | None = None,
        metrics: Sequence[ValueReader | Mapping[str, Any]] = (),
        cgroup: bool = False,
    ) -> None:
        self.image = check_not_option(image, "image")
        self.argv = check_argv(argv)
        self.engine = check_choice(engine, "engine", ENGINES)
        self.mode = check_choice(mode, "mode", MODES)
        self.timeout = check_timeout(timeout)
        self.env = _check_env_file(check_env(env) or {})
        self.network = None if network is None else check_not_option(network, "network")
        self.engine_args = list(engine_args) and check_argv(engine_args, "engine_args")
        self.run_args = list(run_args) and check_argv(run_args, "run_args")
        self.keepalive = check_argv(keepalive, "keepalive")
        self.reader = ValueReader(regex=regex, json_field=json_field, unit=unit)
        self.metrics: ValueReaders = check_metrics(metrics)
        if not isinstance(cgroup, bool):
            raise ValueError(f"cgroup must be True or False; got {cgroup!r}")
        self.cgroup = cgroup
        self._counters: CgroupCounters | None = None
        self.cgroup_problem: str | None = None
        if cgroup and self.mode == "cold":
            self._no_cgroup(
                "a cold container's cgroup is removed with it; use mode='warm' for them"
            )
        self.name = label or f"{self.engine} {self.mode} {image} {show_argv(self.argv)}"
        self.session = uuid.uuid4().hex[:12]
        self._runner = ProcessRunner()
        self._counter = itertools.count(1)
        self._warm_id: str | None = None
        self._warm_lock = threading.Lock()
        self._closed = False
        self.executable = shutil.which(self.engine)
        if self.executable is None:
            raise ValueError(f"container engine {self.engine!r} not found on PATH")
        self._check_image()
        self._owner = owner_token()
        self.remove_leftovers()

    def _engine(self, *args: str) -> list[str]:
        return [self.engine, *self.engine_args, *args]

    def _check_image(self) -> None:
        out = self._runner.run(
            self._engine("image", "inspect", "--format", "{{.Id}}", self.image),
            timeout=_ENGINE_TIMEOUT,
        )
        if out.failure() is not None:
            detail = out.failure()
            raise ValueError(
                f"image {self.image!r} is not available to {self.engine} ({detail}); "
                "pull or import it first so no measurement includes a download"
            )

    def _create_args(self, container_name: str) -> list[str]:
        args = ["--name", container_name, "--label", f"{LABEL}={self.session}"]
        args += ["--label", f"{OWNER_LABEL}={self._owner}"]
        if self.network is not None:
            args += ["--network", self.network]
        return args + self.run_args

    @contextlib.contextmanager
    def _env_args(self) -> Iterator[list[str]]:
        """``--env-file FILE`` for one engine call, the file removed after it."""
        if not self.env:
            yield []
            return
        # mkstemp: O_EXCL, mode 0600, a random name no one can plant first.
        fd, path = tempfile.mkstemp(prefix="perfstats-env-", suffix=".env")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.writelines(f"{key}={value}\n" for key, value in self.env.items())
            yield ["--env-file", path]
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)

    def invoke(self) -> Measurement:
        if self._closed:
            raise RuntimeError(f"{self!r} is closed")
        return self._invoke_cold() if self.mode == "cold" else self._invoke_warm()

    def _invoke_cold(self) -> Measurement:
        container_name = f"perfstats-{self.session}-{next(self._counter)}"
        with self._env_args() as env_args:
            argv = self._engine(
                "run", "--rm", *self._create_args(container_name), *env_args, self.image
            )
            out = self._runner.run([*argv, *self.argv], timeout=self.timeout)
        if out.timed_out:
            # Killing the client does not stop the container it created.
            self._remove([container_name])
        return outcome_measurement(
            out,
            self.reader,
            cold=True,
            extra={"container": container_name},
            metrics=self.metrics,
        )

    def _invoke_warm(self) -> Measurement:
        started_at = utc_now()
        try:
            container_id = self._warm_container()
        except RuntimeError as exc:
            return Measurement.failure(
                str(exc), unit=self.reader.unit, cold=False, started_at=started_at
            )
        counters = self._counters if self.cgroup else None
        start = counters.start() if counters is not None else None
        series: dict[str, SeriesValue] = {}
        try:
            with self._env_args() as env_args:
                argv = self._engine("exec", *env_args, container_id, *self.argv)
                out = self._runner.run(argv, timeout=self.timeout)
        finally:
            if counters is not None and start is not None:
                series = counters.series(start)
        return outcome_measurement(
            out,
            self.reader,
            cold=False,
            extra={"container": container_id},
            series=series,
            metrics=self.metrics,
        )

    def _no_cgroup(self, why: str) -> None:
        self.cgroup_problem = f"container: no cgroup counters ({why})"
        logger.warning("%s; the runs go on without them", self.cgroup_problem)

    def _find_counters(self, container_id: str) -> None:
        """The warm container's cgroup counters, found through its main process."""
        out = self._runner.run(
            self._engine("inspect", "--format", "{{.State.Pid}}", container_id),
            timeout=_ENGINE_TIMEOUT,
        )
        pid = out.stdout.strip()
        if out.failure() is not None or not pid.isdigit() or int(pid) <= 0:
            self._no_cgroup(f"{self.engine} inspect gave no process id: {out.failure() or pid!r}")
            return
        try:
            self._counters = CgroupCounters.of_pid(int(pid))
        except LookupError as exc:
            self._no_cgroup(str(exc))

    def _warm_container(self) -> str:
        with self._warm_lock:
            if self._warm_id is None:
                container_name = f"perfstats-{self.session}-warm"
                with self._env_args() as env_args:
                    create = self._create_args(container_name)
                    argv = self._engine("run", "-d", *create, *env_args, self.image)
                    out = self._runner.run([*argv, *self.keepalive], timeout=_ENGINE_TIMEOUT)
                if out.failure() is not None:
                    self._remove([container_name])
                    raise RuntimeError(f"cannot start the warm container: {out.failure()}")
                self._warm_id = out.stdout.strip().splitlines()[-1]
                if self.cgroup:
                    self._find_counters(self._warm_id)
            return self._warm_id

    def containers(self) -> list[str]:
        """Ids of the containers of this target that still exist.

        Returns
        -------
        list of str
            The ids the engine lists for this target's session label (short
            ids, as ``ps -q`` prints them), running or stopped; empty when
            there are none or the engine's listing failed.
        """
        out = self._runner.run(
            self._engine("ps", "-a", "-q", "--filter", f"label={LABEL}={self.session}"),
            timeout=_ENGINE_TIMEOUT,
        )
        return out.stdout.split() if out.returncode == 0 else []

    def remove_leftovers(self) -> list[str]:
        """Remove the containers of perfstats runs on this host that ended without doing so.

        A new Container calls this itself. Containers of runs still going,
        of other hosts, or without an owner label are left alone.

        Returns
        -------
        list of str
            Full ids of the containers whose owner was gone, which were then
            removed by force (a warning names them); empty when there were
            none or the engine could not list them.
        """
        listed = self._runner.run(
            self._engine("ps", "-a", "-q", "--filter", f"label={OWNER_LABEL}"),
            timeout=_ENGINE_TIMEOUT,
        )
        ids = listed.stdout.split() if listed.returncode == 0 else []
        if not ids:
            return []
        fmt = f'{{{{.Id}}}} {{{{index .Config.Labels "{OWNER_LABEL}"}}}}'
        # A container that went meanwhile fails inspect; the others still print.
        inspected = self._runner.run(
            self._engine("inspect", "--format", fmt, *ids), timeout=_ENGINE_TIMEOUT
        )
        dead = []
        for line in inspected.stdout.splitlines():
            cid, _, owner = line.strip().partition(" ")
            if cid and owner_alive(owner) is False:
                dead.append(cid)
        if dead:
            logger.warning(
                "removing %d container(s) left by a perfstats run that was killed: %s",
                len(dead),
                " ".join(c[:12] for c in dead),
            )
            self._remove(dead)
        return dead

    def _remove(self, refs: Sequence[str]) -> None:
        if not refs:
            return
        # busybox-like PID 1s ignore SIGTERM: do not wait for a graceful stop.
        force = ["rm", "-f", "-t", "0"] if self.engine == "podman" else ["rm", "-f"]
        self._runner.run(self._engine(*force, *refs), timeout=_ENGINE_TIMEOUT)

    def close(self) -> None:
        """Stop running invocations and remove every container of this target."""
        if self._closed:
            return
        self._closed = True
        self._runner.kill_all()
        self._remove(self.containers())
        self._warm_id = None

    def _config(self) -> dict[str, Any]:
        return {
            "image": self.image,
            "argv": self.argv,
            "engine": self.engine,
            "mode": self.mode,
            "timeout": self.timeout,
            "env": self.env,
            "network": self.network,
            "engine_args": self.engine_args,
            "run_args": self.run_args,
            "keepalive": self.keepalive,
            **self.reader.config(),
            **({"metrics": self.metrics.config()} if self.metrics else {}),
            **({"cgroup": self._cgroup_config()} if self.cgroup else {}),
        }

    def _cgroup_config(self) -> dict[str, Any]:
        if self._counters is not None:
            return self._counters.config()
        return {"problem": self.cgroup_problem}


def _check_env_file(env: dict[str, str]) -> dict[str, str]:
    """Variables an env file can carry exactly: one ``NAME=value`` line each."""
    for key, value in env.items():
        if not key or key.startswith("#") or any(c in key for c in "=\n\r\0 \t"):
            raise ValueError(f"env: {key!r} is not a variable name an env file can carry")
        if any(c in value for c in "\n\r\0"):
            raise ValueError(f"env: the value of {key!r} has a line break or NUL")
    return env
