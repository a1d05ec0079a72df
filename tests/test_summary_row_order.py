"""Score summaries do not depend on the order of rows or merges, whole numbers included.

Issue 22 (a CI finding): weights ``1e300``, ``2**53``, ``1``, ``1`` at one
score were accepted when ``1 + 1 + 2**53`` was summed first (its double-double
sum is exact) and refused as "whole-number sums past 106 bits" otherwise
(``1e300 + 2**53 + 1`` needs more than two doubles on the way, though the
final ``1e300 + (2**53 + 2)`` fits).  Now every sum that two doubles do not
hold, on the way or at the end, is redone in rational arithmetic, as
fractional sums already were: every order gives the same summary, bit for
bit, the exact sums rounded once, and so the same fit for every consumer.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from venncal import ScoreSummary
from venncal._engine import summaries_from_pieces
from venncal._registry import method_class

FINDING = [(0.5, 1, 1e300), (0.5, 0, 2.0**53), (0.5, 1, 1.0), (0.5, 0, 1.0)]
# beside ordinary rows, so that a fit has something to calibrate
AROUND = [(0.1, 0, 1.0), (0.2, 1, 1.0), (0.3, 0, 2.0), (0.7, 1, 1.0), (0.9, 1, 3.0),
          (0.9, 0, 1.0)]


def _state(summary):
    residual = summary._residual
    rest = None if residual is None else tuple(r.tobytes() for r in residual)
    return (summary.scores.tobytes(), summary.weights.tobytes(),
            summary.positive_weights.tobytes(), summary.negative_weights.tobytes(), rest,
            summary._tail)


def _reference(rows):
    """The exact class sums per score (Fractions), rounded once: ``(s, w, a, b)`` lists."""
    sums: dict = {}
    for s, y, w in rows:
        pos, neg = sums.get(s, (Fraction(0), Fraction(0)))
        sums[s] = (pos + Fraction(w), neg) if y else (pos, neg + Fraction(w))
    keys = sorted(sums)
    return (keys, [float(sum(sums[k])) for k in keys], [float(sums[k][0]) for k in keys],
            [float(sums[k][1]) for k in keys])


def _summary(rows):
    s, y, w = (np.array(v) for v in zip(*rows, strict=True))
    return ScoreSummary.from_arrays(s, y, w)


def _listed(summary):
    return (summary.scores.tolist(), summary.weights.tolist(),
            summary.positive_weights.tolist(), summary.negative_weights.tolist())


def test_the_ci_finding_in_every_order():
    # 2**53 + 1 + 1 first was accepted, 1e300 + 2**53 + 1 refused: now all 24 orders agree
    states = set()
    for rows in itertools.permutations(FINDING):
        summary = _summary(rows)  # was: ValueError in 20 of the 24 orders
        assert _listed(summary) == tuple(_reference(FINDING))
        states.add(repr(_state(summary)))
    assert len(states) == 1
    one_class = [(0.5, 0, w) for _, _, w in FINDING]
    for rows in ([one_class[i] for i in order] for order in ((2, 3, 1, 0), (0, 1, 2, 3))):
        summary = _summary(rows)
        assert summary.weights[0] == 1e300 and summary._residual[0][0] == 2.0**53 + 2
        assert _state(summary) == _state(_summary(one_class))


def test_whole_numbers_past_two_doubles_are_kept_exactly():
    # 1e300 + 1e150 + 1 was refused in every order; now rounded once, with the exact class
    # sums kept (the tail), so that a merge adds exact sums as one pass does
    rows = [(0.0, 0, 1e300), (0.0, 1, 1e150), (0.0, 1, 1.0)]
    for order in itertools.permutations(rows):
        summary = _summary(order)
        assert _listed(summary) == tuple(_reference(rows))
        assert summary._tail == {0.0: (Fraction(1e150) + 1, Fraction(1e300))}
    extra = [(0.0, 1, 2.0**60)]
    merged = _summary(rows).merge(_summary(extra))
    assert _state(merged) == _state(_summary(rows + extra)) == _state(
        _summary(extra).merge(_summary(rows)))
    assert _listed(merged) == tuple(_reference(rows + extra))


def _engine_summary(pieces_rows):
    """The Dask engine's path: one piece per (label, partition), labels set at the end."""
    pieces: dict = {}
    for rows in pieces_rows:
        for label in (0, 1):
            part = [(s, w) for s, y, w in rows if y == label]
            if not part:
                continue
            s, w = (np.array(v) for v in zip(*part, strict=True))
            piece = ScoreSummary._from_validated(s, np.zeros(s.shape[0], dtype=bool), w)
            key = (None, label)
            pieces[key] = pieces[key].merge(piece) if key in pieces else piece
    return summaries_from_pieces(pieces, by=None, positive=1)


def test_the_ci_finding_through_partition_merges():
    rows = FINDING + AROUND
    whole = _summary(rows)
    for order in itertools.permutations(range(4)):
        partitions = [[FINDING[i]] for i in order] + [AROUND]
        assert _state(_engine_summary(partitions)) == _state(whole)
        pieces = [_summary(p) for p in partitions]
        merged = pieces[0]
        for piece in pieces[1:]:
            merged = piece.merge(merged) if order[0] % 2 else merged.merge(piece)
        assert _state(merged) == _state(whole)


def _fitted_bits(cal):
    out = []
    for name in cal._state:
        value = getattr(cal, name)
        if isinstance(value, list):
            out.extend(_fitted_bits(c) for c in value)
        else:
            arr = np.asarray(value)
            out.append((name, arr.dtype.str, arr.tobytes()))
    return out


@pytest.mark.parametrize("method", ["ivap", "isotonic", "quantized-isotonic", "enir"])
def test_every_consumer_sees_one_answer_in_every_order(method):
    # the same fitted state, bit for bit, or the same refusal (ENIR: weights 1 to 1e300 are
    # more than its path carries), in orders that were accepted and refused before
    def outcome(fit, *args):
        try:
            return _fitted_bits(fit(*args))
        except ValueError as exc:
            return str(exc)

    fits = []
    for order in ((0, 1, 2, 3), (2, 3, 1, 0), (1, 2, 0, 3)):
        rows = [FINDING[i] for i in order] + AROUND
        fits.append(outcome(method_class(method)(classes=[0, 1]).fit_summary, _summary(rows)))
        s, y, w = (np.array(v) for v in zip(*rows, strict=True))
        fits.append(outcome(method_class(method)(classes=[0, 1]).fit, s, y, w))
    assert all(f == fits[0] for f in fits[1:])
    assert method == "enir" or not isinstance(fits[0], str)


WHOLE = st.sampled_from([1.0, 2.0, 3.0, 2.0**53 - 1, 2.0**53, 2.0**53 + 2, 1e17, 1e150,
                         1e300])


@given(
    rows=st.lists(st.tuples(st.sampled_from([0.25, 0.5]), st.booleans(), WHOLE),
                  min_size=2, max_size=9),
    parts=st.lists(st.integers(0, 3), min_size=9, max_size=9),
    order=st.randoms(use_true_random=False),
)
def test_whole_numbers_in_any_order_and_merge_tree_are_the_exact_sums(rows, parts, order):
    whole = _summary(rows)
    assert _listed(whole) == tuple(_reference(rows))
    shuffled = list(rows)
    order.shuffle(shuffled)
    assert _state(_summary(shuffled)) == _state(whole)
    groups = [[r for r, g in zip(rows, parts, strict=False) if g == k] for k in range(4)]
    pieces = [_summary(g) for g in groups if g]
    while len(pieces) > 1:
        i, j = order.sample(range(len(pieces)), 2)
        merged = pieces[i].merge(pieces[j])
        pieces = [p for k, p in enumerate(pieces) if k not in (i, j)] + [merged]
    assert _state(pieces[0]) == _state(whole)
    assert _state(_engine_summary([g for g in groups if g])) == _state(whole)
