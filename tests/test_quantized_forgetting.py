"""QuantizedIsotonic(half_life=...): exponential forgetting against a literal batch reference.

The reference is the definition: after ``T`` observations, observation ``t``
of weight ``w`` weighs ``w * 2.0**(-(T - t) / h)`` (leaving when that is below
``2**-1022``), and the map is the exact projected isotonic fit of those
weights (:func:`reference.quantized_naive.exact_map`).  The stream must give
the same level at every score held, except where the reference's isotonic
value lies within the documented 1e-12 of a midpoint between levels.
"""

from __future__ import annotations

import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference.quantized_naive import exact_map, midpoint_distance

from venncal.online import QuantizedIsotonic

TOL = Fraction(1, 10**12)


class Refused(Exception):
    """The documented rules refuse the row at index ``i`` (positive weights counted)."""

    def __init__(self, i):
        super().__init__(i)
        self.i = i


def simulate(s, y, w, h):
    """The rows held after the stream, ``[(t, score, target, u)]``, and the step, by the rules
    of docs/online.md taken literally, step by step: weights relative to the largest held (its
    power of two: ``u = w 2**(1 - top)``), raised when a larger comes (refused if that would
    make an observation leave at once), lowered when none of its power is held; an observation
    leaves at the first step at which ``u 2.0**(-(T - t) / h)`` is below 2**-1022.  Raises
    :class:`Refused` at a refused row."""
    keep = np.asarray(w) > 0  # a zero weight drops its row: no step
    s, y, w = np.asarray(s)[keep], np.asarray(y)[keep], np.asarray(w)[keep]
    tiny = 2.0**-1022
    held, top = [], None

    def alive(u, t, T):
        return u * 2.0 ** (-(T - t) / h) >= tiny

    for T in range(1, len(s) + 1):
        e = math.frexp(float(w[T - 1]))[1]
        if top is None:
            top = e
        if e > top:
            k = e - top
            if any(alive(u, t, T) and not alive(math.ldexp(u, -k), t, T) for t, _, _, u in held):
                raise Refused(T - 1)
            held = [(t, a, b, math.ldexp(u, -k)) for t, a, b, u in held]
            top = e
        u = math.ldexp(float(w[T - 1]), 1 - top)
        if u < tiny:
            raise Refused(T - 1)
        held.append((T, float(s[T - 1]), float(y[T - 1]), u))
        held = [row for row in held if alive(row[3], row[0], T)]
        if not held:
            top = None
        elif max(row[3] for row in held) < 1.0:  # lowered to the largest held
            k = 1 - math.frexp(max(row[3] for row in held))[1]
            held = [(t, a, b, math.ldexp(u, k)) for t, a, b, u in held]
            top -= k
    return held, len(s)


def literal(s, y, w, h, levels):
    """Scores held, their levels and exact isotonic values, by the definition."""
    held, T = simulate(s, y, w, h)
    cells = {}
    for t, a, b, u in held:
        cells[(a, b)] = cells.get((a, b), Fraction(0)) + Fraction(u * 2.0 ** (-(T - t) / h))
    return exact_map(cells, levels)


def check(model, s, y, w, h):
    lv = model.levels_
    keys, levels, means = literal(s, y, w, h, lv)
    if not keys:
        assert model.n_distinct == 0
        return
    assert model.thresholds_[0] == keys[0] and model.thresholds_[-1] == keys[-1]
    assert model.n_distinct == len(keys)
    got = model.predict(np.array(keys))
    for k, a, b, m in zip(keys, got, levels, means, strict=True):
        if a != b:
            assert midpoint_distance(m, lv) <= TOL, (k, a, b, float(m))


# (a span of 1e305 at most: beyond 2**1022 the lighter weight is refused, see below)
weights = st.sampled_from([1.0, 1.0, 2.0, 0.5, 0.0, 3.7, 1e-300, 1e-200, 1e5, 0.001])


@given(
    n=st.integers(1, 400),
    h=st.sampled_from([0.005, 0.01, 0.013, 0.5, 1.0, 2.5, 7.0, 30.0]),
    seed=st.integers(0, 2**31),
    wlist=st.lists(weights, min_size=1, max_size=400),
    split=st.floats(0, 1),
)
def test_forgetting_equals_the_literal_batch_fit(n, h, seed, wlist, split):
    rng = np.random.default_rng(seed)
    s = np.round(rng.random(n), 2)  # ties
    y = (rng.random(n) < s).astype(float)
    w = np.array([wlist[i % len(wlist)] for i in range(n)])
    try:  # where the rules refuse a row: the stream up to it, and the refusal
        simulate(s, y, w, h)
        end = n
    except Refused as exc:
        end = int(np.flatnonzero(w > 0)[exc.i])
    model = QuantizedIsotonic(levels=11, half_life=h)
    m = int(split * n)
    if np.any(w[:m] > 0):  # (learn_many refuses weights that sum to zero)
        if end < m:  # refused, all of it: nothing learned
            with pytest.raises(ValueError, match="2\\*\\*1022"):
                model.learn_many(s[:m], y[:m], w[:m])
            assert model.n_distinct == 0
            return
        model.learn_many(s[:m], y[:m], w[:m])  # a batch, then single calls
    else:
        m = 0
    for i in range(m, n):
        if i == end:
            with pytest.raises(ValueError, match="2\\*\\*1022"):
                model.learn_one(float(s[i]), float(y[i]), float(w[i]))
            break
        model.learn_one(float(s[i]), float(y[i]), float(w[i]))
    check(model, s[:end], y[:end], w[:end], h)
    check(pickle.loads(pickle.dumps(model)), s[:end], y[:end], w[:end], h)


@pytest.mark.parametrize("n", [1100, pytest.param(3000, marks=pytest.mark.slow)])
def test_long_stream_rescales_and_old_observations_leave(n):
    """h = 1: a rescale every 256 steps, each observation of weight 1 held for 1022 steps."""
    rng = np.random.default_rng(3)
    s = rng.random(n)
    y = (rng.random(n) < s).astype(float)
    w = np.ones(n)
    model = QuantizedIsotonic(levels=21, half_life=1.0)
    for i in range(n):
        model.insert(float(s[i]), float(y[i]))
        if i % 499 == 0:
            check(model, s[: i + 1], y[: i + 1], w[: i + 1], 1.0)
    assert model.n_distinct == 1023  # steps T - 1022 .. T: w 2**-1022 is the last normal
    check(model, s, y, w, 1.0)
    batch = QuantizedIsotonic(levels=21, half_life=1.0)
    batch.learn_many(s, y)
    np.testing.assert_array_equal(batch.values_, model.values_)
    np.testing.assert_array_equal(batch.thresholds_, model.thresholds_)


@pytest.mark.parametrize("factor", [1.0, 2.0**-1000, 1e-300, 3.0, 1e300, 2.0**-1070])
def test_a_common_factor_of_the_weights_does_not_change_the_map(factor):
    """Attack 38 F1: with weights of 1e-300 the observation at 0 left after 25 steps at h = 1
    (its absolute decayed weight below 2**-1022), where the fit of the stream keeps it: 1.0 for
    0.0.  Weights are held relative to the largest one's power of two."""
    s, y = [0.0] + [1.0] * 30, [0.0] + [1.0] * 30
    one = QuantizedIsotonic(levels=11, half_life=1.0)
    for a, b in zip(s, y, strict=True):
        one.learn_one(a, b, factor)
    many = QuantizedIsotonic(levels=11, half_life=1.0)
    many.learn_many(s, y, np.full(31, factor))
    for model in (one, many, pickle.loads(pickle.dumps(many))):
        assert model.thresholds_.tolist() == [0.0, 1.0]
        assert model.predict([0.0, 1.0]).tolist() == [0.0, 1.0]
    check(many, np.array(s), np.array(y), np.full(31, factor), 1.0)


def test_a_weight_beyond_2_1022_of_the_largest_is_refused():
    model = QuantizedIsotonic(levels=5, half_life=1.0)
    model.learn_one(0.9, 1, 1e300)
    with pytest.raises(ValueError, match="below 2\\*\\*-1022 times the largest weight"):
        model.learn_one(0.1, 0, 1e-300)
    with pytest.raises(ValueError, match="below 2\\*\\*-1022 times the largest weight"):
        model.learn_many([0.1, 0.2], [0, 1], [1e308, 1.0])  # the largest comes first
    assert model.n_distinct == 1 and model._decay.T == 1  # nothing changed


def test_a_larger_weight_shortens_the_lives_of_the_lighter_ones():
    """A weight of 1e-300 beside weights of 1 (about 2**-997 of them) is held 25 steps at h = 1,
    then leaves with its score, whether it came first or later."""
    for first in (True, False):
        model = QuantizedIsotonic(levels=5, half_life=1.0)
        if not first:
            model.learn_one(0.1, 0)
        model.learn_one(0.9, 1, 1e-300)
        for _ in range(25):
            model.learn_one(0.1, 0)
        assert model.thresholds_.tolist() == [0.1, 0.9]
        model.learn_one(0.1, 0)
        assert model.thresholds_.tolist() == [0.1]


def test_tiny_weight_leaves_cleanly():
    """A weight of 1e-300 (about 2**-997) is held 25 steps at h = 1, then leaves with its score."""
    model = QuantizedIsotonic(levels=5, half_life=1.0)
    model.learn_one(0.9, 1, 1e-300)
    for _ in range(25):
        model.learn_one(0.1, 0)
    assert model.thresholds_.tolist() == [0.1, 0.9]
    assert model.predict([0.9])[0] == 1.0  # its own group, above the zeros: still counts
    model.learn_one(0.1, 0)
    assert model.thresholds_.tolist() == [0.1]
    assert model.predict([0.9])[0] == 0.0
    assert model.groups()["weight"][0] > 1.0


def test_forgetting_follows_a_drift():
    rng = np.random.default_rng(0)
    model = QuantizedIsotonic(levels=11, half_life=200)
    s = rng.random(4000)
    y = np.where(np.arange(4000) < 2000, rng.random(4000) < s, rng.random(4000) < s**3)
    model.learn_many(s, y.astype(float))
    assert abs(model.predict([0.5])[0] - 0.1) <= 0.1 + 1e-12


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "2", True])
def test_bad_half_life_is_refused(bad):
    with pytest.raises(ValueError, match="half_life"):
        QuantizedIsotonic(half_life=bad)


@pytest.mark.parametrize("h", [1e25, 1e19, 2.0**50 * (1 + 2.0**-52), 1.7976931348623157e308,
                               5e-324, 1.5e-323, 1e-300, 2.0**-41])
def test_a_half_life_out_of_the_supported_range_is_refused(h):
    """Attack 44 F6: 1e25 hung learn_one (a loop stepping by 1 past 2**53), 1e19 took 3.7 s a
    call, 5e-324 and the largest double raised a bare OverflowError."""
    with pytest.raises(ValueError, match=r"between 2\*\*-40 and 2\*\*50"):
        QuantizedIsotonic(levels=5, half_life=h).learn_one(0.3, 1.0)


@pytest.mark.parametrize("h", [2.0**-40, 1 / 1100, 2.0**50])
def test_the_ends_of_the_half_life_range_learn(h):
    model = QuantizedIsotonic(levels=5, half_life=h)
    for i in range(20):
        model.learn_one(0.3 + 0.01 * (i % 5), float(i % 2))
    model.learn_many(np.linspace(0, 1, 50), (np.arange(50) % 2).astype(float))
    assert model.n_distinct == (1 if h < 1 else 55)


def test_half_life_with_window_or_delete_is_refused():
    with pytest.raises(ValueError, match="cannot be combined"):
        QuantizedIsotonic(window=10, half_life=5)
    model = QuantizedIsotonic(half_life=5)
    model.learn_one(0.5, 1)
    with pytest.raises(ValueError, match="delete is not available with half_life"):
        model.delete(0.5, 1)


def test_subnormal_and_huge_weights_are_clear_errors():
    model = QuantizedIsotonic(half_life=5)
    model.learn_one(0.5, 1)
    with pytest.raises(ValueError, match="below 2\\*\\*-1022"):
        model.learn_one(0.3, 1, 1e-310)
    assert model.n_distinct == 1 and model._decay.T == 1  # nothing changed
    # weights are held relative to the largest: 1e301 is no longer too heavy to hold
    model.learn_many([0.2, 0.4], [0, 1], [1e301, 1e301])
    assert model.n_distinct == 3 and model._decay.T == 3
    # a stream pickled before the relative weights holds them as given: 2**1000 bounds them
    old = QuantizedIsotonic(half_life=5)
    old._decay.relative = False
    old.learn_one(0.5, 1)
    with pytest.raises(ValueError, match="2\\*\\*1000"):
        old.learn_many([0.2, 0.4], [0, 1], [1e301, 1e301])
    assert old.n_distinct == 1 and old._decay.T == 1  # nothing changed
    assert model.get_params() == {"levels": 101, "window": None, "half_life": 5}
    assert model.clone().half_life == 5


@pytest.mark.parametrize("h", [0.001, 0.005, 0.01, 0.012, 0.015])
def test_a_short_half_life_learns_every_step(h):
    """h < 1/53: a row about to leave was still held at a rescale, its stored weight underflowed
    to 0, and its delete failed: a valid learn_one raised "cannot delete (..., sample_weight=0.0)"
    and left the object changed; one more learn gave [0.5, 0.5] for [0, 0] (attack 25 F1)."""
    model = QuantizedIsotonic(levels=3, half_life=h)
    s, y = [0.25], [1.0]
    model.learn_one(0.25, 1.0)
    for _ in range(2, 40):
        model.learn_one(0.5, 1.0)
        s.append(0.5)
        y.append(1.0)
    model.learn_one(0.5, 0.0)
    s.append(0.5)
    y.append(0.0)
    np.testing.assert_array_equal(model.predict([0.25, 0.5]), [0.0, 0.0])
    check(model, np.array(s), np.array(y), np.ones(len(s)), h)


def test_a_refused_learn_across_a_rescale_changes_nothing():
    """Weights too heavy to hold as stored (2**256 times, the newest heavier) are found in a
    learn that rescales: the rows learned before it are taken back."""
    model = QuantizedIsotonic(levels=11, half_life=10.0)
    model._decay.relative = False  # (pickled before the relative weights: no bound otherwise)
    model.learn_many([0.2, 0.6], [0.0, 1.0])
    before = (model._decay.T, model.n_distinct, model.predict([0.2, 0.6]).tolist())
    with pytest.raises(ValueError, match="as stored .*2\\*\\*256"):
        model.learn_many(np.linspace(0, 1, 3000), np.arange(3000) % 2, np.full(3000, 1e250))
    assert (model._decay.T, model.n_distinct, model.predict([0.2, 0.6]).tolist()) == before
    model.learn_many(np.linspace(0, 1, 3000), np.arange(3000) % 2, np.full(3000, 1e200))
    assert model._decay.T == 3002


def test_the_weights_are_relative_to_the_largest_held_not_the_largest_ever():
    """Attack 42 F4: one weight of 1e300, long gone, made later weights of 1 leave after 26 h
    steps (not 1022 h) and refused 1e-9, for good.  Once none of its power of two is held,
    the weights are held relative to the largest held."""
    for batch in (False, True):
        model = QuantizedIsotonic(levels=101, half_life=1.0)
        s = [0.2] + [0.1] * 1100 + [0.5] + [0.1] * 5 + [0.9] + [0.1] * 40
        y = [0.0] * len(s)
        y[1101] = y[1107] = 1.0
        w = [1e300] + [1.0] * 1100 + [1e-9] + [1.0] * 46
        if batch:  # (one learn_many call takes its weights relative to its largest so far)
            model.learn_many(s[:1101], y[:1101], w[:1101])
            model.learn_many(s[1101:], y[1101:], w[1101:])
        else:
            for a, b, c in zip(s, y, w, strict=True):
                model.learn_one(a, b, c)
        assert model.predict_one(0.9) == 1.0  # was 0.0: the 0.9 row had left
        check(model, np.array(s), np.array(y), np.array(w), 1.0)


@pytest.mark.parametrize("first, second", [(1e-300, 2.0**30), (1e-300, 1e8), (1e-310, 1.0)])
def test_a_weight_that_would_evict_a_held_one_is_refused(first, second):
    """Attack 42 F7: a weight 2**1022 times a held one (decayed) made learn_one raise a bare
    OverflowError ('math range error') or, below that, or in learn_many, silently deleted the
    held observation (the level at 0.9 went from 1.0 to 0.0); the reverse order was refused.
    Now refused in either order, nothing changed."""
    model = QuantizedIsotonic(levels=101, half_life=100.0)
    model.learn_one(0.9, 1, first)
    with pytest.raises(ValueError, match="more than 2\\*\\*1022 times the decayed weight"):
        model.learn_one(0.1, 0, second)
    assert model.predict_one(0.9) == 1.0 and model.n_distinct == 1 and model._decay.T == 1
    fresh = QuantizedIsotonic(levels=101, half_life=100.0)
    with pytest.raises(ValueError, match="more than 2\\*\\*1022 times the decayed weight"):
        fresh.learn_many([0.9, 0.1], [1, 0], [first, second])
    assert fresh.n_distinct == 0 and fresh._decay.T == 0


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 300),
    h=st.sampled_from([0.005, 0.013, 0.5, 1.0, 2.5]),
    seed=st.integers(0, 2**31),
    wlist=st.lists(st.sampled_from([1.0, 2.0**-10, 2.0**-20, 0.5, 3.0, 1e-300, 1e5]),
                   min_size=1, max_size=50),
    cuts=st.lists(st.integers(1, 300), max_size=6),
)
def test_learn_many_in_chunks_follows_the_rules_row_by_row(n, h, seed, wlist, cuts):
    """Attack 44 F4: where the top was lowered inside a learn_many call, the rows after it of a
    larger power of two were taken as weights u >= 2 without raising the top: a weight that
    learn_one refuses (it evicts a held observation) was accepted, and refused the next time."""
    rng = np.random.default_rng(seed)
    s = np.round(rng.random(n), 2)
    y = (rng.random(n) < s).astype(float)
    w = np.array([wlist[i % len(wlist)] for i in range(n)])
    try:
        simulate(s, y, w, h)
        end = n
    except Refused as exc:
        end = int(np.flatnonzero(w > 0)[exc.i])
    bounds = sorted({0, n, *[c for c in cuts if c < n]})
    model = QuantizedIsotonic(levels=11, half_life=h)
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        if not np.any(w[a:b] > 0):
            continue
        if a <= end < b:  # the chunk holding the refused row: refused whole, nothing changed
            before = pickle.dumps(model)
            with pytest.raises(ValueError, match="2\\*\\*1022"):
                model.learn_many(s[a:b], y[a:b], w[a:b])
            assert pickle.dumps(model) == before
            check(model, s[:a], y[:a], w[:a], h)
            return
        model.learn_many(s[a:b], y[a:b], w[a:b])
    check(model, s, y, w, h)


def test_a_weight_past_a_lowered_top_in_one_learn_many_is_refused_as_by_learn_one():
    model = QuantizedIsotonic(levels=11, half_life=1.0)
    model.learn_one(0.2, 0.0, sample_weight=1.0)  # the top; it leaves at step 1024
    for t in range(2, 1024):
        model.learn_one(0.9 if t == 12 else 0.2, 1.0 if t == 12 else 0.0, sample_weight=2.0**-10)
    one, many = pickle.loads(pickle.dumps(model)), pickle.loads(pickle.dumps(model))
    one.learn_one(0.2, 0.0, sample_weight=2.0**-10)  # the top leaves: lowered by 2**10
    with pytest.raises(ValueError, match="more than 2\\*\\*1022 times the decayed weight"):
        one.learn_one(0.5, 0.0, sample_weight=1.0)  # would evict the 0.9 of step 12
    before = pickle.dumps(many)
    with pytest.raises(ValueError, match="more than 2\\*\\*1022 times the decayed weight"):
        many.learn_many(np.array([0.2, 0.5]), np.array([0.0, 0.0]),
                        sample_weight=np.array([2.0**-10, 1.0]))  # was accepted (u = 1024)
    assert pickle.dumps(many) == before
