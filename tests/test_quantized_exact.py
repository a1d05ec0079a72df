"""Quantized isotonic regression with fractional and extreme weights: exact, or a clear error.

Issue 22 (items 2 and 7) and issue 21: with fractional weights the stream
drifted from a fresh fit (rounding residues, refused exact deletes, a
window's delete that failed and was ignored, groups of weight 0); weights
1e308 gave a wrong constant map; ``levels=1e8`` took 58 s and 11 GB.  The
first tests here are those cases (they failed before the exact weights);
the randomized ones compare the streams with an exact reference
(``fractions.Fraction`` weights and targets, pool-adjacent-violators, then
the nearest level) and with the batch calibrator.
"""

from __future__ import annotations

import pickle
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference.quantized_naive import exact_map, exhaustive_quantized, loss_of_map

from venncal import QuantizedIsotonicCalibrator
from venncal._kernels.exact import midpoint_sign
from venncal.baselines.quantized import MAX_LEVELS, check_levels
from venncal.online.quantized import OrderedQuantizedIsotonic, QuantizedIsotonic


def levels_at(model, keys):
    return [model.predict_one(k) for k in keys]


# ------------------------------------------------------------------ the cases


def test_window_delete_is_exact_with_fractional_weights():
    # 1.001 - 0.001 < 1.0 in floating point: the window's delete of (0.5, 1, 1.0)
    # was refused and ignored, and the observation never left the window.
    model = QuantizedIsotonic(levels=5, window=2)
    for row in [(0.5, 1, 0.001), (0.5, 1, 1.0), (0.2, 0, 1.0), (0.3, 0, 1.0)]:
        model.learn_one(*row)
    fresh = QuantizedIsotonicCalibrator(levels=5, classes=[0, 1]).fit([0.2, 0.3], [0, 0])
    np.testing.assert_array_equal(model.predict([0.2, 0.5]), [0.0, 0.0])
    np.testing.assert_array_equal(model.thresholds_, fresh.thresholds_)
    np.testing.assert_array_equal(model.values_, fresh.values_)
    assert model.n_distinct == 2


def test_deleting_all_that_was_inserted_leaves_nothing():
    # 0.1 + 0.2 - 0.1 - 0.2 left 2.8e-17 at the score, a group of mean 1.
    model = QuantizedIsotonic(levels=5)
    model.insert(0.4, 0, 1.0)
    model.insert(0.5, 1, 0.1)
    model.insert(0.5, 1, 0.2)
    model.delete(0.5, 1, 0.1)
    model.delete(0.5, 1, 0.2)
    assert model.n_distinct == 1
    assert model.predict_one(0.5) == 0.0
    np.testing.assert_array_equal(model.groups()["weight"], [1.0])


def test_deleting_exactly_what_was_inserted_is_not_refused():
    # 0.7 + 0.1 - 0.7 < 0.1 in floating point: the second delete was refused.
    model = QuantizedIsotonic(levels=5)
    model.insert(0.5, 1, 0.7)
    model.insert(0.5, 1, 0.1)
    model.delete(0.5, 1, 0.7)
    model.delete(0.5, 1, 0.1)
    assert model.n_distinct == 0
    assert model.n_groups == 0


def test_no_group_of_weight_zero():
    # 1 + 1e-17 - 1 is 0 in floating point: a score of weight 0 (and mean inf).
    model = QuantizedIsotonic(levels=5)
    model.insert(0.5, 0, 1.0)
    model.insert(0.5, 1, 1e-17)
    model.delete(0.5, 0, 1.0)
    groups = model.groups()
    np.testing.assert_array_equal(groups["weight"], [1e-17])
    np.testing.assert_array_equal(groups["level"], [1.0])


def test_more_than_is_present_is_refused_and_nothing_changes():
    model = QuantizedIsotonic(levels=5)
    model.insert(0.5, 1, 0.1)
    model.insert(0.5, 1, 0.2)
    with pytest.raises(ValueError, match="less weight of .score, y. is held"):
        model.delete(0.5, 1, 0.1 + 0.2)  # 0.30000000000000004 > 0.1 + 0.2 exactly
    model.delete(0.5, 1, 0.2)
    model.delete(0.5, 1, 0.1)
    assert model.n_distinct == 0


def test_a_mean_that_rounds_onto_a_midpoint_gets_the_nearer_level():
    # Levels 0, fl(1/3), fl(2/3), 1: a block of mean exactly 1/6 is nearer to
    # fl(1/3) (which is below 1/3) than to 0, but fl(1/6) is the float split
    # point, and the rounded mean went to level 0: not the best map.
    scores, y, w = [0.1, 0.1], [1, 0], [1.0, 5.0]
    levels = np.linspace(0, 1, 4)
    cal = QuantizedIsotonicCalibrator(levels=4).fit(scores, y, w)
    best, maps = exhaustive_quantized(scores, y, w, levels)
    assert maps == [(levels[1],)]
    assert cal.values_.tolist() == [levels[1]]
    assert loss_of_map(scores, y, w, {0.1: 0.0}) > best
    for stream in (QuantizedIsotonic(4), OrderedQuantizedIsotonic(4), QuantizedIsotonic(1001)):
        stream.learn_many(scores, y, w)
        expected = exact_map({(0.1, 1.0): 1.0, (0.1, 0.0): 5.0}, stream.levels_)[1]
        assert stream.values_.tolist() == expected
        assert expected != [0.0]


def test_huge_weights_batch():
    # Weights 1e308 x 4 overflowed to a constant map of 1.
    cal = QuantizedIsotonicCalibrator(levels=5).fit([0.1] * 4, [0, 1, 1, 0], [1e308] * 4)
    assert cal.values_.tolist() == [0.5]
    cal = QuantizedIsotonicCalibrator(levels=5).fit([0.1, 0.2, 0.3, 0.4], [1, 0, 1, 1],
                                                    [1e308] * 4)
    np.testing.assert_array_equal(cal.predict_proba([0.1, 0.25, 0.4])[:, 1], [0.5, 0.5, 1.0])


def test_huge_weights_stream_is_a_clear_error():
    model = QuantizedIsotonic(levels=5)
    model.insert(0.1, 1, 1e300)
    before = model.groups()
    with pytest.raises(ValueError, match=r"beyond 2\*\*1000.*multiply every weight"):
        model.learn_many([0.2, 0.3], [0, 1], [1e308, 1e308])
    for key, v in model.groups().items():  # nothing changed
        np.testing.assert_array_equal(v, before[key])
    ordered = OrderedQuantizedIsotonic(levels=5)
    with pytest.raises(ValueError, match=r"beyond 2\*\*1000"):
        ordered.learn_many([0.1] * 4, [0, 1, 1, 0], [1e308] * 4)
    # Scaled by one factor, the same data give the batch's map.
    scaled = QuantizedIsotonic(levels=5)
    scaled.learn_many([0.1] * 4, [0, 1, 1, 0], [1e308 * 2.0**-60] * 4)
    assert scaled.values_.tolist() == [0.5]


def test_huge_number_of_levels_is_refused_at_once():
    for make in (lambda: QuantizedIsotonicCalibrator(levels=100_000_000).fit([0.1, 0.2], [0, 1]),
                 lambda: QuantizedIsotonic(levels=100_000_000),
                 lambda: OrderedQuantizedIsotonic(levels=10**12),
                 lambda: check_levels(MAX_LEVELS + 1),
                 lambda: check_levels(np.linspace(0, 1, MAX_LEVELS + 1))):
        with pytest.raises(ValueError, match=f"{MAX_LEVELS:,}|{MAX_LEVELS}"):
            make()
    assert check_levels(MAX_LEVELS).shape == (MAX_LEVELS,)


def test_many_levels_stream_stays_small():
    model = QuantizedIsotonic(levels=MAX_LEVELS)
    rng = np.random.default_rng(0)
    s = rng.random(300)
    model.learn_many(s, (rng.random(300) < s).astype(float), rng.random(300))
    assert sum(a.nbytes for a in model._tree) < 20e6


# ------------------------------------------------------------------ exact against exact


def random_weight(rng, kind):
    if kind == 0:
        return float(rng.integers(1, 2001)) * 0.001  # multiples of 0.001 (not exact in binary)
    if kind == 1:
        return float(np.exp(rng.uniform(np.log(1e-3), np.log(10))))
    if kind == 2:
        return float(rng.choice([1e-300, 1e300, 5e-324, 1e-310, 0.5, 3.0]))
    return float(rng.integers(1, 4))


def random_levels(rng):
    if rng.random() < 0.5:
        return int(rng.choice([2, 3, 4, 5, 7, 11, 101]))
    k = int(rng.integers(2, 6))
    return np.sort(rng.choice(np.arange(0, 21) / 20, size=k, replace=False))


def check_exact(model, multiset, levels):
    present = {k: v for k, v in multiset.items() if v != 0}
    if not present:
        assert model.n_groups == 0
        return
    keys, expected, _ = exact_map(present, check_levels(levels) if isinstance(levels, int)
                                  else levels)
    assert levels_at(model, keys) == expected
    assert model.n_distinct == len(keys)


def run_stream(rng, levels, window, n_ops, binary, kind, bucket):
    """A random stream of inserts, deletes (of parts inserted) or a window; checked after each."""
    model = QuantizedIsotonic(levels, window=window)
    if bucket:
        model._bucket = model._sparse_bucket = bucket
        model._allocate(2)
    parts, ring = {}, []  # (score, target) -> the weights inserted and still present
    for _ in range(n_ops):
        if window is None and parts and rng.random() < 0.35:
            key = list(parts)[int(rng.integers(len(parts)))]
            model.delete(*key, parts[key].pop(int(rng.integers(len(parts[key])))))
            if not parts[key]:
                del parts[key]
        else:
            s = float(rng.integers(0, 8)) / 8
            y = float(rng.integers(0, 2)) if binary else float(rng.choice([0, 0.3, 0.5, 1, 2]))
            w = random_weight(rng, kind if rng.random() < 0.8 else int(rng.integers(0, 4)))
            if w == 1e300 and sum(r[2] == 1e300 for r in ring) + sum(
                    v.count(1e300) for v in parts.values()) >= 5:
                w = 1.0  # the weights held stay below 2**1000
            model.insert(s, y, w)
            if window is None:
                parts.setdefault((s, y), []).append(w)
            else:
                ring = [*ring, (s, y, w)][-window:]
        if window is not None:
            parts = {}
            for a, b, c in ring:
                parts.setdefault((a, b), []).append(c)
        multiset = {k: sum(map(Fraction, v), Fraction(0)) for k, v in parts.items()}
        check_exact(model, multiset, levels)
        if binary and multiset and (window is not None or rng.random() < 0.2):
            check_batch(model, parts, levels)
    return model


def check_batch(model, parts, levels):
    """A fresh batch fit of the rows present: the stream's map and the exact one, level for level."""
    rows = [(s, y, w) for (s, y), ws in parts.items() for w in ws]
    s, y, w = (np.array(v) for v in zip(*rows, strict=True))
    lv = check_levels(levels) if isinstance(levels, int) else np.asarray(levels)
    batch = QuantizedIsotonicCalibrator(levels=lv, classes=[0, 1]).fit(s, y.astype(int), w)
    keys, expected, _ = exact_map({k: sum(map(Fraction, v)) for k, v in parts.items()}, lv)
    assert batch.predict_proba(keys)[:, 1].tolist() == expected
    np.testing.assert_array_equal(batch.thresholds_, model.thresholds_)
    np.testing.assert_array_equal(batch.values_, model.values_)


_weights = st.sampled_from([0.1, 0.2, 0.3, 0.7, 1.0, 3.0, 2.0**53, 1e-300, 5e-324, 1e-310, 1e290,
                            1e300, 0.001, 1 / 3])


@given(ops=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 1), _weights, st.booleans()),
                    min_size=1, max_size=10),
       levels=st.sampled_from([2, 3, 5, 11, 101, (0.0, 0.3, 0.35, 1.0)]),
       window=st.sampled_from([None, None, 1, 2, 4]))
@settings(max_examples=200, deadline=None)
def test_stream_equals_a_fresh_batch_fit(ops, levels, window):
    """Issue 22: after inserts, deletes or a window's drops, a fresh batch fit of the rows
    present has the stream's map, level for level (fractional, tiny, huge and 2**53 + 1 weights)."""
    lv = levels if isinstance(levels, int) else np.array(levels)
    model = QuantizedIsotonic(lv, window=window)
    rows = []
    for score, y, w, delete in ops:
        if delete and window is None and rows:
            s0, y0, w0 = rows.pop(score % len(rows))
            model.delete(s0, y0, w0)
        else:
            rows.append((score / 5, y, w))
            model.insert(score / 5, y, w)
            rows = rows[-window:] if window is not None else rows
        if rows:
            parts = {}
            for s0, y0, w0 in rows:
                parts.setdefault((s0, float(y0)), []).append(w0)
            check_batch(model, parts, lv)


def test_batch_sums_each_score_exactly():
    """Issue 22 F3: 0.7 + 0.1 is kept exactly (the float sum 0.7999999999999999 is above it),
    so F(0.7) / (F(0.7) + F(0.1)) < 7/8 goes to 0.75, as the stream has it."""
    s, y, w = np.array([0.0, 0.0, 1.0]), np.array([1, 0, 1]), np.array([0.7, 0.1, 1.0])
    batch = QuantizedIsotonicCalibrator(levels=5).fit(s, y, sample_weight=w)
    assert batch.predict_proba(np.array([0.0]))[0, 1] == 0.75
    stream = QuantizedIsotonic(5)
    stream.learn_many(s, y, sample_weight=w)
    assert stream.predict_proba_many(np.array([0.0]))[0, 1] == 0.75
    # Sums that two doubles do not hold: positive 2**53 + 1 + 1e-310 (rounded: 2**53 + 2),
    # negative 2**53 + 1; the rounded mean is 1/2 exactly (level 0), the exact one above it.
    s, y = np.zeros(4), np.array([1, 1, 1, 0])
    w = np.array([2.0**53, 1.0, 1e-310, 2.0**53 + 1])
    for levels in ([0.0, 1.0], 2):
        batch = QuantizedIsotonicCalibrator(levels=levels).fit(s, y, sample_weight=w)
        assert batch.values_.tolist() == [1.0]
        stream = QuantizedIsotonic(levels)
        stream.learn_many(s, y, sample_weight=w)
        assert stream.values_.tolist() == [1.0]


def test_even_levels_are_correctly_rounded():
    """Issue 22 F7: levels=11 holds the double nearest 3/10 (linspace gave 0.30000000000000004),
    so a mean just above the exact midpoint 0.25 goes to 0.3, the level reported is 0.3."""
    for k in (2, 3, 11, 101, 1001, MAX_LEVELS):
        lv = check_levels(k)
        assert [Fraction(x) for x in lv] == [Fraction(float(Fraction(j, k - 1))) for j in range(k)]
    s, y, w = np.array([0.0, 0.1]), np.array([1, 0]), np.array([0.1, 0.3])
    batch = QuantizedIsotonicCalibrator(levels=11).fit(s, y, sample_weight=w)
    assert batch.predict_proba(np.array([0.0]))[0, 1] == 0.3
    stream = QuantizedIsotonic(11)
    stream.learn_many(s, y, sample_weight=w)
    assert stream.predict_one(0.0) == 0.3
    assert exhaustive_quantized(s, y, w, check_levels(11))[1] == [(0.3, 0.3)]


@pytest.mark.parametrize("seed", range(12))
def test_streams_with_fractional_weights_equal_the_exact_fit(seed):
    """Random insert/delete/window streams: the map equals the exact fit everywhere."""
    rng = np.random.default_rng(1000 + seed)
    for _ in range(50):
        run_stream(rng, random_levels(rng),
                   int(rng.integers(1, 12)) if rng.random() < 0.4 else None,
                   int(rng.integers(1, 25)), rng.random() < 0.7, int(rng.integers(0, 4)),
                   int(rng.choice([0, 2, 3])))


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(20))
def test_streams_with_fractional_weights_equal_the_exact_fit_long(seed):
    rng = np.random.default_rng(5000 + seed)
    for _ in range(100):
        run_stream(rng, random_levels(rng),
                   int(rng.integers(1, 40)) if rng.random() < 0.4 else None,
                   int(rng.integers(1, 80)), rng.random() < 0.7, int(rng.integers(0, 4)),
                   int(rng.choice([0, 2, 3])))


# ------------------------------------------------------------------ the kernels' exact sign


def _exact_midpoint_sign(num, den, h, e):
    d = 2 * Fraction(num) - (Fraction(h) + Fraction(e)) * Fraction(den)
    return (d > 0) - (d < 0)


_finite = st.one_of(
    st.floats(-1e30, 1e30, allow_subnormal=True),
    st.sampled_from([0.0, 5e-324, 1e-310, 1e-300, 2.0**-960, 1e300, 2.0**994, 2.0**1000]),
)


@given(num=_finite, den=st.one_of(st.floats(5e-324, 1e30), st.sampled_from([1e-300, 2.0**994])),
       a=_finite, b=_finite)
@settings(max_examples=300)
def test_midpoint_sign_is_exact_or_says_it_cannot(num, den, a, b):
    """``midpoint_sign`` gives the exact sign of ``2 num - (h + e) den``, or -2."""
    h = a + b
    e = float(Fraction(a) + Fraction(b) - Fraction(h)) if np.isfinite(h) else 0.0
    sign = midpoint_sign(num, den, h, e)
    assert sign in (-2, -1, 0, 1)
    if sign != -2:
        assert sign == _exact_midpoint_sign(num, den, h, e)


def test_midpoint_sign_near_a_midpoint():
    """Means one rounding either side of a midpoint, and exactly on it."""
    for lo_, hi_ in ((0.0, 1 / 3), (0.1, 0.2), (1 / 3, 2 / 3), (0.3, 0.7)):
        h = lo_ + hi_
        e = float(Fraction(lo_) + Fraction(hi_) - Fraction(h))
        for den in (3.0, 7.0, 0.1, 1e-300 * 3, 12345.678):
            mid = (Fraction(lo_) + Fraction(hi_)) / 2 * Fraction(den)
            for num in (float(mid), np.nextafter(float(mid), 0), np.nextafter(float(mid), 1)):
                assert midpoint_sign(num, den, h, e) in (_exact_midpoint_sign(num, den, h, e), -2)
    assert midpoint_sign(0.5, 1.0, 1.0, 0.0) == 0  # exactly on the midpoint


def test_midpoint_sign_product_that_underflows_to_zero():
    """A product below the smallest float rounds to 0: the sign is not taken from it."""
    # 2 * 0 - 1e-300 * 1e-30 < 0 exactly, but the float product is 0.
    assert midpoint_sign(0.0, 1e-30, 1e-300, 0.0) in (-1, -2)


@pytest.mark.parametrize("weights", ["ones", "tenths", "mixed"])
def test_batch_pools_runs_of_mean_0_and_1_exactly(weights):
    """The batch pushes a run of scores of mean exactly 0 (or 1) as one group.

    Long runs of one label, with weights whose sums stay exact (whole
    numbers) or not (0.1: the run is cut where a sum rounds): the map is
    the exact fit's (one observation per score: the summary's sums are the
    weights, so the batch is exact here).
    """
    rng = np.random.default_rng(7)
    n = 400
    s = np.arange(n) / n
    y = (np.sin(np.arange(n) / 9.0) + 2 * s > 0.9).astype(int)  # runs of 0 and of 1
    w = {"ones": np.ones(n), "tenths": np.full(n, 0.1),
         "mixed": rng.choice([0.1, 1.0, 3.0, 1e-3], n)}[weights]
    for levels in (4, 11, 101, np.array([0.0, 0.3, 0.5, 1.0])):
        lv = check_levels(levels) if isinstance(levels, int) else levels
        cal = QuantizedIsotonicCalibrator(levels=levels).fit(s, y, w)
        keys, expected, _ = exact_map({(a, float(b)): c for a, b, c in zip(s, y, w, strict=True)},
                                      lv)
        np.testing.assert_array_equal(cal.predict_proba(keys)[:, 1], expected)
