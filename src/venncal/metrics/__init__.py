"""Scores of binary probability predictions.

Losses (:func:`log_loss`, :func:`brier_loss`, :func:`rmse`), calibration
errors over bins (:func:`ece`, :func:`mce`, and the bins themselves,
:func:`calibration_bins`), discrimination
(:func:`roc_auc`, :func:`accuracy`), the mean width of Venn-Abers intervals
(:func:`interval_width`) and all of them at once (:func:`evaluate`; several
side by side with :func:`evaluations_table` and :func:`evaluations_json`).  Each
takes labels ``y`` in {0, 1} (or booleans, or any two labels with
``pos_label=``) and the probability ``p`` of the positive class.
"""

from ._binned import CalibrationBins, calibration_bins, ece, mce
from ._discrimination import accuracy, roc_auc
from ._evaluate import Evaluation, evaluate, evaluations_json, evaluations_table
from ._interval import interval_width
from ._losses import brier_loss, log_loss, log_loss_unit, rmse

__all__ = [
    "CalibrationBins",
    "Evaluation",
    "accuracy",
    "brier_loss",
    "calibration_bins",
    "ece",
    "evaluate",
    "evaluations_json",
    "evaluations_table",
    "interval_width",
    "log_loss",
    "log_loss_unit",
    "mce",
    "rmse",
    "roc_auc",
]
