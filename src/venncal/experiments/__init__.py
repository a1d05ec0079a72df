"""Reproductions of published calibration experiments (``venncal reproduce NAME``).

Each experiment lives in its own module exposing ``run(...)``; the pure split logic
shared by the experiments (which rows are proper training, calibration and test rows,
contiguous cross-validation folds) is in :mod:`venncal.experiments._protocols` and is
testable without any data. Heavy imports (scikit-learn, data) happen inside ``run``.
"""

from __future__ import annotations

from ._protocols import (
    RATIOS,
    AdultSmallRows,
    RatioRows,
    adult_small_rows,
    contiguous_folds,
    holdout_splits,
    ratio_rows,
)

__all__ = [
    "EXPERIMENTS",
    "PLANNED",
    "RATIOS",
    "AdultSmallRows",
    "RatioRows",
    "adult_small_rows",
    "contiguous_folds",
    "holdout_splits",
    "ratio_rows",
]

#: Available experiments: name -> (module under ``venncal.experiments``, one-line summary).
EXPERIMENTS = {
    "vovk2015-adult-small": (
        "vovk2015_adult_small",
        (
            "paper 000 (Vovk et al. 2015), Tables 1-2: six learners x Platt/IR/IVAP/CVAP "
            "on the first 5,000 adult training rows"
        ),
    ),
    "vovk2015-adult-ratios": (
        "vovk2015_adult_ratios",
        (
            "paper 000, Figures 1-2 and 13-14: adult, proper training : calibration "
            "ratios 1:9 ... 9:1 and all, raw learner and Platt/IR/IVAP/CVAP"
        ),
    ),
    "vovk2014-uci": (
        "vovk2014_uci",
        (
            "paper 001 (Vovk & Petej 2014), Tables 1-3: nine small UCI data sets x six "
            "learners, W/VA/SVA/DIR over random 2/3-1/3 splits (needs --data-dir)"
        ),
    ),
}

#: Experiments announced but not implemented yet: name -> one-line summary.
PLANNED: dict[str, str] = {}
