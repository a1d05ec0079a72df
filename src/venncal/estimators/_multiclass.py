"""The multiclass side of the fold machinery: K >= 3 classes through one-vs-rest or one-vs-one.

A wrapper with K >= 3 classes hands (n, K) class scores of each fold's base
model to a score-level :class:`~venncal.OneVsRestCalibrator` (or
:class:`~venncal.OneVsOneCalibrator`) whose binary base is the calibrator the
wrapper would use for two classes.  The kind of the scores is stated, never
guessed: ``"proba"`` for the base's ``predict_proba``, ``"margin"`` for its
``decision_function``.
"""

from __future__ import annotations

import numpy as np

from ..multiclass import OneVsOneCalibrator, OneVsRestCalibrator
from ..multiclass._coupling import COUPLINGS

__all__ = [
    "COUPLINGS",
    "MULTICLASS",
    "check_fold_classes",
    "multiclass_calibrator",
    "score_kind",
]

#: ``multiclass``: one binary calibrator per class, or per pair of classes.
MULTICLASS = ("ovr", "ovo")

#: The kind of class scores each output of a base estimator gives.
_KINDS = {"predict_proba": "proba", "decision_function": "margin"}


def score_kind(response_method: str) -> str:
    """The ``score=`` of the multiclass calibrator for the base's output ``response_method``."""
    return _KINDS[response_method]


def multiclass_calibrator(base, kind: str, multiclass: str, coupling: str, classes):
    """An unfitted multiclass calibrator of ``classes`` around the binary calibrator ``base``."""
    if multiclass == "ovo":
        return OneVsOneCalibrator(base, score=kind, coupling=coupling, classes=classes)
    return OneVsRestCalibrator(base, score=kind, classes=classes)


def check_fold_classes(owner: str, classes, codes, sample_weight, splits, frozen: bool) -> None:
    """Refuse folds in which a class is absent, naming the class and the fold.

    Each training part must hold every class (its base model scores every
    class; not checked for a frozen base, which is never fitted) and each
    calibration part must hold every class with positive weight (every
    binary problem is calibrated in every fold).  scikit-learn's
    ``CalibratedClassifierCV`` instead gives a class absent from a training
    part probability 0 in that fold; a calibrated probability of exactly 0
    from a model that never saw the class is not what a Venn-Abers
    predictor promises, so the wrappers refuse.
    """
    K = len(classes)
    for f, (train, cal) in enumerate(splits):
        parts = [("calibration", cal)] if frozen else [("training", train), ("calibration", cal)]
        for part, rows in parts:
            w = None if part == "training" or sample_weight is None else sample_weight[rows]
            present = np.bincount(codes[rows], weights=w, minlength=K) > 0
            if not present.all():
                label = classes[int(np.flatnonzero(~present)[0])]
                shown = label.item() if isinstance(label, np.generic) else label
                where = "" if len(splits) == 1 else f" of fold {f} (of {len(splits)})"
                positive = " of positive weight" if w is not None else ""
                raise ValueError(
                    f"{owner}: class {shown!r} has no rows{positive} in the {part} part{where}; "
                    "every class of a multiclass fit needs rows in every training and "
                    "calibration part (give each class at least as many rows as cv folds, "
                    "or use fewer folds)"
                )
