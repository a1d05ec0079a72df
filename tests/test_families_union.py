"""Composite calibrating families (issue 26): the union of families as one family for the Jumper."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from reference import jumper_naive as ref
from scipy.stats import binom

from venncal.online import JumperMartingale, JumperPredictor, MeanJumper
from venncal.online.families import (
    CalibratingFamily,
    cox,
    cox2,
    cubic,
    family,
    named,
    quadratic,
    union,
)

EDGES = [0.0, 5e-324, 1e-310, 1e-300, 2.0**-1023, 1e-20, 0.1, 0.3, 0.5, 0.7, 0.9,
         1 - 1e-12, 1 - 2.0**-52, 1 - 2.0**-53, 1.0]


def _square(p):
    return p * p


def _sqrt(p):
    return np.sqrt(p)


def test_table_stacks_the_members_and_labels_name_their_family():
    fam = union(quadratic([-1.0, 1.0]), cox([0.5, 2.0]), family(_square))
    assert isinstance(fam, CalibratingFamily)
    assert fam.labels == ["quadratic:eps=-1", "quadratic:eps=1", "cox:beta=0.5", "cox:beta=2",
                          "_square"]
    p = np.array([0.0, 1e-310, 0.2, 0.5, 1 - 2.0**-53, 1.0])
    want = np.vstack([quadratic([-1.0, 1.0]).table(p), cox([0.5, 2.0]).table(p), p * p])
    np.testing.assert_array_equal(fam.table(p), want)


def test_the_identity_and_duplicates_appear_once():
    fam = quadratic() + cubic() + cox() + cox2()
    identities = [f"{m.kind}:{m.labels[k]}" for m in fam.members for k in range(len(m))
                  if m.is_identity(k)]
    assert identities == ["quadratic:eps=0"]  # cubic (0, 0.5), cox 1 and cox2 (0, 1) dropped
    assert "cubic:a=0,b=0.5" not in fam.labels and "cox2:alpha=0,beta=1" not in fam.labels
    assert len(fam) == 5 + 12 + 4 + (15 - 1 - 2)  # cox2 (0, beta) for beta in {0.5, 2} is cox
    assert len(union(quadratic(), quadratic())) == 5
    assert len(union(family(_square), family(_square, _sqrt))) == 2  # the same function object
    assert len(union(family(_square), family(lambda p: p * p))) == 2  # objects, not values
    assert len(union(cox([1.0]), cox2([(0.0, 1.0)]), quadratic([0.0]))) == 1


def test_plus_flattens_and_one_member_is_itself():
    a, b, c = quadratic([0.5]), cox([2.0]), cubic([(0.5, 0.5)])
    assert (a + b + c).labels == union(a, union(b, c)).labels == union(a, b, c).labels
    assert union(a) is a
    assert len(union(a, quadratic([0.5, -0.5]))) == 2
    with pytest.raises(TypeError, match="union takes calibrating families"):
        union(a, np.sqrt)
    with pytest.raises(ValueError, match="at least one family"):
        union()
    with pytest.raises(TypeError):
        a + 1  # noqa: B018


def test_named_composites():
    assert named("shift+confidence").labels == (quadratic() + cubic() + cox()).labels
    assert len(named("shift+confidence")) == 21
    assert named("quadratic+cox2").labels == (quadratic() + cox2()).labels
    with pytest.raises(ValueError, match="unknown family 'quadratic\\+quartic'"):
        named("quadratic+quartic")


def _members_ratios(fam, p, y):
    """Each member's own ``t * exp(ls)``, stacked (the members' exact definition)."""
    out = []
    for m in fam.members:
        t, ls = m.likelihood_ratios(p, y, m.table(p))
        with np.errstate(over="ignore"):
            out.append(t * np.exp(ls))
    return np.vstack(out)


@pytest.mark.parametrize("positive", [True, False])
def test_ratios_are_the_members_ratios_on_one_scale(positive):
    fam = quadratic() + cubic() + cox() + cox2() + family(_square, _sqrt)
    p = np.array([v for v in EDGES if v != (0.0 if positive else 1.0)])
    y = np.full(p.shape, positive)
    t, ls = fam.likelihood_ratios(p, y, fam.table(p))
    assert t.max() <= 1.0 and t.min() >= 0.0
    np.testing.assert_array_equal(t.max(axis=0), 1.0)
    with np.errstate(over="ignore"):
        got = t * np.exp(ls)
    want = _members_ratios(fam, p, y)
    # (t is relative to the column's largest ratio: below 2**-1022 it is subnormal and keeps
    # fewer bits, within one family as in a union)
    finite = np.isfinite(want) & (want > 1e-300) & (t >= 2.0**-1022)
    assert_allclose(got[finite], want[finite], rtol=8 * 2.0**-52)
    # Where exp(ls) leaves the float range, compare in logs.
    with np.errstate(divide="ignore"):
        logs = np.vstack([np.log(tm) + lm for tm, lm in
                          (m.likelihood_ratios(p, y, m.table(p)) for m in fam.members)])
        got_logs = np.log(t) + ls
    ok = np.isfinite(logs) & (t >= 2.0**-1022)
    assert_allclose(got_logs[ok], logs[ok], rtol=1e-15, atol=4e-13)


def test_docstring_edge_cases_stay_exact():
    # 1e-310 with a positive label: f(p)/p = 1 + eps (1 - p) for the quadratic family,
    # 1 - a q (p - b) for the cubic one, beside Cox's f(p)/p of 10^155.
    fam = union(quadratic([-0.5, 0.5]), cubic([(0.5, 0.5)]), cox([0.5]))
    p, y = np.array([1e-310]), np.array([True])
    t, ls = fam.likelihood_ratios(p, y, fam.table(p))
    assert ls[0] == pytest.approx(0.5 * 310 * np.log(10), rel=1e-12)
    got = np.exp(np.log(t[:3, 0]) + ls[0])
    assert_allclose(got, [0.5, 1.5, 1.25], rtol=1e-13)
    # 1 - 2**-53 with a negative label: (1 - f)/q = 1 - eps + eps q, to its last bit.
    fam = union(quadratic([-0.5, 0.5]), cubic([(0.5, 0.5)]))
    p, y = np.array([1 - 2.0**-53]), np.array([False])
    t, ls = fam.likelihood_ratios(p, y, fam.table(p))
    own, own_ls = quadratic([-0.5, 0.5]).likelihood_ratios(p, y, quadratic([-0.5, 0.5]).table(p))
    assert list(t[:2, 0] * np.exp(ls)) == list(own[:, 0] * np.exp(own_ls))


def _exact_table(fam, p):
    rows = []
    for m in fam.members:
        rows += ref.family_values(m.kind, m.params, p, m.funcs)
    return rows


@pytest.mark.parametrize("J", [1.0, 0.1, 0.01])
def test_jumper_over_the_union_equals_its_literal_twin(J):
    rng = np.random.default_rng(3)
    p = np.concatenate([rng.uniform(0, 1, 60), [1e-310, 0.9, 1 - 2.0**-53, 5e-324, 0.5]])
    y = rng.random(p.shape[0]) < p ** 1.3
    y[-5:] = [True, False, False, True, True]
    fam = quadratic() + cubic([(0.5, 0.25), (-1.0, 0.75)]) + cox([0.5, 2.0])
    got = JumperMartingale(fam, J).run(p, y).log10_martingale
    want = [ref.log10_of(s) for s in ref.jumper_martingale(p, y, _exact_table(fam, p), J)]
    assert_allclose(got, want, rtol=1e-12, atol=1e-13)


def test_predictor_mean_jumper_single_steps_and_pickle():
    rng = np.random.default_rng(4)
    p = rng.uniform(0.05, 0.95, 800)
    y = rng.random(800) < 0.5 + 0.5 * (p - 0.5)
    fam = named("shift+confidence")
    whole = JumperPredictor(fam, 0.01).run(p, y)
    step = pickle.loads(pickle.dumps(JumperPredictor(fam, 0.01)))
    step.learn_many(p[:500], y[:500])
    for pi, yi in zip(p[500:], y[500:], strict=True):
        step.learn_one(float(pi), bool(yi))
    assert step.log10_value == whole.log10_final  # bit for bit
    mj = MeanJumper(fam).run(p, y)
    assert np.isfinite(mj.log10_final)
    # The Jumper's identity: the protected log loss is the base's minus log10 S.
    loss = lambda q: -np.log10(np.where(y, q, 1 - q)).sum()  # noqa: E731
    assert loss(p) - loss(whole.protected_proba) == pytest.approx(whole.log10_final, rel=1e-9)


@given(st.lists(st.sampled_from(EDGES[1:-1]), min_size=1, max_size=20), st.booleans(),
       st.sampled_from(["quadratic+cox", "cubic+cox2", "shift+confidence"]))
def test_ratios_bounded_for_any_edge_forecasts(ps, positive, name):
    fam = named(name)
    p = np.array(ps)
    t, ls = fam.likelihood_ratios(p, np.full(p.shape, positive), fam.table(p))
    assert np.isfinite(ls).all()
    np.testing.assert_array_equal(t.max(axis=0), 1.0)
    assert (t >= 0).all()


def _ville(fam, alpha, streams, steps, seed):
    rng = np.random.default_rng(seed)
    mart = JumperMartingale(fam, 0.01, classes=[False, True])
    hits = 0
    for _ in range(streams):
        p = rng.uniform(0.01, 0.99, steps)
        y = rng.random(steps) < p  # calibrated: the null
        mart.reset()
        hits += bool(mart.run(p, y).log10_martingale.max() >= np.log10(1 / alpha))
    return hits


def test_union_is_a_test_martingale_small():
    hits = _ville(named("quadratic+cox"), 0.05, 300, 300, seed=5)
    assert hits <= binom.ppf(0.999, 300, 0.05)


@pytest.mark.slow
def test_union_is_a_test_martingale_ville():
    # alpha = 0.01, 2,000 calibrated streams of 1,000 steps: the frequency of ever reaching
    # 1/alpha is at most alpha plus binomial slack (measured: 14 of 2,000, 0.007).
    hits = _ville(named("shift+confidence"), 0.01, 2000, 1000, seed=0)
    assert hits <= binom.ppf(0.999, 2000, 0.01)


@pytest.mark.parametrize("fam", [cox(), cox2(), cox([0.0, -1.0, 3.0, 1e-300, 1e300]),
                                 cox2([(0.0, 0.0), (2.0, 0.0), (-1e3, 2.0), (1.0, -3.0)])],
                         ids=["cox", "cox2", "cox-edges", "cox2-edges"])
def test_cox_tables_at_once_equal_the_functions_one_by_one(fam):
    # Cox's tables are evaluated for every function at once (one call of expit for a single
    # forecast, not K): the values are those of each function, bit for bit.
    p = np.concatenate([np.random.default_rng(0).random(500), EDGES])
    one_by_one = np.vstack([fam._evaluate_one(k, p) for k in range(len(fam))])
    np.testing.assert_array_equal(fam.table(p), one_by_one)


def test_empty_forecasts_give_empty_tables():
    # table([]) raised numpy's "zero-size array to reduction operation minimum".
    for fam in (quadratic(), cox(), family(_square), named("shift+confidence")):
        assert fam.table([]).shape == (len(fam), 0)


def test_labels_of_parameters_alike_to_six_digits_are_told_apart():
    """%g named 1 and 1 + 2**-52 alike ("beta=1" twice); they are two functions."""
    from venncal.online import cox2

    assert cox([1.0, 1.0 + 2**-52]).labels == ["beta=1.0", "beta=1.0000000000000002"]
    assert cox2([(0.0, 1.0), (0.0, 1.000000001)]).labels == ["alpha=0.0,beta=1.0",
                                                            "alpha=0.0,beta=1.000000001"]
    assert cox([0.5, 1.0, 2.0]).labels == ["beta=0.5", "beta=1", "beta=2"]


def test_labels_alike_in_a_union_or_a_users_family_are_told_apart():
    """Attack 46 F5: two functions of one label in a union (cox(1) + cox(1 + 2**-52))."""
    assert (cox([1]) + cox([1 + 2**-52])).labels == ["cox:beta=1.0",
                                                    "cox:beta=1.0000000000000002"]
    assert (quadratic([0.5]) + quadratic([0.5 + 2**-53])).labels == [
        "quadratic:eps=0.5", "quadratic:eps=0.5000000000000001"]
    assert (quadratic() + cox()).labels[:2] == ["quadratic:eps=-1", "quadratic:eps=-0.5"]
    square = family(lambda p: p**2, labels=["s"])
    cube, fourth = family(lambda p: p**3, labels=["s"]), family(lambda p: p**4, labels=["s#2"])
    assert union(square, cube, fourth).labels == ["s", "s#3", "s#2"]
    assert family(lambda p: p**2, lambda p: p**3).labels == ["<lambda>", "<lambda>#2"]
    with pytest.raises(ValueError, match="labels name one function each"):
        family(lambda p: p**2, lambda p: p**3, labels=["s", "s"])
