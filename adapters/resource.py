"""What every target shares: a kind, a name, settings for records, and closing."""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any, TypeVar

from .redaction import redact

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
    >>> from perfstats.adapters.resource import Resource
    >>> class Plain(Resource):
    ...     kind, name = "plain", "a plain thing"
    ...     def _config(self):
    ...         return {"token": "hunter2", "size": 3}
    >>> with Plain() as r:
    ...     r.config()
    {'kind': 'plain', 'name': 'a plain thing', 'token': '<redacted>', 'size': 3}
    """

    kind: str = "resource"
    name: str = "resource"

    @abstractmethod
    def _config(self) -> dict[str, Any]:
        """The settings as plain data, secrets included."""

    def config(self) -> dict[str, Any]:
        """The settings as plain data with secrets redacted (for records)."""
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
