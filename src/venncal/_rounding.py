"""``round_scores``: the one rounding rule of the engines (``numpy.round``) and its refusals.

Used by the Dask and Spark engines, one score column or K (:mod:`venncal._engine`
re-exports these names).
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["MAX_DECIMALS", "check_round_scores", "check_rounding", "rounded"]


#: The largest ``abs(round_scores)``: numpy's ``10**d`` is infinite beyond.
MAX_DECIMALS = 308


def check_round_scores(round_scores) -> int | None:
    """Return ``round_scores`` as an int (or None), or raise ``ValueError``.

    Both engines round as ``numpy.round`` does (the Spark engine by the same
    float operations), so ``d`` must be an integer in ``[-308, 308]``.
    """
    if round_scores is None:
        return None
    if not isinstance(round_scores, numbers.Integral) or isinstance(round_scores, bool):
        raise ValueError(f"round_scores must be an integer or None; got {round_scores!r}")
    if abs(int(round_scores)) > MAX_DECIMALS:
        raise ValueError(
            f"round_scores must lie in [-{MAX_DECIMALS}, {MAX_DECIMALS}] (numpy's 10**d "
            f"overflows beyond, and every score would round to NaN or inf); got {round_scores!r}"
        )
    return int(round_scores)


def check_rounding(lost: int, round_scores) -> None:
    """Raise if rounding turned ``lost`` finite scores into infinite ones (the scaling overflows)."""
    if lost:
        raise ValueError(
            f"round_scores={round_scores} turns {lost} finite score(s) into inf: numpy's "
            f"rounding scales by 10**{abs(round_scores)} first, which overflows for scores "
            "this large; round to fewer decimal places, or not at all"
        )


def rounded(scores: np.ndarray, round_scores: int) -> np.ndarray:
    """``numpy.round(scores, round_scores)``, refused where it turns a finite score into inf."""
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.round(scores, round_scores)
    check_rounding(int((np.isfinite(scores) & ~np.isfinite(out)).sum()), round_scores)
    return out
