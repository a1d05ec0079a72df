"""The Jumper's protected forecast at subnormal base forecasts, and ``S`` at ``J = 1`` (issue 22).

``p' = sum_eps f_eps(p) C_eps / sum C`` (Vovk, Petej & Gammerman 2021,
Algorithm 2 line 6) was formed from products ``C_eps f_eps(p)`` that
underflow when ``f_eps(p)`` is subnormal: ``p = 5e-324`` gave ``p' = 0``
where the definition gives ``p' ~ 5e-324``.  The mixture is now taken on the
values scaled by ``2**1000`` (exact) and rounded once: within one unit of the
smallest subnormal of the exact value, so ``p' > 0`` whenever the exact
value is at least ``5e-324`` (``2**-1074``).  And one step at
``p = 1 - 2**-53``, label 0, ``J = 1`` gave ``S = 1 + 2**-52`` where the
definition gives 1: now exactly 1.  The exact twin is
``tests/reference/jumper_naive.py``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference import jumper_naive as ref

from venncal.online import JumperMartingale, JumperPredictor, MeanJumper
from venncal.online.families import named, quadratic

SMALLEST = 5e-324
SUBNORMALS = [5e-324, 1e-323, 2.0**-1070, 1e-320, 1e-310, 2.0**-1023]
NAMED = ["quadratic", "cubic", "cox", "cox2"]


def exact_proba(fam, p, y, J):
    table = ref.family_values(fam.kind, fam.params.tolist(), p)
    return [float(v) for v in ref.jumper_predictor(p, y, table, J)]


@pytest.mark.parametrize("name", NAMED)
@pytest.mark.parametrize("J", [1.0, 0.01])
def test_protected_forecast_at_subnormal_base_forecasts(name, J):
    fam = named(name)
    p = np.array([*SUBNORMALS, 0.3, *SUBNORMALS[::-1]])
    y = np.array([True] * p.shape[0])
    got = JumperPredictor(fam, J).run(p, y).protected_proba
    want = exact_proba(fam, p, y, J)
    for g, v in zip(got.tolist(), want, strict=True):
        assert abs(g - v) <= SMALLEST + 1e-12 * v  # (Cox: its values to 1e-14)
        assert (g > 0.0) == (v > 0.0)  # was 0 at p = 5e-324


def test_the_issue_case():
    proba = JumperPredictor(quadratic(), 0.01).run([5e-324], [True]).protected_proba
    assert proba[0] == 5e-324  # was 0.0
    assert MeanJumper(quadratic()).run([5e-324], [True]).protected_proba[0] == 5e-324


@given(st.lists(st.sampled_from([*SUBNORMALS, 0.25, 1e-300]), min_size=1, max_size=8),
       st.sampled_from(NAMED), st.sampled_from([1.0, 0.5, 0.01, 1e-4]))
def test_subnormal_streams_against_the_exact_twin(p, name, J):
    fam = named(name)
    p = np.array(p)
    y = np.ones(p.shape[0], dtype=bool)
    res = JumperPredictor(fam, J).run(p, y)
    want = exact_proba(fam, p, y, J)
    assert np.isfinite(res.log10_martingale).all()
    for g, v in zip(res.protected_proba.tolist(), want, strict=True):
        assert abs(g - v) <= SMALLEST + 1e-12 * v  # (Cox: its values to 1e-14)
        assert g > 0.0 or v < SMALLEST


@pytest.mark.parametrize("J", [1.0, 0.5, 0.01])
@pytest.mark.parametrize(("p0", "y0"), [(1 - 2.0**-53, 0), (2.0**-53, 1), (5e-324, 1),
                                        (1e-310, 1), (0.3, 1)])
def test_martingale_is_exactly_one_where_the_factor_is(p0, y0, J):
    # A symmetric quadratic family: the likelihood ratios 1 - eps p (or 1 + eps q) average
    # to exactly 1.  One step at p = 1 - 2**-53, y = 0 gave S = 1 + 2**-52.
    res = JumperMartingale(quadratic(), J).run([p0], [y0])
    assert res.log10_final == 0.0


@pytest.mark.parametrize("name", NAMED)
def test_martingale_tolerance_where_the_ratios_round(name):
    # Where the likelihood ratios themselves are not floats (p = 1 - 2**-52: 1.5 - 2**-53),
    # S is within the rounding of the ratios: |ln S| <= 2 * 2**-53 per step.
    fam = named(name)
    for p0, y0 in [(1 - 2.0**-52, 0), (0.5, 0), (0.7, 1)]:
        table = ref.family_values(fam.kind, fam.params.tolist(), np.array([p0]))
        want = ref.log10_of(ref.jumper_martingale([p0], [y0], table, 1.0)[0])
        got = JumperMartingale(fam, 1.0).run([p0], [y0]).log10_final
        assert abs(got - want) <= 2 * 2.0**-53 * max(1.0, abs(want) * math.log(10)) / math.log(10)


@pytest.mark.parametrize("betas", [[1.0], [1.0, 2.0], [3.0], [2.0, 1.0]])
@pytest.mark.parametrize("J", [1.0, 0.5, 0.01])
def test_cox_families_of_betas_at_least_one_at_tiny_forecasts(betas, J):
    # attack 50 F7: expit(z) below -709.78 was 0 (exp(-z) overflowed), so cox([1]) (the
    # identity) forecast 0 at p = 1e-310, and the protected log loss was infinite
    from venncal.online import cox

    fam = cox(betas)
    p = np.array([0.3, 1e-310, 0.6, 5e-320, 1e-105, *SUBNORMALS])
    y = np.array([True] * p.shape[0])
    got = JumperPredictor(fam, J).run(p, y).protected_proba
    want = exact_proba(fam, p, y, J)
    for g, v in zip(got.tolist(), want, strict=True):
        assert abs(g - v) <= SMALLEST + 1e-12 * v
        # positive where the exact mixture is at least 5e-324 (one just above 2**-1075,
        # rounding up to it, is summed from halves of 5e-324 that round to 0)
        assert (g > 0.0) == (v > 0.0) or v == SMALLEST
    assert JumperPredictor(cox([1.0]), J).predict_proba_one(1e-310)[1] == 1e-310
