"""The dense tree of the unordered quantized stream: its fractions, and when it is left.

The stream's results in both trees are tested in ``test_quantized.py`` (its
binary streams run on the dense tree, the others on the tree of groups).
"""

from __future__ import annotations

import pickle
from fractions import Fraction

import numpy as np
import pytest
from test_quantized import add, check_tree, projection_of_pava, remove, small_buckets

import venncal.online.quantized as oq
from venncal.baselines.quantized import check_levels, level_splits
from venncal.online._rational import _farey_below, split_fractions
from venncal.online.quantized import QuantizedIsotonic


def test_farey_below_is_the_largest_fraction_not_above():
    rng = np.random.default_rng(0)
    for _ in range(400):
        bound = int(rng.integers(1, 40))
        u = Fraction(int(rng.integers(0, 10**6 + 1)), 10**6)
        p, q = _farey_below(u, bound)
        best = max(Fraction(a, b) for b in range(1, bound + 1) for a in range(b + 1)
                   if Fraction(a, b) <= u)
        assert q <= bound
        assert Fraction(p, q) == best


def split_sets():
    rng = np.random.default_rng(1)
    for k in (2, 3, 4, 5, 7, 11, 21, 100, 101):
        yield level_splits(check_levels(k))
    for _ in range(20):
        levels = np.unique(rng.choice(np.arange(0, 41) / 40, size=int(rng.integers(2, 8))))
        yield level_splits(levels)
        yield level_splits(np.sort(rng.random(int(rng.integers(2, 8)))))


@pytest.mark.parametrize("bound", [60, 2**26])
def test_fractions_decide_as_the_rounded_mean_does(bound):
    """``p Q > q P`` exactly when ``searchsorted`` puts ``fl(p / q)`` above the split."""
    q = np.arange(1, 61)
    qq, pp = np.meshgrid(q, np.arange(61), indexing="ij")
    keep = pp <= qq
    num, den = pp[keep], qq[keep]
    for splits in split_sets():
        Q, P = split_fractions(splits, bound)
        for j, s in enumerate(splits):
            exact = num * int(Q[j]) > den * int(P[j])  # integers: no rounding
            np.testing.assert_array_equal(exact, num / den > s)


def test_fractions_only_for_splits_inside_the_unit_interval():
    assert split_fractions(np.empty(0)) is None
    assert split_fractions(level_splits(np.array([0.0, 1.0, 2.0]))) is None
    assert split_fractions(level_splits(np.array([-1.0, 0.5]))) is None


def stream(rng, n):
    s = np.round(rng.random(n), 3)
    return s, (rng.random(n) < s).astype(float), rng.integers(1, 3, n).astype(float)


def check_against_pava(model, multiset, levels):
    keys, expected = projection_of_pava(multiset, levels)
    np.testing.assert_array_equal(model.predict(keys), expected)
    np.testing.assert_array_equal([model.predict_one(k) for k in keys], expected)
    check_tree(model)


@pytest.mark.parametrize(
    "change",
    ["target", "weight", "delete weight", "weight bound"],
)
def test_leaving_the_dense_tree_keeps_the_map(change, monkeypatch):
    rng = np.random.default_rng(5)
    levels = check_levels(11)
    model = small_buckets(QuantizedIsotonic(11), 4)
    s, y, w = stream(rng, 300)
    if change == "weight bound":
        monkeypatch.setattr(oq, "WEIGHT_BOUND", int(w.sum()) + 3)
    model.learn_many(s, y, w)
    multiset = {}
    for row in zip(s.tolist(), y.tolist(), w.tolist(), strict=True):
        add(multiset, *row)
    assert model._dense
    check_against_pava(model, multiset, levels)
    before = model.groups()
    if change == "target":
        new = (0.5, 0.25, 1.0)
    elif change == "weight":
        new = (0.5, 1.0, 0.5)
    else:
        new = (0.5, 1.0, 4.0)
    if change == "delete weight":  # a fraction of an observation's weight
        old = next(iter(multiset))
        model.delete(*old, 0.5)
        remove(multiset, *old, 0.5)
    else:
        model.insert(*new)
        add(multiset, *new)
    assert not model._dense
    check_against_pava(model, multiset, levels)
    if change != "delete weight":  # and back: the map before, bit for bit
        model.delete(*new)
        remove(multiset, *new)
        after = model.groups()
        for key in before:
            assert after[key].tobytes() == before[key].tobytes()
    for key in list(multiset)[:80]:
        model.delete(*key, multiset[key])
        remove(multiset, *key, multiset[key])
    check_against_pava(model, multiset, levels)


def test_dense_tree_with_a_window_and_pickle():
    rng = np.random.default_rng(6)
    s, y, w = stream(rng, 2000)
    model = small_buckets(QuantizedIsotonic(101, window=300), 3)
    model.learn_many(s, y, w)
    assert model._dense
    copy = pickle.loads(pickle.dumps(model))
    model.learn_many(s[:50], y[:50], w[:50])
    copy.learn_many(s[:50], y[:50], w[:50])
    for key, v in model.groups().items():
        np.testing.assert_array_equal(v, copy.groups()[key])
    check_tree(copy)


def test_a_dense_model_rejects_what_it_does_not_hold():
    model = QuantizedIsotonic(5)
    model.learn_many([0.1, 0.2, 0.3], [0, 1, 1])
    with pytest.raises(ValueError, match="less weight of .score, y. is held"):
        model.delete(0.2, 0.5)  # a target it never had: still dense, still an error
    with pytest.raises(ValueError, match="less weight of .score, y. is held"):
        model.delete(0.25, 1)
    with pytest.raises(ValueError, match="less weight of .score, y. is held"):
        model.delete(0.2, 1, 2)
    assert model._dense
    assert model.n_groups == 2
    assert model.n_distinct == 3


def groups_tree(levels, bucket):
    """A stream kept on the tree of groups whatever its data."""
    model = QuantizedIsotonic(levels)
    model._dense = False
    return small_buckets(model, bucket)


@pytest.mark.parametrize("seed", range(16))
def test_dense_tree_and_tree_of_groups_agree_bit_for_bit(seed):
    rng = np.random.default_rng(400 + seed)
    levels = (check_levels(int(rng.choice([2, 3, 4, 6, 11, 101]))) if seed % 2
              else np.sort(rng.random(int(rng.integers(2, 9)))))
    bucket = int(rng.choice([2, 3, 5, 32]))
    dense, groups = small_buckets(QuantizedIsotonic(levels), bucket), groups_tree(levels, bucket)
    present = []
    for step in range(600):
        if present and rng.random() < 0.4:
            row = present.pop(int(rng.integers(len(present))))
            dense.delete(*row)
            groups.delete(*row)
        else:
            s = float(np.round(rng.random(), int(rng.integers(1, 4))))
            row = (s, float(rng.random() < s), float(rng.integers(1, 4)))
            dense.insert(*row)
            groups.insert(*row)
            present.append(row)
        if step % 37 == 0 or step > 590:
            assert dense._dense
            a, b = dense.groups(), groups.groups()
            for key in a:
                assert a[key].tobytes() == b[key].tobytes()
            assert dense.n_groups == groups.n_groups
            if present:
                q = rng.random(8) * 1.2 - 0.1
                assert [dense.predict_one(x) for x in q] == [groups.predict_one(x) for x in q]


def test_which_tree():
    assert QuantizedIsotonic(oq.DENSE_MAX_LEVELS)._dense
    assert not QuantizedIsotonic(oq.DENSE_MAX_LEVELS + 1)._dense
    assert not QuantizedIsotonic(np.array([0.0, 0.5, 2.0]))._dense
    assert not QuantizedIsotonic(np.array([0.5]))._dense  # one level: no split


def test_unpickles_a_stream_pickled_before_the_dense_tree():
    model = groups_tree(11, 4)
    model.learn_many([0.1, 0.4, 0.2, 0.9], [0, 1, 1, 1])
    state = model.__getstate__()
    for key in ("_dense", "_fractions", "_sparse_bucket"):
        del state[key]
    old = QuantizedIsotonic.__new__(QuantizedIsotonic)
    old.__setstate__(state)
    old.insert(0.3, 0)
    model.insert(0.3, 0)
    for key, v in model.groups().items():
        np.testing.assert_array_equal(v, old.groups()[key])
