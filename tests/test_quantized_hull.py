"""The dense tree's bottom rows from the upper hull of the suffix sums (``quantized_hull``).

Each row is checked against its literal twin, ``check_dense_tree`` (the
largest suffix sum at each split, in Python integers), and against the loop
over every candidate suffix (``bottom_row_all``), bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_quantized import check_dense_tree, small_buckets

from venncal._kernels.quantized_hull import HULL_CAP, bottom_row, bottom_row_all
from venncal.online.quantized import QuantizedIsotonic


def rows_both_ways(model):
    """Every bottom row computed by the hull and by every candidate: ``(hull, all)``."""
    E, EK, EW, cnt, FS, D, NA, NB = model._tree
    Q, P = model._fractions
    C = cnt.shape[0] // 2
    out = []
    for row in (bottom_row, bottom_row_all):
        d, na, nb, c = D.copy(), NA.copy(), NB.copy(), cnt.copy()
        d[C // 2:] = np.nan
        for v in range(max(C // 2, 1), C):
            row(E, c, d, na, nb, Q, P, v)
        out.append((d[C // 2:], na[C // 2:], nb[C // 2:]))
    return out


def assert_same_rows(model):
    (d1, a1, w1), (d2, a2, w2) = rows_both_ways(model)
    assert d1.tobytes() == d2.tobytes()
    assert a1.tobytes() == a2.tobytes() and w1.tobytes() == w2.tobytes()
    assert d1.tobytes() == model._tree[5][model._tree[3].shape[0] // 4:].tobytes()


@pytest.mark.parametrize("seed", range(6))
def test_hull_rows_are_the_rows_of_every_candidate(seed):
    rng = np.random.default_rng(900 + seed)
    levels = [2, 3, 11, 101, 101, 201][seed]
    model = small_buckets(QuantizedIsotonic(levels), int(rng.choice([2, 5, 32])))
    present = []
    for step in range(400):
        if present and rng.random() < 0.3:
            model.delete(*present.pop(int(rng.integers(len(present)))))
        else:
            s = float(np.round(rng.random(), int(rng.integers(1, 3))))
            row = (s, float(rng.random() < s), float(rng.integers(1, 6)))
            model.insert(*row)
            present.append(row)
        if step % 50 == 49:
            assert model._dense
            check_dense_tree(model)
            assert_same_rows(model)


def test_a_hull_past_its_scratch_takes_every_candidate():
    # 200 scores, each with targets 0 and 1, whose share of 1 rises with the score:
    # every suffix is a vertex of the hull, more than the stack holds.
    model = small_buckets(QuantizedIsotonic(101), 256)
    for i in range(1, 201):
        model.insert(i / 256, 1.0, float(i))
        model.insert(i / 256, 0.0, 200.0)
    assert model._dense and model._tree[3].shape[0] == 4  # one bottom node: the root
    assert 200 + 1 > HULL_CAP
    check_dense_tree(model)
    assert_same_rows(model)


def test_hull_rows_with_weights_near_the_bound():
    rng = np.random.default_rng(7)
    model = small_buckets(QuantizedIsotonic(101), 8)
    total = 0.0
    for _ in range(60):
        w = float(rng.integers(2**20 - 2**18, 2**20))
        s = float(np.round(rng.random(), 2))
        model.insert(s, float(rng.random() < s), w)
        total += w
    assert model._dense and total > 2**25
    check_dense_tree(model)
    assert_same_rows(model)
