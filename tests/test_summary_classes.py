"""Each class's weight at a score is summed on its own (issue 22: nothing silent).

A weight of 1e-300 labelled 0 tied with 1e300 labelled 1 vanished from the
summary (``weights - positive_weights`` is 0): the AUC was refused as
single-class and IVAP's ``n_negative_`` was 0.  The summary now keeps the
negative weights (``negative_weights``), exact against rational sums, through
merges in any order.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from venncal import CrossVennAbersCalibrator, ScoreSummary, VennAbersCalibrator, load, save
from venncal.metrics import roc_auc

from reference.naive import ivap_by_definition, summary_by_definition

SCORES = [0.5, 0.5, 0.2]
LABELS = [0, 1, 1]
WEIGHTS = [1e-300, 1e300, 1.0]


def _class_sums(scores, y01, w):
    """Exact class-0 and class-1 sums per distinct score (Fractions), sorted by score."""
    s, total, positive = summary_by_definition(scores, y01, w, exact=True)
    return s, [t - p for t, p in zip(total, positive, strict=True)], positive


def _same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def _arrays(summary):
    return (summary.scores, summary.weights, summary.positive_weights, summary.negative_weights)


def test_a_tiny_class_beside_a_huge_one_keeps_its_weight():
    summary = ScoreSummary.from_arrays(SCORES, LABELS, WEIGHTS)
    _, neg, pos = _class_sums(SCORES, LABELS, WEIGHTS)
    assert summary.negative_weights.tolist() == [float(v) for v in neg] == [0.0, 1e-300]
    assert summary.positive_weights.tolist() == [float(v) for v in pos]
    assert summary.negative_weight == 1e-300
    # both classes are there: the AUC of the definition (0.5: the negative ties the heavy positive)
    assert summary.auc() == roc_auc(LABELS, SCORES, sample_weight=WEIGHTS) == 0.5


def test_engines_merge_of_one_label_pieces_keeps_the_class():
    # the engines summarise each label apart and merge the pieces (ScoreSummary(...) per label)
    neg = ScoreSummary([0.5], [1e-300], [0.0])
    pos = ScoreSummary([0.2, 0.5], [1.0, 1e300], [1.0, 1e300])
    whole = ScoreSummary.from_arrays(SCORES, LABELS, WEIGHTS)
    for merged in (neg.merge(pos), pos.merge(neg)):
        assert _same(_arrays(merged), _arrays(whole))
        assert merged.negative_weight == whole.negative_weight == 1e-300


def test_ivap_counts_the_tiny_class_and_its_tables_are_the_definition():
    for fit in (
        lambda c: c.fit(SCORES, LABELS, WEIGHTS),
        lambda c: c.fit_summary(ScoreSummary.from_arrays(SCORES, LABELS, WEIGHTS)),
    ):
        cal = fit(VennAbersCalibrator())
        assert cal.n_negative_ == 1e-300 and cal.n_positive_ == 1e300
        p0, p1 = ivap_by_definition(SCORES, LABELS, WEIGHTS, cal.scores_, exact=True)
        assert cal.p0_.tolist() == [float(v) for v in p0]
        assert cal.p1_.tolist() == [float(v) for v in p1]
        assert cal.q0_.tolist() == [float(1 - v) for v in p0]
        t = [0.1, 0.2, 0.3, 0.5, 0.7]
        e0, e1 = ivap_by_definition(SCORES, LABELS, WEIGHTS, t)
        assert np.array_equal(cal.predict_interval(t), np.column_stack((e0, e1)))


def test_ivap_with_the_tiny_class_saves_and_loads(tmp_path):
    cal = VennAbersCalibrator().fit(SCORES, LABELS, WEIGHTS)
    path = tmp_path / "m.json"
    save(cal, path)
    back = load(path)
    assert back.n_negative_ == 1e-300
    assert np.array_equal(back.predict_proba([0.3, 0.5]), cal.predict_proba([0.3, 0.5]))


def test_cvap_folds_count_the_tiny_class():
    folds = [0, 0, 1]
    cal = CrossVennAbersCalibrator().fit(SCORES, LABELS, WEIGHTS, folds=folds)
    assert cal.calibrators_[0].n_negative_ == 1e-300


def test_a_corrupt_negative_total_is_still_refused():
    cal = VennAbersCalibrator().fit(SCORES, LABELS, WEIGHTS)
    cal.n_negative_ = 1e290  # far beyond what w - a may have lost
    with pytest.raises(ValueError, match="n_negative_"):
        cal._check_state()


EDGE = st.sampled_from([1e-310, 1e-300, 0.1, 1.0, 3.0, 2.0**53, 2.0**53 + 2, 1e300, 1e307])


@given(
    rows=st.lists(
        st.tuples(st.sampled_from([0.1, 0.5, 0.9]), st.booleans(), EDGE), min_size=1, max_size=9
    ),
    cut=st.integers(0, 9),
)
def test_class_sums_are_exact_and_merges_agree(rows, cut):
    s, y, w = (np.array(v) for v in zip(*rows, strict=True))
    try:
        summary = ScoreSummary.from_arrays(s, y, w)
    except ValueError as e:  # whole numbers past two doubles: refused, never wrong
        assert "sample_weight" in str(e)
        return
    keys, neg, pos = _class_sums(s, y, w)
    total = [n + p for n, p in zip(neg, pos, strict=True)]
    assert summary.scores.tolist() == keys
    assert summary.weights.tolist() == [float(v) for v in total]
    assert summary.positive_weights.tolist() == [float(v) for v in pos]
    assert summary.negative_weights.tolist() == [float(v) for v in neg]
    exact_neg = float(sum(neg, Fraction(0)))
    # The class total sums the per-score class weights, each correctly rounded (above):
    # within 2**-52 relative of the exact total, not correctly rounded itself (a tie
    # broken by a weight of 1e-310 beside 2**53: 9007199254740996 where 998 is nearest).
    assert summary.negative_weight == pytest.approx(exact_neg, rel=2.0**-52, abs=0.0)
    cut = min(cut, s.shape[0])
    if 0 < cut < s.shape[0]:
        try:
            left = ScoreSummary.from_arrays(s[:cut], y[:cut], w[:cut])
            right = ScoreSummary.from_arrays(s[cut:], y[cut:], w[cut:])
            merged = left.merge(right)
        except ValueError as e:
            assert "sample_weight" in str(e)
            return
        swapped = right.merge(left)
        assert _same(_arrays(merged), _arrays(swapped))
        assert merged.negative_weight == swapped.negative_weight
        if summary._residual is None and merged._residual is None:
            assert _same(_arrays(merged), _arrays(summary))
