"""venncal.metrics against the formulas written out as plain Python loops."""

import ast
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from venncal.metrics import (
    Evaluation,
    accuracy,
    brier_loss,
    calibration_bins,
    ece,
    evaluate,
    evaluations_json,
    evaluations_table,
    interval_width,
    log_loss,
    log_loss_unit,
    mce,
    rmse,
    roc_auc,
)

TOL = 1e-12

# -- literal reference formulas -----------------------------------------------


def ref_log_loss(y, p, base=math.e, w=None):
    w = [1.0] * len(y) if w is None else list(w)
    total = 0.0
    for yi, pi, wi in zip(y, p, w, strict=True):
        pt = pi if yi == 1 else 1.0 - pi
        if wi == 0:
            continue
        if pt == 0.0:
            return math.inf
        total += wi * -math.log(pt, base)
    return total / sum(w)


def ref_brier(y, p, scale=1.0, w=None):
    w = [1.0] * len(y) if w is None else list(w)
    return sum(wi * scale * (yi - pi) ** 2 for yi, pi, wi in zip(y, p, w, strict=True)) / sum(w)


def ref_rmse(y, p):
    return math.sqrt(sum((yi - pi) ** 2 for yi, pi in zip(y, p, strict=True)) / len(y))


def ref_uniform_bin(pi, k_bins):
    if pi == 1.0:
        return k_bins - 1
    for k in range(k_bins):
        if k / k_bins <= pi < (k + 1) / k_bins:
            return k
    raise AssertionError(pi)


def ref_quantile_bin(pi, p, k_bins):
    # Observation r (from 0) of n sorted ones covers the mass (r, r + 1], and
    # bin k the mass (k n / K, (k + 1) n / K]; all p == v share the bin of the
    # top of their run: ceil(K * #{p <= v} / n) - 1.
    upto = sum(1 for q in p if q <= pi)
    return math.ceil(Fraction(k_bins * upto, len(p))) - 1


def ref_ece_mce(y, p, bins):
    groups = {}
    for yi, pi, b in zip(y, p, bins, strict=True):
        groups.setdefault(b, []).append((yi, pi))
    e, m = 0.0, 0.0
    for members in groups.values():
        o = sum(yi for yi, _ in members) / len(members)
        mean = sum(pi for _, pi in members) / len(members)
        e += len(members) / len(y) * abs(o - mean)
        m = max(m, abs(o - mean))
    return e, m


def ref_auc(y, p):
    pos = [pi for yi, pi in zip(y, p, strict=True) if yi == 1]
    neg = [pi for yi, pi in zip(y, p, strict=True) if yi == 0]
    s = 0.0
    for a in pos:
        for b in neg:
            s += 1.0 if a > b else 0.5 if a == b else 0.0
    return s / (len(pos) * len(neg))


def ref_accuracy(y, p, t=0.5):
    return sum(1 for yi, pi in zip(y, p, strict=True) if (1 if pi > t else 0) == yi) / len(y)


# -- data -----------------------------------------------------------------------


def random_data(seed, n=300, ties=False):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    if ties:
        p = np.round(p * 8) / 8  # many ties, including exact 0, 1 and bin edges
    y = (rng.random(n) < p).astype(int)
    y[:2] = [0, 1]
    return y, p


def edge_cases():
    """Samples of 1 to 1000, p on a 0.1 grid (on the edges of 2 and 10 bins), near certainty."""
    rng = np.random.default_rng(0)
    out = []
    for n in (1, 2, 7, 100, 1000):
        p = rng.random(n)
        out.append(((rng.random(n) < p).astype(int), p))
    p = np.round(rng.random(300), 1)  # heavy ties, values on bin edges
    out.append(((rng.random(300) < p).astype(int), p))
    y = rng.integers(0, 2, 50)
    out.append((y, y.astype(float) * 0.98 + 0.01))  # nearly perfect
    out.append((y, 1.0 - y * 0.98 - 0.01))  # nearly worst
    return out


CASES = [random_data(s) for s in range(3)] + [random_data(s, ties=True) for s in range(3)]
CASES += edge_cases()  # the samples of 1 and 2 hold one class only
PERFECT = (np.array([0, 1, 0, 1]), np.array([0.0, 1.0, 0.0, 1.0]))
WORST = (np.array([0, 1, 0, 1]), np.array([1.0, 0.0, 1.0, 0.0]))


# -- losses ---------------------------------------------------------------------


@pytest.mark.parametrize("base", [2, 10, np.e, "e"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_log_loss_matches_formula(case, base):
    y, p = CASES[case]  # unclipped: some cases predict exactly 0 or 1, always rightly
    ref_base = math.e if base == "e" else float(base)
    assert log_loss(y, p, base=base) == pytest.approx(ref_log_loss(y, p, ref_base), abs=TOL)


def test_log_loss_bases_and_no_information_predictor():
    y, p = CASES[0]
    p = np.clip(p, 0.01, 0.99)
    nat = log_loss(y, p, base="e")
    assert log_loss(y, p) == nat  # nats by default, as scikit-learn
    assert log_loss(y, p, base=np.e) == nat
    assert log_loss(y, p, base=2) == pytest.approx(nat / math.log(2), abs=TOL)
    assert log_loss(y, p, base=10) == pytest.approx(nat / math.log(10), abs=TOL)
    assert log_loss(y, np.full(len(y), 0.5), base=2) == pytest.approx(1.0, abs=TOL)  # Vovk, Petej & Fedorova 2015
    with pytest.raises(ValueError, match="base"):
        log_loss(y, p, base=3)
    with pytest.raises(ValueError, match="base"):
        log_loss(y, p, base=True)


def test_log_loss_perfect_is_zero_and_wrong_certainty_is_inf_without_warning():
    # pytest turns warnings into errors, so a RuntimeWarning would fail here.
    assert log_loss(*PERFECT) == 0.0
    assert log_loss(*WORST) == math.inf
    assert log_loss([0, 1], [0.3, 0.0]) == math.inf
    assert log_loss([0, 1], [1.0, 0.7], base="e") == math.inf
    # A certain wrong prediction with zero weight does not count.
    assert log_loss([0, 1], [1.0, 0.5], base=2, sample_weight=[0, 1]) == pytest.approx(1.0)


def test_log_loss_eps_clips_explicitly():
    y, p = WORST
    eps = 1e-3
    expected = ref_log_loss(y, np.clip(p, eps, 1 - eps))
    assert log_loss(y, p, eps=eps) == pytest.approx(expected, abs=TOL)
    assert math.isfinite(log_loss(y, p, eps=eps))
    for bad in (0, -0.1, 0.6):
        with pytest.raises(ValueError, match="eps"):
            log_loss(y, p, eps=bad)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_brier_and_rmse_match_formula(case):
    y, p = CASES[case]
    assert brier_loss(y, p) == pytest.approx(ref_brier(y, p), abs=TOL)
    assert brier_loss(y, p, scale=4) == pytest.approx(ref_brier(y, p, 4.0), abs=TOL)
    assert rmse(y, p) == pytest.approx(ref_rmse(y, p), abs=TOL)


def test_brier_and_rmse_extremes():
    assert brier_loss(*PERFECT) == 0.0
    assert rmse(*PERFECT) == 0.0
    assert brier_loss(*WORST, scale=4) == 4.0
    assert rmse(*WORST) == 1.0
    assert brier_loss([0, 1], [0.5, 0.5], scale=4) == 1.0  # Vovk, Petej & Fedorova 2015
    with pytest.raises(ValueError, match="scale"):
        brier_loss([0, 1], [0.5, 0.5], scale=0)


def test_weighted_metrics_equal_repeated_rows():
    y, p = CASES[4]
    w = np.random.default_rng(7).integers(0, 4, size=len(y))
    rep_y, rep_p = np.repeat(y, w), np.repeat(p, w)
    pairs = [
        (log_loss, {"eps": 1e-6}),
        (brier_loss, {}),
        (rmse, {}),
        (accuracy, {}),
        (roc_auc, {}),
        (ece, {}),
        (mce, {}),
        (ece, {"strategy": "quantile", "n_bins": 7}),
        (mce, {"strategy": "quantile", "n_bins": 7}),
    ]
    for func, kw in pairs:
        assert func(y, p, sample_weight=w, **kw) == pytest.approx(
            func(rep_y, rep_p, **kw), abs=TOL
        ), func.__name__
    assert brier_loss(y, p, sample_weight=w) == pytest.approx(ref_brier(y, p, 1.0, w), abs=TOL)
    assert log_loss(y, p, sample_weight=w) == pytest.approx(ref_log_loss(y, p, math.e, w), abs=TOL)


# -- ECE and MCE -------------------------------------------------------------------


@pytest.mark.parametrize("n_bins", [1, 2, 5, 10, 15, 49])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_ece_mce_uniform_match_formula(case, n_bins):
    y, p = CASES[case]
    bins = [ref_uniform_bin(pi, n_bins) for pi in p]
    e, m = ref_ece_mce(y, p, bins)
    assert ece(y, p, n_bins=n_bins) == pytest.approx(e, abs=TOL)
    assert mce(y, p, n_bins=n_bins) == pytest.approx(m, abs=TOL)


@pytest.mark.parametrize("n_bins", [1, 3, 10, 49])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_ece_mce_quantile_match_formula(case, n_bins):
    y, p = CASES[case]
    bins = [ref_quantile_bin(pi, p, n_bins) for pi in p]
    e, m = ref_ece_mce(y, p, bins)
    assert ece(y, p, n_bins=n_bins, strategy="quantile") == pytest.approx(e, abs=TOL)
    assert mce(y, p, n_bins=n_bins, strategy="quantile") == pytest.approx(m, abs=TOL)


def test_uniform_edges_go_to_the_bin_above_and_one_to_the_last():
    k_bins = 49  # 1/49 * 49 != 1 in floating point: edges must not be found by p * K
    p = np.arange(k_bins + 1) / k_bins  # every edge, 0 and 1 included
    y = np.zeros(p.shape[0], dtype=bool)
    bins = calibration_bins(y, p, n_bins=k_bins, strategy="uniform")
    assert bins.ids.tolist() == [*range(k_bins), k_bins - 1]
    assert bins.weight.tolist() == [1] * (k_bins - 1) + [2]
    np.testing.assert_array_equal(bins.edges, p)
    # At K = 10: 0.0 -> bin 0, 0.1 -> bin 1, 1.0 -> bin 9.
    assert ece([0, 0, 1], [0.0, 0.1, 1.0]) == pytest.approx(0.1 / 3, abs=TOL)
    # At K = 2: bin [0, 0.5) holds p = 0 (gap 0); bin [0.5, 1] holds 0.5, 1, 0.5: o = 1, e = 2/3.
    y, p = [0, 1, 1, 1], [0.0, 0.5, 1.0, 0.5]
    assert ece(y, p, n_bins=2) == pytest.approx(0.75 * (1 - 2 / 3), abs=TOL)
    assert mce(y, p, n_bins=2) == pytest.approx(1 / 3, abs=TOL)
    assert mce(y, p, n_bins=1) == pytest.approx(abs(0.75 - 0.5), abs=TOL)


def test_all_in_one_bin_and_extremes():
    y = np.array([0, 1, 1, 0, 1])
    p = np.full(5, 0.62)
    for strategy in ("uniform", "quantile"):
        assert ece(y, p, strategy=strategy) == pytest.approx(abs(0.6 - 0.62), abs=TOL)
        assert mce(y, p, strategy=strategy) == pytest.approx(abs(0.6 - 0.62), abs=TOL)
    assert ece(*PERFECT) == 0.0
    assert mce(*PERFECT) == 0.0
    assert ece(*WORST) == 1.0
    assert mce(*WORST) == 1.0
    assert ece([1, 1], [0.0, 1.0]) == pytest.approx(0.5)  # bins 0 and 9


def test_quantile_heavy_ties_never_split_equal_values():
    p = np.array([0.0] * 45 + [0.3] * 30 + [0.5] * 20 + [0.9, 0.95, 0.97, 0.99, 1.0])
    y = np.arange(p.shape[0]) % 3 == 0
    bins = calibration_bins(y, p, n_bins=10, strategy="quantile")
    for v in np.unique(p):
        assert np.unique(bins.ids[p == v]).shape[0] == 1
    # Each run goes to the bin of its top: 0 (ranks 0-44) -> bin 4,
    # 0.3 (45-74) -> 7, 0.5 (75-94) -> 9, and the top five to 9.
    assert bins.ids[[0, 45, 75, 95, 99]].tolist() == [4, 7, 9, 9, 9]
    assert bins.weight.tolist() == [0, 0, 0, 0, 45, 0, 0, 30, 0, 25]
    assert np.all(np.diff(bins.edges) >= 0)
    # Bin k is [edges[k], edges[k+1]), and each non-empty bin starts at its smallest p.
    for k in np.flatnonzero(bins.weight):
        assert bins.edges[k] == p[bins.ids == k].min()
    inside = (bins.edges[bins.ids] <= p) & (p < bins.edges[bins.ids + 1])
    assert np.all(inside | (bins.ids == 9))


def test_quantile_ties_straddling_a_split_go_up():
    y = np.array([0, 1, 0, 1, 1, 1, 0, 1])
    p = np.array([0.2, 0.2, 0.2, 0.2, 0.2, 0.9, 0.9, 0.9])
    expected = abs(5 / 8 - (5 * 0.2 + 3 * 0.9) / 8)  # everything in the upper bin
    assert ece(y, p, n_bins=2, strategy="quantile") == pytest.approx(expected, abs=TOL)
    assert ece(1 - y, 1 - p, n_bins=2, strategy="quantile") == pytest.approx(
        (3 * abs(1 / 3 - 0.1) + 5 * abs(2 / 5 - 0.8)) / 8, abs=TOL
    )


def test_quantile_bins_have_equal_counts_without_ties():
    p = np.random.default_rng(3).permutation(1003) / 1003
    bins = calibration_bins(np.zeros(1003, bool), p, n_bins=10, strategy="quantile")
    assert set(bins.weight.tolist()) <= {100, 101}


def test_quantile_more_bins_than_points():
    p = np.array([0.2, 0.5, 0.9])
    y = np.array([0, 1, 1])
    assert ece(y, p, n_bins=10, strategy="quantile") == pytest.approx((0.2 + 0.5 + 0.1) / 3)


# -- AUC and accuracy ---------------------------------------------------------------


@pytest.mark.parametrize("case", range(len(CASES)))
def test_roc_auc_matches_pairs_and_sklearn(case):
    y, p = CASES[case]
    if len(set(y.tolist())) < 2:
        with pytest.raises(ValueError, match="both classes"):
            roc_auc(y, p)
        return
    assert roc_auc(y, p) == pytest.approx(ref_auc(y, p), abs=TOL)
    assert roc_auc(y, p) == pytest.approx(roc_auc_score(y, p), abs=TOL)
    w = np.random.default_rng(case).random(len(y))
    assert roc_auc(y, p, sample_weight=w) == pytest.approx(
        roc_auc_score(y, p, sample_weight=w), abs=TOL
    )


def test_roc_auc_ties_extremes_and_one_class():
    assert roc_auc([0, 1], [0.5, 0.5]) == 0.5
    assert roc_auc(*PERFECT) == 1.0
    assert roc_auc(*WORST) == 0.0
    with pytest.raises(ValueError, match="both classes"):
        roc_auc([1, 1, 1], [0.2, 0.4, 0.9])
    with pytest.raises(ValueError, match="both classes"):
        roc_auc([0, 1], [0.2, 0.4], sample_weight=[1, 0])


@pytest.mark.parametrize("case", range(len(CASES)))
def test_accuracy_matches_formula(case):
    y, p = CASES[case]
    assert accuracy(y, p) == pytest.approx(ref_accuracy(y, p), abs=TOL)
    assert accuracy(y, p, threshold=0.3) == pytest.approx(ref_accuracy(y, p, 0.3), abs=TOL)


def test_accuracy_tie_predicts_negative():
    assert accuracy([0], [0.5]) == 1.0
    assert accuracy([1], [0.5]) == 0.0
    assert accuracy(*PERFECT) == 1.0
    assert accuracy(*WORST) == 0.0
    with pytest.raises(ValueError, match="threshold"):
        accuracy([0], [0.5], threshold=1.5)


def test_interval_width():
    p0 = np.array([0.1, 0.2, 0.0, 0.9])
    p1 = np.array([0.3, 0.2, 1.0, 0.95])
    assert interval_width(p0, p1) == pytest.approx(sum(p1 - p0) / 4, abs=TOL)
    assert interval_width(p0, p1, sample_weight=[0, 0, 1, 1]) == pytest.approx(0.525, abs=TOL)
    # A merged CVAP pair can be unordered; it then counts with a negative width.
    assert interval_width([0.5, 0.1], [0.4, 0.4]) == pytest.approx(0.1, abs=TOL)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        interval_width([0.1], [1.4])
    with pytest.raises(ValueError, match="different lengths"):
        interval_width([0.1, 0.2], [0.3])


# -- labels -----------------------------------------------------------------------------


def test_boolean_float_and_pos_label_labels():
    y, p = CASES[0]
    ref = brier_loss(y, p)
    assert brier_loss(y.astype(bool), p) == ref
    assert brier_loss(y.astype(float), p) == ref
    named = np.where(y == 1, "yes", "no")
    assert brier_loss(named, p, pos_label="yes") == ref
    assert log_loss(named, p, pos_label="yes") == log_loss(y, p)
    assert roc_auc(named, p, pos_label="yes") == roc_auc(y, p)
    assert brier_loss(np.where(y == 1, 0, 1), p, pos_label=0) == pytest.approx(ref, abs=TOL)
    # One class is fine when it is named: all negative.
    assert brier_loss(["no", "no"], [0.0, 0.5], pos_label="yes") == 0.125


# -- evaluate ---------------------------------------------------------------------------


def test_evaluate_collects_every_metric():
    y, p = CASES[1]
    interval = np.c_[p * 0.9, p * 0.9 + 0.1]
    ev = evaluate(y, p, interval=interval, n_bins=7, strategy="quantile", base="e", brier_scale=4)
    assert isinstance(ev, Evaluation)
    assert list(ev) == [
        "log_loss", "brier", "rmse", "ece", "mce", "auc", "accuracy", "interval_width",
    ]  # fmt: skip
    assert ev["log_loss"] == log_loss(y, p, base="e")
    assert ev["brier"] == brier_loss(y, p, scale=4)
    assert ev["rmse"] == rmse(y, p)
    assert ev["ece"] == ece(y, p, n_bins=7, strategy="quantile")
    assert ev["mce"] == mce(y, p, n_bins=7, strategy="quantile")
    assert ev["auc"] == roc_auc(y, p)
    assert ev["accuracy"] == accuracy(y, p)
    assert ev["interval_width"] == pytest.approx(0.1, abs=TOL)
    bins = calibration_bins(y, p, n_bins=7, strategy="quantile")
    for mine, theirs in zip(ev.bins, bins, strict=True):  # the bins behind ece and mce
        np.testing.assert_array_equal(mine, theirs)
    default = evaluate(y, p)  # the defaults are those of the metrics
    assert "interval_width" not in default
    assert len(default) == 7
    assert default["log_loss"] == log_loss(y, p)
    assert default["brier"] == brier_loss(y, p)
    assert default["ece"] == ece(y, p)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"brier_scale": 0}, "evaluate: brier_scale must be a finite real number > 0; got 0"),
        ({"interval": [[0.1, np.nan], [0.2, 0.3]]}, "p1 contains 1 NaN value"),
        ({"interval": [[-0.1, 0.2], [0.2, 0.3]]}, r"p0 must lie in \[0, 1\]"),
        ({"interval": [[0.1, 0.2]]}, r"interval must have shape \(n_samples, 2\) = \(2, 2\)"),
    ],
)
def test_evaluate_checks_its_own_parameters_and_interval(options, match):
    """evaluate validates once, then calls the metrics' cores: their checks must still hold."""
    with pytest.raises(ValueError, match=match):
        evaluate([0, 1], [0.2, 0.7], **options)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("min_bin_count", [None, 0, 3, 1e9])
def test_bins_errors_are_ece_and_mce(strategy, min_bin_count):
    for y, p in CASES:
        bins = calibration_bins(y, p, n_bins=7, strategy=strategy)
        got = bins.errors(min_bin_count)
        assert got[0] == ece(y, p, n_bins=7, strategy=strategy)
        want = mce(y, p, n_bins=7, strategy=strategy, min_bin_count=min_bin_count)
        assert got[1] == want or (np.isnan(got[1]) and np.isnan(want))
    with pytest.raises(ValueError, match="min_bin_count"):
        bins.errors(-1)


def test_evaluation_is_read_only_and_converts():
    ev = evaluate(*WORST)
    with pytest.raises(TypeError):
        ev["brier"] = 0.0
    with pytest.raises(AttributeError):
        ev.extra = 1
    d = ev.to_dict()
    d["brier"] = -1.0
    assert ev["brier"] == 1.0
    assert ev == ev.to_dict()  # Mapping equality
    assert repr(ev).startswith("Evaluation({'log_loss': inf")


def test_evaluation_text_table_is_aligned():
    ev = evaluate(*WORST, interval=np.c_[WORST[1], WORST[1]])
    lines = ev.to_text().splitlines()
    assert lines[-1] == "note: " + ev.notes[0]  # why log_loss is infinite, under the table
    lines = lines[:-1]
    assert lines[0].split() == ["metric", "value"]
    assert [line.split()[0] for line in lines[1:]] == list(ev)
    assert len({len(line) for line in lines}) == 1  # values right-aligned in one column
    assert lines[1].split() == ["log_loss", "(nats)", "inf"]
    assert ev.to_text(digits=2).splitlines()[2].split() == ["brier", "1.00"]


def test_evaluation_json_encodes_non_finite_as_strings():
    ev = evaluate(*WORST)
    text = ev.to_json()
    data = json.loads(text)  # strict JSON: no bare Infinity or NaN tokens
    assert "Infinity" not in text
    assert "NaN" not in text
    assert data["log_loss"] == "inf"
    assert data["brier"] == 1.0
    assert list(data) == list(ev)
    assert {k: float(v) for k, v in data.items()} == ev.to_dict()
    one_class = evaluate([1, 1], [0.3, 0.9])
    assert math.isnan(one_class["auc"])
    assert json.loads(one_class.to_json())["auc"] == "nan"
    assert json.loads(ev.to_json(indent=2)) == data


# -- bad input -----------------------------------------------------------------------------

METRICS = [log_loss, brier_loss, rmse, ece, mce, roc_auc, accuracy, evaluate]


@pytest.mark.parametrize("func", METRICS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    ("y", "p", "match"),
    [
        ([0, 1], [0.2, np.nan], "NaN"),
        ([0, 1], [0.2, 1.5], r"\[0, 1\]"),
        ([0, 1], [-0.1, 0.5], r"\[0, 1\]"),
        ([0, 1], [0.2, np.inf], r"\[0, 1\]"),
        ([0, 1, 1], [0.2, 0.5], "different lengths"),
        ([], [], "empty"),
        ([0, 1, 2], [0.2, 0.5, 0.1], "0 and 1"),
        (["a", "b"], [0.2, 0.5], "pos_label"),
        ([0, np.nan], [0.2, 0.5], "NaN"),
        ([[0, 1]], [0.2, 0.5], "1-D"),
        ([0, 1], [[0.8, 0.2], [0.4, 0.6]], r"p\[:, 1\]"),
        ([0, 1], 0.5, "1-D"),
    ],
)
def test_bad_input_raises_clear_value_error(func, y, p, match):
    with pytest.raises(ValueError, match=match):
        func(y, p)


@pytest.mark.parametrize("func", METRICS, ids=lambda f: f.__name__)
def test_bad_labels_and_weights(func):
    with pytest.raises(ValueError, match="two classes"):
        func(["a", "b", "c"], [0.1, 0.2, 0.3], pos_label="a")
    with pytest.raises(ValueError, match="not one of the labels"):
        func(["a", "b"], [0.1, 0.2], pos_label="c")
    with pytest.raises(ValueError, match="sample_weight"):
        func([0, 1], [0.1, 0.2], sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError, match="sample_weight"):
        func([0, 1], [0.1, 0.2], sample_weight=[1.0])


@pytest.mark.parametrize("func", [ece, mce, evaluate], ids=lambda f: f.__name__)
def test_bad_binning(func):
    for n_bins in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="n_bins"):
            func([0, 1], [0.1, 0.2], n_bins=n_bins)
    with pytest.raises(ValueError, match="strategy"):
        func([0, 1], [0.1, 0.2], strategy="kmeans")


def test_bad_interval_shape():
    with pytest.raises(ValueError, match="interval"):
        evaluate([0, 1], [0.1, 0.2], interval=[0.1, 0.2])
    with pytest.raises(ValueError, match="interval"):
        evaluate([0, 1], [0.1, 0.2], interval=np.zeros((3, 2)))


def test_non_numeric_p_is_a_type_error():
    with pytest.raises(TypeError, match="real numbers"):
        brier_loss([0, 1], ["low", "high"])
    with pytest.raises(TypeError, match="real numbers"):
        brier_loss([0, 1], np.array([0.1j, 0.2j]))


# -- the public bins: the shared top rule, with weights -------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_weighted_quantile_bins_follow_the_top_rule_exactly(seed):
    # All p == v go to bin ceil(K * m(p <= v) / m) - 1 (m: total positive weight);
    # rows of weight zero are dropped for the binning, as everywhere.
    rng = np.random.default_rng(seed)
    p = np.round(rng.random(80) * 12) / 12
    y = rng.random(80) < p
    w = rng.integers(0, 4, 80).astype(float)
    w[0] = 1.0
    for k_bins in (1, 3, 7, 20):
        bins = calibration_bins(y, p, n_bins=k_bins, strategy="quantile", sample_weight=w)
        kept = w > 0
        total = Fraction(int(w.sum()))
        for pi, bi in zip(p[kept], bins.ids[kept], strict=True):
            upto = Fraction(int(w[p <= pi].sum()))
            assert bi == math.ceil(k_bins * upto / total) - 1
        assert np.all(np.diff(bins.edges) >= 0)
        assert bins.weight.sum() == w.sum()
        ref = ece(y, p, n_bins=k_bins, strategy="quantile", sample_weight=w)
        ne = bins.nonempty
        gap = bins.gap[ne]  # from the exact sums of w (y - p): the means' difference, nearly
        np.testing.assert_allclose(gap, np.abs(bins.frac_pos[ne] - bins.mean_pred[ne]),
                                   rtol=0, atol=1e-15)
        assert ref == float(np.sum(bins.weight[ne] * gap) / np.sum(bins.weight))


def test_calibration_bins_checks_its_parameters():
    with pytest.raises(ValueError, match="calibration_bins: n_bins"):
        calibration_bins([0, 1], [0.2, 0.8], n_bins=0)
    with pytest.raises(ValueError, match="strategy"):
        calibration_bins([0, 1], [0.2, 0.8], strategy="equal")


# -- log-loss units, min_bin_count, several evaluations ------------------------------------

EXPERIMENTS = Path(__file__).resolve().parent.parent / "src" / "venncal" / "experiments"


@pytest.mark.parametrize(
    ("base", "unit"), [("e", "nats"), (np.e, "nats"), (2, "bits"), (10, "log10")]
)
def test_log_loss_unit_and_evaluation_units(base, unit):
    assert log_loss_unit(base) == unit
    y, p = CASES[0]
    ev = evaluate(y, p, base=base)
    assert ev.units == {"log_loss": unit}
    assert ev["log_loss"] == log_loss(y, p, base=base)
    assert ev.to_text().splitlines()[1].startswith(f"log_loss ({unit}) ")
    assert evaluate(y, p).units == {"log_loss": "nats"}  # the default, as scikit-learn
    with pytest.raises(ValueError, match="log_loss_unit: base"):
        log_loss_unit(3)
    with pytest.raises(ValueError, match="evaluate: base must be 2, 10 or e"):
        evaluate(y, p, base="2")


def test_reproductions_pass_their_papers_log_base():
    # The default base became e: every log_loss call of the reproductions names its base.
    calls = 0
    for path in EXPERIMENTS.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            name = getattr(node, "func", None)
            if isinstance(node, ast.Call) and getattr(name, "id", None) in ("log_loss", "evaluate"):
                calls += 1
                assert "base" in [k.arg for k in node.keywords], f"{path.name}:{node.lineno}"
    assert calls >= 4


def ref_mce_min_count(y, p, n_bins, min_count, w):
    groups = {}
    for yi, pi, wi in zip(y, p, w, strict=True):
        if wi > 0:
            groups.setdefault(ref_uniform_bin(pi, n_bins), []).append((yi, pi, wi))
    gaps = []
    for members in groups.values():
        total = sum(wi for *_, wi in members)
        if total >= min_count:
            o = sum(yi * wi for yi, _, wi in members) / total
            e = sum(pi * wi for _, pi, wi in members) / total
            gaps.append(abs(o - e))
    return max(gaps) if gaps else math.nan


@pytest.mark.parametrize("min_count", [0, 1, 2, 5, 20, 60.5])
@pytest.mark.parametrize("case", [0, 3, 6, 8, 9])
def test_mce_min_bin_count_matches_formula(case, min_count):
    y, p = CASES[case]
    for w in (np.ones(len(y)), np.random.default_rng(case).integers(0, 4, len(y)).astype(float)):
        if w.sum() == 0:
            continue
        expected = ref_mce_min_count(y, p, 10, min_count, w)
        got = mce(y, p, min_bin_count=min_count, sample_weight=w)
        if math.isnan(expected):
            assert math.isnan(got)
        else:
            assert got == pytest.approx(expected, abs=TOL)
        bins = calibration_bins(y, p, sample_weight=w)
        small = bins.nonempty & (bins.weight < min_count)
        np.testing.assert_array_equal(bins.small(min_count), small)
        # ECE keeps every bin; evaluate agrees with mce
        ev = evaluate(y, p, min_bin_count=min_count, sample_weight=w)
        assert ev["ece"] == ece(y, p, sample_weight=w)
        assert ev["mce"] == got or (math.isnan(got) and math.isnan(ev["mce"]))


def test_a_bin_of_one_row_no_longer_drives_the_mce():
    # 610 well-calibrated rows near 0.3 and one row at 0.95 with label 0
    rng = np.random.default_rng(0)
    p = np.r_[np.full(610, 0.3), 0.95]
    y = np.r_[rng.random(610) < 0.3, False]
    assert mce(y, p) == pytest.approx(0.95)
    assert mce(y, p, min_bin_count=2) == pytest.approx(abs(y[:610].mean() - 0.3))
    assert mce(y, p, min_bin_count=None) == mce(y, p, min_bin_count=0) == mce(y, p)
    assert math.isnan(mce(y, p, min_bin_count=1000))
    assert not calibration_bins(y, p).small(None).any()


@pytest.mark.parametrize("func", [mce, evaluate], ids=lambda f: f.__name__)
def test_bad_min_bin_count(func):
    for bad in (-1, math.inf, math.nan, "5", True):
        message = f"{func.__name__}: min_bin_count must be None or a finite real"
        with pytest.raises(ValueError, match=message):
            func([0, 1], [0.1, 0.2], min_bin_count=bad)


def test_evaluations_table_and_json_side_by_side():
    y, p = CASES[0]
    raw, sq = evaluate(y, p), evaluate(y, p**2, interval=np.c_[p**2, p])
    table = evaluations_table({"raw": raw, "squared": sq})
    lines = table.splitlines()
    assert lines[0].split() == ["metric", "raw", "squared"]
    assert [line.split()[0] for line in lines[1:]] == list(sq)
    assert lines[1].split()[:2] == ["log_loss", "(nats)"]
    assert lines[-1].split() == ["interval_width", "-", f"{sq['interval_width']:.4f}"]
    assert len({len(line) for line in lines}) == 1  # right-aligned columns
    assert evaluations_table({"value": raw}) == raw.to_text()
    data = json.loads(evaluations_json({"raw": raw, "squared": sq}, indent=1))
    assert list(data) == ["raw", "squared"]
    assert data["raw"] == json.loads(raw.to_json())
    assert data["squared"]["interval_width"] == sq["interval_width"]
    with pytest.raises(ValueError, match="no evaluations"):
        evaluations_table({})
    with pytest.raises(ValueError, match="no evaluations"):
        evaluations_json({})
    message = "'log_loss' is in nats in one evaluation and in bits in 'b'"
    with pytest.raises(ValueError, match=message):
        evaluations_table({"a": raw, "b": evaluate(y, p, base=2)})


def test_evaluate_notes_why_the_log_loss_is_infinite():
    from venncal.metrics import evaluate, evaluate_multiclass, evaluations_table

    ev = evaluate([0, 1, 1, 0], [1.0, 0.5, 0.5, 0.2])
    assert ev["log_loss"] == math.inf
    assert ev.notes == ("log_loss is infinite: 1 row forecasts probability 0 for the class "
                        "observed (1 with p = 1 and a negative label)",)
    assert ev.to_text().endswith("\nnote: " + ev.notes[0])
    assert "note" not in ev.to_json()  # the JSON holds the values only
    # a row of weight 0 does not count (and leaves the loss finite)
    assert evaluate([0, 1, 1, 0], [1.0, 0.5, 0.5, 0.2], sample_weight=[0, 1, 1, 1]).notes == ()
    fine = evaluate([0, 1], [0.2, 0.7])
    assert fine.notes == () and "note" not in evaluations_table({"a": ev, "b": fine}).split(
        "note (a)")[1]
    multi = evaluate_multiclass(["a", "b", "c"], [[0, 0.5, 0.5], [0.2, 0.8, 0], [0.1, 0, 0.9]])
    assert multi.notes == ("log_loss is infinite: 1 row forecasts probability 0 for the class "
                           "observed (1 with probability 0 and label 'a')",)
