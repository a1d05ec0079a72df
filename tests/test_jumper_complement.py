"""The Jumper's negative class near p = 1: formed directly, not as ``1 - p'`` (issue 22).

At a base forecast of ``1 - 2**-53`` the forecast ``p'`` rounds to 1 and
``1 - p'`` was 0 (or ``2**-52`` for a fresh object, whose right value is
``2**-53``).  The negative class is now the mixture of the complements
``1 - f_k(p)``: these tests hold it to the exact twin
(``tests/reference/jumper_naive.py``), to the probability the martingale's
step implies, and to the mirrored stream ``(1 - p, 1 - y)`` with the mirrored
family, which gives the same numbers as the positive class.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from reference import jumper_naive as ref

import venncal.online as o
from sklearn.base import BaseEstimator, ClassifierMixin

E53 = 1.0 - 2.0**-53


def _stream(seed=5, n=50):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.01, 0.99, n)
    y = (rng.uniform(size=n) < np.clip(p * 1.3, 0, 1)).astype(int)
    return p, y


def _dyadic_stream(seed, n=40):
    """Base forecasts whose complements are exact (multiples of 2**-20), so a stream mirrors exactly."""
    rng = np.random.default_rng(seed)
    p = rng.integers(1, 2**20, n) / 2.0**20
    y = (rng.uniform(size=n) < np.clip(p * 1.3 - 0.1, 0, 1)).astype(int)
    return p, y


# (make the object, make its mirror: the family with f~(p) = 1 - f(1 - p))
_CUBIC = [(0.0, 0.5), (-1.0, 0.25), (0.5, 0.75), (1.0, 0.25)]
_COX2 = [(-1.0, 0.5), (0.5, 2.0), (0.0, 1.0)]
OBJECTS = {
    "quadratic": (lambda: o.JumperPredictor(), lambda: o.JumperPredictor()),
    "quadratic-asym": (lambda: o.JumperPredictor(o.quadratic([-1.0, 0.25, 0.5])),
                       lambda: o.JumperPredictor(o.quadratic([1.0, -0.25, -0.5]))),
    "mean": (lambda: o.MeanJumper(), lambda: o.MeanJumper()),
    "cubic": (lambda: o.JumperPredictor(o.cubic(_CUBIC)),
              lambda: o.JumperPredictor(o.cubic([(a, 1.0 - b) for a, b in _CUBIC]))),
    "cox": (lambda: o.JumperPredictor(o.cox()), lambda: o.JumperPredictor(o.cox())),
    "cox2": (lambda: o.MeanJumper(o.cox2(_COX2)),
             lambda: o.MeanJumper(o.cox2([(-a, b) for a, b in _COX2]))),
    "union": (lambda: o.MeanJumper(o.quadratic() + o.cubic() + o.cox()),
              lambda: o.MeanJumper(o.quadratic() + o.cubic() + o.cox())),
    "half_life": (lambda: o.JumperPredictor(half_life=20.0),
                  lambda: o.JumperPredictor(half_life=20.0)),
    "custom": (lambda: o.JumperPredictor(o.family(lambda p: p, lambda p: p * p)),
               None),
}


def _both(obj, x):
    one = obj.predict_proba_one(x)
    many = obj.predict_proba_many([x])[0]
    assert list(one.values()) == many.tolist()  # the single call is the batch path, bit for bit
    return many


@pytest.mark.parametrize("name", [k for k, v in OBJECTS.items() if v[1] is not None])
def test_the_issue_22_repro_the_step_implies_the_negative_class(name):
    p, y = _stream()
    make = OBJECTS[name][0]
    obj = make()
    obj.learn_many(p, y)
    low, high = _both(obj, E53)
    assert low > 0.0 and high <= 1.0
    before = obj.log10_value
    obj.learn_one(E53, 0)  # S grows by B_{p'}(0) / B_p(0) = (1 - p') / 2**-53
    assert_allclose(low, 2.0**-53 * 10.0 ** (obj.log10_value - before), rtol=1e-9)


@pytest.mark.parametrize("name", list(OBJECTS))
def test_fresh_objects_give_the_complement_of_their_average(name):
    low, high = _both(OBJECTS[name][0](), E53)
    assert low > 0.0
    assert abs((low + high) - 1.0) <= 2.0**-49  # a few roundings


def test_fresh_quadratic_at_1_minus_2_53_is_2_53_exactly():
    # The family's average is the identity: p' = p, so 1 - p' = 2**-53 (main gave 2**-52).
    for obj in (o.JumperPredictor(), o.MeanJumper()):
        assert_allclose(_both(obj, E53)[0], 2.0**-53, rtol=1e-15)


@pytest.mark.parametrize("kind,params,J", [
    ("quadratic", [(-1.0,), (-0.5,), (0.0,), (0.5,), (1.0,)], 0.01),
    ("quadratic", [(-1.0,), (0.25,)], 0.3),
    ("cubic", _CUBIC, 0.05),
    ("cox2", _COX2, 0.01),
])
@pytest.mark.parametrize("x", [E53, 1.0 - 3 * 2.0**-53, 0.5 + 2.0**-53, 0.75, 1.0])
def test_the_negative_class_matches_the_exact_twin(kind, params, J, x):
    p, y = _stream(n=30)
    fam = {"quadratic": o.quadratic, "cubic": o.cubic, "cox2": o.cox2}[kind](
        [r[0] for r in params] if kind == "quadratic" else params)
    obj = o.JumperPredictor(fam, jump_rate=J)
    obj.learn_many(p, y)
    low, high = _both(obj, x)
    ps = np.append(p, x)
    ys = np.append(y, 1).astype(bool)
    exact = ref.jumper_predictor(ps, ys, ref.family_values(kind, params, ps), J)[-1]
    assert_allclose(high, float(exact), rtol=1e-14)
    assert_allclose(low, float(1 - exact), rtol=1e-11, atol=0.0)


def test_the_mean_jumper_twin_keeps_its_complement():
    p, y = _stream(n=20)
    ps = np.append(p, E53)
    ys = np.append(y, 1).astype(bool)
    rates = [1.0, 0.1]
    exact = ref.mean_jumper_predictor(ps, ys, ref.family_values("cox2", _COX2, ps), rates)[-1]
    obj = o.MeanJumper(o.cox2(_COX2), jump_rates=rates)
    obj.learn_many(p, y)
    low, high = _both(obj, E53)
    assert_allclose(low, float(1 - exact), rtol=1e-11)
    assert_allclose(high, float(exact), rtol=1e-14)


_EDGES = [2.0**-53, E53, 1.0 - 1e-16, 0.5 + 2.0**-53, 0.5 - 2.0**-54, 0.5, 2.0**-1074 * 3, 0.0, 1.0]


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from([k for k, v in OBJECTS.items() if v[1] is not None]),
       seed=st.integers(0, 2**16),
       x=st.one_of(st.sampled_from(_EDGES), st.floats(0.0, 1.0)))
def test_the_mirrored_stream_gives_the_same_probabilities(name, seed, x):
    if 1.0 - (1.0 - x) != x:
        x = 1.0 - (1.0 - x)  # a forecast whose complement is exact: the mirror is exact
    make, mirror = OBJECTS[name]
    p, y = _dyadic_stream(seed)
    obj, mir = make(), mirror()
    obj.learn_many(p, y)
    mir.learn_many(1.0 - p, 1 - y)
    low, high = _both(obj, x)
    m_low, m_high = _both(mir, 1.0 - x)
    for a, b in ((low, m_high), (high, m_low)):
        assert (a == 0.0) == (b == 0.0)
        assert_allclose(a, b, rtol=1e-10, atol=0.0)


@pytest.mark.parametrize("name", list(OBJECTS))
@pytest.mark.parametrize("x", [1e-310, 1.0 - 1e-16, 1.0 - 5 * 2.0**-53, 2.0**-53])
def test_no_zero_where_the_value_is_positive_and_the_rows_sum_to_one(name, x):
    p, y = _stream(seed=7)
    obj = OBJECTS[name][0]()
    obj.learn_many(p, y)
    low, high = _both(obj, x)
    assert low > 0.0 and high > 0.0
    assert abs((low + high) - 1.0) <= 2.0**-49


class _Column(ClassifierMixin, BaseEstimator):
    """A base model whose probability of the positive class is the first feature."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return np.column_stack([1.0 - X[:, 0], X[:, 0]])


def test_protected_classifier_routes_through_the_fix():
    p, y = _stream(n=40)
    X = p[:, None]
    clf = o.ProtectedClassifier(_Column()).fit(X, y)
    clf.partial_fit(X, y)
    proba = clf.predict_proba(np.array([[E53]]))
    assert proba[0].tolist() == clf.jumper_.predict_proba_many([E53])[0].tolist()
    before = clf.jumper_.log10_value
    clf.partial_fit(np.array([[E53]]), np.array([0]))  # main: 2**-53, where 2.6e-17 is implied
    assert_allclose(proba[0, 0], 2.0**-53 * 10.0 ** (clf.jumper_.log10_value - before), rtol=1e-9)


def test_named_classes_keep_their_order_as_documented():
    """Attack 53 F1: the parameter docs said the positive class is the larger; the order given
    is kept ([negative, positive]), as the module docs and docs/online.md say."""
    from venncal.online import JumperPredictor

    assert JumperPredictor(classes=[2, 1]).predict_proba_one(0.9) == pytest.approx({2: 0.1, 1: 0.9})
    assert "[negative, positive]" in " ".join(JumperPredictor.__doc__.split())
