"""The bad weights of a partition, mergeable: counted, and located where the engine can say.

The Dask and Spark engines check the rules of :func:`venncal._validation.check_sample_weight`
on each partition and merge the counts (:class:`WeightFaults`), so that a fit from
summaries refuses what a local fit refuses, in the same words.  Where the
partitions are ordered (Dask), each keeps where its first bad weight is, and
the merge keeps the earliest: the refusal then names that row, which the
engine renumbers as its file counts (:func:`venncal.dask._files.located`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._rows import RowError

__all__ = ["WeightFaults"]


@dataclass(frozen=True)
class WeightFaults:
    """NaN or infinite weights (``bad``) and negative ones, counted.

    ``smallest`` is the smallest negative weight.  ``bad_at`` and
    ``negative_at`` are ``(partition, index from 0)`` of the first of each,
    or ``()`` where unknown; ``first_negative`` is the value at
    ``negative_at``.

    Examples
    --------
    >>> import numpy as np
    >>> a = WeightFaults.of(np.array([1.0, 2.0]), partition=0)
    >>> b = WeightFaults.of(np.array([1.0, -3.0, -0.5]), partition=1)
    >>> merged = a.merge(b)
    >>> merged.negative, merged.smallest, merged.negative_at
    (2, -3.0, (1, 1))
    >>> merged.check()
    Traceback (most recent call last):
    ...
    venncal._rows.RowError: sample_weight must be non-negative; got -3.0 at index 1 (2 negative value(s))
    """

    bad: int = 0
    negative: int = 0
    smallest: float = math.inf
    bad_at: tuple = ()
    negative_at: tuple = ()
    first_negative: float = math.nan

    @classmethod
    def of(cls, w: np.ndarray | None, partition: int | None = None) -> WeightFaults:
        """The faults of one partition's float64 weights (None: no weights, no faults)."""
        if w is None:
            return cls()
        finite = np.isfinite(w)
        negative = finite & (w < 0)
        bad, neg = int((~finite).sum()), int(negative.sum())
        if not bad and not neg:
            return cls()
        first_negative = int(np.argmax(negative)) if neg else -1
        located = partition is not None
        return cls(
            bad=bad,
            negative=neg,
            smallest=float(w[negative].min()) if neg else math.inf,
            bad_at=(partition, int(np.argmax(~finite))) if bad and located else (),
            negative_at=(partition, first_negative) if neg and located else (),
            first_negative=float(w[first_negative]) if neg else math.nan,
        )

    def merge(self, other: WeightFaults) -> WeightFaults:
        """The faults of both parts, ``self`` first (the earlier rows)."""
        if not (other.bad or other.negative):
            return self
        if not (self.bad or self.negative):
            return other
        return WeightFaults(
            bad=self.bad + other.bad,
            negative=self.negative + other.negative,
            smallest=min(self.smallest, other.smallest),
            bad_at=self.bad_at if self.bad else other.bad_at,
            negative_at=self.negative_at if self.negative else other.negative_at,
            first_negative=self.first_negative if self.negative else other.first_negative,
        )

    def check(self, name: str = "sample_weight") -> None:
        """Raise as :func:`~venncal._validation.check_sample_weight` would, for the first rule broken.

        Located faults raise a :class:`~venncal._rows.RowError` whose ``partition``
        is the partition of the row (its ``index`` counts within it).
        """
        if self.bad:
            found = f"{name} must be finite; found {self.bad} NaN, infinite or null value(s)"
            if not self.bad_at:
                raise ValueError(found)
            raise RowError(f"{found}; the first ", self.bad_at[1], "", at_index=True,
                           partition=self.bad_at[0], count=self.bad)
        if self.negative:
            if not self.negative_at:
                raise ValueError(f"{name} must be non-negative; got {self.smallest!r} "
                                 f"({self.negative} negative value(s))")
            raise RowError(
                f"{name} must be non-negative; got {self.first_negative!r} ",
                self.negative_at[1], f" ({self.negative} negative value(s))", at_index=True,
                partition=self.negative_at[0],
            )
