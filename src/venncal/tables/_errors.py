"""Errors whose messages name the caller's parameters, and the error of a table.

A :class:`ParameterError` is a ``ValueError`` built from parts: text and
:class:`Param` (a parameter of the call, with or without its value).  Its
message spells each parameter as Python does (``max_distinct=10``); a front
end that names them otherwise (the command line's ``--max-distinct 10``)
renders the same error with :meth:`ParameterError.spelled` and a table of
its own spellings, without rewriting message text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

__all__ = ["Param", "ParameterError", "TableError"]


class Param(NamedTuple):
    """A parameter named in a message: ``name``, optionally its ``value`` as shown.

    ``python`` is its spelling for Python callers when that is not ``name``
    or ``name=value`` (e.g. ``"nan_scores='propagate'"``).

    Examples
    --------
    >>> Param("max_distinct", "10").text()
    'max_distinct=10'
    >>> Param("max_distinct", "10").text({"max_distinct": "--max-distinct"})
    '--max-distinct 10'
    """

    name: str
    value: str | None = None
    python: str | None = None

    def text(self, spelling: Mapping[str, str] | None = None) -> str:
        """Return the parameter as ``spelling`` names it (a ``{}`` in it takes the value)."""
        flag = (spelling or {}).get(self.name)
        if flag is None:
            if self.python is not None:
                return self.python
            return self.name if self.value is None else f"{self.name}={self.value}"
        if self.value is None:
            return flag.replace("{}", "").rstrip("=")
        return flag.format(self.value) if "{}" in flag else f"{flag} {self.value}"


class ParameterError(ValueError):
    """A ``ValueError`` whose message names parameters of the call that raised it.

    Parameters
    ----------
    *parts : str or Param
        The message, in pieces; ``str(error)`` spells each :class:`Param`
        as Python does.

    Attributes
    ----------
    parts : tuple
        The pieces of the message.

    Examples
    --------
    >>> err = ParameterError("more than ", Param("max_distinct", "10"), " distinct scores")
    >>> str(err)
    'more than max_distinct=10 distinct scores'
    >>> err.spelled({"max_distinct": "--max-distinct"})
    'more than --max-distinct 10 distinct scores'
    """

    def __init__(self, *parts):
        self.parts = tuple(parts)
        super().__init__(self.spelled())

    @property
    def params(self) -> tuple[str, ...]:
        """Return the names of the parameters the message names."""
        return tuple(p.name for p in self.parts if isinstance(p, Param))

    def spelled(self, spelling: Mapping[str, str] | None = None) -> str:
        """Return the message with the parameters named by ``spelling`` (name -> spelling)."""
        return "".join(p.text(spelling) if isinstance(p, Param) else str(p) for p in self.parts)

    def __reduce__(self):  # raised in dask workers: pickled with its parts and attributes
        state = {k: v for k, v in self.__dict__.items() if k != "parts"}
        return _rebuild, (self.__class__, self.parts, state)


def _rebuild(cls, parts, state):
    out = cls.__new__(cls)
    out.__dict__.update(state)
    ParameterError.__init__(out, *parts)
    return out


class TableError(ParameterError):
    """A problem with a table: a file, its header, its format or one of its cells.

    A ``ValueError`` (see :class:`ParameterError`) that says where:
    ``source`` (a path, or ``"<stdin>"``), ``column`` and ``row`` (counted
    from 1 after the header), each ``None`` where unknown.

    Examples
    --------
    >>> from venncal.tables import TableError
    >>> err = TableError.at_cell("t.csv", "score", 3, "cannot parse 'abc' as a number")
    >>> str(err)
    "t.csv: column 'score', row 3: cannot parse 'abc' as a number"
    >>> err.source, err.column, err.row
    ('t.csv', 'score', 3)
    >>> isinstance(err, ValueError)
    True
    """

    def __init__(self, *parts, source: str | None = None, column: str | None = None,
                 row: int | None = None):
        self.source, self.column, self.row = source, column, row
        super().__init__(*parts)

    @classmethod
    def at_cell(cls, source: str, column: str, row: int, *problem, note: str = "") -> TableError:
        """Return the error of one cell: ``SOURCE: column 'C', row R[note]: problem``."""
        return cls(f"{source}: column {column!r}, row {row:,}{note}: ", *problem,
                   source=source, column=column, row=row)

    def moved(self, source: str, row: int, note: str = "") -> TableError:
        """Return this cell's error at ``row`` of ``source`` (a part of a file, located in it)."""
        return TableError.at_cell(source, self.column, row, *self.parts[1:], note=note)
