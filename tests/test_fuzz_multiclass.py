"""A hostile attack on the multiclass calibrators and metrics (issue 22: nothing silent).

Inputs of the kinds that broke the binary code: weights 0, 1e-310, 1e-300,
1e300, 1e308 and 2**53; probabilities 1e-310 and 1 - 2**-53 in the score
rows; logits of +-1e308; rows summing to 1 within and outside the documented
tolerance; NaN and inf; classes absent from the calibration data; relabelled
classes.  Each answer is checked against a literal reference (the metrics'
twins in ``tests/reference/multiclass_metrics_naive.py``, in exact
rationals) or a property the documentation promises (rows of
``predict_proba`` sum to 1, ``p0 <= p1`` in [0, 1], the same answer under a
relabelling of the classes); anything else must be a clear ``ValueError``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import multiclass_metrics_naive as naive

from venncal import OneVsOneCalibrator, OneVsRestCalibrator, VennAbersCalibrator
from venncal._validation import WeightScaleWarning
from venncal.metrics import (
    classwise_ece,
    multiclass_brier_loss,
    multiclass_log_loss,
    top_label_ece,
)
from venncal.multiclass._scores import proba_tolerance

WEIGHTS = [0.0, 1e-310, 1e-300, 0.5, 1.0, 3.0, 2.0**53, 1e300, 1e308]
SMALL = [0.0, 1e-310, 1e-300, 2.0**-53, 0.1, 0.25, 0.5]


@st.composite
def proba_rows(draw, n, K):
    """Rows of K probabilities: K - 1 drawn from SMALL, the last 1 - their sum (>= 0)."""
    rows = []
    for _ in range(n):
        head = draw(st.lists(st.sampled_from(SMALL), min_size=K - 1, max_size=K - 1))
        if sum(head) > 1:
            head = [v / 4 for v in head]
        row = [*head, 1.0 - math.fsum(head)]
        perm = draw(st.permutations(range(K)))
        rows.append([row[j] for j in perm])
    return np.array(rows)


@st.composite
def metric_data(draw):
    K = draw(st.integers(2, 4))
    n = draw(st.integers(1, 8))
    proba = draw(proba_rows(n, K))
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    w = draw(st.one_of(st.none(), st.lists(st.sampled_from(WEIGHTS), min_size=n, max_size=n)))
    if w is not None:
        w = np.array(w)
        if not (w > 0).any():
            w[0] = 1.0
    return K, proba, y, w


def _close(got, want, absolute=1e-300):
    if math.isinf(want):
        return got == want
    return got == pytest.approx(want, rel=1e-12, abs=absolute)


#: The binned metrics' absolute tolerance on a bin's gap |mean p - mean y|, as BIN_ATOL
#: of tests/test_fuzz_metrics.py: a bin's mean of probabilities near 1 is exact to an ulp of 1,
#: so a gap of 2.2e-16 may come out as 1.1e-16 (found: one row of weight 1e-300).
ECE_ABS = 2.0**-49


@settings(max_examples=25)
@given(metric_data())
def test_losses_are_the_literal_definitions(data):
    K, proba, y, w = data
    classes = list(range(K))
    wl = None if w is None else w.tolist()
    assert _close(multiclass_log_loss(y, proba, classes=classes, sample_weight=w),
                  naive.log_loss(y.tolist(), proba.tolist(), classes, wl))
    assert _close(multiclass_brier_loss(y, proba, classes=classes, sample_weight=w),
                  naive.brier(y.tolist(), proba.tolist(), classes, wl))
    assert _close(classwise_ece(y, proba, classes=classes, sample_weight=w),
                  naive.classwise_ece(y.tolist(), proba.tolist(), classes,
                                      w=None if w is None else w.tolist()), ECE_ABS)


@settings(max_examples=25)
@given(metric_data(), st.data())
def test_metrics_do_not_depend_on_the_names_of_the_classes(data, more):
    K, proba, y, w = data
    perm = np.array(more.draw(st.permutations(range(K))))
    names = np.array(["c%d" % j for j in range(K)])
    renamed = names[perm]  # class j is now called renamed[j]; columns follow the classes
    order = np.argsort(renamed)
    # The top label of a row with tied largest probabilities is the class first in
    # ``classes`` (documented, as scikit-learn's predict), so a renaming may change it:
    # top-label ECE is compared only where no row of positive weight has such a tie.
    top = proba.max(axis=1, keepdims=True)
    kept = np.ones(proba.shape[0], bool) if w is None else w > 0
    tied = ((proba == top).sum(axis=1) > 1)[kept].any()
    for metric in (multiclass_log_loss, multiclass_brier_loss, top_label_ece, classwise_ece):
        if metric is top_label_ece and tied:
            continue
        plain = metric(y, proba, classes=list(range(K)), sample_weight=w)
        other = metric(renamed[y], proba[:, order], classes=renamed[order], sample_weight=w)
        absolute = ECE_ABS if metric in (top_label_ece, classwise_ece) else 1e-300
        assert plain == other or _close(other, plain, absolute), metric.__name__


def test_top_label_ties_go_to_the_class_first_in_classes():
    # Found by CI's hypothesis run: rows [0, .5, .5] and [.5, 0, .5], both of class 0. The
    # top label of a tied row is the first of the tied classes in ``classes``, so the
    # ECE depends on the order of the classes there (0 or 0.5), as documented.
    proba = np.array([[0.0, 0.5, 0.5], [0.5, 0.0, 0.5]])
    assert top_label_ece([0, 0], proba, classes=[0, 1, 2]) == 0.0  # one right, one wrong
    moved = proba[:, [2, 0, 1]]  # the same rows with the classes in the order 2, 0, 1
    assert top_label_ece([0, 0], moved, classes=[2, 0, 1]) == 0.5  # both go to class 2


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, -1e-300, 1.0 + 2.0**-20])
def test_invalid_probabilities_are_refused(bad):
    proba = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    proba[0, 2] = bad
    for metric in (multiclass_log_loss, multiclass_brier_loss, top_label_ece, classwise_ece):
        with pytest.raises(ValueError):
            metric([0, 1], proba, classes=[0, 1, 2])


def test_rows_off_one_by_more_than_the_tolerance_are_refused():
    K = 3
    off = 4 * proba_tolerance(K)
    proba = np.array([[0.5, 0.5 + off, 0.0]])
    for metric in (multiclass_log_loss, multiclass_brier_loss, top_label_ece, classwise_ece):
        with pytest.raises(ValueError):
            metric([0], proba, classes=[0, 1, 2])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_invalid_weights_are_refused(bad):
    proba = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    for metric in (multiclass_log_loss, multiclass_brier_loss, top_label_ece, classwise_ece):
        with pytest.raises(ValueError, match="sample_weight"):
            metric([0, 1], proba, classes=[0, 1, 2], sample_weight=[1.0, bad])


# -- the calibrators ---------------------------------------------------------------------

@st.composite
def calibration_data(draw):
    K = draw(st.integers(3, 4))
    n = draw(st.integers(K, 9))
    kind = draw(st.sampled_from(["proba", "logit"]))
    if kind == "proba":
        scores = draw(proba_rows(n, K))
    else:
        scores = np.array(draw(st.lists(
            st.lists(st.sampled_from([-1e308, -3.0, 0.0, 1e-310, 2.0, 1e308]),
                     min_size=K, max_size=K), min_size=n, max_size=n)))
    y = np.array(draw(st.lists(st.integers(0, K - 1), min_size=n, max_size=n)))
    y[:2] = [0, 1]  # at least two classes present; others may be absent
    w = draw(st.one_of(st.none(), st.lists(st.sampled_from(WEIGHTS[1:]), min_size=n, max_size=n)))
    return K, kind, scores, y, None if w is None else np.array(w)


def _fit(cls, kind, scores, y, w, classes, **params):
    cal = cls(VennAbersCalibrator(), score=kind, classes=classes, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WeightScaleWarning)
        try:
            return cal.fit(scores, y, sample_weight=w)
        except ValueError as exc:  # a clear refusal, naming what is wrong
            assert any(word in str(exc) for word in ("sample_weight", "scores", "class")), exc
            return None


def _check_rows(proba, K):
    assert proba.shape[1] == K
    assert np.isfinite(proba).all()
    assert ((proba >= 0) & (proba <= 1)).all()
    assert np.all(np.abs(proba.sum(axis=1) - 1.0) <= proba_tolerance(K))


@settings(max_examples=15)
@given(calibration_data(),
       st.sampled_from(["ovr", "ovo-price", "ovo-normalize", "ovo-wu-lin-weng"]))
def test_calibrators_give_probability_rows_or_a_clear_error(data, how):
    K, kind, scores, y, w = data
    if how == "ovr":
        cal = _fit(OneVsRestCalibrator, kind, scores, y, w, list(range(K)))
    else:
        coupling = how.split("-", 1)[1]
        cal = _fit(OneVsOneCalibrator, kind, scores, y, w, list(range(K)), coupling=coupling)
    if cal is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WeightScaleWarning)
        proba = cal.predict_proba(scores)
    _check_rows(proba, K)
    if how == "ovr":
        pair = cal.predict_interval(scores)
        assert ((pair >= 0) & (pair <= 1)).all()
        assert (pair[..., 0] <= pair[..., 1]).all()


def test_ovr_logit_scores_do_not_depend_on_the_order_of_the_columns():
    # Found by CI's hypothesis run: summed in column order, the others' log-sum-exp of
    # [-3, -3, 0, -3] and [-3, 0, -3, -3] differed by an ulp, which broke a tie with a
    # calibration score and swapped two rows' probabilities (0.2795 and 0.2727) after a
    # relabelling of the classes.
    scores = np.array([[-1e308] * 4] * 7 + [[-3.0, -3.0, -3.0, 0.0], [-3.0, -3.0, 0.0, -3.0]])
    y = np.array([0, 1, 0, 0, 0, 0, 0, 2, 3])
    perm = np.array([0, 2, 1, 3])
    moved = np.empty_like(scores)
    moved[:, perm] = scores
    a = _fit(OneVsRestCalibrator, "logit", scores, y, None, [0, 1, 2, 3]).predict_proba(scores)
    b = _fit(OneVsRestCalibrator, "logit", moved, perm[y], None, [0, 1, 2, 3])
    np.testing.assert_allclose(a, b.predict_proba(moved)[:, perm], rtol=2.0**-50)


@settings(max_examples=15)
@given(calibration_data(), st.data())
def test_ovr_does_not_depend_on_the_names_of_the_classes(data, more):
    K, kind, scores, y, w = data
    perm = np.array(more.draw(st.permutations(range(K))))
    plain = _fit(OneVsRestCalibrator, kind, scores, y, w, list(range(K)))
    # class j renamed perm[j]; its score column moves to position perm[j]
    moved = np.empty_like(scores)
    moved[:, perm] = scores
    other = _fit(OneVsRestCalibrator, kind, moved, perm[y], w, list(range(K)))
    if plain is None or other is None:
        assert plain is None and other is None
        return
    a = plain.predict_proba(scores)
    b = other.predict_proba(moved)[:, perm]
    # the same to rounding (the normalisation sums the columns in another order)
    np.testing.assert_allclose(a, b, rtol=2.0**-50, atol=2.0**-1000)
