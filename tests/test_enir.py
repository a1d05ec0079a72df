"""Nearly-isotonic path (kernel ``_kernels/neariso.py``, ``venncal.near_isotonic_path``).

Every fit on the path is checked against direct solves of the convex problem
in ``reference/neariso_naive.py``: exact rational KKT enumeration (n <= 8) and
bounded least squares on the dual (n <= 200); the knots against bisection.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from reference.neariso_naive import (
    knots_by_bisection,
    objective,
    solve_dual,
    solve_exact,
)
from scipy.special import xlogy

import venncal
from venncal.baselines import isotonic_regression
from venncal.enir import ENIRCalibrator, NearIsotonicPath, near_isotonic_path


def random_problem(rng, n, kind):
    """Targets and weights: 0/1 labels, integer weights, ties, or real values."""
    if kind == "labels":
        return rng.integers(0, 2, n).astype(float), np.ones(n)
    if kind == "weighted_labels":
        return rng.integers(0, 2, n).astype(float), rng.integers(1, 5, n).astype(float)
    if kind == "tied_reals":  # few distinct real values: ties of merge times, inexact sums
        return rng.choice([0.1, 0.3, 0.7], n), rng.choice([0.5, 1.0, 1.5], n)
    return rng.normal(size=n), rng.uniform(0.1, 3.0, n)


KINDS = ["labels", "weighted_labels", "tied_reals", "reals"]


def lambdas_to_check(path):
    knots = path.knots
    mids = 0.5 * (knots[:-1] + knots[1:])
    extra = [0.0, 1e-3, 0.37, 2.5, 2 * knots[-1] + 1] if knots.size else [0.0, 1.0]
    return np.concatenate([knots, mids, extra])


# ---------------------------------------------------------------- exactness


@pytest.mark.parametrize("kind", KINDS)
def test_fit_equals_exact_solution_small_n(kind):
    rng = np.random.default_rng(11)
    for _ in range(25):
        n = int(rng.integers(1, 13))
        z, w = random_problem(rng, n, kind)
        path = near_isotonic_path(np.arange(n), z, w)
        # Between knots (at a knot the float lam is a rounded rational, and
        # the exact fit there may not have fused yet: see the exhaustive test).
        for lam in lambdas_to_check(path)[path.knots.shape[0]:]:
            assert_allclose(path.solution(lam), solve_exact(z, w, lam), rtol=0, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_fit_equals_exhaustive_solution(kind):
    rng = np.random.default_rng(21)
    for _ in range(10):
        n = int(rng.integers(1, 7))
        z, w = random_problem(rng, n, kind)
        path = near_isotonic_path(np.arange(n), z, w)
        for lam in lambdas_to_check(path):
            exact = solve_exact(z, w, lam, exhaustive=True)
            assert_allclose(path.solution(lam), exact, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_fit_at_every_knot_equals_direct_solve(kind):
    rng = np.random.default_rng(12)
    for n in (20, 60):
        z, w = random_problem(rng, n, kind)
        path = near_isotonic_path(np.arange(n), z, w)
        for lam in path.knots:
            assert_allclose(path.solution(lam), solve_dual(z, w, lam), rtol=0, atol=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_fit_at_every_knot_equals_direct_solve_n200(kind):
    # scipy's BVLS takes seconds at n = 200: six knots (the last included).
    rng = np.random.default_rng(13)
    z, w = random_problem(rng, 200, kind)
    path = near_isotonic_path(np.arange(200), z, w)
    for lam in path.knots[np.linspace(0, path.knots.shape[0] - 1, 6).astype(int)]:
        assert_allclose(path.solution(lam), solve_dual(z, w, lam), rtol=0, atol=1e-8)
    z, w = random_problem(rng, 100, kind)
    path = near_isotonic_path(np.arange(100), z, w)
    for lam in path.knots:
        assert_allclose(path.solution(lam), solve_dual(z, w, lam), rtol=0, atol=1e-8)


@pytest.mark.parametrize(("kind", "n"), [("labels", 16), ("weighted_labels", 12), ("reals", 10)])
def test_knots_equal_bisection(kind, n):
    rng = np.random.default_rng(14)
    z, w = random_problem(rng, n, kind)
    path = near_isotonic_path(np.arange(n), z, w)
    expected = knots_by_bisection(z, w)
    assert path.knots.shape == expected.shape
    assert_allclose(path.knots, expected, rtol=1e-7, atol=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_knots_equal_bisection_more(kind):
    rng = np.random.default_rng(15)
    for n in (20, 30):
        z, w = random_problem(rng, n, kind)
        path = near_isotonic_path(np.arange(n), z, w)
        assert_allclose(path.knots, knots_by_bisection(z, w), rtol=1e-7, atol=1e-8)


# ---------------------------------------------------------------- structure


@pytest.mark.parametrize("kind", KINDS)
def test_groups_partition_the_scores_and_only_merge(kind):
    rng = np.random.default_rng(16)
    z, w = random_problem(rng, 150, kind)
    path = near_isotonic_path(np.arange(150), z, w)
    assert (np.diff(path.knots) > 0).all()
    assert (np.diff(path.n_groups) < 0).all()
    previous = set(range(150))
    for lam, count in zip(path.knots, path.n_groups, strict=False):
        starts = path.groups(lam)
        assert starts[0] == 0
        assert (np.diff(starts) > 0).all()
        assert starts.shape[0] == count
        assert set(starts) <= previous  # coarsening: boundaries only disappear
        previous = set(starts)
        fit = path.solution(lam)
        bounds = np.append(starts, 150)
        for lo, hi in itertools.pairwise(bounds):
            assert (fit[lo:hi] == fit[lo]).all()
        # Adjacent groups differ (they would have merged).
        assert (fit[starts[1:]] != fit[starts[1:] - 1]).all()


@pytest.mark.parametrize("kind", KINDS)
def test_path_starts_at_data_and_ends_at_isotonic_fit(kind):
    rng = np.random.default_rng(17)
    z, w = random_problem(rng, 300, kind)
    path = near_isotonic_path(np.arange(300), z, w)
    # The data (to the last ulps: equal adjacent targets are pooled at lam = 0).
    assert_allclose(path.solution(0.0), z, rtol=1e-15, atol=0)
    iso = isotonic_regression(z, sample_weight=w)
    assert_allclose(path.solution(np.inf), iso, rtol=1e-12, atol=1e-12)
    assert_allclose(path.solution(path.knots[-1]), iso, rtol=1e-12, atol=1e-12)
    assert_allclose(path.solution(10 * path.knots[-1]), iso, rtol=1e-12, atol=1e-12)
    # Balance: the weighted sum of the fit is that of the data for every lam.
    for lam in path.knots[::7]:
        assert_allclose(np.sum(w * path.solution(lam)), np.sum(w * z), rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("kind", KINDS)
def test_objective_is_the_minimum_and_piecewise_quadratic(kind):
    rng = np.random.default_rng(18)
    z, w = random_problem(rng, 40, kind)
    path = near_isotonic_path(np.arange(40), z, w)
    for lam in lambdas_to_check(path):
        best = objective(z, w, solve_dual(z, w, lam), lam)
        assert path.objective(lam) <= best + 1e-10 * max(1.0, best)
        assert_allclose(path.objective(lam), best, rtol=1e-10, atol=1e-12)
    knots = path.knots
    for lo, hi in itertools.pairwise(knots):
        # On a segment the fit is linear in lam, so the objective is a
        # quadratic: its fourth point lies on the parabola of three others;
        # its slope is the penalty of the fit (envelope theorem).
        t = lo + (hi - lo) * np.array([0.1, 0.35, 0.6, 0.9])
        f = np.array([path.objective(v) for v in t])
        quad = np.polyfit(t[:3], f[:3], 2)
        assert_allclose(np.polyval(quad, t[3]), f[3], rtol=1e-8, atol=1e-10)
        assert quad[0] <= 1e-9 * max(1.0, abs(f[0]))  # concave in lam
        mid = t[1]
        b = path.solution(mid)
        slope = np.polyval(np.polyder(quad), mid)
        assert_allclose(slope, np.sum(np.maximum(b[:-1] - b[1:], 0)), rtol=1e-6, atol=1e-9)


# ---------------------------------------------------------------- simultaneous merges and edges


def test_many_groups_merging_at_one_lambda():
    # Alternating labels: every (1, 0) pair meets the next at lam = 1/2, so
    # all 12 points fuse in one knot (netcal loses points here).
    path = near_isotonic_path(np.arange(12), [1, 0] * 6)
    assert_array_equal(path.knots, [0.5])
    assert_array_equal(path.n_groups, [1])
    assert_array_equal(path.solution(0.5), np.full(12, 0.5))
    assert_array_equal(path.solution(0.25), [0.75, 0.25] * 6)


def test_simultaneous_merges_with_inexact_sums():
    # Real targets whose group sums round: the triple merges must still fuse.
    z = np.array([0.7, 0.1, 0.7, 0.1, 0.7, 0.1, 0.3, 0.3])
    path = near_isotonic_path(np.arange(8), z)
    assert_allclose(path.knots, knots_by_bisection(z, np.ones(8)), rtol=1e-7, atol=1e-9)
    for lam in path.knots:
        assert_allclose(path.solution(lam), solve_exact(z, np.ones(8), lam), atol=1e-12)


def test_edge_cases():
    one = near_isotonic_path([0.3], [1])
    assert one.knots.size == 0
    assert one.n_groups.size == 0
    assert_array_equal(one.solution(5.0), [1.0])
    increasing = near_isotonic_path([1, 2], [0, 1])
    assert increasing.knots.size == 0
    assert_array_equal(increasing.solution(np.inf), [0.0, 1.0])
    decreasing = near_isotonic_path([1, 2], [3.0, 1.0], sample_weight=[1.0, 3.0])
    # (3 - lam) / 1 = (3 + lam) / 3 at lam = 1.5.
    assert_array_equal(decreasing.knots, [1.5])
    assert_array_equal(decreasing.solution(1.5), [1.5, 1.5])
    constant = near_isotonic_path([1, 2, 3], [1, 1, 1])
    assert_array_equal(constant.knots, [0.0])
    assert_array_equal(constant.n_groups, [1])
    separable = near_isotonic_path([1, 2, 3, 4], [0, 0, 1, 1])
    assert_array_equal(separable.knots, [0.0])
    assert_array_equal(separable.n_groups, [2])
    assert_array_equal(separable.solution(7.0), [0, 0, 1, 1])


def test_tied_scores_are_pooled_and_weights_are_repeated_rows():
    rng = np.random.default_rng(19)
    scores = rng.integers(0, 15, 80).astype(float)
    y = rng.integers(0, 2, 80)
    counts = rng.integers(0, 3, 80)
    weighted = near_isotonic_path(scores, y, sample_weight=counts.astype(float))
    repeated = near_isotonic_path(np.repeat(scores, counts), np.repeat(y, counts))
    assert_array_equal(weighted.scores, repeated.scores)
    assert_array_equal(weighted.weights, repeated.weights)
    assert_array_equal(weighted.knots, repeated.knots)
    for lam in weighted.knots:
        assert_allclose(weighted.solution(lam), repeated.solution(lam), atol=1e-14)
    # Pooling: the path over the summary is the path of the pooled targets.
    pooled = NearIsotonicPath(weighted.scores, weighted.weights, weighted.weights * weighted.targets)
    assert_array_equal(pooled.knots, weighted.knots)


def test_large_path_is_fast_and_exact_at_the_end():
    rng = np.random.default_rng(20)
    n = 200_000
    s = rng.normal(size=n)
    y = rng.uniform(size=n) < 1 / (1 + np.exp(-s))
    path = near_isotonic_path(s, y)
    assert_allclose(path.solution(np.inf), isotonic_regression(y[np.argsort(s)].astype(float)),
                    atol=1e-12)


def test_int64_ids_give_the_same_tree():
    """Past 2**30 points the kernel's ids are int64; the same tree as with int32."""
    from venncal._kernels.neariso import neariso_path

    rng = np.random.default_rng(22)
    for kind in KINDS:
        z, w = random_problem(rng, 300, kind)
        small = neariso_path(z * w, w)
        large = neariso_path(z * w, w, index=np.int64)
        assert large[3].dtype == np.int64
        assert small[3].dtype == np.int32
        for a, b in zip(small, large, strict=True):
            assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([1, 2], [1]), "different lengths"),
        (([1, np.nan], [0, 1]), "finite"),
        (([1, 2], [0, np.inf]), "finite"),
        (([1, 2], [0, 1], [1, -1]), "non-negative"),
        (([], []), "empty"),
    ],
)
def test_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        near_isotonic_path(*args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([0.1, 0.2], [1.0, 0.0], [0.0, 0.0]), "positive"),
        (([0.2, 0.1], [1.0, 1.0], [0.0, 0.0]), "strictly increasing"),
        (([0.1, 0.2], [1.0], [0.0, 0.0]), "one length"),
    ],
)
def test_bad_sums(args, message):
    with pytest.raises(ValueError, match=message):
        NearIsotonicPath(*args)


@pytest.mark.parametrize("lam", [-1.0, np.nan])
def test_bad_lambda(lam):
    path = near_isotonic_path([1, 2], [1, 0])
    with pytest.raises(ValueError, match="lam"):
        path.solution(lam)


def test_exported():
    assert venncal.near_isotonic_path is near_isotonic_path


@st.composite
def problems(draw):
    n = draw(st.integers(1, 15))
    z = draw(st.lists(st.sampled_from([0.0, 1.0, 0.25, -2.0]) | st.floats(-5, 5), min_size=n,
                      max_size=n))
    w = draw(st.lists(st.sampled_from([1.0, 2.0]) | st.floats(0.05, 10), min_size=n, max_size=n))
    return np.array(z), np.array(w)


@given(problems())
def test_properties(problem):
    z, w = problem
    n = z.shape[0]
    path = near_isotonic_path(np.arange(n), z, w)
    assert (np.diff(path.knots) > 0).all()
    lams = lambdas_to_check(path)
    for lam in lams:
        b = path.solution(lam)
        assert np.isfinite(b).all()
        assert (b >= z.min() - 1e-12).all()
        assert (b <= z.max() + 1e-12).all()
        assert_allclose(np.sum(w * b), np.sum(w * z), rtol=1e-10, atol=1e-10)
        ref = solve_dual(z, w, lam)
        if not np.allclose(b, ref, rtol=0, atol=1e-8):
            # The dual reference (scipy's bounded least squares) is accurate to about 1e-8
            # absolute, not relative, and can fail (NaN): hypothesis found z = [2**-23, 0, 0,
            # 0, 1]. There the exact KKT solution, in rational arithmetic, from the labelling
            # of the kernel's own solution (certified or refused exactly) is the reference.
            ref = solve_exact(z, w, lam, exhaustive=n <= 8, guess=b)
            assert_allclose(b, ref, atol=1e-8)
    assert_allclose(path.solution(np.inf), isotonic_regression(z, sample_weight=w),
                    rtol=1e-12, atol=1e-12)


# ================================================================ ENIRCalibrator


def labelled(rng, n, ties=True):
    s = rng.uniform(size=n)
    if ties:
        s[::5] = np.round(s[::5], 1)
    y = rng.uniform(size=n) < np.clip(s + 0.25 * np.sin(9 * s), 0.02, 0.98)
    return s, y.astype(int)


def literal_models(scores, y, weights, lambdas, prior_strength=1.0):
    """Score every model on every row (the definition), and its smoothed rows."""
    w = np.ones_like(scores) if weights is None else weights
    path = near_isotonic_path(scores, y, w)
    row = np.searchsorted(path.scores, scores)
    total = w.sum()
    bic = []
    smoothed = []
    for lam in lambdas:
        fit = np.clip(path.solution(lam), 0, 1)
        p = fit[row]
        loglik = np.sum(w * (xlogy(y, p) + xlogy(1 - y, 1 - p)))
        n_bins = 1 + int(np.sum(fit[1:] != fit[:-1]))
        bic.append(-2 * loglik + n_bins * np.log(total))
        # Smoothed bin values at the distinct scores: prior = mean score of the bin.
        starts = path.groups(lam)
        sizes = np.diff(np.append(starts, path.scores.shape[0]))
        bin_of = np.repeat(np.arange(starts.shape[0]), sizes)
        W = np.bincount(bin_of, weights=path.weights)
        prior = np.clip(np.bincount(bin_of, weights=path.weights * path.scores) / W, 1e-6, 1 - 1e-6)
        v = fit[starts]
        smoothed.append(((W * v + prior_strength * prior) / (W + prior_strength))[bin_of])
    bic = np.array(bic)
    weights_ = np.exp(-0.5 * (bic - bic.min()))
    return bic, weights_ / weights_.sum(), np.array(smoothed)


@pytest.mark.parametrize(("n", "weighted"), [(40, False), (200, True), (3000, False)])
def test_weights_equal_literal_bic_computation(n, weighted):
    rng = np.random.default_rng(n)
    s, y = labelled(rng, n)
    w = rng.integers(0, 4, n).astype(float) if weighted else None
    cal = ENIRCalibrator().fit(s, y, sample_weight=w)
    keep = np.ones(n, bool) if w is None else w > 0
    path = near_isotonic_path(s[keep], y[keep], None if w is None else w[keep])
    assert_array_equal(cal.lambdas_, path.knots[path.knots > 0])
    bic, weights, smoothed = literal_models(s[keep], y[keep], None if w is None else w[keep],
                                            cal.lambdas_)
    assert_allclose(cal.model_weights_, weights, rtol=1e-9, atol=1e-20)
    scored = np.isfinite(cal.bic_)
    assert_allclose(cal.bic_[scored], bic[scored], rtol=1e-9)
    # Unscored models are provably negligible.
    assert (weights[~scored] < 1e-26).all()
    assert_allclose(cal.predict_proba(path.scores)[:, 1], weights @ smoothed, rtol=1e-12,
                    atol=1e-15)
    if n == 3000:
        assert (~scored).sum() > 0.5 * scored.shape[0]  # most models were never scored
    best = ENIRCalibrator(model="best").fit(s, y, sample_weight=w)
    assert_array_equal(best.model_weights_, np.eye(bic.shape[0])[np.argmin(bic)])
    assert_allclose(best.predict_proba(path.scores)[:, 1], smoothed[np.argmin(bic)], rtol=1e-12)


@pytest.mark.parametrize(
    ("scores", "y"),
    [
        ([0.5], [1]),
        ([0.2, 0.7], [1, 0]),
        ([0.2, 0.7], [0, 1]),
        ([0.1, 0.2, 0.3, 0.4], [0, 0, 1, 1]),  # separable
        ([0.1, 0.2, 0.3], [1, 1, 1]),  # one class
        ([0.0, 0.0, 1.0, 1.0], [0, 0, 1, 1]),  # ties, scores at 0 and 1
        ([-3.0, 0.5, 7.0, 7.0, 9.0], [1, 0, 1, 0, 0]),  # scores outside [0, 1]
    ],
)
def test_probabilities_strictly_inside_unit_interval(scores, y):
    cal = ENIRCalibrator(classes=[0, 1]).fit(scores, y)
    grid = np.concatenate([np.asarray(scores, float), [-1e300, -5, 0.05, 0.5, 5, 1e300]])
    p = cal.predict_proba(grid)[:, 1]
    assert np.isfinite(p).all()
    assert ((p > 0) & (p < 1)).all()
    assert_allclose(cal.model_weights_.sum(), 1.0)


def test_monotone_where_every_model_is():
    rng = np.random.default_rng(3)
    s, y = labelled(rng, 400)
    # A negligible prior isolates the average of the fits.
    cal = ENIRCalibrator(prior_strength=1e-12).fit(s, y)
    path = near_isotonic_path(s, y)
    used = cal.lambdas_[cal.model_weights_ > 0]
    fits = np.array([path.solution(lam) for lam in used])
    step_up = (np.diff(fits, axis=1) >= 0).all(axis=0)
    assert step_up.any()
    values = cal.predict_proba(path.scores)[:, 1]
    assert (np.diff(values)[step_up] >= -1e-12).all()
    # Isotonic data: one model, monotone predictions.
    s = np.sort(rng.uniform(size=300))
    y = (rng.uniform(size=300) < s).astype(int)
    y.sort()
    cal = ENIRCalibrator().fit(s, y)
    assert (np.diff(cal.predict_proba(np.linspace(-1, 2, 500))[:, 1]) >= 0).all()


def test_prediction_interpolates_and_is_flat_outside():
    rng = np.random.default_rng(4)
    s, y = labelled(rng, 300)
    cal = ENIRCalibrator().fit(s, y)
    t, v = cal.thresholds_, cal.values_
    assert_array_equal(cal.predict_proba(t)[:, 1], v)
    mid = 0.5 * (t[:-1] + t[1:])
    assert_allclose(cal.predict_proba(mid)[:, 1], 0.5 * (v[:-1] + v[1:]), rtol=1e-12)
    assert_array_equal(cal.predict_proba([t[0] - 1, t[-1] + 1])[:, 1], [v[0], v[-1]])


def test_calibrator_contract():
    rng = np.random.default_rng(5)
    s, y = labelled(rng, 300)
    counts = rng.integers(0, 3, 300)
    weighted = ENIRCalibrator().fit(s, y, sample_weight=counts.astype(float))
    repeated = ENIRCalibrator().fit(np.repeat(s, counts), np.repeat(y, counts))
    assert_allclose(weighted.predict_proba(s)[:, 1], repeated.predict_proba(s)[:, 1], rtol=1e-12)
    assert_allclose(weighted.model_weights_, repeated.model_weights_, rtol=1e-9, atol=1e-20)
    keep = counts > 0
    dropped = ENIRCalibrator().fit(s[keep], y[keep], sample_weight=counts[keep].astype(float))
    assert_array_equal(weighted.values_, dropped.values_)
    summary = venncal.ScoreSummary.from_arrays(s, y)
    assert_array_equal(ENIRCalibrator().fit_summary(summary).values_,
                       ENIRCalibrator().fit(s, y).values_)
    named = ENIRCalibrator().fit(s, np.where(y == 1, "yes", "no"))
    assert named.classes_.tolist() == ["no", "yes"]
    assert named.predict(s[:3]).tolist() == np.where(
        named.predict_proba(s[:3])[:, 1] > 0.5, "yes", "no").tolist()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"model": "mean"}, "model must be one of"),
        ({"prior_strength": 0.0}, "prior_strength"),
        ({"bin_prior": "midpoint"}, "bin_prior"),
    ],
)
def test_bad_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        ENIRCalibrator(**params).fit([0.1, 0.2], [0, 1])


def test_bad_input_and_score_prior_outside_unit_interval():
    with pytest.raises(ValueError, match="finite"):
        ENIRCalibrator().fit([0.1, np.nan], [0, 1])
    with pytest.raises(ValueError, match="different lengths"):
        ENIRCalibrator().fit([0.1, 0.2], [0, 1, 1])
    with pytest.raises(ValueError, match=r'bin_prior="score" needs calibration scores in \[0, 1\]'):
        ENIRCalibrator(bin_prior="score").fit([0.1, 2.0], [0, 1])


def test_save_load_round_trip_and_registry(tmp_path):
    rng = np.random.default_rng(6)
    s, y = labelled(rng, 500)
    cal = ENIRCalibrator(model="average", prior_strength=2.0).fit(s, y)
    venncal.save(cal, tmp_path / "enir.json")
    back = venncal.load(tmp_path / "enir.json")
    for name in ENIRCalibrator._state:
        assert getattr(back, name).tobytes() == getattr(cal, name).tobytes()
    q = rng.normal(0.5, 0.5, 1000)
    assert back.predict_proba(q).tobytes() == cal.predict_proba(q).tobytes()
    assert venncal._registry.method_class("enir") is ENIRCalibrator


def test_calibrated_classifier_and_cli(tmp_path, monkeypatch):
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    X, y = make_classification(n_samples=600, random_state=0)
    clf = venncal.CalibratedClassifier(LogisticRegression(), method="enir", cv="split",
                                       random_state=0).fit(X, y)
    p = clf.predict_proba(X)[:, 1]
    assert ((p > 0) & (p < 1)).all()

    from venncal.cli import main

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(7)
    s, lab = labelled(rng, 200)
    with open("cal.csv", "w") as f:
        f.write("score,label\n" + "".join(f"{float(a)!r},{b}\n" for a, b in zip(s, lab, strict=True)))
    assert main(["fit", "cal.csv", "--score-col", "score", "--label-col", "label",
                 "--method", "enir", "-o", "model.json"]) == 0
    model = venncal.load("model.json")
    assert_array_equal(model.values_, ENIRCalibrator().fit(s, lab).values_)


@pytest.mark.slow
def test_beats_isotonic_on_non_monotone_truth():
    # The benchmark: scores sigmoid(z), truth with a sine wiggle.
    rng = np.random.default_rng(8)

    def draw(n):
        z = rng.normal(0, 2, n)
        truth = np.clip(1 / (1 + np.exp(-(0.6 * z + 0.4))) + 0.1 * np.sin(3 * z), 0.01, 0.99)
        return 1 / (1 + np.exp(-z)), (rng.uniform(size=n) < truth).astype(int), truth

    scores = []  # (log loss, RMSE) of ENIR and isotonic, per draw
    for _ in range(4):
        s, y, _ = draw(10_000)
        t, yt, truth = draw(100_000)
        enir = ENIRCalibrator().fit(s, y).predict_proba(t)[:, 1]
        iso = venncal.IsotonicCalibrator().fit(s, y).predict_proba(t)[:, 1]
        iso = np.clip(iso, 1e-15, 1 - 1e-15)  # isotonic predicts 0 and 1
        scores.append([[-np.mean(xlogy(yt, p) + xlogy(1 - yt, 1 - p)),
                        np.sqrt(np.mean((p - truth) ** 2))] for p in (enir, iso)])
    (enir_loss, enir_rmse), (iso_loss, iso_rmse) = np.mean(scores, axis=0)
    assert enir_loss <= iso_loss
    assert enir_rmse <= iso_rmse
