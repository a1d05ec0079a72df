"""The recommendation's default rule (issue 25, target 2): a default, left only beyond noise."""

from __future__ import annotations

import json

import numpy as np
import pytest

from venncal.comparison import compare
from venncal.comparison._ranking import (
    DEFAULTS,
    NOISE_SE,
    SWITCH_SE,
    mean_ranks,
    paired_gap,
    recommend,
)

BINARY_GIVES = {"uncalibrated": False, "platt": False, "beta": False, "quadratic-logistic": False,
                "isotonic": False, "ivap": True, "cvap": True}


def _rec(losses, intervals=False, problem="binary", failed=(), gives=None):
    gives = gives or {m: BINARY_GIVES.get(m, "ivap" in m) for m in losses}
    ranks = mean_ranks(losses)
    order = sorted(losses, key=lambda m: (ranks[m], np.mean(losses[m])))
    return recommend(order, ranks, losses, gives, intervals, problem=problem, failed=failed)


def _a(*values):
    return np.array(values, dtype=float)


def test_the_defaults_and_the_switching_multiple_are_stated():
    assert DEFAULTS[("binary", False)][0] == "beta"
    assert DEFAULTS[("multiclass", False)][0] == "structured-matrix-scaling"
    assert DEFAULTS[("binary", True)] == ("beta+ivap-clip", "cvap", "ivap")
    assert DEFAULTS[("multiclass", True)] == ("structured-matrix-scaling+ovr-ivap-cap",
                                              "temperature+ovr-ivap", "ovr-ivap", "ovo-ivap")
    assert SWITCH_SE == 1.5 * NOISE_SE == 3.0


def test_default_kept_when_the_lowest_mean_is_within_noise():
    # platt is lower on average but its paired gap is noisy: 1 standard error or so
    ll = {"beta": _a(0.40, 0.42, 0.41, 0.43, 0.39), "platt": _a(0.41, 0.40, 0.40, 0.42, 0.38),
          "isotonic": _a(0.45, 0.47, 0.46, 0.48, 0.44)}
    gap, se = paired_gap(ll["beta"], ll["platt"])
    assert 0 < gap < SWITCH_SE * se
    rec = _rec(ll)
    assert rec.method == "beta" and rec.default == "beta" and rec.best == "platt"
    assert "the rule: keep the default beta unless the method of lowest mean out-of-fold log " \
           "loss beats it by more than 3 standard errors of their paired gap over the 5 folds" \
           in rec.reason
    assert "not beyond 3" in rec.reason
    # The lowest-mean rule (no problem given) picks platt on the same table.
    ranks = mean_ranks(ll)
    assert recommend(list(ll), ranks, ll, BINARY_GIVES, False).method == "platt"


def test_default_left_when_beaten_beyond_noise():
    ll = {"beta": _a(0.40, 0.42, 0.41, 0.43, 0.39),
          "platt": _a(0.40, 0.42, 0.41, 0.43, 0.39) - _a(0.030, 0.031, 0.029, 0.030, 0.032),
          "isotonic": _a(0.45, 0.47, 0.46, 0.48, 0.44)}
    rec = _rec(ll)
    assert rec.method == "platt" and rec.default == "beta"
    assert "so platt replaces it" in rec.reason and "beyond 3" in rec.reason
    # the same gap on every fold (standard error 0) is beyond noise too
    same = {"beta": _a(0.5, 0.6, 0.7), "platt": _a(0.4, 0.5, 0.6)}
    assert _rec(same).method == "platt" and "the same gap on every fold" in _rec(same).reason


def test_default_infinite_on_a_fold_is_left():
    ll = {"beta": _a(0.40, np.inf, 0.41), "platt": _a(0.41, 0.42, 0.40)}
    rec = _rec(ll)
    assert rec.method == "platt" and "is infinite on a fold where it is finite" in rec.reason


def test_default_failed_or_not_applicable_passes_to_the_next():
    ll = {"quadratic-logistic": _a(0.40, 0.42, 0.41), "platt": _a(0.39, 0.42, 0.41),
          "isotonic": _a(0.5, 0.5, 0.5)}
    rec = _rec(ll, failed=["beta"])
    assert rec.method == "quadratic-logistic" and rec.default == "quadratic-logistic"
    assert "beta failed on a fold, so the default is quadratic-logistic" in rec.reason
    rec = _rec(ll)  # beta not compared (a margin score, or methods= left it out)
    assert "beta was not compared, so the default is quadratic-logistic" in rec.reason
    # No default at all: the lowest mean, said so.
    none = {"isotonic": _a(0.41, 0.42, 0.40), "ivap": _a(0.39, 0.41, 0.40)}
    rec = _rec(none)
    assert rec.default is None and rec.method == "ivap"
    assert "no default (beta, quadratic-logistic, platt) ran on every fold" in rec.reason


def test_intervals_keep_the_venn_abers_default_unless_beaten_beyond_noise():
    ll = {"beta": _a(0.38, 0.40, 0.39), "cvap": _a(0.41, 0.42, 0.40),
          "ivap": _a(0.40, 0.42, 0.40)}
    rec = _rec(ll, intervals=True)
    assert rec.method == "cvap" and rec.default == "cvap"
    assert rec.reason.startswith("intervals were asked for: cvap, the default")
    assert "among the Venn-Abers methods" in rec.reason
    far = {**ll, "cvap": _a(0.50, 0.52, 0.51)}
    rec = _rec(far, intervals=True)
    assert rec.method == "ivap" and "so ivap replaces it" in rec.reason
    # K classes: the chain from temperature scaling first
    mc = {"structured-matrix-scaling": _a(0.30, 0.31, 0.29),
          "temperature+ovr-ivap": _a(0.31, 0.31, 0.29), "ovr-ivap": _a(0.30, 0.30, 0.30)}
    gives = {m: "ivap" in m for m in mc}
    rec = _rec(mc, intervals=True, problem="multiclass", gives=gives)
    assert rec.method == "temperature+ovr-ivap"
    rec = _rec(mc, problem="multiclass", gives=gives)
    assert rec.method == "structured-matrix-scaling"
    assert "temperature+ovr-ivap gives Venn-Abers intervals" in rec.reason


def test_the_reason_names_both_spellings_of_asking_for_intervals():
    ll = {"beta": _a(0.40, 0.41, 0.39), "cvap": _a(0.41, 0.40, 0.40)}
    rec = _rec(ll)
    assert rec.method == "beta"
    assert "ask for intervals to prefer it (intervals=True in Python, --intervals on the " \
           "command line)" in rec.reason


def test_compare_uses_the_default_rule_and_is_deterministic_under_the_seed():
    rng = np.random.default_rng(3)
    s = rng.normal(size=500)
    y = rng.random(500) < 1 / (1 + np.exp(-1.5 * s))
    methods = ["uncalibrated", "platt", "beta", "isotonic", "ivap"]
    a = compare(s, y, score="logit", methods=methods, folds=4, seed=11)
    b = compare(s, y, score="logit", methods=methods, folds=4, seed=11)
    assert a.recommendation == b.recommendation
    assert a.recommendation.default == "beta"
    assert a.recommendation.method in ("beta", a.recommendation.best)
    d = json.loads(json.dumps(a.to_dict(), allow_nan=False))
    assert d["recommendation"]["default"] == "beta"
    old = a.recommend(rule="lowest-mean")
    assert old.method == a.recommendation.best and old.default is None
    assert a.recommend(intervals=True).method in ("ivap",)
    with pytest.raises(ValueError, match="rule must be"):
        a.recommend(rule="lowest")


def test_with_intervals_the_clipped_leaders_are_the_defaults():
    """Issue 25: with intervals, CalArena's leader clipped into the Venn-Abers intervals first."""
    ll = {"beta": _a(0.40, 0.41, 0.39), "beta+ivap-clip": _a(0.401, 0.411, 0.391),
          "cvap": _a(0.40, 0.41, 0.40), "ivap": _a(0.41, 0.42, 0.40)}
    rec = _rec(ll, intervals=True)
    assert rec.method == "beta+ivap-clip" and rec.default == "beta+ivap-clip"
    # Not compared (a score kind it does not take): the next default, saying why.
    rec = _rec({m: v for m, v in ll.items() if m != "beta+ivap-clip"}, intervals=True)
    assert rec.method == "cvap" and "beta+ivap-clip was not compared" in rec.reason
    mc = {"structured-matrix-scaling": _a(0.30, 0.31, 0.29),
          "structured-matrix-scaling+ovr-ivap-cap": _a(0.30, 0.312, 0.29),
          "temperature+ovr-ivap": _a(0.31, 0.31, 0.29), "ovr-ivap": _a(0.30, 0.30, 0.30)}
    gives = {m: "ivap" in m for m in mc}
    rec = _rec(mc, intervals=True, problem="multiclass", gives=gives)
    assert rec.method == "structured-matrix-scaling+ovr-ivap-cap"
    assert rec.default == "structured-matrix-scaling+ovr-ivap-cap"


def test_compare_with_intervals_recommends_the_clipped_chains():
    """On a binary and a K-class data set, compare(intervals=True) names the clipped chain."""
    rng = np.random.default_rng(3)
    s = rng.normal(size=600)
    y = rng.random(600) < 1 / (1 + np.exp(-1.5 * s))
    result = compare(s, y, score="logit", intervals=True)
    assert "beta+ivap-clip" in result.methods and "platt+ivap-clip" in result.methods
    rec = result.recommendation
    assert rec.method == "beta+ivap-clip" and rec.default == "beta+ivap-clip", rec.reason
    assert result.mean("beta+ivap-clip")["interval_width"] > 0
    z = rng.normal(size=(450, 3)) * 2
    p = np.exp(z / 2.0)
    p /= p.sum(axis=1, keepdims=True)
    c = np.array([rng.choice(3, p=row) for row in p])
    result = compare(z, c, score="logit", intervals=True)
    rec = result.recommendation
    assert rec.default == "structured-matrix-scaling+ovr-ivap-cap", rec.reason
    assert rec.method == "structured-matrix-scaling+ovr-ivap-cap", rec.reason
    # Without intervals the defaults are unchanged.
    assert result.recommend(intervals=False).default == "structured-matrix-scaling"


# --------------------------------------------------------------- small data and certain forecasts
# benchmarks/results/small-data-2026-11-26.md: below SMALL_ROWS rows Platt (two parameters)
# beat Beta (three) on held-out log loss, and the rule's moves to a method that forecast
# 0 or 1 (histogram binning) cost +53 and +2.3 where its other moves gained.

def test_small_calibration_sets_start_from_platt():
    from venncal.comparison import SMALL_DEFAULTS, SMALL_ROWS, defaults_for

    assert SMALL_ROWS == 200
    assert defaults_for("binary", False, SMALL_ROWS - 1) == SMALL_DEFAULTS[("binary", False)]
    assert defaults_for("binary", True, SMALL_ROWS - 1)[0] == "platt+ivap-clip"
    assert defaults_for("binary", False, SMALL_ROWS) == DEFAULTS[("binary", False)]
    assert defaults_for("binary", False) == DEFAULTS[("binary", False)]
    # K classes: by rows per parameter, which needs K (test_small_k_class_sets_...)
    assert defaults_for("multiclass", False, 10) == DEFAULTS[("multiclass", False)]
    ll = {"beta": _a(0.40, 0.42, 0.41, 0.43, 0.39), "platt": _a(0.41, 0.40, 0.42, 0.42, 0.40)}
    ranks = mean_ranks(ll)
    order = sorted(ll, key=ranks.get)
    small = recommend(order, ranks, ll, BINARY_GIVES, False, problem="binary", rows=100)
    assert small.method == "platt" and small.default == "platt"
    assert "on 100 rows (fewer than 200) the defaults start from platt+ivap-clip" in small.reason
    assert "platt+ivap-clip was not compared, so the default is platt" in small.reason
    large = recommend(order, ranks, ll, BINARY_GIVES, False, problem="binary", rows=200)
    assert large.method == "beta" and "fewer than" not in large.reason
    # with the clipped chain compared, it is the small default, with intervals or not
    ll["platt+ivap-clip"] = _a(0.41, 0.40, 0.42, 0.42, 0.40)
    gives = {**BINARY_GIVES, "platt+ivap-clip": True}
    ranks = mean_ranks(ll)
    order = sorted(ll, key=ranks.get)
    for intervals in (False, True):
        clip = recommend(order, ranks, ll, gives, intervals, problem="binary", rows=100)
        assert clip.method == clip.default == "platt+ivap-clip"


def test_the_rule_does_not_move_to_certain_forecasts():
    # histogram beats the default far beyond noise on these folds, but it forecast 0 or 1
    ll = {"beta": _a(0.40, 0.42, 0.41, 0.43, 0.39),
          "histogram": _a(0.30, 0.32, 0.31, 0.33, 0.29),
          "platt": _a(0.41, 0.43, 0.41, 0.44, 0.39)}
    ranks = mean_ranks(ll)
    order = sorted(ll, key=ranks.get)
    gives = {m: False for m in ll}
    free = recommend(order, ranks, ll, gives, False, problem="binary")
    assert free.method == "histogram"
    rec = recommend(order, ranks, ll, gives, False, problem="binary",
                    certain={"histogram": True, "beta": False, "platt": False})
    assert rec.method == "beta" and rec.best == "histogram"
    assert "histogram forecast a probability of 0 or 1 out of fold" in rec.reason
    assert "lowest mean log loss among the methods that never forecast 0 or 1" in rec.reason
    # the lowest-mean rule is unchanged: it names the lowest mean
    assert recommend(order, ranks, ll, gives, False, certain={"histogram": True}).method == \
        "histogram"


def test_comparison_counts_rows_of_positive_weight_and_certain_forecasts():
    rng = np.random.default_rng(7)
    n = 300
    s = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < s).astype(int)
    methods = ["beta", "platt", "histogram", "ivap"]
    big = compare(s, y, score="proba", methods=methods, seed=1)
    assert big.recommendation.default == "beta"
    w = np.where(np.arange(n) % 2 == 0, 1.0, 0.0)  # 150 rows of positive weight
    small = compare(s, y, score="proba", methods=methods, seed=1, sample_weight=w)
    assert small.recommendation.default == "platt"
    assert "on 150 rows (fewer than 200)" in small.recommendation.reason
    # histogram binning on 300 rows forecasts 0 or 1 in some bin only if a bin is pure:
    # whatever it did, the rule's pick never forecast 0 or 1 unless it is the default
    for c in (big, small):
        pick = c.recommendation.method
        if pick != c.recommendation.default:
            assert not np.any(c.predictions(pick) == 0.0)


def test_small_k_class_sets_pass_from_a_failed_temperature_to_the_scores():
    """Below 10 rows per parameter, temperature failed on a fold (scores that separate the
    classes there): the default is the uncalibrated scores, not vector scaling (2K)."""
    ll = {"vector-scaling": _a(0.20, 0.10, 0.30, 0.20, 0.25),
          "uncalibrated": _a(0.30, 0.05, 0.33, 0.15, 0.27)}
    ranks = mean_ranks(ll)
    order = sorted(ll, key=ranks.get)
    gives = {"vector-scaling": False, "uncalibrated": False, "temperature": False}
    rec = recommend(order, ranks, ll, gives, False, problem="multiclass", rows=40, classes=3,
                    failed=["temperature"])
    assert rec.method == rec.default == "uncalibrated" and rec.best == "vector-scaling"
    assert "temperature failed on a fold, so the default is uncalibrated" in rec.reason
    # kept as the default, not the lowest mean: not said to be better than every calibrator
    assert "no calibrator improves" not in rec.reason
    assert "the scores themselves are the pick" in rec.reason
    # with enough rows the defaults are the large ones: vector scaling comes before the scores
    big = recommend(order, ranks, ll, gives, False, problem="multiclass", rows=2000, classes=3,
                    failed=["temperature"])
    assert big.default == "vector-scaling"


def test_small_k_class_sets_start_from_temperature():
    # below 10 rows per parameter of structured matrix scaling (K**2 + K + 1), measured on
    # benchmarks/bench_small_multiclass.py, not on the arena
    from venncal.comparison import SMALL_DEFAULTS, SMALL_ROWS_PER_PARAMETER, defaults_for

    assert SMALL_ROWS_PER_PARAMETER == 10
    assert defaults_for("multiclass", False, 129, 3) == SMALL_DEFAULTS[("multiclass", False)]
    assert defaults_for("multiclass", False, 130, 3) == DEFAULTS[("multiclass", False)]
    assert defaults_for("multiclass", True, 1109, 10)[0] == "temperature+ovr-ivap-cap"
    assert defaults_for("multiclass", False, 1110, 10)[0] == "structured-matrix-scaling"
    ll = {"structured-matrix-scaling": _a(0.30, 0.28, 0.31, 0.29, 0.30),
          "temperature": _a(0.31, 0.29, 0.30, 0.30, 0.31)}
    ranks = mean_ranks(ll)
    order = sorted(ll, key=ranks.get)
    gives = dict.fromkeys(ll, False)
    rec = recommend(order, ranks, ll, gives, False, problem="multiclass", rows=449, classes=10)
    assert rec.method == "temperature" and rec.default == "temperature"
    assert ("on 449 rows (fewer than 10 per parameter of structured matrix scaling, 1,110 for "
            "10 classes) the defaults start from temperature") in rec.reason
    big = recommend(order, ranks, ll, gives, False, problem="multiclass", rows=2000, classes=10)
    assert big.method == "structured-matrix-scaling" and "fewer than" not in big.reason


def test_the_rule_does_not_move_to_fits_that_did_not_converge():
    # vector scaling beats the default far beyond noise on these folds, but its likelihood had
    # no maximum on a fold (on 60 iris rows the temperature-first rule held out 1.78, near
    # vector scaling's 1.77, against temperature's 0.17)
    ll = {"temperature": _a(0.40, 0.42, 0.41, 0.43, 0.39),
          "vector-scaling": _a(0.10, 0.12, 0.11, 0.13, 0.09)}
    ranks = mean_ranks(ll)
    order = sorted(ll, key=ranks.get)
    gives = dict.fromkeys(ll, False)
    free = recommend(order, ranks, ll, gives, False, problem="multiclass", rows=60, classes=3)
    assert free.method == "vector-scaling"
    rec = recommend(order, ranks, ll, gives, False, problem="multiclass", rows=60, classes=3,
                    unsettled={"vector-scaling": True})
    assert rec.method == "temperature"
    assert "vector-scaling did not converge on a fold" in rec.reason
    assert "among the methods that converged on every fold" in rec.reason


@pytest.mark.parametrize("intervals", [False, True])
def test_rule_inputs_replay_both_rules(intervals):
    """``recommend(**c.rule_inputs(), intervals=...)`` is ``c.recommend(...)``, and its rows
    count only rows of positive weight."""
    from venncal.comparison import recommend

    rng = np.random.default_rng(5)
    s = rng.normal(size=300)
    y = (rng.random(300) < 1 / (1 + np.exp(-2 * s))).astype(int)
    w = np.where(np.arange(300) < 40, 0.0, 1.0)
    c = compare(s, y, sample_weight=w, score="logit", methods=["platt", "beta", "ivap", "cvap"],
                seed=1)
    inputs = c.rule_inputs()
    assert inputs["rows"] == 260 and inputs["problem"] == "binary" and inputs["classes"] == 2
    assert recommend(**inputs, intervals=intervals) == c.recommend(intervals=intervals)
    inputs["problem"] = None
    assert recommend(**inputs, intervals=intervals) == c.recommend(rule="lowest-mean",
                                                                   intervals=intervals)

