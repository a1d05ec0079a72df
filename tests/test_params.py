"""The one parameter checker: every calibrator and metric rejects bad parameters alike."""

import numpy as np
import pytest

import venncal
from venncal import metrics

S = np.array([0.1, 0.4, 0.35, 0.8, 0.5])
Y = np.array([0, 0, 1, 1, 0])

# (calibrator class, parameter, bad value, words the message must hold)
BAD_PARAMS = [
    (venncal.VennAbersCalibrator, "merge", "banana", r"merge must be one of \('log', 'brier'\)"),
    (venncal.VennAbersCalibrator, "merge", None, "merge must be one of"),
    (venncal.PlattCalibrator, "targets", "plat", "targets must be one of"),
    (venncal.IsotonicCalibrator, "interpolation", "cubic", "interpolation must be one of"),
    (venncal.HistogramBinningCalibrator, "n_bins", 0, r"n_bins must be an integer >= 1; got 0"),
    (venncal.HistogramBinningCalibrator, "n_bins", 2.5, "n_bins must be an integer"),
    (venncal.HistogramBinningCalibrator, "n_bins", True, "n_bins must be an integer"),
    (venncal.HistogramBinningCalibrator, "strategy", "kmeans", "strategy must be one of"),
    (venncal.BBQCalibrator, "bin_range", (3, 2), "bin_range must be None or a pair"),
    (venncal.BBQCalibrator, "bin_range", (0, 2), "bin_range must be None or a pair"),
    (venncal.BBQCalibrator, "range_factor", 0.5, r"range_factor must be a finite real number >= 1"),
    (venncal.BBQCalibrator, "range_factor", float("inf"), "range_factor must be a finite"),
    (venncal.BBQCalibrator, "prior_strength", 0.0, r"prior_strength must be a finite real number > 0"),
    (venncal.BBQCalibrator, "bin_prior", "flat", "bin_prior must be one of"),
]


@pytest.mark.parametrize(
    ("cls", "name", "value", "match"), BAD_PARAMS, ids=[f"{c.__name__}-{n}-{v!r}" for c, n, v, _ in BAD_PARAMS]
)
def test_bad_parameter_is_a_clear_error_naming_owner_and_value(cls, name, value, match):
    cal = cls(**{name: value})
    with pytest.raises(ValueError, match=f"{cls.__name__}: {match}"):
        cal.fit(S, Y)
    with pytest.raises(ValueError, match=cls.__name__):
        cal.fit_summary(venncal.ScoreSummary.from_arrays(S, Y))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: metrics.log_loss(Y, S, eps=0.0), r"log_loss: eps must be None or a finite real number in \(0, 0.5\]"),
        (lambda: metrics.log_loss(Y, S, eps=0.7), "eps must be"),
        (lambda: metrics.brier_loss(Y, S, scale=-1), r"brier_loss: scale must be a finite real number > 0"),
        (lambda: metrics.accuracy(Y, S, threshold=1.5), r"accuracy: threshold must be a finite real number in \[0, 1\]"),
        (lambda: venncal.merge_folds([[0.2]], [[0.3]], merge="mean"), "merge_folds: merge must be one of"),
    ],
)
def test_metric_and_merge_parameters(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_good_parameters_of_every_kind_pass():
    venncal.HistogramBinningCalibrator(n_bins=np.int64(3), strategy="uniform").fit(S, Y)
    venncal.BBQCalibrator(bin_range=[1, 2], range_factor=1, prior_strength=0.5).fit(S, Y)
    assert metrics.log_loss(Y, S, eps=0.5) > 0
