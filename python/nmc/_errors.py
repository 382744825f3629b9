"""The exceptions nmc raises. The Rust side (``nmc._nmc``) builds them from here."""

from __future__ import annotations


class NmcError(Exception):
    """A run, sweep or experiment that failed; the message is the CLI's one line."""

    def __init__(
        self,
        message: str,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
        key: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        #: The scenario or sweep file the error is in (a path, ``NAME (built-in)`` or
        #: ``<string>``), where known.
        self.file = file
        #: 1-based line and column in ``file``, where the error has a position.
        self.line = line
        self.column = column
        #: The key the error names (e.g. ``network.hops``), where it names one.
        self.key = key


class ScenarioError(NmcError, ValueError):
    """Bad input: a scenario, an override (``set=``) or a sweep that does not resolve.

    Raised before anything runs or is written. ``file``, ``line``, ``column`` and ``key``
    say where, when the error knows.
    """
