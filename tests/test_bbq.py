"""BBQ: the fast calibrator against the slow literal reference, and its properties."""

import io
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from reference.bbq_naive import bbq_fit, bbq_predict

import venncal.baselines
from venncal import ScoreSummary
from venncal._validation import WeightScaleWarning
from venncal.baselines.bbq import BBQCalibrator, candidate_bin_counts

TOL = 1e-10


def probe_scores(scores, rng):
    """Test scores: fresh ones, every calibration score, the gaps between
    neighbours (and the rounded midpoints themselves), and far outside."""
    s = np.unique(np.asarray(scores, dtype=float))
    mids = 0.5 * s[:-1] + 0.5 * s[1:]
    span = s[-1] - s[0] + 1.0
    fresh = rng.uniform(s[0] - 0.1 * span, s[-1] + 0.1 * span, size=50)
    return np.concatenate(
        [
            fresh,
            s,
            mids,
            np.nextafter(mids, np.inf),
            np.nextafter(mids, -np.inf),
            [s[0] - 10 * span, s[-1] + 10 * span, -1e300, 1e300],
        ]
    )


def per_model(cal):
    """Split the concatenated per-model arrays of a fitted calibrator."""
    offsets = np.concatenate([[0], np.cumsum(cal.n_bins_)])
    for i, n in enumerate(cal.n_bins_):
        yield (
            cal.bin_edges_[offsets[i] - i : offsets[i] - i + n - 1],
            cal.bin_values_[offsets[i] : offsets[i] + n],
        )


def check_against_reference(scores, y, weights=None, rng=None, **params):
    rng = np.random.default_rng(0) if rng is None else rng
    cal = BBQCalibrator(**params).fit(scores, y, sample_weight=weights)
    models = bbq_fit(scores, y, weights, **params)
    assert len(models) == cal.n_bins_.shape[0]
    assert_array_equal(cal.n_bins_, [m["n_bins"] for m in models])
    for (edges, values), m in zip(per_model(cal), models, strict=True):
        assert_array_equal(edges, m["edges"])  # the same floats, bit for bit
        assert_allclose(values, m["values"], rtol=TOL, atol=0)
    ref_log = np.array([m["log_score"] for m in models])
    assert_allclose(cal.log_evidence_, ref_log, rtol=TOL, atol=TOL)
    assert_allclose(cal.model_weights_, [m["weight"] for m in models], rtol=0, atol=TOL)
    q = probe_scores(scores, rng)
    p = cal.predict_proba(q)[:, 1]
    assert_allclose(p, bbq_predict(models, q), rtol=0, atol=TOL)
    assert ((p > 0) & (p < 1)).all()
    return cal


# --------------------------------------------------------------------- vs reference


@pytest.mark.parametrize("n", [1, 2, 3, 7, 40, pytest.param(250, marks=pytest.mark.slow)])
@pytest.mark.parametrize("seed", [0, 1])
def test_random_against_reference(n, seed):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    y = rng.uniform(size=n) < s
    check_against_reference(s, y, rng=rng)


@pytest.mark.parametrize("decimals", [0, 1, 2])
def test_heavy_ties_against_reference(decimals):
    rng = np.random.default_rng(decimals)
    s = np.round(rng.beta(0.5, 2.0, size=300), decimals)
    y = rng.uniform(size=300) < s
    cal = check_against_reference(s, y, rng=rng)
    # A partition appears once; no model splits a tied score.
    assert cal.n_bins_.max() <= np.unique(s).shape[0]


def test_one_dominant_tie_against_reference():
    rng = np.random.default_rng(5)
    s = np.concatenate([np.full(150, 0.3), rng.uniform(size=60)])
    y = rng.uniform(size=s.shape[0]) < 0.4
    check_against_reference(s, y, rng=rng)


def test_integer_weights_against_reference_and_repeated_rows():
    rng = np.random.default_rng(3)
    s = np.round(rng.uniform(size=80), 2)
    y = rng.uniform(size=80) < s
    w = rng.integers(0, 4, size=80).astype(float)
    w[0] = 1.0
    weighted = check_against_reference(s, y, w, rng=rng)
    rep = np.repeat(np.arange(80), w.astype(int))
    repeated = BBQCalibrator().fit(s[rep], y[rep])
    for name in BBQCalibrator._state:
        assert_allclose(getattr(weighted, name), getattr(repeated, name), rtol=1e-13, atol=1e-13)
    q = probe_scores(s, rng)
    assert_allclose(weighted.predict_proba(q), repeated.predict_proba(q), rtol=0, atol=1e-13)


def test_fractional_weights_against_reference():
    rng = np.random.default_rng(4)
    s = rng.uniform(size=120)
    y = rng.uniform(size=120) < s
    w = rng.uniform(0.2, 3.0, size=120)
    check_against_reference(s, y, w, rng=rng)


def test_scale_of_weights_sets_the_sample_size():
    # Weights are frequencies: scaling them all scales N, hence fewer models.
    # (1/8 is exact in binary, so the float positions equal the exact ones;
    # with weights such as 0.1 a score whose middle lies exactly on a level in
    # exact arithmetic can fall on either side of it after rounding.)
    rng = np.random.default_rng(6)
    s = rng.uniform(size=200)
    y = rng.uniform(size=200) < s
    with pytest.warns(WeightScaleWarning, match="sums to 25 over 200 rows"):
        cal = check_against_reference(s, y, np.full(200, 0.125), rng=rng)
    assert cal.n_bins_.max() == 25
    with pytest.warns(WeightScaleWarning):
        assert BBQCalibrator().fit(s, y, np.full(200, 0.001)).n_bins_.tolist() == [1]


@pytest.mark.parametrize("kind", ["separable", "all_negative", "all_positive"])
def test_degenerate_labels_against_reference(kind):
    rng = np.random.default_rng(7)
    s = rng.uniform(size=100)
    y = {
        "separable": s > 0.6,
        "all_negative": np.zeros(100, bool),
        "all_positive": np.ones(100, bool),
    }[kind]
    check_against_reference(s, y, rng=rng)
    check_against_reference(s * 50 - 20, y, rng=rng)  # base-rate prior, clipped


def test_single_distinct_score():
    s = np.full(30, 0.25)
    y = np.arange(30) % 3 == 0
    cal = check_against_reference(s, y)
    assert cal.n_bins_.tolist() == [1]
    assert cal.thresholds_.shape == (0,)
    # One bin with prior rate 1/2 and N' = 2: (10 + 1) / (30 + 2).
    assert_allclose(cal.predict_proba([-5.0, 0.25, 7.0])[:, 1], 11 / 32, rtol=1e-15)


def test_real_scores_against_reference():
    rng = np.random.default_rng(8)
    s = rng.normal(scale=3.0, size=150)
    y = rng.uniform(size=150) < 1 / (1 + np.exp(-s))
    check_against_reference(s, y, rng=rng)
    check_against_reference(s, y, rng=rng, bin_prior="base_rate")
    check_against_reference(1 / (1 + np.exp(-s)), y, rng=rng, bin_prior="base_rate")


@pytest.mark.parametrize(
    "params",
    [
        {"prior_strength": 0.1},
        {"prior_strength": 50.0},
        {"bin_range": (3, 9)},
        {"bin_range": (1, 1)},
        {"bin_range": (400, 500)},
        {"range_factor": 1.0},
        {"range_factor": 3.0, "prior_strength": 5.0},
    ],
)
def test_params_against_reference(params):
    rng = np.random.default_rng(9)
    s = rng.uniform(size=150)
    y = rng.uniform(size=150) < s**2
    check_against_reference(s, y, rng=rng, **params)


@given(
    data=st.lists(
        st.tuples(st.integers(0, 12), st.booleans(), st.integers(0, 3)), min_size=1, max_size=40
    ).filter(lambda rows: any(w > 0 for _, _, w in rows)),
    prior=st.sampled_from(["auto", "base_rate"]),
)
def test_tied_weighted_property(data, prior):
    s = np.array([v / 12 for v, _, _ in data])
    y = np.array([label for _, label, _ in data])
    w = np.array([float(w) for _, _, w in data])
    check_against_reference(s, y, w, bin_prior=prior)


# ------------------------------------------------------------------------ properties


def test_bin_count_range():
    assert_array_equal(candidate_bin_counts(1e6, 10**6), np.arange(10, 1001))
    assert_array_equal(candidate_bin_counts(1000.0, 1000), np.arange(1, 101))
    assert_array_equal(candidate_bin_counts(1000.0, 7), np.arange(1, 8))  # B <= k
    assert_array_equal(candidate_bin_counts(5.5, 100), np.arange(1, 6))  # B <= floor(N)
    assert_array_equal(candidate_bin_counts(0.5, 100), [1])
    assert_array_equal(candidate_bin_counts(100.0, 100, (200, 300)), [100])
    assert_array_equal(candidate_bin_counts(1e6, 10**6, range_factor=2.0), np.arange(50, 201))


def test_combined_table_equals_explicit_model_average():
    rng = np.random.default_rng(10)
    s = rng.uniform(size=50_000)
    y = rng.uniform(size=50_000) < s
    cal = BBQCalibrator().fit(s, y)
    assert_allclose(cal.model_weights_.sum(), 1.0, rtol=1e-14)
    q = np.concatenate([rng.uniform(-0.1, 1.1, size=2000), cal.thresholds_[::7]])
    expected = np.zeros_like(q)
    for weight, (edges, values) in zip(cal.model_weights_, per_model(cal), strict=True):
        expected += weight * values[np.searchsorted(edges, q, side="left")]
    assert_allclose(cal.predict_proba(q)[:, 1], expected, rtol=0, atol=1e-12)


def test_outputs_strictly_inside_unit_interval():
    rng = np.random.default_rng(11)
    s = np.concatenate([np.full(500, 0.0), np.full(500, 1.0), rng.uniform(size=20)])
    y = s > 0.5
    for scores in (s, 1 - 1e-17 * s, s * 1e-300):
        p = BBQCalibrator().fit(scores, y).predict_proba(probe_scores(scores, rng))
        assert ((p > 0) & (p < 1)).all()


@pytest.mark.parametrize("labels", [(1, 2), ("no", "yes"), (False, True), (-1.5, 3.0)])
def test_any_two_labels_give_identical_probabilities(labels):
    rng = np.random.default_rng(12)
    s = rng.uniform(size=200)
    y01 = rng.uniform(size=200) < s
    ref = BBQCalibrator().fit(s, y01.astype(int))
    y = np.where(y01, labels[1], labels[0])
    cal = BBQCalibrator().fit(s, y)
    assert_array_equal(cal.classes_, np.sort(np.array(labels)))
    q = probe_scores(s, rng)
    assert_array_equal(cal.predict_proba(q), ref.predict_proba(q))
    assert set(cal.predict(q)) <= set(cal.classes_)


def test_one_class_with_named_classes():
    s = np.linspace(0, 1, 50)
    cal = BBQCalibrator(classes=["neg", "pos"]).fit(s, ["pos"] * 50)
    p = cal.predict_proba(s)[:, 1]
    assert ((p > 0.5) & (p < 1)).all()
    with pytest.raises(ValueError, match="single class"):
        BBQCalibrator().fit(s, ["pos"] * 50)


def test_fit_summary_equals_fit():
    rng = np.random.default_rng(13)
    s = np.round(rng.uniform(size=500), 2)
    y = rng.uniform(size=500) < s
    w = rng.uniform(0.0, 2.0, size=500)
    fitted = BBQCalibrator().fit(s, y, sample_weight=w)
    halves = ScoreSummary.from_arrays(s[:200], y[:200], w[:200]).merge(
        ScoreSummary.from_arrays(s[200:], y[200:], w[200:])
    )
    from_summary = BBQCalibrator().fit_summary(ScoreSummary.from_arrays(s, y, w))
    merged = BBQCalibrator().fit_summary(halves)
    q = probe_scores(s, rng)
    for name in BBQCalibrator._state:
        assert_array_equal(getattr(from_summary, name), getattr(fitted, name))
    assert_array_equal(from_summary.predict_proba(q), fitted.predict_proba(q))
    assert_allclose(merged.predict_proba(q), fitted.predict_proba(q), rtol=0, atol=1e-12)


def test_pickle_round_trip():
    rng = np.random.default_rng(14)
    s = rng.uniform(size=300)
    y = rng.uniform(size=300) < s
    cal = BBQCalibrator(prior_strength=3.0).fit(s, y)
    copy = pickle.loads(pickle.dumps(cal))
    q = probe_scores(s, rng)
    assert_array_equal(copy.predict_proba(q), cal.predict_proba(q))
    assert copy.get_params() == cal.get_params()


def test_save_load_round_trip():
    if not hasattr(venncal.baselines, "BBQCalibrator"):
        pytest.skip("venncal.baselines does not export BBQCalibrator yet (needed by persist)")
    from venncal import persist

    rng = np.random.default_rng(15)
    s = rng.uniform(size=300)
    y = rng.uniform(size=300) < s
    cal = BBQCalibrator(bin_range=(2, 20)).fit(s, y)
    buffer = io.StringIO()
    persist.save(cal, buffer)
    copy = persist.load(io.StringIO(buffer.getvalue()))
    for name in BBQCalibrator._state:
        assert_array_equal(getattr(copy, name), getattr(cal, name))
    q = probe_scores(s, rng)
    assert_array_equal(copy.predict_proba(q), cal.predict_proba(q))


def test_monotone_enough_and_close_to_truth_at_scale():
    # Not a definition check: a sanity check that BBQ calibrates.
    rng = np.random.default_rng(16)
    s = rng.uniform(size=200_000)
    y = rng.uniform(size=200_000) < s**2
    q = np.linspace(0.05, 0.95, 19)
    p = BBQCalibrator().fit(s, y).predict_proba(q)[:, 1]
    assert np.abs(p - q**2).max() < 0.03


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"bin_range": (0, 5)}, "bin_range"),
        ({"bin_range": (5, 2)}, "bin_range"),
        ({"bin_range": (1.0, 5)}, "bin_range"),
        ({"bin_range": 5}, "bin_range"),
        ({"range_factor": 0.5}, "range_factor"),
        ({"range_factor": float("nan")}, "range_factor"),
        ({"prior_strength": 0.0}, "prior_strength"),
        ({"prior_strength": float("inf")}, "prior_strength"),
        ({"prior_strength": True}, "prior_strength"),
        ({"bin_prior": "uniform"}, "bin_prior"),
    ],
)
def test_invalid_params(params, message):
    with pytest.raises(ValueError, match=message):
        BBQCalibrator(**params).fit([0.1, 0.9], [0, 1])


def test_midpoint_prior_needs_unit_interval_scores():
    with pytest.raises(ValueError, match="midpoint"):
        BBQCalibrator(bin_prior="midpoint").fit([-1.0, 0.5, 2.0], [0, 1, 1])
    # "auto" falls back to the base rate.
    BBQCalibrator().fit([-1.0, 0.5, 2.0], [0, 1, 1])


def test_huge_total_weight_asks_for_a_bin_range():
    rng = np.random.default_rng(17)
    s = rng.uniform(size=20_000)
    y = rng.uniform(size=20_000) < s
    w = np.full(20_000, 1e6)  # N = 2e10: the default range would reach 20,000 bins
    with pytest.raises(ValueError, match="bin_range"):
        BBQCalibrator().fit(s, y, sample_weight=w)
    cal = BBQCalibrator(bin_range=(5, 50)).fit(s, y, sample_weight=w)
    assert cal.n_bins_.tolist() == list(range(5, 51))


# --------------------------------------------------- weights at the edges of float64


@pytest.mark.parametrize("seed", range(6))
def test_edge_weights_against_the_exact_reference(seed):
    # Issue 22: huge whole-number and dyadic weights (cumulative sums exact in
    # float64, where the equal-weight rule is exact), against exact bin counts
    # and estimates and log evidences to 50 digits beyond the total's.
    rng = np.random.default_rng(seed)
    n = 24
    s = np.round(rng.uniform(size=n), 2)
    y = rng.uniform(size=n) < s
    w = rng.choice([2.0**47 - 1, 2.0**47 - 7, 2.0**46 + 1, 3.0], size=n)
    if seed % 2:
        w = rng.choice([2.0**40, 0.25, 2.0**-30, 3.0], size=n)
    cal = BBQCalibrator(bin_range=(1, 6)).fit(s, y, sample_weight=w)
    models = bbq_fit(s, y, w, bin_range=(1, 6), exact=True)
    assert_array_equal(cal.n_bins_, [m["n_bins"] for m in models])
    for (edges, values), m in zip(per_model(cal), models, strict=True):
        assert_array_equal(edges, m["edges"])
        assert_allclose(values, m["values"], rtol=1e-14, atol=0)
    # Log evidences are as accurate as float64 allows: about 2**-52 of their
    # size (for a total weight N, about N * 2**-52 nats)...
    ref_log = np.array([m["log_score"] for m in models])
    assert_allclose(cal.log_evidence_, ref_log, rtol=1e-13, atol=1e-9)
    # ... so the model weights are right where the evidences differ by more.
    gap = np.sort(ref_log)[-1] - np.sort(ref_log)[-2] if len(models) > 1 else np.inf
    if gap > 1e-12 * np.max(np.abs(ref_log)) + 40:
        assert_allclose(cal.model_weights_, [m["weight"] for m in models], rtol=0, atol=1e-9)
        q = probe_scores(s, rng)
        assert_allclose(cal.predict_proba(q)[:, 1], bbq_predict(models, q), rtol=0, atol=1e-9)


def test_weights_past_float64_in_a_bin_are_refused_clearly():
    # One bin of four weights of 1e308: its weight and evidence pass float64.
    s = np.array([0.1, 0.2, 0.6, 0.7])
    with pytest.raises(ValueError, match="BBQCalibrator: sample_weight is too large"):
        BBQCalibrator(bin_range=(1, 1)).fit(s, [0, 1, 0, 1], np.full(4, 1e308))
    # One bin per score: every estimate and evidence is finite.
    cal = BBQCalibrator(bin_range=(4, 4)).fit(s, [0, 1, 0, 1], np.full(4, 1e308))
    p = cal.predict_proba(s)[:, 1]
    assert ((p > 0) & (p < 1)).all() and p[1] > 0.99 and p[0] < 0.01
