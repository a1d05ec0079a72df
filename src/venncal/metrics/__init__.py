"""Scores of probability predictions: binary, and over ``K`` classes.

Losses (:func:`log_loss`, :func:`brier_loss`, :func:`rmse`), calibration
errors over bins (:func:`ece`, :func:`mce`, and the bins themselves,
:func:`calibration_bins`), discrimination
(:func:`roc_auc`, :func:`accuracy`), the mean width of Venn-Abers intervals
(:func:`interval_width`) and all of them at once (:func:`evaluate`; several
side by side with :func:`evaluations_table` and :func:`evaluations_json`).  Each
takes labels ``y`` in {0, 1} (or booleans, or any two labels with
``pos_label=``) and the probability ``p`` of the positive class.

For ``K >= 2`` classes (:mod:`._multiclass`): :func:`multiclass_log_loss`,
:func:`multiclass_brier_loss`, the top-label (confidence) calibration
errors :func:`top_label_ece` and :func:`top_label_mce` over the bins of
:func:`top_label_calibration_bins`, :func:`classwise_ece`, and all of them
at once (:func:`evaluate_multiclass`).  Each takes labels ``y`` in any
coding, probabilities ``proba`` of shape ``(n_samples, K)`` whose column
``k`` is that of ``classes[k]`` (by default the labels of ``y`` sorted), and
``sample_weight``.  The rows of ``proba`` must sum to 1 within
``PROBA_SUM_TOL`` (1e-6).

Diagnostics beyond the ECE: :func:`spiegelhalter_test`, the calibration
slope and intercept (:func:`calibration_slope_intercept`), the cumulative
tests :func:`ks_calibration_test` and :func:`kuiper_calibration_test`, the
:func:`smooth_ece`, and percentile bootstrap intervals
(:func:`bootstrap_intervals`, :func:`bootstrap_intervals_multiclass`).
"""

from ._binned import CalibrationBins, calibration_bins, ece, mce
from ._bootstrap import bootstrap_intervals, bootstrap_intervals_multiclass
from ._diagnostics import (
    CalibrationLine,
    CalibrationTest,
    calibration_slope_intercept,
    ks_calibration_test,
    kuiper_calibration_test,
    spiegelhalter_test,
)
from ._discrimination import accuracy, roc_auc
from ._evaluate import (
    Evaluation,
    evaluate,
    evaluate_multiclass,
    evaluations_json,
    evaluations_table,
)
from ._interval import interval_width
from ._checks import PROBA_SUM_TOL
from ._losses import brier_loss, log_loss, log_loss_unit, rmse
from ._smooth import smooth_ece
from ._multiclass import (
    classwise_ece,
    multiclass_brier_loss,
    multiclass_log_loss,
    top_label_calibration_bins,
    top_label_ece,
    top_label_mce,
)

__all__ = [
    "PROBA_SUM_TOL",
    "CalibrationBins",
    "CalibrationLine",
    "CalibrationTest",
    "Evaluation",
    "accuracy",
    "bootstrap_intervals",
    "bootstrap_intervals_multiclass",
    "brier_loss",
    "calibration_bins",
    "calibration_slope_intercept",
    "classwise_ece",
    "ece",
    "evaluate",
    "evaluate_multiclass",
    "evaluations_json",
    "evaluations_table",
    "interval_width",
    "ks_calibration_test",
    "kuiper_calibration_test",
    "log_loss",
    "log_loss_unit",
    "mce",
    "multiclass_brier_loss",
    "multiclass_log_loss",
    "rmse",
    "roc_auc",
    "smooth_ece",
    "spiegelhalter_test",
    "top_label_calibration_bins",
    "top_label_ece",
    "top_label_mce",
]
