"""Every metric against its literal formula, written out with plain loops."""

import json
import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from venncal.metrics import (
    Evaluation,
    accuracy,
    brier_loss,
    ece,
    evaluate,
    interval_width,
    log_loss,
    mce,
    rmse,
    roc_auc,
)

TOL = 1e-12


def cases():
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


def literal_log_loss(y, p, base):
    total = 0.0
    for yi, pi in zip(y, p):
        q = pi if yi == 1 else 1 - pi
        total += -math.log(q) / math.log(base)
    return total / len(y)


def literal_bins(y, p, K):
    bins = [[] for _ in range(K)]
    for yi, pi in zip(y, p):
        k = min(int(math.floor(pi * K)), K - 1)
        # floor(p * K) can round across an edge; compare with the edges k / K.
        while k + 1 < K and pi >= (k + 1) / K:
            k += 1
        while k > 0 and pi < k / K:
            k -= 1
        bins[k].append((yi, pi))
    return [b for b in bins if b]


def literal_ece_mce(y, p, K):
    n = len(y)
    e_sum, m = 0.0, 0.0
    for b in literal_bins(y, p, K):
        o = sum(yi for yi, _ in b) / len(b)
        e = sum(pi for _, pi in b) / len(b)
        e_sum += len(b) / n * abs(o - e)
        m = max(m, abs(o - e))
    return e_sum, m


def literal_auc(y, p):
    pos = [pi for yi, pi in zip(y, p) if yi == 1]
    neg = [pi for yi, pi in zip(y, p) if yi == 0]
    wins = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg)
    return wins / (len(pos) * len(neg))


@pytest.mark.parametrize(("y", "p"), cases())
def test_losses_match_formulas(y, p):
    for base in (2, math.e, 10):
        assert log_loss(y, p, base=base) == pytest.approx(literal_log_loss(y, p, base), abs=TOL)
    brier = sum((yi - pi) ** 2 for yi, pi in zip(y, p)) / len(y)
    assert brier_loss(y, p) == pytest.approx(brier, abs=TOL)
    assert brier_loss(y, p, scale=4) == pytest.approx(4 * brier, abs=TOL)
    assert rmse(y, p) == pytest.approx(math.sqrt(brier), abs=TOL)
    acc = sum((pi > 0.5) == (yi == 1) for yi, pi in zip(y, p)) / len(y)
    assert accuracy(y, p) == pytest.approx(acc, abs=TOL)


@pytest.mark.parametrize(("y", "p"), cases())
@pytest.mark.parametrize("K", [1, 2, 10, 15])
def test_ece_mce_uniform_bins_match_formulas(y, p, K):
    e, m = literal_ece_mce(y, p, K)
    assert ece(y, p, n_bins=K) == pytest.approx(e, abs=TOL)
    assert mce(y, p, n_bins=K) == pytest.approx(m, abs=TOL)


@pytest.mark.parametrize(("y", "p"), cases())
def test_auc_matches_mann_whitney_and_sklearn(y, p):
    if len(set(y.tolist())) < 2:
        with pytest.raises(ValueError, match="class"):
            roc_auc(y, p)
        return
    assert roc_auc(y, p) == pytest.approx(literal_auc(y, p), abs=TOL)
    assert roc_auc(y, p) == pytest.approx(roc_auc_score(y, p), abs=TOL)


def test_bin_edges_and_extremes():
    # p exactly on an edge goes to the bin above it, p = 1 to the last bin.
    y = np.array([0, 1, 1, 1])
    p = np.array([0.0, 0.5, 1.0, 0.5])
    # bin [0, 0.5): p = 0, y = 0 (gap 0); bin [0.5, 1]: o = 1, e = 2/3.
    assert ece(y, p, n_bins=2) == pytest.approx(0.75 * (1 - 2 / 3), abs=TOL)
    assert mce(y, p, n_bins=2) == pytest.approx(1 / 3, abs=TOL)
    assert mce(y, p, n_bins=1) == pytest.approx(abs(0.75 - 0.5), abs=TOL)


def test_quantile_bins_keep_ties_together():
    y = np.array([0, 1, 0, 1, 1, 1, 0, 1])
    p = np.array([0.2, 0.2, 0.2, 0.2, 0.2, 0.9, 0.9, 0.9])
    # Two equal-mass bins would split the run of 0.2s at rank 4: the whole run
    # goes to the upper bin, which then holds everything.
    expected_ece = abs(5 / 8 - (5 * 0.2 + 3 * 0.9) / 8)
    assert ece(y, p, n_bins=2, strategy="quantile") == pytest.approx(expected_ece, abs=TOL)
    rng = np.random.default_rng(1)
    p = rng.random(1000)
    y = (rng.random(1000) < p).astype(int)
    # Distinct values: quantile bins hold equal counts.
    order = np.argsort(p)
    e = 0.0
    for chunk in np.array_split(order, 10):
        e += len(chunk) / 1000 * abs(y[chunk].mean() - p[chunk].mean())
    assert ece(y, p, n_bins=10, strategy="quantile") == pytest.approx(e, abs=TOL)


def test_log_loss_infinite_without_warning_and_eps():
    assert log_loss([1, 0], [0.0, 0.5]) == math.inf  # filterwarnings=error guards warnings
    assert log_loss([1, 0], [1.0, 0.0]) == 0.0
    assert log_loss([1], [0.0], eps=0.01) == pytest.approx(-math.log2(0.01))
    assert log_loss([0, 1], [0.5, 0.5]) == pytest.approx(1.0)


def test_labels_weights_and_interval_width():
    y = np.array(["no", "yes", "yes", "no"])
    p = np.array([0.2, 0.7, 0.4, 0.1])
    y01 = (y == "yes").astype(int)
    assert log_loss(y, p, pos_label="yes") == log_loss(y01, p)
    assert brier_loss(y01.astype(bool), p) == brier_loss(y01, p)
    w = np.array([1.0, 2.0, 0.0, 3.0])
    rep = np.repeat(np.arange(4), [1, 2, 0, 3])
    assert brier_loss(y01, p, sample_weight=w) == pytest.approx(brier_loss(y01[rep], p[rep]))
    assert interval_width([0.1, 0.5], [0.3, 0.6]) == pytest.approx(0.15)


def test_evaluate_table_and_json():
    rng = np.random.default_rng(2)
    p = rng.random(200)
    y = (rng.random(200) < p).astype(int)
    interval = np.column_stack((p * 0.9, p * 0.9 + 0.1))
    table = evaluate(y, p, interval=interval)
    assert isinstance(table, Evaluation)
    assert list(table) == [
        "log_loss", "brier", "rmse", "ece", "mce", "auc", "accuracy", "interval_width"
    ] or set(table) == {
        "log_loss", "brier", "rmse", "ece", "mce", "auc", "accuracy", "interval_width"
    }
    assert table["log_loss"] == log_loss(y, p)
    assert table["ece"] == ece(y, p)
    assert table["interval_width"] == pytest.approx(0.1)
    parsed = json.loads(table.to_json())
    assert parsed["brier"] == pytest.approx(brier_loss(y, p))
    text = table.to_text()
    assert all(name in text for name in table)
    bad = evaluate([1, 0], [0.0, 0.5])
    assert bad["log_loss"] == math.inf
    json.loads(bad.to_json())  # infinity is encoded, never bare Infinity


@pytest.mark.parametrize(
    ("y", "p", "match"),
    [
        ([0, 1], [0.5, np.nan], "NaN|finite"),
        ([0, 1], [0.5, 1.2], r"\[0, 1\]|range|between"),
        ([0, 1, 1], [0.5, 0.5], "length"),
        ([], [], "empty"),
        ([0, 2], [0.5, 0.5], "label|0 and 1|pos_label"),
        ([0, 1], [[0.5, 0.5], [0.5, 0.5]], "1-D|shape"),
    ],
)
def test_bad_input(y, p, match):
    with pytest.raises(ValueError, match=match):
        brier_loss(y, p)
