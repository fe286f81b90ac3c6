"""The protocol every target follows: ``invoke() -> Measurement``."""

from __future__ import annotations

from abc import abstractmethod

from .measurement import Measurement
from .resource import Resource


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
    >>> from perfstats.adapters.measurement import utc_now
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
    name: str = "target"

    @abstractmethod
    def invoke(self) -> Measurement:
        """Run once and return the measurement; failures are returned, not raised."""
