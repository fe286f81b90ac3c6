"""The base of every target: a named resource with redacted settings, and ``invoke()``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any, TypeVar

from ..records.measurement import Measurement
from ..records.redaction import redact, redact_text

_R = TypeVar("_R", bound="Resource")


class Resource(ABC):
    """A named thing with settings that may hold resources until closed.

    Subclasses implement :meth:`_config`, and override :meth:`close` when
    they hold something (a warm container, an SSH master connection, an
    HTTP connection). Each is a context manager that closes itself.

    Attributes
    ----------
    kind : str
        Short name of the type, as the command line and records use it.
    name : str
        Label written in records and output.

    Examples
    --------
    >>> from perfstats.adapters.targets.base import Resource
    >>> class Plain(Resource):
    ...     kind, name = "plain", "a plain thing"
    ...     def _config(self):
    ...         return {"token": "hunter2", "size": 3}
    >>> with Plain() as r:
    ...     r.config()
    {'kind': 'plain', 'name': 'a plain thing', 'token': '<redacted>', 'size': 3}
    """

    kind: str = "resource"
    _name: str = "resource"

    @property
    def name(self) -> str:
        """Label written in records and output (secrets in it redacted when set)."""
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        # A label built from argv, a URL or a user's label may carry a secret.
        self._name = redact_text(str(value))

    @abstractmethod
    def _config(self) -> dict[str, Any]:
        """The settings as plain data, secrets included."""

    def config(self) -> dict[str, Any]:
        """The settings as plain data with secrets redacted (for records).

        Returns
        -------
        dict of str to Any
            :attr:`kind` and :attr:`name`, then the settings :meth:`_config`
            gives; values of secret-looking keys, and secrets in strings and
            argument lists, are replaced
            (:func:`~perfstats.adapters.records.redaction.redact`).
        """
        return redact({"kind": self.kind, "name": self.name, **self._config()})

    def close(self) -> None:  # noqa: B027 - optional hook, most hold nothing
        """Release what is held; safe to call more than once."""

    def __enter__(self: _R) -> _R:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class Target(Resource):
    """Something the driver can invoke repeatedly and measure.

    Subclasses implement :meth:`invoke` (thread-safe: the driver may call it
    from several threads at once) and :meth:`_config`; they override
    :meth:`close` when they hold resources (a warm container, an SSH master
    connection). A target is a context manager that closes itself.

    Attributes
    ----------
    kind : str
        Short name of the target type (``"command"``, ``"container"``, ...),
        the name the command line uses.
    name : str
        Label written in every record row.

    Examples
    --------
    A target only needs ``invoke`` and ``_config``:

    >>> import time
    >>> from perfstats.adapters import Measurement, Target
    >>> from perfstats.adapters.records.measurement import utc_now
    >>> class Sleep(Target):
    ...     kind, name = "sleep", "sleep 1 ms"
    ...     def invoke(self):
    ...         t0 = time.monotonic_ns()
    ...         time.sleep(0.001)
    ...         return Measurement(time.monotonic_ns() - t0, "ns", None, utc_now())
    ...     def _config(self):
    ...         return {"seconds": 0.001}
    >>> Sleep().invoke().status, Sleep().config()["kind"]
    ('ok', 'sleep')
    """

    kind: str = "target"
    _name: str = "target"

    #: True when :meth:`invoke_only` can run a subset of the series (a
    #: benchmark filter), so a round costs only the series still going.
    selects_series: bool = False

    #: False when the primary value only describes the invocation (a
    #: suite's round time, which falls as benchmarks stop) and the named
    #: series are what the rule should judge; naming ``"value"`` in
    #: ``stop_when`` judges it anyway.
    judges_value: bool = True

    @abstractmethod
    def invoke(self) -> Measurement:
        """Run once and return the measurement; failures are returned, not raised."""

    def invoke_only(self, names: frozenset[str]) -> Measurement:
        """Run once for the series ``names`` only, where the target can select.

        The driver calls this instead of :meth:`invoke` once some series
        have stopped, on targets whose :attr:`selects_series` is true.

        Parameters
        ----------
        names : frozenset of str
            The series still wanted. The default ignores them.

        Returns
        -------
        Measurement
            As :meth:`invoke` returns it; the default runs everything, so the
            measurement may also hold series not in ``names``.
        """
        return self.invoke()
