"""Merges of score summaries round exactly as one pass does (issue 22: nothing silent).

Weights ``2**53``, ``1`` and ``1e-310`` at one score sum to ``2**53 + 1 +
1e-310``, which rounds to ``2**53 + 2``; a merge that added the pieces'
double-doubles lost the ``1e-310`` (some 1,200 bits below) and broke the tie
to ``2**53``.  Sums that two doubles do not hold are kept exactly, so any
partition merged in any order gives the one-pass summary, bit for bit.
"""

from __future__ import annotations

import pickle
from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from venncal import ScoreSummary


def _state(summary):
    residual = summary._residual
    if residual is not None and not any(r.any() for r in residual):
        residual = None
    rest = None if residual is None else [r.tolist() for r in residual]
    return (summary.scores.tolist(), summary.weights.tolist(),
            summary.positive_weights.tolist(), summary.negative_weights.tolist(), rest)


def test_merge_breaks_the_tie_as_one_pass_does():
    one = ScoreSummary.from_arrays([0.5] * 3, [0, 1, 0], [2.0**53, 1.0, 1e-310])
    assert one.weights[0] == 2.0**53 + 2  # correctly rounded: 2**53 + 1 + 1e-310
    big = ScoreSummary.from_arrays([0.5, 0.5], [0, 1], [2.0**53, 1.0])
    tiny = ScoreSummary.from_arrays([0.5], [0], [1e-310])
    for merged in (big.merge(tiny), tiny.merge(big)):
        assert merged.weights[0] == 2.0**53 + 2  # was 2**53
        assert _state(merged) == _state(one)


def test_a_lost_sticky_bit_cannot_flip_a_later_tie():
    # {2**53, 1, 1e-310} then {2**53, 1}: the exact 2**54 + 2 + 1e-310 rounds up, to 2**54 + 4;
    # a remainder of two doubles (2**53 + 2, -1) would make it the tie 2**54 + 2 (rounds to 2**54)
    first = ScoreSummary.from_arrays([0.5] * 3, [0, 0, 0], [2.0**53, 1.0, 1e-310])
    second = ScoreSummary.from_arrays([0.5] * 2, [0, 0], [2.0**53, 1.0])
    whole = ScoreSummary.from_arrays([0.5] * 5, [0] * 5, [2.0**53, 1.0, 1e-310, 2.0**53, 1.0])
    assert whole.weights[0] == 2.0**54 + 4
    assert _state(first.merge(second)) == _state(second.merge(first)) == _state(whole)


def test_exact_sums_survive_pickling_and_label_pieces():
    piece = ScoreSummary.from_arrays([0.5] * 3, [0, 1, 0], [2.0**53, 1.0, 1e-310])
    back = pickle.loads(pickle.dumps(piece))  # the Spark engine ships pickled summaries
    assert back._tail == piece._tail is not None
    extra = ScoreSummary.from_arrays([0.5], [1], [2.0**53 + 2])
    assert _state(back.merge(extra)) == _state(piece.merge(extra))
    positive = piece._of_one_label(True).merge(extra)
    assert positive.weights[0] == positive.positive_weights[0] == float(
        Fraction(2**54 + 3) + Fraction(1e-310))


WEIGHTS = st.sampled_from(
    [1e-310, 1e-300, 1.0, 2.0**53, 1e300, 1e308 / 8, 0.1, 0.75, 1 / 3, 2.0**-60]
)


def _reference(rows):
    """Exact (Fraction) class sums per score, correctly rounded."""
    sums: dict = {}
    for s, y, w in rows:
        pos, neg = sums.get(s, (Fraction(0), Fraction(0)))
        sums[s] = (pos + Fraction(w), neg) if y else (pos, neg + Fraction(w))
    keys = sorted(sums)
    return (keys, [float(sum(sums[k])) for k in keys], [float(sums[k][0]) for k in keys],
            [float(sums[k][1]) for k in keys])


@given(
    rows=st.lists(st.tuples(st.sampled_from([0.1, 0.5]), st.booleans(), WEIGHTS),
                  min_size=2, max_size=10),
    parts=st.lists(st.integers(0, 3), min_size=10, max_size=10),
    order=st.randoms(use_true_random=False),
)
def test_any_partition_in_any_merge_order_is_the_one_pass_summary(rows, parts, order):
    s, y, w = (np.array(v) for v in zip(*rows, strict=True))
    try:
        whole = ScoreSummary.from_arrays(s, y, w)
    except ValueError as e:  # past the largest double at one score
        assert "sum to more than the largest float64" in str(e)
        return
    assert _state(whole)[:4] == tuple(_reference(rows))
    groups = [np.flatnonzero(np.array(parts[: len(rows)]) == g) for g in range(4)]
    # every piece and merge is accepted (whole numbers past two doubles were refused in
    # some orders before: issue 22), and any tree of merges is the one-pass summary
    pieces = [ScoreSummary.from_arrays(s[g], y[g], w[g]) for g in groups if g.shape[0]]
    # merge in a random tree: pick two pieces, merge, put the result back
    while len(pieces) > 1:
        i, j = order.sample(range(len(pieces)), 2)
        merged = pieces[i].merge(pieces[j])
        pieces = [p for k, p in enumerate(pieces) if k not in (i, j)] + [merged]
    assert _state(pieces[0]) == _state(whole)
