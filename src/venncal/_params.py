"""What a valid estimator or function parameter is: the rules and their check.

Calibrators declare ``_parameter_constraints`` (a table of :class:`Interval`,
:class:`Options` and :class:`Check`, or the module's ``NONE``, ``DICT``,
``RANDOM_STATE``, ``N_JOBS``); metrics, merges and engines call
:func:`validate_params` with the same rules.  Re-exported by
:mod:`venncal._validation`, the one place that decides what valid input is.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

__all__ = [
    "DICT",
    "N_JOBS",
    "NONE",
    "RANDOM_STATE",
    "Check",
    "Interval",
    "Options",
    "ParamsMixin",
    "validate_params",
]


@dataclass(frozen=True)
class Interval:
    """Integers (``kind="int"``) or finite reals (``kind="real"``) in a range.

    ``closed`` says which ends belong to it: "both", "left", "right" or
    "neither"; ``None`` for an end means unbounded.
    """

    kind: str
    low: float | None = None
    high: float | None = None
    closed: str = "both"

    def __call__(self, value) -> bool:
        if isinstance(value, bool):
            return False
        if self.kind == "int":
            if not isinstance(value, numbers.Integral):
                return False
        elif not isinstance(value, numbers.Real) or not math.isfinite(value):
            return False
        low_ok = self.low is None or (
            value >= self.low if self.closed in ("both", "left") else value > self.low
        )
        high_ok = self.high is None or (
            value <= self.high if self.closed in ("both", "right") else value < self.high
        )
        return low_ok and high_ok

    def __str__(self) -> str:
        what = "an integer" if self.kind == "int" else "a finite real number"
        left = ">=" if self.closed in ("both", "left") else ">"
        right = "<=" if self.closed in ("both", "right") else "<"
        if self.low is not None and self.high is not None:
            brackets = ("[" if left == ">=" else "(", "]" if right == "<=" else ")")
            return f"{what} in {brackets[0]}{self.low:g}, {self.high:g}{brackets[1]}"
        if self.low is not None:
            return f"{what} {left} {self.low:g}"
        if self.high is not None:
            return f"{what} {right} {self.high:g}"
        return what


@dataclass(frozen=True)
class Options:
    """One of a fixed set of values (compared by equality, types kept strict)."""

    values: tuple

    def __call__(self, value) -> bool:
        return any(isinstance(value, type(v)) and value == v for v in self.values)

    def __str__(self) -> str:
        return f"one of {self.values!r}"


@dataclass(frozen=True)
class Check:
    """Any other rule: a predicate and the words that describe it."""

    predicate: Callable[[object], bool]
    description: str

    def __call__(self, value) -> bool:
        return bool(self.predicate(value))

    def __str__(self) -> str:
        return self.description


def _is_none(value) -> bool:
    return value is None


NONE = Check(_is_none, "None")
DICT = Check(lambda v: isinstance(v, Mapping), "a dict")
RANDOM_STATE = Check(
    lambda v: v is None or (isinstance(v, (numbers.Integral, np.random.RandomState))
    and not isinstance(v, bool)),
    "an int, a numpy RandomState or None",
)
N_JOBS = Check(
    lambda v: v is None or (isinstance(v, numbers.Integral) and not isinstance(v, bool) and v != 0),
    "a non-zero integer or None",
)


class ParamsMixin:
    """``_check_params`` for an estimator whose class lists ``_parameter_constraints``.

    Shared by the score-level calibrators and the estimator wrappers: the
    parameters (``get_params(deep=False)``) are checked against the class's
    table by :func:`validate_params`, naming the class in the message.
    """

    _parameter_constraints: ClassVar[dict] = {}

    @classmethod
    def _get_param_names(cls) -> list[str]:
        """scikit-learn's names of the ``__init__`` parameters, read once per class.

        ``BaseEstimator`` reads them with ``inspect.signature`` at each
        ``get_params`` (about 70 microseconds), which loading a model of
        thousands of members (a one-vs-one CVAP) calls thousands of times.
        """
        return list(_param_names(cls))

    def _check_params(self) -> None:
        """Raise ``ValueError`` for parameters that break ``_parameter_constraints``."""
        validate_params(
            type(self).__name__, self.get_params(deep=False), self._parameter_constraints
        )


@functools.cache
def _param_names(cls) -> tuple[str, ...]:
    return tuple(super(ParamsMixin, cls)._get_param_names())


def validate_params(owner: str, params: Mapping[str, object], constraints: Mapping) -> None:
    """Raise unless every parameter meets one of its constraints.

    Parameters
    ----------
    owner : str
        Who the parameters belong to, for the message (a class or function name).
    params : mapping
        Parameter name -> value; names without constraints are not checked.
    constraints : mapping
        Parameter name -> list of constraints (:class:`Interval`,
        :class:`Options`, :class:`Check`, or the module's ``NONE``,
        ``DICT``, ...); the value must satisfy at least one.

    Raises
    ------
    ValueError
        Naming the owner, the parameter, what it must be and what it got.

    Examples
    --------
    >>> validate_params("f", {"merge": "log"}, {"merge": [Options(("log", "brier"))]})
    >>> validate_params("f", {"merge": "banana"}, {"merge": [Options(("log", "brier"))]})
    Traceback (most recent call last):
    ...
    ValueError: f: merge must be one of ('log', 'brier'); got 'banana'
    """
    for name, allowed in constraints.items():
        if name not in params:
            continue
        value = params[name]
        try:
            ok = any(rule(value) for rule in allowed)
        except (TypeError, OverflowError):  # a comparison the value does not support, or
            ok = False  # an integer beyond the doubles (10**400 for a real: isfinite raises)
        if not ok:
            wanted = " or ".join(str(rule) for rule in allowed)
            raise ValueError(f"{owner}: {name} must be {wanted}; got {value!r}")
