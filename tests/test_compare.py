"""venncal.compare: cross-validated comparison of the calibrators (issue 25, deliverable 4)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import venncal
from venncal.comparison import _candidates, compare
from venncal.comparison._ranking import average_ranks, mean_ranks, recommend, win_rates
from venncal.comparison._run import stratified_folds

FAST = ["uncalibrated", "platt", "histogram", "ivap"]


def _binary(n=400, seed=0, slope=3.0):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n)
    return s, rng.random(n) < 1 / (1 + np.exp(-slope * s))


def _multiclass(n=300, seed=0, temperature=2.0):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 3)) * 2
    p = np.exp(z / temperature)
    p /= p.sum(axis=1, keepdims=True)
    return z, np.array([rng.choice(3, p=row) for row in p])


def _without_times(d: dict) -> dict:
    for m in d["methods"].values():
        m.pop("fit_time"), m.pop("predict_time")
    return d


def test_exported_from_the_package_root():
    assert venncal.compare is compare


def test_deterministic_under_the_seed_bit_for_bit():
    s, y = _binary()
    a = compare(s, y, score="logit", methods=FAST, folds=3, seed=7)
    b = compare(s, y, score="logit", methods=FAST, folds=3, seed=7)
    assert _without_times(a.to_dict()) == _without_times(b.to_dict())
    for m in FAST:
        assert a.predictions(m).tobytes() == b.predictions(m).tobytes()
    c = compare(s, y, score="logit", methods=FAST, folds=3, seed=8)
    assert c.predictions("platt").tobytes() != a.predictions("platt").tobytes()


def test_stratified_folds_balance_every_class():
    codes = np.repeat([0, 1, 2], [10, 7, 4])
    f = stratified_folds(codes, 3, np.random.default_rng(0))
    for k, n_k in enumerate([10, 7, 4]):
        counts = np.bincount(f[codes == k], minlength=3)
        assert counts.max() - counts.min() <= 1 and counts.sum() == n_k
    assert np.bincount(f).max() - np.bincount(f).min() <= 1


def test_binary_every_applicable_method_and_metric():
    s, y = _binary(300)
    result = compare(s, y, score="logit", folds=2)
    assert result.methods == ("uncalibrated", "platt", "beta", "quadratic-logistic", "isotonic",
                              "histogram", "bbq", "enir", "ivap", "cvap", "platt+ivap-clip",
                              "beta+ivap-clip")
    assert result.metrics == ("log_loss", "brier", "ece", "smooth_ece", "accuracy",
                              "calibration_slope", "calibration_intercept", "spiegelhalter_p",
                              "ks_p", "interval_width")
    assert set(result.ranked) == set(result.methods)  # nothing failed
    assert np.isnan(result.mean("platt")["interval_width"])
    assert result.mean("ivap")["interval_width"] > 0
    assert result.recommendation.method in result.methods
    # Without a score kind the reference row cannot read the score as a probability.
    assert "uncalibrated" not in compare(s, y, folds=2, methods=None).methods


def test_multiclass_methods_metrics_and_json():
    z, y = _multiclass()
    result = compare(z, np.array(["a", "b", "c"])[y], score="logit", folds=2)
    assert result.methods == ("uncalibrated", "temperature", "vector-scaling", "matrix-scaling",
                              "structured-matrix-scaling", "ovr-platt", "ovr-isotonic",
                              "ovr-ivap", "ovo-ivap", "temperature+ovr-ivap",
                              "temperature+ovr-ivap-cap", "vector-scaling+ovr-ivap-cap",
                              "structured-matrix-scaling+ovr-ivap-cap")
    assert "top_label_ece" in result.metrics and "classwise_ece" in result.metrics
    assert not any(result.failures(m) for m in result.methods)
    d = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert d["classes"] == ["a", "b", "c"] and d["recommendation"]["method"]
    # Margins: no reference row, no temperature scaling.
    margins = compare(z, y, score="margin", folds=2, methods=None)
    assert margins.methods == ("ovr-platt", "ovr-isotonic", "ovr-ivap", "ovo-ivap")


def test_known_answer_overconfident_scores():
    """Scores 4x too confident: every calibrator beats the raw scores on every fold."""
    s, y = _binary(1500, seed=1, slope=1.0)
    result = compare(4 * s, y, score="logit", methods=["uncalibrated", "platt", "histogram"],
                     folds=3)
    assert result.ranks["log_loss"]["uncalibrated"] == 3.0
    assert result.ranks["brier"]["uncalibrated"] == 3.0
    for method in ("platt", "histogram"):
        assert result.win_rates[method]["uncalibrated"] == 1.0
        assert result.win_rates["uncalibrated"][method] == 0.0
    assert result.ranked[-1] == "uncalibrated"
    assert result.recommendation.method in ("platt", "histogram")
    assert "uncalibrated" not in result.recommendation.within_noise


def test_ranks_and_win_rates_on_a_constructed_table():
    assert average_ranks(np.array([2.0, 1.0, 2.0])).tolist() == [2.5, 1.0, 2.5]
    losses = {"a": np.array([0.1, 0.1, 0.3]), "b": np.array([0.2, 0.1, 0.2]),
              "c": np.array([0.3, 0.3, 0.4])}
    assert mean_ranks(losses) == {"a": (1 + 1.5 + 2) / 3, "b": (2 + 1.5 + 1) / 3, "c": 3.0}
    rates = win_rates(losses)
    assert rates["a"]["b"] == pytest.approx(1.5 / 3) and rates["b"]["a"] == pytest.approx(1.5 / 3)
    assert rates["a"]["c"] == 1.0 and rates["c"]["a"] == 0.0


def test_recommendation_venn_abers_within_noise_and_ties():
    ll = {"platt": np.array([0.40, 0.41, 0.39]), "ivap": np.array([0.41, 0.40, 0.40]),
          "bad": np.array([0.60, 0.61, 0.62])}
    order = ["platt", "ivap", "bad"]
    ranks = mean_ranks(ll)
    gives = {"platt": False, "ivap": True, "bad": False}
    # The pick is the lowest mean log loss; a Venn-Abers method within noise is named.
    rec = recommend(order, ranks, ll, gives, intervals=False)
    assert rec.method == "platt" and rec.best == "platt" and "within noise" in rec.reason
    assert "ask for intervals to prefer it" in rec.reason
    assert "intervals=True in Python, --intervals on the command line" in rec.reason
    assert rec.within_noise == ("platt", "ivap")
    rec = recommend(order, ranks, ll, gives, intervals=True)
    assert rec.method == "ivap" and "intervals were asked for" in rec.reason
    far = {**ll, "ivap": np.array([0.50, 0.51, 0.52])}
    rec = recommend(order, mean_ranks(far), far, gives, intervals=False)
    assert rec.method == "platt" and "within noise" not in rec.reason
    rec = recommend(order, mean_ranks(far), far, gives, intervals=True)
    assert rec.method == "ivap" and "intervals were asked for" in rec.reason
    same = {m: np.array([0.5, 0.5]) for m in order}
    rec = recommend(order, mean_ranks(same), same, gives, intervals=False)
    assert "tied on mean log loss" in rec.reason and "all 3 methods are within noise" in rec.reason
    assert recommend([], {}, {}, {}, False).method is None


class _FailsOnFirstFold:
    """A calibrator that cannot be fitted when its training part starts at row 0."""

    def __init__(self, kind, classes):
        pass

    def fit(self, scores, y, sample_weight=None):
        if scores.shape[0] and scores[0] == self.first:
            raise ValueError("boom on this fold")
        return self

    def predict_proba(self, scores):
        return np.full((len(scores), 2), 0.5)


def test_failed_methods_are_reported_not_dropped(monkeypatch):
    s, y = _binary(90)
    _FailsOnFirstFold.first = s[0]
    extra = _candidates.Candidate("fragile", _candidates.BINARY, _FailsOnFirstFold)
    monkeypatch.setattr(_candidates, "CANDIDATES", (*_candidates.CANDIDATES, extra))
    result = compare(s, y, score="logit", methods=["platt", "fragile"], folds=3)
    failures = result.failures("fragile")
    assert len(failures) == 2 and all("ValueError: boom on this fold" in r for r in failures.values())
    assert result.methods == ("platt", "fragile") and result.ranked == ("platt",)
    assert result.to_dict()["methods"]["fragile"]["failures"]
    assert "fragile failed on fold" in result.to_text()
    assert [v is None for v in result.fold_values("fragile")].count(True) == 2


def test_a_class_missing_from_a_training_part_is_a_reported_failure():
    rng = np.random.default_rng(0)
    z, y = rng.normal(size=(60, 3)), rng.integers(0, 2, 60)
    y[5] = 2  # one row of class 2: the fold that holds it trains without it
    result = compare(z, y, score="logit", methods=["temperature", "ovr-platt"], folds=2)
    assert result.failures("temperature") == {}
    (fold, reason), = result.failures("ovr-platt").items()
    assert "no calibration rows" in reason and result.fold_values("ovr-platt")[fold] is None
    assert result.ranked == ("temperature",) and result.recommendation.method == "temperature"
    assert np.isnan(result.predictions("ovr-platt")).any()


@pytest.mark.parametrize("weight", [1e-310, 1e-300, 1e308])
def test_edges_constant_scores_and_extreme_weights(weight):
    rng = np.random.default_rng(1)
    y = rng.random(40) < 0.3
    for s in (np.zeros(40), np.repeat([1e-310, 1 - 2**-53], 20), rng.normal(size=40)):
        result = compare(s, y, score="proba" if s.max() <= 1 and s.min() >= 0 else "logit",
                         folds=2, methods=["uncalibrated", "platt", "isotonic", "ivap"],
                         sample_weight=np.full(40, weight))
        json.dumps(result.to_dict(), allow_nan=False)
        assert result.recommendation.method is not None or not result.ranked
        for m in result.methods:
            for reason in result.failures(m).values():
                # WeightSumOverflow is a ValueError: tied weights that sum past float64
                assert reason.split(":")[0] in ("ValueError", "TypeError", "WeightSumOverflow")


@pytest.mark.parametrize("coding", ["bool", "int", "text"])
def test_label_codings_give_the_same_comparison(coding):
    s, y = _binary(200)
    ref = compare(s, y, score="logit", methods=["platt", "ivap"], folds=2)
    labels = {"bool": y, "int": np.where(y, 7, 3), "text": np.where(y, "yes", "no")}[coding]
    got = compare(s, labels, score="logit", methods=["platt", "ivap"], folds=2)
    assert got.fold_values("ivap") == ref.fold_values("ivap")
    with pytest.warns(UserWarning, match="below chance"):  # Platt's slope turns negative
        flipped = compare(-s, ~y, score="logit", methods=["platt"], folds=2,
                          classes=[True, False])
    assert flipped.mean("platt")["log_loss"] == pytest.approx(ref.mean("platt")["log_loss"],
                                                              rel=1e-6, abs=0.0)


def test_weights_scale_free_and_used():
    """Weights are frequency weights: those that fit by the weights' ratios only (not Platt,
    whose targets' prior counts rows) give the same comparison for doubled weights."""
    s, y = _binary(200)
    methods = ["uncalibrated", "isotonic", "histogram"]
    ones = compare(s, y, score="logit", methods=methods, folds=2, sample_weight=np.ones(200))
    twos = compare(s, y, score="logit", methods=methods, folds=2,
                   sample_weight=np.full(200, 2.0))
    for m in methods:
        for metric, v in ones.mean(m).items():
            if metric.endswith("_p"):  # a test's p-value counts rows: doubled weights, more rows
                continue
            assert twos.mean(m)[metric] == pytest.approx(v, rel=1e-9, abs=0.0, nan_ok=True)
    w = np.where(y, 5.0, 1.0)
    skewed = compare(s, y, score="logit", methods=methods, folds=2, sample_weight=w)
    assert skewed.mean("histogram")["brier"] != ones.mean("histogram")["brier"]
    with pytest.raises(ValueError, match="sample_weight"):
        compare(s, y, score="logit", sample_weight=-np.ones(200))


def test_bad_input_is_a_clear_error():
    s, y = _binary(50)
    z, yk = _multiclass(50)
    with pytest.raises(ValueError, match="score must be 'proba', 'logit' or 'margin'"):
        compare(z, yk)
    with pytest.raises(ValueError, match="not a method for binary"):
        compare(s, y, methods=["temperature"])
    with pytest.raises(ValueError, match="'uncalibrated', which needs score"):
        compare(z, yk, score="margin", methods=["uncalibrated"])
    with pytest.raises(ValueError, match="folds must be an integer >= 2"):
        compare(s, y, folds=1)
    with pytest.raises(ValueError, match="folds=60 is more than the 50 rows"):
        compare(s, y, folds=60)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        compare(s, y, score="proba")
    with pytest.raises(ValueError, match="classes"):
        compare(z, yk[:50] % 2, score="logit")


def test_progress_outputs_and_plot():
    s, y = _binary(120)
    seen = []

    class Bar:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, count, fraction):
            seen.append((count, fraction))

    result = compare(s, y, score="logit", methods=["platt", "ivap"], folds=2,
                     progress=lambda label: Bar())
    assert seen[-1] == (4, 1.0) and len(seen) == 4
    text = result.to_text()
    assert "recommendation:" in text and "win rates by log loss" in text
    pd = pytest.importorskip("pandas")
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame) and list(frame.index) == ["platt", "ivap"]
    pytest.importorskip("matplotlib")
    ax = result.plot()
    assert {line.get_label() for line in ax.get_lines()} >= {"platt", "ivap"}


def test_recommendation_says_when_ranks_and_means_disagree():
    # a wins two folds of three by a little and loses the third by a lot
    ll = {"a": np.array([0.1, 0.1, 2.0]), "b": np.array([0.2, 0.2, 0.2])}
    # (the rule changed after the calibration arena: the pick is now the lowest mean)
    rec = recommend(["a", "b"], mean_ranks(ll), ll, {"a": False, "b": False}, intervals=False)
    assert rec.method == "b" and rec.best == "b"
    assert "the best mean rank is a's (1.33, against 1.67)" in rec.reason
    same = {"a": np.array([0.1, 0.1, 0.1]), "b": np.array([0.2, 0.2, 0.2])}
    rec = recommend(["a", "b"], mean_ranks(same), same, {"a": False, "b": False}, False)
    assert rec.method == "a" and "best mean rank" not in rec.reason


def test_scores_below_chance_are_warned_and_noted():
    # A new user's HistGradientBoosting scores for the other class: the order-keeping methods
    # came out flat and nothing said why (fit warns; compare did not)
    s, y = _binary()
    with pytest.warns(UserWarning, match=r"rank the positive class True below chance \(AUC 0\.0"
                                         r".*name False the positive class \(classes=\[True, "
                                         r"False\] in Python, --positive-label False"):
        result = compare(-s, y, methods=["platt", "ivap"], folds=2)
    assert len(result.notes) == 1 and result.to_dict()["notes"] == list(result.notes)
    flipped = compare(-s, y, classes=[True, False], methods=["platt", "ivap"], folds=2)
    assert flipped.notes == () and flipped.to_dict()["notes"] == []
    assert "score None" not in flipped.to_text()


def test_class_columns_out_of_order_are_warned_and_noted():
    # digits' logits in the model's order 0..9 against labels renamed "zero".."nine" (sorted as
    # text): every method calibrated nonsense (accuracy 9%) without a word
    z, y = _multiclass(n=300, temperature=0.3)
    names = np.array(["c", "a", "b"])  # column j is class names[j]; sorted order a, b, c
    with pytest.warns(UserWarning, match=r"out of the order of the classes.*read as 'c', 'a', "
                                         r"'b'.*classes=\['c', 'a', 'b'\] in Python, --classes "
                                         r"c,a,b on the command line"):
        result = compare(z, names[y], score="logit", methods=["temperature"], folds=2)
    assert len(result.notes) == 1
    right = compare(z, names[y], score="logit", classes=["c", "a", "b"], methods=["temperature"],
                    folds=2)
    assert right.notes == ()


@pytest.mark.parametrize("weight", [1e-310, 1e308])
def test_class_columns_out_of_order_are_noted_at_extreme_weights(weight):
    # the shares of the rows were w / w.sum(): weights near 1e308 summed to inf, shares 0, no note
    from venncal.multiclass._order import column_order_note

    z, y = _multiclass(n=300, temperature=0.3)
    w = np.full(y.shape[0], weight)
    note = column_order_note(z, (y + 1) % 3, ["a", "b", "c"], w)
    assert note is not None and "out of the order of the classes" in note
    assert column_order_note(z, y, ["a", "b", "c"], w) is None


@settings(deadline=None)
@given(cuts=st.lists(st.integers(0, 60), max_size=4).map(sorted),
       weights=st.lists(st.sampled_from([0.0, 5e-324, 1e-310, 1.0, 3.0, 2.0**53, 1e300, 1e308]),
                        min_size=60, max_size=60))
def test_order_tally_merges_to_the_tally_of_all_rows(cuts, weights):
    """The engines' merged tally: partitions merged in any grouping give the whole tally's
    shares (hits over their total), to rounding, and the same class counts."""
    from functools import reduce

    from venncal.multiclass._order import OrderTally

    rng = np.random.default_rng(len(cuts))
    z, y, w = rng.normal(size=(60, 3)), rng.integers(0, 3, 60), np.array(weights)
    whole = OrderTally.of(z, y, 3, w)
    edges = [0, *cuts, 60]
    parts = [OrderTally.of(z[a:b], y[a:b], 3, w[a:b]) for a, b in zip(edges, edges[1:])]
    merged = reduce(OrderTally.merge, parts[::-1])
    assert merged.rows.tolist() == whole.rows.tolist() == np.bincount(y[w > 0], minlength=3).tolist()
    assert merged.scale == whole.scale
    if whole.hits.sum() > 0:
        assert np.allclose(merged.hits / merged.hits.sum(), whole.hits / whole.hits.sum(),
                           rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("weight", [1e308, 1.7e308, 5e-324])
def test_below_chance_note_at_tied_weights_near_the_float_range(weight):
    """Attack 12's F1: weights of 1e308 on tied scores made the note's summary overflow, and
    any ValueError was read as "one class": the note went missing.  When every calibrator
    fails (the fits refuse such weights), the reason says so instead of "no calibrator
    improves on the scores themselves"."""
    rng = np.random.default_rng(0)
    s = np.round(rng.normal(size=200), 1)
    y = (rng.random(200) < 1 / (1 + np.exp(3 * s))).astype(int)
    with pytest.warns(UserWarning, match="below chance"):
        c = compare(s, y, score="logit", folds=3, sample_weight=np.full(200, weight),
                    methods=["uncalibrated", "platt", "ivap", "isotonic"])
    assert len(c.notes) == 1 and "AUC 0.100" in c.notes[0]
    rec = c.recommendation
    if weight > 1.0:  # every fit refuses tied weights past the float64 range
        assert c.ranked == ("uncalibrated",) and rec.method == "uncalibrated"
        assert "every calibrator failed on some fold" in rec.reason
        assert "no calibrator improves" not in rec.reason


def test_below_chance_note_quotes_the_label_for_the_shell():
    rng = np.random.default_rng(2)
    s = rng.normal(size=200)
    y = np.where(rng.random(200) < 1 / (1 + np.exp(3 * s)), "yes churn", "no churn")
    with pytest.warns(UserWarning, match="below chance"):
        c = compare(s, y, score="logit", folds=3, methods=["platt"])
    assert "--positive-label 'no churn' on the command line" in c.notes[0]


@pytest.mark.parametrize("weight", [1e308, 1e-310, 3.0])
def test_interval_width_is_the_weighted_mean_at_any_weight_scale(weight):
    # attack 18 F4: np.average overflowed to 0.0 with weights of 1e308 (and lost subnormal ones)
    from venncal.comparison._metrics import FoldPredictions, _interval_width

    interval = np.array([[0.1, 0.3], [0.2, 0.3], [0.5, 0.9]])
    w = np.array([1.0, 1.0, 1.5]) * weight
    f = FoldPredictions("binary", np.array([True, False, True]), None, interval, w)
    assert _interval_width(f) == pytest.approx((0.2 + 0.1 + 1.5 * 0.4) / 3.5, rel=1e-15)
    many = FoldPredictions("multiclass", np.array([0, 1, 2]), None,
                           np.stack([interval, interval], axis=1), w)
    assert _interval_width(many) == pytest.approx((0.2 + 0.1 + 1.5 * 0.4) / 3.5, rel=1e-15)


def test_a_default_left_out_for_want_of_a_score_kind_says_how_to_give_it():
    s, y = _binary(n=300)
    p = 1 / (1 + np.exp(-s))
    plain = compare(p, y, folds=3, seed=0)
    assert "beta was not compared" in plain.recommendation.reason
    assert "--score-kind on the command line" in plain.recommendation.reason
    told = compare(p, y, score="proba", folds=3, seed=0)
    assert "--score-kind" not in told.recommendation.reason
    # left out by methods=, not by the score kind: no hint
    chosen = compare(p, y, score="margin", methods=["platt", "quadratic-logistic"], folds=3, seed=0)
    assert "--score-kind" not in chosen.recommendation.reason


def test_a_fold_of_weight_zero_is_named():
    # attack 39 F4: every method failed on that fold with "sample_weight sums to zero", which
    # named no fold, and compare returned no ranking
    rng = np.random.default_rng(0)
    y, z = rng.integers(0, 3, 60), rng.normal(size=(60, 3))
    w = np.where(stratified_folds(y, 5, np.random.default_rng(0)) == 2, 0.0, 1.0)
    with pytest.raises(ValueError, match="fold 2 .*12 held-out rows all have sample_weight 0"):
        compare(z, y, score="logit", methods=["temperature"], sample_weight=w)
