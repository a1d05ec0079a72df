"""Pure split logic of the reproduced experiments (no data, no scikit-learn)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = [
    "ADULT_N_TEST",
    "ADULT_N_TRAIN",
    "RATIOS",
    "AdultSmallRows",
    "RatioRows",
    "adult_small_rows",
    "contiguous_folds",
    "holdout_splits",
    "ratio_rows",
]

#: Rows of the UCI adult training file (``adult.data``) and test file (``adult.test``).
ADULT_N_TRAIN = 32_561
ADULT_N_TEST = 16_281


class AdultSmallRows(NamedTuple):
    """Row ranges of the small-adult protocol, indexing ``load_adult("all")``.

    ``load_adult("all")`` holds the training file's rows followed by the test file's.
    """

    #: Rows 1-4,000 of the training file (0-based 0..3999): the proper training set.
    proper: range
    #: Rows 4,001-5,000 (0-based 4000..4999): the calibration set.
    calibration: range
    #: Rows 1-5,000: the whole small training set (CVAP folds are taken over it).
    training: range
    #: All other rows: the rest of the training file, then the whole test file.
    test: range


def adult_small_rows(n_train: int = ADULT_N_TRAIN, n_test: int = ADULT_N_TEST) -> AdultSmallRows:
    """Index ranges of the protocol of Vovk, Petej & Fedorova 2015, Tables 1-2 (section 6).

    The first 5,000 adult training observations form the new training set: the first
    4,000 are the proper training set, the following 1,000 the calibration set; all
    other observations (the remaining training and all test observations) are the test
    set.

    Parameters
    ----------
    n_train, n_test : int
        Number of rows of the training and of the test file (defaults: the UCI files).

    Returns
    -------
    AdultSmallRows
        Ranges into the concatenation ``train rows + test rows``.

    Examples
    --------
    >>> rows = adult_small_rows()
    >>> rows.proper, rows.calibration, rows.test
    (range(0, 4000), range(4000, 5000), range(5000, 48842))
    """
    if n_train < 5_000 or n_test < 0:
        raise ValueError("the protocol needs at least 5,000 training rows and n_test >= 0")
    return AdultSmallRows(
        proper=range(4_000),
        calibration=range(4_000, 5_000),
        training=range(5_000),
        test=range(5_000, n_train + n_test),
    )


def contiguous_folds(n: int, n_folds: int) -> list[np.ndarray]:
    """Split ``0..n-1`` into `n_folds` contiguous folds (Vovk, Petej & Fedorova 2015, section 6).

    The first ``n mod K`` folds hold ``ceil(n/K)`` rows and the others ``floor(n/K)``,
    exactly as :func:`numpy.array_split`.

    Parameters
    ----------
    n : int
        Number of observations, at least `n_folds`.
    n_folds : int
        Number K of folds, at least 1.

    Returns
    -------
    list of ndarray of int
        The row indices of each fold, in order.

    Examples
    --------
    >>> [f.tolist() for f in contiguous_folds(7, 3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    """
    n, n_folds = int(n), int(n_folds)
    if n_folds < 1:
        raise ValueError(f"n_folds must be at least 1, got {n_folds}")
    if n < n_folds:
        raise ValueError(f"cannot split {n} observations into {n_folds} non-empty folds")
    return np.array_split(np.arange(n), n_folds)


#: Proper training : calibration ratios of Vovk, Petej & Fedorova 2015, Figures 13-14, left to right
#: (1:9, 1:8, ..., 1:2, 1:1, 2:1, ..., 9:1); the column "all" is added separately.
RATIOS: tuple[tuple[int, int], ...] = tuple((1, b) for b in range(9, 0, -1)) + tuple(
    (a, 1) for a in range(2, 10)
)


class RatioRows(NamedTuple):
    """Proper training and calibration rows of one ratio column (indices into training)."""

    #: Column label, e.g. ``"4:1"`` or ``"all"``.
    label: str
    proper: range
    calibration: range


def ratio_rows(n_train: int, ratio: tuple[int, int] | str) -> RatioRows:
    """Split ``0..n_train-1`` contiguously for a proper training : calibration ratio.

    For ``ratio = (a, b)`` the first ``ceil(a * n_train / (a + b))`` rows are the proper
    training set and the rest the calibration set (Vovk, Petej & Fedorova 2015, section
    6: "the first ceil((K-1)/K N_train) training observations" for ratio K-1:1). For
    ``"all"`` both sets are the whole training set (the paper's simplified, in-sample
    column).

    Parameters
    ----------
    n_train : int
        Number of training rows, at least 2.
    ratio : (int, int) or "all"
        Positive parts of the proper training and calibration sets, or ``"all"``.

    Returns
    -------
    RatioRows

    Examples
    --------
    >>> ratio_rows(10, (1, 9))
    RatioRows(label='1:9', proper=range(0, 1), calibration=range(1, 10))
    >>> ratio_rows(7, (1, 1))
    RatioRows(label='1:1', proper=range(0, 4), calibration=range(4, 7))
    >>> ratio_rows(5, "all")
    RatioRows(label='all', proper=range(0, 5), calibration=range(0, 5))
    """
    n_train = int(n_train)
    if n_train < 2:
        raise ValueError(f"need at least 2 training rows, got {n_train}")
    if ratio == "all":
        return RatioRows("all", range(n_train), range(n_train))
    a, b = (int(v) for v in ratio)
    if a < 1 or b < 1:
        raise ValueError(f"ratio parts must be positive, got {a}:{b}")
    m = -(-a * n_train // (a + b))  # ceil without floating point
    m = min(max(m, 1), n_train - 1)  # both sets non-empty
    return RatioRows(f"{a}:{b}", range(m), range(m, n_train))


def holdout_splits(
    y, n_reps: int, rng: np.random.Generator, train_fraction: float = 2 / 3
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Random training/test splits of Vovk & Petej 2014, section 5.

    "In each experiment we randomly permute the dataset and use the first 2/3
    observations for training and the remaining 1/3 for testing." The training part
    holds ``round(train_fraction * n)`` rows. A permutation whose training part holds a
    single class (no calibration is defined for it) is redrawn; this only matters for
    tiny or extremely unbalanced data.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels (any two values); only used to avoid one-class training parts.
    n_reps : int
        Number of splits, at least 0.
    rng : numpy.random.Generator
        Source of the permutations (the splits are a function of its state).
    train_fraction : float, default=2/3
        Fraction of rows in the training part, in (0, 1).

    Returns
    -------
    list of (ndarray, ndarray)
        ``(train, test)`` row indices of each split, each in permuted order.

    Examples
    --------
    >>> splits = holdout_splits([0, 1] * 6, 2, np.random.default_rng(0))
    >>> [(len(tr), len(te)) for tr, te in splits]
    [(8, 4), (8, 4)]
    >>> sorted(np.concatenate(splits[0]).tolist()) == list(range(12))
    True
    """
    y = np.asarray(y)
    n = len(y)
    if not 0.0 < train_fraction < 1.0:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction}")
    if int(n_reps) < 0:
        raise ValueError(f"n_reps must be non-negative, got {n_reps}")
    n_train = round(train_fraction * n)
    if n_train < 2 or n_train >= n:
        raise ValueError(f"cannot split {n} observations into training and test parts")
    if len(np.unique(y)) < 2:
        raise ValueError("the labels hold a single class")
    splits = []
    for _ in range(int(n_reps)):
        for _attempt in range(1_000):
            perm = rng.permutation(n)
            if len(np.unique(y[perm[:n_train]])) == 2:
                break
        else:  # pragma: no cover - needs a one-in-many single-class training part 1,000 times
            raise RuntimeError("could not draw a training part holding both classes")
        splits.append((perm[:n_train], perm[n_train:]))
    return splits
