"""The binary scores of the multiclass problems: kernels against their literal twins, edges."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from reference import multiclass as ref

from venncal.multiclass._scores import check_class_scores, ovr_scores, pair_parts
from venncal.multiclass._scores import pair_scores as _pair_scores


def pair_scores(x, kind, first, second):
    return _pair_scores(pair_parts(x, kind), kind, first, second)

EDGES = [0.0, 5e-324, 1e-310, 2.0**-1022, 1e-300, 0.1, 1.0, 700.0, 1e300, 1e308,
         1.7976931348623157e308]
reals = st.one_of(
    st.sampled_from(EDGES + [-v for v in EDGES]),
    st.floats(allow_nan=False, allow_infinity=False),
)
probas = st.one_of(st.sampled_from([0.0, 5e-324, 1e-310, 1e-300, 0.5, 1 - 2.0**-53, 1.0]),
                   st.floats(0.0, 1.0))


def _pairs(K):
    first, second = np.triu_indices(K, 1)
    return first.astype(np.intp), second.astype(np.intp)


@given(st.lists(st.tuples(reals, reals), min_size=1, max_size=20))
def test_pair_half_differences_are_correctly_rounded(rows):
    x = np.array(rows, dtype=np.float64)
    first, second = _pairs(2)
    got = pair_scores(x, "logit", first, second)[0]
    want = [ref.half_diff(b, a) for a, b in rows]
    assert got.tolist() == want
    assert np.isfinite(got).all()
    mirrored = pair_scores(x[:, ::-1].copy(), "logit", first, second)[0]
    assert (mirrored == -got).all()


@given(st.lists(st.tuples(probas, probas), min_size=1, max_size=20))
def test_pair_log_ratios_equal_the_literal_definition(rows):
    x = np.array(rows, dtype=np.float64)
    first, second = _pairs(2)
    got = pair_scores(x, "proba", first, second)[0]
    want = [ref.pair_score(a, b, "proba") for a, b in rows]
    assert got.tolist() == want
    mirrored = pair_scores(x[:, ::-1].copy(), "proba", first, second)[0]
    assert (mirrored == -got).all()
    # a function of the ratio only: monotone in it, equal for equal ratios
    for (a1, b1), g1 in zip(rows, got.tolist(), strict=True):
        for (a2, b2), g2 in zip(rows, got.tolist(), strict=True):
            if a1 > 0 and a2 > 0:
                from fractions import Fraction

                r1, r2 = Fraction(b1) / Fraction(a1), Fraction(b2) / Fraction(a2)
                if r1 < r2:
                    assert g1 <= g2
                elif r1 == r2:
                    assert g1 == g2


def test_pair_log_ratio_values():
    first, second = _pairs(2)
    x = np.array([[0.25, 0.5], [0.5, 0.25], [0.0, 0.3], [0.3, 0.0], [0.0, 0.0], [1.0, 5e-324]])
    got = pair_scores(x, "proba", first, second)[0]
    half = math.log(2) / 2
    assert got.tolist() == [half, -half, 1075 * half, -1075 * half, 0.0, -1074 * half]


@given(st.lists(st.lists(reals, min_size=3, max_size=3), min_size=1, max_size=10))
@example([[0.0, 1e300, 1e300], [1.0, 2.0, 1.0], [1e308, -1e308, 5e-324]])
def test_ovr_logit_scores(rows):
    z = np.array(rows, dtype=np.float64)
    got = ovr_scores(z, "logit").T
    assert np.isfinite(got).all()
    for r, row in enumerate(rows):
        for k in range(3):
            want = ref.ovr_score(row, k, "logit")
            # want can be 1e-308 (rel); a top class's score near 0 is exact to K * 2**-105 (abs)
            assert got[r, k] == pytest.approx(want, rel=1e-13, abs=1e-31)


@pytest.mark.parametrize("gap", [37.0, 40.0, 50.0, 60.0, 200.0, 700.0])
def test_ovr_logit_scores_near_a_tie_keep_their_relative_precision(gap):
    """Attack 45 F9: a class tied (or nearly) with the top and the rest far below has a score of
    about -exp(-gap)/2, a normal double; log(h + l) of the others' sum rounded 1 + 4e-18 to 1
    and gave 0, so isotonic pooled rows whose true order differs."""
    rows = [[0.0, 0.0, -gap], [0.0, -1e-12, -gap], [-1e-12, 0.0, -gap - 3.0], [2.0, 2.0, 2.0 - gap]]
    got = ovr_scores(np.array(rows), "logit").T
    for r, row in enumerate(rows):
        for k in range(3):
            want = ref.ovr_score(row, k, "logit")
            assert got[r, k] == pytest.approx(want, rel=1e-13, abs=0.0), (row, k)


@given(st.lists(st.lists(st.integers(-40, 40), min_size=3, max_size=5), min_size=1,
                max_size=10).filter(lambda rows: len({len(r) for r in rows}) == 1),
       st.integers(0, 52), st.booleans())
def test_ovr_logit_scores_do_not_move_when_a_constant_is_added(rows, power, negative):
    """Attack 27 F1: rows + 2 moved a score 2 ulps off a tied calibration score (p moved by
    0.11); the logits' differences are taken first, exact here, so no score moves at all."""
    z = np.array(rows, dtype=np.float64)
    shift = (-1.0 if negative else 1.0) * 2.0**power
    assert ovr_scores(z + shift, "logit").tolist() == ovr_scores(z, "logit").tolist()


_OTHERS = [0.0, -1e-9, -0.5, -3.0, -40.999999999, -41.0, -700.5, -1e300]


@given(st.lists(st.sampled_from(_OTHERS), max_size=18),
       st.sampled_from([0.0, 1e-17, -1e-16, 3e-16, 1e-10, -0.1, 0.2]),
       st.sampled_from([0.0, -7.5, 1e3, 2.0**40, 1e300]))
@example([0.0], 0.0, 0.0)
@example([0.0, 0.0], 0.0, 0.0)
def test_ovr_logit_score_of_a_top_class_near_its_cancellation(others, nudge, shift):
    """Attack 46 F1: a strict top class whose margin is near log(rest) scores (d - log(rest)) / 2,
    a cancellation: [ln 2, 0, 0] scored 0 (exact -1.16e-17), ordered above [0, 0, -40]'s
    -2.1e-18, and one-vs-rest IVAP gave (0.5, 1) where the definition gives (1/3, 2/3)."""
    others = [0.0, *others]  # the others' largest is 0 (the sum at least 1)
    top = math.log(math.fsum(math.exp(v) for v in others)) + nudge
    row = [v + shift for v in [top, *others]]
    got = ovr_scores(np.array([row]), "logit")[:, 0]
    for k, g in enumerate(got.tolist()):
        want = ref.ovr_score(row, k, "logit")
        assert g == pytest.approx(want, rel=1e-13, abs=len(row) * 2.0**-105), (row, k)


def test_ovr_logit_scores_near_a_cancellation_keep_the_rows_order():
    a, b = [math.log(2), 0.0, 0.0], [0.0, 0.0, -40.0]
    got = ovr_scores(np.array([a, b]), "logit")[0].tolist()
    assert got == [ref.ovr_score(a, 0, "logit"), ref.ovr_score(b, 0, "logit")]
    assert got[0] < got[1] < 0.0


@pytest.mark.parametrize("c", [1e17, 2.0**53, 1e300, 1e308, -1e308])
def test_ovr_logit_scores_of_a_tied_row_of_large_logits(c):
    # was 0.0 from 2**53 on: ln 2 was lost in m + ln 2
    assert ovr_scores(np.full((1, 3), c), "logit").ravel().tolist() == [-math.log(2) / 2] * 3


def test_ovr_logit_scores_are_monotone_in_the_class_logit():
    z = np.zeros((50, 3))
    z[:, 1] = np.linspace(-800, 800, 50)
    s = ovr_scores(z, "logit").T
    assert (np.diff(s[:, 1]) > 0).all()
    assert (np.diff(s[:, 0]) <= 0).all()  # log(1 + e**-800) is 0 in doubles


def test_two_classes_half_log_odds():
    z = np.array([[0.0, 3.0], [1e308, -1e308]])
    s = ovr_scores(z, "logit").T
    assert s.tolist() == [[-1.5, 1.5], [1e308, -1e308]]


def test_check_class_scores_messages():
    with pytest.raises(ValueError, match=r"row 1 \(from 0\) sums to"):
        check_class_scores([[0.5, 0.5], [0.2, 0.2]], 2, "proba")
    with pytest.raises(ValueError, match=r"row 0 \(from 0; fold block 1\) holds"):
        check_class_scores(np.array([[[0.5, 0.5], [0.5, np.nan]]]), 2, "proba", blocks=2)
    with pytest.raises(TypeError, match="real numbers"):
        check_class_scores([["a", "b"]], 2, "logit")
    with pytest.raises(ValueError, match="empty"):
        check_class_scores(np.empty((0, 2)), 2, "logit")
    ok = check_class_scores([[0.5, 0.5 + 2.0**-24]], 2, "proba")  # float32 rounding passes
    assert ok.shape == (1, 2)


def test_a_bad_row_is_renumbered_as_a_table_counts_its_rows():
    # one message never counts from both 0 and 1: arrays from 0, a table's reader from its row
    import pickle

    from venncal.multiclass._scores import RowError

    with pytest.raises(RowError) as info:
        check_class_scores(np.array([[[0.5, 0.5]] * 2, [[0.5, 0.5], [0.5, np.nan]]]), 2, "proba",
                           blocks=2)
    exc = info.value
    assert str(exc) == "scores must be finite; row 1 (from 0; fold block 1) holds [0.5, nan]"
    assert exc.renumbered(1) == "scores must be finite; row 2 (fold block 1) holds [0.5, nan]"
    assert exc.renumbered(100_000) == ("scores must be finite; row 100,001 (fold block 1) holds "
                                       "[0.5, nan]")
    assert str(exc.of_rows(np.array([3, 7]))).startswith("scores must be finite; row 7 (from 0;")
    again = pickle.loads(pickle.dumps(exc))
    assert type(again) is RowError and str(again) == str(exc) and again.index == 1
    with pytest.raises(RowError) as info:
        check_class_scores([[0.5, 0.5], [0.2, 0.2]], 2, "proba")
    assert "; row 2 sums to 0.4 " in info.value.renumbered(1)


def test_pair_scores_are_within_2_ulps_of_the_exact_log_ratio():
    # attack 39 F2: near p_i = p_j the log2 of the rounded ratio was off by up to 100 % (2**-53
    # for 2**-54) and by 2,828 ulps at ordinary probabilities; distinct ratios tied
    from decimal import Decimal, localcontext

    rng = np.random.default_rng(0)
    pi = rng.random(4000)
    near = pi * (1.0 + rng.normal(size=4000) * 10.0 ** rng.uniform(-15, -3, 4000))
    far = pi * 2.0 ** rng.uniform(-60, 60, 4000)
    pj = np.clip(np.concatenate([near, far, np.nextafter(pi, 2.0)]), 1e-300, 1.0)
    pi = np.concatenate([pi, pi, pi])
    x = np.column_stack([np.append(pi, [1 - 2.0**-53, 0.25349464481047634]),
                         np.append(pj, [1.0, 0.25347538036723194])])
    got = pair_scores(x, "proba", np.array([0]), np.array([1]))[0]
    with localcontext() as ctx:
        ctx.prec = 50
        want = np.array([float((Decimal(b) / Decimal(a)).ln() / 2) for a, b in x])
    assert abs(got[-2] - 2.0**-54) <= np.spacing(2.0**-54)  # -ln(1 - 2**-53) / 2 = 2**-54 (1e-32)
    zero = want == 0.0
    assert (got[zero] == 0.0).all()
    ulps = np.abs(got[~zero] - want[~zero]) / np.spacing(np.abs(want[~zero]))
    assert ulps.max() <= 2.0
