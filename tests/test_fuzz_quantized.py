"""Fuzzing the quantized isotonic streams and batch fit over weights and operation sequences.

Every sequence of inserts, deletes, windows, ``learn_many`` calls and
pickling mid-stream, with weights at the edges of floating point (5e-324,
1e-310, 1e-300, multiples of 0.001, whole numbers near 2**53, 1e300), must
give the exact fit of what the stream holds (weights and targets as the
exact values of their floats: ``fractions.Fraction``), or a clear
ValueError that changes nothing.  The default profile runs in a few
seconds; ``test_*_thorough`` (marked slow) run many more examples.
"""

from __future__ import annotations

import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference.quantized_naive import exact_map

from venncal import QuantizedIsotonicCalibrator
from venncal.baselines.quantized import check_levels
from venncal.online.quantized import OrderedQuantizedIsotonic, QuantizedIsotonic

EDGE_WEIGHTS = [5e-324, 1e-310, 1e-300, 0.001, 0.003, 0.1, 0.2, 0.3, 0.5, 1.0, 3.0,
                2.0**53 - 1, 2.0**53 + 2, 9007199254740993.0, 1e300]
SCORES = [-1e300, -1.0, -0.0, 0.0, 1e-310, 0.125, 0.25, 0.5, 0.75, 1 - 2.0**-53, 1.0, 1e300]

weights = st.one_of(
    st.sampled_from(EDGE_WEIGHTS),
    st.integers(1, 5000).map(lambda k: k * 0.001),
    st.floats(1e-3, 10.0),
)
binary_targets = st.sampled_from([0.0, 1.0])
any_targets = st.sampled_from([0.0, 1.0, 0.3, 0.5, 2.0, -1.5])
levels_st = st.one_of(
    st.sampled_from([2, 3, 4, 5, 11, 101, 257]),
    st.lists(st.integers(0, 40), min_size=1, max_size=6, unique=True).map(
        lambda v: np.sort(np.array(v) / 40.0)),
)
observation = st.tuples(st.sampled_from(SCORES), any_targets, weights)
binary_observation = st.tuples(st.sampled_from(SCORES), binary_targets, weights)


def as_levels(levels):
    return check_levels(levels, unit_interval=False) if isinstance(levels, int) else levels


def check(model, parts, levels):
    """The stream's map at every score present is the exact fit's (or it holds nothing)."""
    multiset = {k: sum(map(Fraction, v), Fraction(0)) for k, v in parts.items() if v}
    if not multiset:
        assert model.n_groups == 0
        return
    keys, expected, _ = exact_map(multiset, as_levels(levels))
    assert [model.predict_one(k) for k in keys] == expected
    np.testing.assert_array_equal(model.predict(keys), expected)


def bound_exceeded(held, new, scale):
    """Whether the refusal was due: the weights at the peak, times the scale, pass 2**1000."""
    return (held + new) * scale > Fraction(2) ** 1000 * Fraction(1 - 1e-9)


def scale_of(model, targets):
    return Fraction(max([1.0, *np.abs(model.levels_).tolist(), *map(abs, targets)]))


def apply(model, parts, op, window, ring, targets):
    """Run one operation on ``model`` and on the record of what it holds."""
    kind, rows = op
    if kind == "delete":
        if not parts:
            return model
        keys = sorted(parts)
        key = keys[rows % len(keys)]
        w = parts[key].pop(0)
        model.delete(*key, w)
        if not parts[key]:
            del parts[key]
        return model
    if kind == "pickle":
        return pickle.loads(pickle.dumps(model))
    s, y, w = (np.array(v, dtype=float) for v in zip(*rows, strict=True))
    targets.extend(y.tolist())  # the stream's scale remembers every target learned
    held = (sum((Fraction(r[2]) for r in ring), Fraction(0)) if window
            else sum((Fraction(x) for v in parts.values() for x in v), Fraction(0)))
    try:
        if kind == "one":
            model.insert(*rows[0])
        else:
            model.learn_many(s, y, w)
    except ValueError as err:
        assert "2**1000" in str(err)
        assert bound_exceeded(held, sum(map(Fraction, w.tolist())), scale_of(model, targets))
        return model
    for r in rows:
        if window:
            ring.append(r)
            del ring[:-window]
        else:
            parts.setdefault((r[0] + 0.0, r[1]), []).append(r[2])
    if window:
        parts.clear()
        for a, b, c in ring:
            parts.setdefault((a + 0.0, b), []).append(c)
    return model


def operations(obs):
    return st.lists(st.one_of(
        st.tuples(st.just("one"), st.lists(obs, min_size=1, max_size=1)),
        st.tuples(st.just("many"), st.lists(obs, min_size=1, max_size=6)),
        st.tuples(st.just("delete"), st.integers(0, 50)),
        st.tuples(st.just("pickle"), st.just(0)),
    ), min_size=1, max_size=12)


def run(levels, window, ops, bucket):
    model = QuantizedIsotonic(levels, window=window)
    if bucket:
        model._bucket = model._sparse_bucket = bucket
        model._allocate(2)
    parts, ring, targets = {}, [], []
    for op in ops:
        if window and op[0] == "delete":
            continue
        model = apply(model, parts, op, window, ring, targets)
        check(model, parts, levels)


@given(levels=levels_st, window=st.one_of(st.none(), st.integers(1, 6)),
       ops=operations(observation), bucket=st.sampled_from([0, 2, 3]))
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_stream_is_the_exact_fit(levels, window, ops, bucket):
    run(levels, window, ops, bucket)


@given(levels=levels_st, window=st.one_of(st.none(), st.integers(1, 6)),
       ops=operations(binary_observation), bucket=st.sampled_from([0, 2, 3]))
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_binary_stream_is_the_exact_fit(levels, window, ops, bucket):
    run(levels, window, ops, bucket)


@pytest.mark.slow
@given(levels=levels_st, window=st.one_of(st.none(), st.integers(1, 6)),
       ops=operations(observation), bucket=st.sampled_from([0, 2, 3]))
@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow])
def test_stream_is_the_exact_fit_thorough(levels, window, ops, bucket):
    run(levels, window, ops, bucket)


@given(levels=levels_st, rows=st.lists(observation, min_size=1, max_size=20),
       cut=st.integers(0, 20))
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_ordered_stream_is_the_exact_fit(levels, rows, cut):
    rows = sorted(rows, key=lambda r: r[0])
    model = OrderedQuantizedIsotonic(levels)
    parts = {}
    s, y, w = (np.array(v, dtype=float) for v in zip(*rows, strict=True))
    try:
        if cut:
            model.learn_many(s[:cut], y[:cut], w[:cut])
        model = pickle.loads(pickle.dumps(model))
        for r in rows[cut:]:
            model.learn_one(*r)
    except ValueError as err:
        assert "2**1000" in str(err)
        return
    for r in rows:
        parts.setdefault((r[0] + 0.0, r[1]), []).append(r[2])
    check(model, parts, levels)


@given(rows=st.lists(binary_observation, min_size=1, max_size=20), k=st.integers(-60, 60))
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_scaling_every_weight_by_a_power_of_two_changes_nothing(rows, k):
    s, y, w = (np.array(v, dtype=float) for v in zip(*rows, strict=True))
    with np.errstate(over="ignore"):
        scaled = np.ldexp(w, k)
    if not np.all(np.isfinite(scaled)) or np.any(np.ldexp(scaled, -k) != w):
        return  # not the same weights up to the factor
    maps = []
    for ws in (w, scaled):
        model = QuantizedIsotonic(5)
        try:
            model.learn_many(s, y, ws)
        except ValueError as err:
            assert "2**1000" in str(err)
            return
        maps.append((model.thresholds_, model.values_))
    np.testing.assert_array_equal(maps[0][0], maps[1][0])
    np.testing.assert_array_equal(maps[0][1], maps[1][1])


# The batch also takes weights up to the largest float (it rescales them itself).
huge_binary_observation = st.tuples(
    st.sampled_from(SCORES), binary_targets,
    st.sampled_from([1e308, 1.7976931348623157e308, 2.0**1000, 1e300, 1.0, 1e-300]))


@given(levels=levels_st, rows=st.lists(st.one_of(binary_observation, huge_binary_observation),
                                       min_size=1, max_size=20))
@settings(suppress_health_check=[HealthCheck.too_slow])
def test_batch_is_the_exact_fit_of_its_sums_or_a_clear_error(levels, rows):
    """The batch equals the exact fit except where its per-score float sums round a mean onto a midpoint."""
    levels = as_levels(levels)
    if levels[0] < 0 or levels[-1] > 1:
        return
    s, y, w = (np.array(v, dtype=float) for v in zip(*rows, strict=True))
    try:
        cal = QuantizedIsotonicCalibrator(levels=levels, classes=[0, 1]).fit(s, y.astype(int), w)
    except ValueError as err:
        assert "sample_weight" in str(err)
        return
    parts = {}
    for r in rows:
        parts.setdefault((r[0] + 0.0, r[1]), []).append(r[2])
    keys, expected, means = exact_map({k: sum(map(Fraction, v)) for k, v in parts.items()}, levels)
    got = cal.predict_proba(keys)[:, 1]
    mids = [(Fraction(a) + Fraction(b)) / 2 for a, b in zip(levels[:-1], levels[1:], strict=True)]
    tol = Fraction(2 * len(rows) + 2, 2**52)
    for g, e, m in zip(got, expected, means, strict=True):
        assert g == e or min(abs(m - mid) for mid in mids) <= tol
    assert np.all(np.isfinite(cal.values_))
