"""Class 0 of isotonic regression, histogram binning and BBQ, with full relative precision.

``predict_proba``'s column 0 was ``1.0 - p``: where ``p`` is near 1 that keeps
about ``2**-53`` absolute, so a block of weights 1e20 (positive) and 1
(negative) gave 0.0 for a class whose probability is 1e-20 (issue 22).  Each
now stores its complements, computed from the negative weights on their own;
the checks here are against exact rational arithmetic on the rows.
"""

from __future__ import annotations

import io
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference.naive import _isotonic_exact, _literal_pava

from venncal import persist
from venncal._kernels.pava import pava_blocks_split
from venncal.baselines import (
    BBQCalibrator,
    HistogramBinningCalibrator,
    IsotonicCalibrator,
)
from venncal.persist import ModelFormatError

# Sums of n non-negative doubles and their ratio: within (2 n + 1) * 2**-53 of exact.
EPS = 2.0**-53


def rel_err(got: float, exact: Fraction) -> float:
    """Relative error, read as 0 within a few subnormal steps (no double is closer)."""
    err = abs(Fraction(float(got)) - exact)
    if err <= 4 * Fraction(2.0**-1074):
        return 0.0
    return float(err / exact) if exact else float("inf")


def rows_of(pos, neg, scores):
    """Rows (score, label, weight) of per-score class weights (a zero weight: no row)."""
    s, y, w = [], [], []
    for x, a, b in zip(scores, pos, neg, strict=True):
        for label, weight in ((1, a), (0, b)):
            if weight > 0:
                s.append(x)
                y.append(label)
                w.append(weight)
    return np.array(s), np.array(y), np.array(w)


# -- the 1e20 : 1 example of issue 22 (each of these failed on the old code) --------

HEAVY = ([0.1, 0.5, 0.5, 0.9], [0, 1, 0, 1], [1.0, 1e20, 1.0, 1.0])


@pytest.mark.parametrize("interpolation", ["nearest", "linear"])
def test_isotonic_complement_of_a_heavy_block(interpolation):
    cal = IsotonicCalibrator(interpolation=interpolation).fit(*HEAVY[:2], sample_weight=HEAVY[2])
    proba = cal.predict_proba([0.5])
    exact = Fraction(1) / (Fraction(10**20) + 1)  # the block of 0.5 alone: 1 / (1e20 + 1)
    assert proba[0, 1] == 1.0
    assert rel_err(proba[0, 0], exact) <= 4 * EPS


def test_histogram_complement_of_a_heavy_bin():
    cal = HistogramBinningCalibrator(n_bins=2).fit(*HEAVY[:2], sample_weight=HEAVY[2])
    # bins {0.1} and {0.5, 0.5, 0.9}: the second holds 1 negative of 1e20 + 2
    proba = cal.predict_proba([0.9])
    assert rel_err(proba[0, 0], Fraction(1) / (Fraction(10**20) + 2)) <= 4 * EPS


def test_bbq_complement_of_a_heavy_bin():
    cal = BBQCalibrator(bin_prior="base_rate").fit(*HEAVY[:2], sample_weight=HEAVY[2])
    q = np.array([0.1, 0.5, 0.9])
    got = cal.predict_proba(q)[:, 0]
    exact = bbq_exact_complements(cal, *HEAVY, q)
    for g, e in zip(got, exact, strict=True):
        assert rel_err(g, e) <= 1e-12
    assert got[1] < 1e-19  # was 2**-53 (the clip of p at 1 - 2**-53)


def test_blocks_whose_means_round_to_one_stay_apart():
    # means 1 - 2e-20 and 1 - 1e-20: increasing, so two blocks; both round to 1.0
    cal = IsotonicCalibrator().fit([0.5, 0.5, 0.6, 0.6], [1, 0, 1, 0],
                                   sample_weight=[1e20, 2.0, 1e20, 1.0])
    got = cal.predict_proba([0.5, 0.6])[:, 0]
    assert rel_err(got[0], Fraction(2) / (Fraction(10**20) + 2)) <= 4 * EPS
    assert rel_err(got[1], Fraction(1) / (Fraction(10**20) + 1)) <= 4 * EPS


# -- the kernel against the literal PAVA in rationals ----------------------------------

WEIGHTS = st.sampled_from([0.0, 1.0, 2.0, 3.0, 0.5, 1e20, 3e20, 2.0**53, 1e-300])


@st.composite
def class_weights(draw, max_size=12):
    n = draw(st.integers(1, max_size))
    pos = [draw(WEIGHTS) for _ in range(n)]
    neg = [draw(WEIGHTS) for _ in range(n)]
    for i in range(n):
        if pos[i] == 0.0 and neg[i] == 0.0:
            pos[i] = 1.0
    return np.array(pos), np.array(neg)


@given(class_weights())
def test_pava_blocks_split_matches_the_literal_fit(weights):
    pos, neg = weights
    den = pos + neg
    ends, bnum, bneg, bden = pava_blocks_split(pos, neg, den)
    cells = [[Fraction(a), Fraction(a) + Fraction(b), [i]]
             for i, (a, b) in enumerate(zip(pos.tolist(), neg.tolist(), strict=True))]
    exact = [None] * pos.shape[0]
    for num, d, members in _literal_pava(cells):
        for i in members:
            exact[i] = num / d
    start = 0
    for end, a, b, d in zip(ends, bnum, bneg, bden, strict=True):
        for i in range(start, end):
            assert rel_err(b / d, 1 - exact[i]) <= (2 * pos.shape[0] + 2) * EPS
            assert abs(Fraction(a / d) - exact[i]) <= (2 * pos.shape[0] + 2) * EPS
        start = end
    assert start == pos.shape[0]


# -- the calibrators against exact rationals, at the float edges -----------------------

# 8e307: two of them at one score stay below the largest double (past it fit refuses)
EDGE_WEIGHTS = st.sampled_from([1.0, 2.0, 1e20, 1e-310, 8e307, 2.0**53 - 1, 0.25])


@st.composite
def edge_data(draw):
    k = draw(st.integers(1, 8))
    scores = np.arange(1, k + 1) / (k + 1)
    pos = np.array([draw(st.sampled_from([0.0])) if draw(st.booleans()) else draw(EDGE_WEIGHTS)
                    for _ in range(k)])
    neg = np.array([draw(st.sampled_from([0.0])) if draw(st.booleans()) else draw(EDGE_WEIGHTS)
                    for _ in range(k)])
    both = (pos == 0) & (neg == 0)
    pos[both] = 1.0
    if not (pos > 0).any():
        pos[0] = 1.0
    if not (neg > 0).any():
        neg[-1] = 1.0
    return scores, pos, neg


@given(edge_data(), st.sampled_from(["nearest", "linear"]))
def test_isotonic_complements_are_exact_at_the_calibration_scores(data, interpolation):
    scores, pos, neg = data
    s, y, w = rows_of(pos, neg, scores)
    cal = IsotonicCalibrator(interpolation=interpolation).fit(s, y, sample_weight=w)
    fit = _isotonic_exact(s, y, w)
    got = cal.predict_proba(s)
    for i in range(s.shape[0]):
        assert rel_err(got[i, 0], 1 - fit[i]) <= 1e-12, (i, got[i], float(1 - fit[i]))
        assert abs(Fraction(got[i, 1]) - fit[i]) <= 1e-12


@given(edge_data(), st.integers(1, 4))
def test_histogram_complements_are_exact(data, n_bins):
    scores, pos, neg = data
    s, y, w = rows_of(pos, neg, scores)
    cal = HistogramBinningCalibrator(n_bins=n_bins).fit(s, y, sample_weight=w)
    got = cal.predict_proba(s)[:, 0]
    at = np.searchsorted(cal.bin_edges_[1:-1], s, side="left")
    for i in range(s.shape[0]):
        rows = at == at[i]
        total = sum(map(Fraction, w[rows].tolist()), Fraction(0))
        negative = sum(map(Fraction, w[rows & (y == 0)].tolist()), Fraction(0))
        assert rel_err(got[i], negative / total) <= 1e-12


def bbq_exact_complements(cal, scores, y, w, q):
    """The averaged smoothed negative estimate at ``q``, in rationals, from the fitted models.

    Model ``m`` (weight ``model_weights_[m]``) bins by its own edges; a bin's
    negative estimate is ``(n + beta) / (N + alpha + beta)`` with ``alpha =
    (strength / B) prior``, ``beta = (strength / B) (1 - prior)`` (the base
    rate as prior), clipped to ``[5e-324, 1 - 2**-53]`` as the estimates are.
    """
    s, y, w = np.asarray(scores, float), np.asarray(y), np.asarray(w, float)
    total = sum(map(Fraction, w.tolist()), Fraction(0))
    rate = float(sum(map(Fraction, w[y == 1].tolist()), Fraction(0)) / total)
    prior = Fraction(min(max(rate, 1e-6), 1 - 1e-6))
    offsets = np.concatenate(([0], np.cumsum(cal.n_bins_)))
    out = []
    for x in q:
        c = Fraction(0)
        for m, n_bins in enumerate(cal.n_bins_):
            edges = cal.bin_edges_[offsets[m] - m:offsets[m] - m + n_bins - 1]
            b = int(np.searchsorted(edges, x, side="left"))
            rows = np.searchsorted(edges, s, side="left") == b
            size = sum(map(Fraction, w[rows].tolist()), Fraction(0))
            n = sum(map(Fraction, w[rows & (y == 0)].tolist()), Fraction(0))
            strength = Fraction(float(cal.prior_strength)) / int(n_bins)
            est = (n + strength * (1 - prior)) / (size + strength)
            est = min(max(est, Fraction(5e-324)), Fraction(1.0 - 2.0**-53))
            c += Fraction(float(cal.model_weights_[m])) * est
        out.append(c)
    return out


@pytest.mark.filterwarnings("ignore::venncal.WeightScaleWarning")  # tiny totals are the point
@given(edge_data())
def test_bbq_complements_match_the_models(data):
    scores, pos, neg = data
    s, y, w = rows_of(pos, neg, scores)
    # Weights past ~1e300 refuse (the evidence overflows): not this test's subject.
    w = np.where(w > 1e300, 1e20, w)
    cal = BBQCalibrator(bin_prior="base_rate").fit(s, y, sample_weight=w)
    got = cal.predict_proba(scores)[:, 0]
    exact = bbq_exact_complements(cal, s, y, w, scores)
    for g, e in zip(got, exact, strict=True):
        # the average of up to a few hundred models: sums of that many terms
        assert rel_err(g, e) <= 1e-9, (g, float(e))


# -- fitted state: saved, loaded, refused -----------------------------------------------

FITTED = {
    "isotonic": lambda: IsotonicCalibrator().fit(*HEAVY[:2], sample_weight=HEAVY[2]),
    "isotonic-linear": lambda: IsotonicCalibrator(interpolation="linear").fit(
        *HEAVY[:2], sample_weight=HEAVY[2]),
    "histogram": lambda: HistogramBinningCalibrator(n_bins=2).fit(
        *HEAVY[:2], sample_weight=HEAVY[2]),
    "bbq": lambda: BBQCalibrator().fit(*HEAVY[:2], sample_weight=HEAVY[2]),
}
NAME = {IsotonicCalibrator: "complements_", BBQCalibrator: "complements_",
        HistogramBinningCalibrator: "bin_complements_"}
VALUES = {IsotonicCalibrator: "values_", BBQCalibrator: "values_",
          HistogramBinningCalibrator: "bin_values_"}


def reload(cal, version=3):
    buf = io.StringIO()
    persist.save(cal, buf, format_version=version)
    return persist.load(io.StringIO(buf.getvalue())), buf.getvalue()


@pytest.mark.parametrize("version", [1, 2, 3])
@pytest.mark.parametrize("kind", sorted(FITTED))
def test_complements_are_saved_and_loaded_bit_for_bit(kind, version):
    cal = FITTED[kind]()
    back, text = reload(cal, version)
    name = NAME[type(cal)]
    assert f'"{name}"' in text
    q = np.array([0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0])
    assert cal.predict_proba(q).tobytes() == back.predict_proba(q).tobytes()


@pytest.mark.parametrize("kind", sorted(FITTED))
def test_a_model_without_complements_loads_with_one_minus_p(kind):
    # a file written before the member existed: the same document without it (version 2)
    import json

    cal = FITTED[kind]()
    name = NAME[type(cal)]
    buf = io.StringIO()
    persist.save(cal, buf, format_version=2)
    doc = json.loads(buf.getvalue())
    del doc["state"][name]
    back = persist.load(io.StringIO(json.dumps(doc)))
    q = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    p = back.predict_proba(q)
    assert p[:, 0].tobytes() == (1.0 - p[:, 1]).tobytes()
    again, text = reload(back, 2)  # and it is saved again without it
    assert name not in text


@pytest.mark.parametrize("kind", sorted(FITTED))
@pytest.mark.parametrize("bad", ["far", "negative", "shape"])
def test_inconsistent_complements_are_refused(kind, bad):
    cal = FITTED[kind]()
    name = NAME[type(cal)]
    c = getattr(cal, name).copy()
    if bad == "far":
        c[0] = 0.5 if c[0] < 0.25 or c[0] > 0.75 else 0.0
    elif bad == "negative":
        c[-1] = -1e-30
    else:
        c = c[:-1]
    setattr(cal, name, c)
    with pytest.raises(ModelFormatError, match=name):
        reload(cal, 2)


def test_increasing_isotonic_complements_are_refused():
    cal = IsotonicCalibrator().fit([0.1, 0.2, 0.3], [0, 1, 1], sample_weight=[1.0, 1.0, 1e20])
    c = cal.complements_.copy()
    c[1], c[2] = c[2], c[1] + 2.0**-30  # within 2**-20 of 1 - p, but increasing
    cal.complements_ = c
    with pytest.raises(ModelFormatError, match="must not increase"):
        reload(cal, 2)


# -- the averaging kernel against its literal twin ----------------------------------------


@st.composite
def step_models(draw):
    n_positions = draw(st.integers(1, 12))
    n_models = draw(st.integers(1, 4))
    starts, offsets = [], [0]
    for _ in range(n_models):
        cuts = sorted(draw(st.sets(st.integers(1, n_positions - 1), max_size=n_positions - 1))
                      ) if n_positions > 1 else []
        starts += [0, *cuts]
        offsets.append(len(starts))
    value = st.sampled_from([0.0, 1e-300, 1e-20, 0.25, 0.5, 1 - 2.0**-53, 1.0, 5e-324])
    values = [draw(value) for _ in starts]
    weights = [draw(st.sampled_from([0.0, 1e-30, 0.1, 0.5, 1.0])) for _ in range(n_models)]
    return (n_positions, np.array(starts, dtype=np.int64), np.array(offsets, dtype=np.int64),
            np.array(values), np.array(weights))


@given(step_models())
def test_step_average_matches_its_literal_twin(case):
    from reference.bbq_naive import step_average_literal

    from venncal._kernels.averages import step_average

    got = step_average(*case)
    exact = step_average_literal(*case)
    n_models = case[2].shape[0] - 1
    for g, e in zip(got, exact, strict=True):
        assert rel_err(g, Fraction(e)) <= (2 * n_models + 2) * EPS


# -- attack 13: old pickles; linear interpolation of complements that are 1 - values ------


@pytest.mark.parametrize("kind", sorted(FITTED))
def test_a_pickle_from_before_complements_predicts_one_minus_p(kind):
    import pickle

    cal = FITTED[kind]()
    delattr(cal, NAME[type(cal)])  # as pickled by a version without the member
    back = pickle.loads(pickle.dumps(cal))
    q = np.array([0.1, 0.5, 0.9])
    p = back.predict_proba(q)
    assert p[:, 0].tobytes() == (1.0 - p[:, 1]).tobytes()


def test_an_unfitted_pickle_stays_unfitted():
    import pickle

    back = pickle.loads(pickle.dumps(IsotonicCalibrator()))
    assert not hasattr(back, "complements_") and not hasattr(back, "classes_")


def test_linear_isotonic_interpolates_complements_equal_to_one_minus_values():
    # block means 1 - 2**-52 and 1 - 2**-53 are exact: complements_ is 1 - values_ to the bit,
    # yet between the knots the complement is interpolated (1.5 * 2**-53), not 1 - p (2**-52)
    cal = IsotonicCalibrator(interpolation="linear").fit(
        [0.0, 0.0, 1.0, 1.0], [1, 0, 1, 0], sample_weight=[2.0**52 - 1, 1.0, 2.0**53 - 1, 1.0])
    assert cal.complements_.tobytes() == (1.0 - cal.values_).tobytes()
    assert cal.predict_proba([0.5])[0, 0] == 1.5 * 2.0**-53
    back, text = reload(cal)
    assert '"complements_"' in text
    assert back.predict_proba([0.5])[0, 0] == 1.5 * 2.0**-53


# -- attack 13 F5: a light BBQ bin after heavy rows keeps its own weight ----------------


def test_bbq_light_bin_after_heavy_rows():
    # one model; its last bin holds only the row at 0.9 (y = 1, weight 1) after 1e40 and 1e41:
    # its weight was the difference of running sums, 0, leaving the bin at its prior 0.85
    cal = BBQCalibrator().fit([0.1, 0.2, 0.5, 0.9], [1, 1, 0, 1],
                              sample_weight=[1e40, 1e20, 1e41, 1.0])
    assert cal.n_bins_.shape == (1,)
    strength = Fraction(2, int(cal.n_bins_[0]))
    prior = Fraction(0.5 * float(cal.bin_edges_[-1]) + 0.5)
    exact = (1 + strength * prior) / (1 + strength)
    proba = cal.predict_proba([0.9])[0]
    assert rel_err(proba[1], exact) <= 1e-15
    assert rel_err(proba[0], 1 - exact) <= 1e-15


@st.composite
def ranges(draw):
    n = draw(st.integers(1, 40))
    x = [draw(st.sampled_from([0.0, 1.0, 1e40, 1e-300, 0.1, 3.0, 5e-324])) for _ in range(n)]
    pairs = [sorted((draw(st.integers(0, n)), draw(st.integers(0, n)))) for _ in range(8)]
    return np.array(x), np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])


@given(ranges())
def test_range_sums_tree_matches_the_literal_sums(case):
    from venncal._kernels.averages import range_sums_tree

    x, lo, hi = case
    got = range_sums_tree(x, lo, hi)
    levels = 2 * max(1, int(np.ceil(np.log2(x.shape[0] + 1)))) + 2
    for g, a, b in zip(got, lo, hi, strict=True):
        exact = sum(map(Fraction, x[a:b].tolist()), Fraction(0))
        assert rel_err(g, exact) <= levels * EPS


# -- attack 13 F4: compare scores label-0 rows with the method's own class-0 column -----


@pytest.mark.filterwarnings("ignore")
def test_compare_log_loss_uses_the_class_zero_column():
    from venncal import compare

    rng = np.random.default_rng(2)
    s = np.round(rng.random(400), 2)
    y = (rng.random(400) < s).astype(int)
    w = np.where(y == 1, 1e20, 1.0)  # 1 - p is 0.0 where class 0 is ~1e-20
    result = compare(s, y, sample_weight=w, methods=["isotonic", "histogram", "platt"])
    for m in ("isotonic", "histogram", "platt"):
        assert np.isfinite(result.mean(m)["log_loss"]), m  # was inf (-log1p(-p) of p = 1)
