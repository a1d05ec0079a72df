"""``ProtectedClassifier.predict_proba_stream``'s negative class near p = 1 (issue 22).

The stream's forecasts came from :meth:`JumperPredictor.run` as ``1 - p'``,
which is 0 (or a multiple of ``2**-53``) where ``p'`` rounds to 1.  Now the
kernel (:func:`venncal._kernels.jumper_complement.advance_low`) forms each
step's negative class as ``predict_proba_many`` does: these tests hold the
stream's rows to the step-by-step predictions bit for bit, class 1 and the
state to ``run``, and the negative class to the exact twin
(``tests/reference/jumper_naive.py``).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from reference import jumper_naive as ref
from test_jumper_complement import _Column  # a base model whose p is X[:, 0]

import venncal.online as o

E53 = 1.0 - 2.0**-53
EDGES = [E53, 1.0 - 2.0**-52, 1e-310, 0.5, 0.5 + 2.0**-53, 0.5 - 2.0**-54, E53, E53]
_CUBIC = [(0.0, 0.5), (-1.0, 0.25), (0.5, 0.75), (1.0, 0.25)]
_COX2 = [(-1.0, 0.5), (0.5, 2.0), (0.0, 1.0)]

FAMILIES = {
    "quadratic": lambda: o.quadratic(),
    "cubic": lambda: o.cubic(_CUBIC),
    "cox": lambda: o.cox(),
    "cox2": lambda: o.cox2(_COX2),
    "union": lambda: o.quadratic() + o.cubic() + o.cox(),
    "custom": lambda: o.family(lambda p: p, lambda p: p * p),
}
RATES = {"one": 0.01, "mean": (1.0, 0.1, 0.01)}

#: Subnormal forecasts (1e-310 in the streams) hold fewer significant bits: a relative
#: tolerance cannot hold there, a few of the smallest subnormal steps can.
SUBNORMAL = 64 * 5e-324


def _stream(seed=3, n=30):
    """A random stream with the edges of floating point near 0, 1/2 and 1 inside it."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.01, 0.99, n)
    y = (rng.uniform(size=n) < np.clip(p * 1.3, 0, 1)).astype(int)
    p = np.concatenate([p, EDGES, p[:4], EDGES])
    y = np.concatenate([y, [0, 1, 1, 0, 1, 0, 1, 0], y[:4], [0, 0, 1, 1, 0, 1, 0, 1]])
    return p, y


def _fitted(family, rate, **kw):
    return o.ProtectedClassifier(_Column(), family=family, jump_rate=rate, **kw).fit(
        np.array([[0.2], [0.7]]), np.array([0, 1]))


@pytest.mark.parametrize("rate", list(RATES))
@pytest.mark.parametrize("name", list(FAMILIES))
def test_the_stream_gives_predict_proba_of_each_step_bit_for_bit(name, rate):
    p, y = _stream()
    X = p[:, None]
    clf = _fitted(FAMILIES[name](), RATES[rate])
    stream = clf.predict_proba_stream(X, y)
    step = _fitted(FAMILIES[name](), RATES[rate])
    want = []
    for i in range(p.shape[0]):
        many = step.predict_proba(X[i:i + 1])[0]
        one = step.jumper_.predict_proba_one(p[i])
        assert list(one.values()) == many.tolist()
        want.append(many)
        step.partial_fit(X[i:i + 1], y[i:i + 1])
    assert stream.tolist() == np.array(want).tolist()
    assert (stream[:, 0] > 0.0).all() and (stream[:, 1] > 0.0).all()
    # class 1, the martingale and the state are run's, bit for bit
    jumper = o.JumperPredictor if rate == "one" else o.MeanJumper
    plain = jumper(FAMILIES[name](), RATES[rate], classes=[False, True])
    res = plain.run(p, y == 1)
    assert stream[:, 1].tolist() == res.protected_proba.tolist()
    assert clf.jumper_.log10_value == plain.log10_value
    assert clf.jumper_.alarm(0.5) == plain.alarm(0.5)
    assert clf.jumper_._weights.tolist() == plain._weights.tolist()
    assert clf.jumper_._log_cap.tolist() == plain._log_cap.tolist()
    assert clf.jumper_._log_err.tolist() == plain._log_err.tolist()


def _twin_table(name, p):
    if name == "union":
        return (ref.family_values("quadratic", [(-1.0,), (1.0,)], p)
                + ref.family_values("cubic", _CUBIC, p) + ref.family_values("cox2", _COX2[:2], p))
    params = {"quadratic": [(-1.0,), (-0.5,), (0.0,), (0.5,), (1.0,)], "cubic": _CUBIC,
              "cox": [(0.5,), (2.0,)], "cox2": _COX2}[name]
    return ref.family_values(name, params, p)


_TWIN_FAMILIES = {
    "quadratic": o.quadratic, "cubic": lambda: o.cubic(_CUBIC),
    "cox": lambda: o.cox([0.5, 2.0]), "cox2": lambda: o.cox2(_COX2),
    # (cox2's (0, 1) is the identity, cubic's (0, 0.5) already: a union keeps one)
    "union": lambda: o.quadratic([-1.0, 1.0]) + o.cubic(_CUBIC) + o.cox2(_COX2[:2]),
}


@pytest.mark.parametrize("rate", list(RATES))
@pytest.mark.parametrize("name", list(_TWIN_FAMILIES))
def test_the_stream_matches_the_exact_twin(name, rate):
    # Fails on main (1 - p' there): at 1 - 2**-53 class 0 was 0 or 2**-53 / 2**-52.
    p, y = _stream(seed=4, n=12)
    clf = _fitted(_TWIN_FAMILIES[name](), RATES[rate])
    stream = clf.predict_proba_stream(p[:, None], y)
    table = _twin_table(name, p)
    ys = (y == 1).tolist()
    if rate == "one":
        exact = ref.jumper_predictor(p, ys, table, RATES[rate])
    else:
        exact = ref.mean_jumper_predictor(p, ys, table, list(RATES[rate]))
    assert len(exact) == p.shape[0]
    assert_allclose(stream[:, 1], [float(e) for e in exact], rtol=1e-13, atol=SUBNORMAL)
    assert_allclose(stream[:, 0], [float(1 - e) for e in exact], rtol=1e-11, atol=SUBNORMAL)


def test_the_issue_22_repro_on_the_stream():
    # Fails on main: class 0 at the step p = 1 - 2**-53 was 1 - p' = 2**-53 (or 0), where
    # the step's own growth implies the exact mixture of the complements.
    p, y = _stream(seed=5, n=40)
    p, y = p[:40], y[:40]
    clf = _fitted(None, 0.01)
    clf.predict_proba_stream(p[:, None], y)
    before = clf.jumper_.log10_value
    row = clf.predict_proba_stream(np.array([[E53]]), np.array([0]))[0]
    # S grows by B_{p'}(0) / B_p(0) = (1 - p') / 2**-53
    assert_allclose(row[0], 2.0**-53 * 10.0 ** (clf.jumper_.log10_value - before), rtol=1e-9)


def test_the_stream_honours_clip_and_blocks():
    p, y = _stream(seed=6)
    clf = _fitted(o.cox(), 0.05, clip=(1e-300, E53))
    stream = clf.predict_proba_stream(p[:, None], y)
    step = _fitted(o.cox(), 0.05, clip=(1e-300, E53))
    want = []
    for i in range(p.shape[0]):
        want.append(step.predict_proba(p[i:i + 1, None])[0])
        step.partial_fit(p[i:i + 1, None], y[i:i + 1])
    assert stream.tolist() == np.array(want).tolist()


_FLOATS = st.one_of(st.sampled_from(EDGES + [2.0**-53, 1.0 - 1e-16, 0.25, 2.0**-1074 * 3]),
                    st.floats(1e-300, E53))


@settings(max_examples=25, deadline=None)
@given(p=st.lists(_FLOATS, min_size=1, max_size=12), seed=st.integers(0, 2**16),
       rate=st.sampled_from([1.0, 0.3, 0.01]))
def test_edge_streams_match_the_exact_twin_and_the_steps(p, seed, rate):
    p = np.array(p)
    y = np.random.default_rng(seed).integers(0, 2, p.shape[0])
    params = [(-1.0,), (0.5,), (1.0,)]
    clf = _fitted(o.quadratic([e for (e,) in params]), rate)
    stream = clf.predict_proba_stream(p[:, None], y)
    exact = ref.jumper_predictor(p, (y == 1).tolist(), ref.family_values("quadratic", params, p),
                                 rate)
    assert_allclose(stream[:, 0], [float(1 - e) for e in exact], rtol=1e-11, atol=SUBNORMAL)
    assert_allclose(stream[:, 1], [float(e) for e in exact], rtol=1e-13, atol=SUBNORMAL)
    step = _fitted(o.quadratic([e for (e,) in params]), rate)
    for i in range(p.shape[0]):
        assert step.predict_proba(p[i:i + 1, None])[0].tolist() == stream[i].tolist()
        step.partial_fit(p[i:i + 1, None], y[i:i + 1])


@pytest.mark.parametrize("x", [E53, 0.5, 1e-310, 0.75])
def test_a_constant_stream(x):
    p, y = np.full(20, x), np.array([1, 0] * 10)
    clf = _fitted(o.cox2(_COX2[:2]), 0.1)
    stream = clf.predict_proba_stream(p[:, None], y)
    exact = ref.jumper_predictor(p, (y == 1).tolist(), ref.family_values("cox2", _COX2[:2], p), 0.1)
    assert_allclose(stream[:, 0], [float(1 - e) for e in exact], rtol=1e-11, atol=SUBNORMAL)
    assert_allclose(stream[:, 1], [float(e) for e in exact], rtol=1e-13, atol=SUBNORMAL)
