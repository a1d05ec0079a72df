"""Cox's families and unions of the paper's families in compiled code (issue 26, deliverables 1 and 5).

The kernels of ``venncal._kernels.jumper_union`` against their literal twins
(``tests/reference/jumper_union_naive.py``) on random and extreme forecasts;
the Jumper objects over such families, through single calls, against the
batch path (bit for bit) and the literal Jumper (1e-12), with forgetting; and
the values of before the kernels (SciPy's Cox values, NumPy's rescaling).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from reference import jumper_naive as ref
from reference import jumper_union_naive as twin
from scipy.special import expit, logit

from venncal._kernels.jumper_calls import calls_layout
from venncal._kernels.jumper_union import cox_values, union_ratios, union_values
from venncal.online import JumperMartingale, JumperPredictor, MeanJumper
from venncal.online._composite import describe
from venncal.online.families import cox, cox2, cubic, family, named, quadratic, union

EXTREME = [0.0, 1.0, 5e-324, 1e-310, 1e-300, 1.0 - 2.0**-53, 1.0 - 2.0**-52, 0.5, 0.3, 0.65,
           0.2999999999999999, 0.6500000000000001]
forecasts = st.one_of(st.sampled_from(EXTREME), st.floats(0.0, 1.0))
COX_PARAMS = [[0.0, 0.5], [0.0, 2.0], [-1.0, 1.0], [0.5, 0.0], [2.0, -3.0], [-1e3, 2.0],
              [0.0, 1e-300], [1.0, 1e300]]
#: The unions the CLI and the docs offer (``venncal monitor --family``), and Cox's alone.
OFFERED = ["shift+confidence", "quadratic+cox", "quadratic+cox2", "cubic+cox2", "quadratic+cubic",
           "cox", "cox2"]


def _members(fam):
    return [(m.kind, m.params) for m in getattr(fam, "members", (fam,))]


def _random_p(seed: int, n: int = 200) -> np.ndarray:
    return np.concatenate([np.random.default_rng(seed).random(n), EXTREME])


# -- the kernels and their twins ---------------------------------------------------------


@given(st.lists(forecasts, min_size=1, max_size=30))
def test_cox_values_equal_their_literal_twin_bit_for_bit(ps):
    p = np.array(ps)
    params = np.array(COX_PARAMS)
    out = np.empty((len(COX_PARAMS), p.shape[0]))
    cox_values(params, p, out)
    np.testing.assert_array_equal(out, np.array(twin.cox_values(COX_PARAMS, ps)))


@pytest.mark.parametrize("fam", [cox(), cox2(), cox(np.unique(np.array(COX_PARAMS)[:, 1])), cox2(COX_PARAMS)],
                         ids=["cox", "cox2", "cox-edges", "cox2-edges"])
def test_cox_tables_are_scipys_values_bit_for_bit(fam):
    # Before the kernels the table was expit(alpha + beta logit p) by SciPy: the same floats.
    p = _random_p(1, 2000)
    theta = fam._kernel_params()
    with np.errstate(invalid="ignore"):
        z = theta[:, 1:] * logit(p)[None, :]
    z[theta[:, 1] == 0.0] = 0.0
    # ... but where SciPy's exp(-z) overflows (z < -709.78) and it gives 0: exp(z) (attack 50 F7)
    want = expit(theta[:, :1] + z)
    with np.errstate(over="ignore"):
        low = np.exp(-(theta[:, :1] + z)) == np.inf
    want[low] = np.exp((theta[:, :1] + z)[low])
    np.testing.assert_array_equal(fam.table(p), want)


@pytest.mark.parametrize("name", OFFERED)
def test_union_values_equal_the_exact_values(name):
    fam = named(name)
    p = _random_p(2, 40)
    got = np.empty((len(fam), p.shape[0]))
    union_values(*describe(getattr(fam, "members", (fam,))), p, got)
    np.testing.assert_array_equal(got, fam.table(p))
    exact = np.array([[float(v) for v in row] for row in twin.union_values(_members(fam), p)])
    # The polynomials to an ulp or two; Cox's values as SciPy gives them: expit(z) with
    # |z| up to 1,500 (the rounding of z, amplified: 1e-13 at p = 1e-300), and 0 where
    # 1 / (1 + exp(-z)) underflows (below 2**-1022; Cox's likelihood ratios do not use them).
    assert_allclose(got, exact, rtol=1e-12, atol=2.0**-1022)
    poly = [k for k, label in enumerate(getattr(fam, "labels")) if "cox" not in label]
    if fam.kind not in ("cox", "cox2"):
        assert_allclose(got[poly], exact[poly], rtol=1e-15, atol=5e-324)
    assert ((got >= 0.0) & (got <= 1.0)).all()


def _check_ratios(fam, p, y):
    t, ls = fam.likelihood_ratios(p, y, fam.table(p))
    want_t, want_ls = twin.union_ratios(_members(fam), p, y)
    assert_allclose(ls, [float(v) for v in want_ls], rtol=1e-12, atol=1e-12)
    assert_allclose(t, [[float(v) for v in row] for row in want_t], rtol=1e-12, atol=1e-300)
    return t, ls


@pytest.mark.parametrize("name", OFFERED)
@pytest.mark.parametrize("positive", [True, False])
def test_union_ratios_equal_the_exact_ratios(name, positive):
    fam = named(name)
    p = _random_p(3, 30)
    p = p[p != (0.0 if positive else 1.0)]  # B_p(y) > 0
    _check_ratios(fam, p, np.full(p.shape, positive))


@given(st.lists(forecasts, min_size=1, max_size=8), st.lists(st.booleans(), min_size=8, max_size=8),
       st.sampled_from(["shift+confidence", "quadratic+cox2"]))
def test_union_ratios_on_extreme_forecasts(ps, ys, name):
    p, y = np.array(ps), np.array(ys[:len(ps)])
    keep = np.where(y, p != 0.0, p != 1.0)
    if keep.any():
        t, _ = _check_ratios(named(name), p[keep], y[keep])
        np.testing.assert_array_equal(t.max(axis=0), 1.0)


def _numpy_rescale(parts):
    """The union's rescaling as it was written in NumPy before the kernel (the old ``_down_scale``)."""
    ls = np.max(np.vstack([lm for _, lm in parts]), axis=0)
    out = []
    for tm, lm in parts:
        scale = np.zeros(lm.shape)
        ok = np.isfinite(lm) & np.isfinite(ls)
        a, b = lm[ok], -ls[ok]
        dh = a + b
        bb = dh - a
        dl = (a - (dh - bb)) + (b - bb)
        e = np.exp(dh)
        scale[ok] = np.minimum(e + e * dl, 1.0)
        out.append(tm * scale)
    return np.vstack(out), ls


@pytest.mark.parametrize("members", [[quadratic(), cubic(), cox()], [quadratic(), cox2()],
                                     [cubic(), family(np.sqrt, np.square), cox([0.5, 2.0])]],
                         ids=["shift+confidence", "quadratic+cox2", "with-a-user-family"])
def test_union_ratios_equal_the_numpy_rescaling(members):
    fam = union(*members)
    p = _random_p(4, 300)
    y = np.random.default_rng(5).random(p.shape[0]) < 0.5
    y[p == 0.0], y[p == 1.0] = False, True
    table = fam.table(p)
    parts, row = [], 0
    for m in fam.members:
        parts.append(m.likelihood_ratios(p, y, table[row:row + len(m)]))
        row += len(m)
    want_t, want_ls = _numpy_rescale(parts)
    t, ls = fam.likelihood_ratios(p, y, table)
    np.testing.assert_array_equal(ls, want_ls)
    assert_allclose(t, want_t, rtol=1e-15, atol=0)
    if fam._compiled is not None:  # the compiled union: the member kernels, then the rescaling
        t2, ls2 = np.empty(t.shape), np.empty(ls.shape)
        union_ratios(*fam._compiled, p, y, table, t2, ls2, np.empty((len(fam.members), len(p))))
        # (the kernel carries a ratio below 2**-1022 as its log: likelihood_ratios gives its float)
        np.testing.assert_array_equal(np.where(t2 < 0.0, np.exp(np.minimum(t2, 0.0)), t2), t)
        np.testing.assert_array_equal(ls2, ls)


# -- the Jumper objects ----------------------------------------------------------------

MAKERS = [
    lambda: JumperMartingale(named("shift+confidence")),
    lambda: JumperPredictor(named("quadratic+cox2"), jump_rate=0.05, clip=(0.1, 0.9)),
    lambda: MeanJumper(named("shift+confidence"), half_life=20.0, classes=("no", "yes")),
    lambda: JumperMartingale(cox2(), jump_rate=0.2, half_life=3.0),
    lambda: JumperPredictor(cox()),
]


@pytest.mark.parametrize("make", MAKERS)
@given(ops=st.lists(st.tuples(st.sampled_from(["learn", "learn", "predict", "pickle"]), forecasts,
                              st.booleans()), max_size=50))
def test_single_calls_equal_the_batch_path(make, ops):
    fast, batch = make(), make()
    labels = (False, True) if fast.classes is None else ("no", "yes")
    for op, p, positive in ops:
        if op == "learn":
            if p == (0.0 if positive else 1.0) and (fast.clip is None):
                continue
            fast.learn_one(p, labels[positive])
            batch.learn_many([p], [labels[positive]])
        elif op == "predict":
            row = batch.predict_proba_many([p])[0]
            assert list(fast.predict_proba_one(p).values()) == [float(row[0]), float(row[1])]
        else:
            fast = pickle.loads(pickle.dumps(fast))
    assert fast.log10_value == batch.log10_value
    np.testing.assert_array_equal(fast.weights_, batch.weights_)
    assert fast._queue  # queued: the compiled path


@pytest.mark.parametrize("half_life", [None, 7.0])
def test_interleaved_single_calls_equal_the_literal_jumper(half_life):
    rng = np.random.default_rng(6)
    p = np.concatenate([rng.uniform(0.02, 0.98, 300), [1e-310, 0.5, 1 - 2.0**-53, 5e-324, 0.5]])
    y = rng.random(p.shape[0]) < 0.5 + 0.6 * (p - 0.5)
    y[-5:] = [True, False, False, True, True]
    fam = named("shift+confidence")
    single, whole = JumperPredictor(fam, 0.02, half_life=half_life), JumperPredictor(
        fam, 0.02, half_life=half_life)
    res = whole.run(p, y)
    proba, log10 = [], []
    for pi, yi in zip(p.tolist(), y.tolist(), strict=True):
        proba.append(single.predict_proba_one(pi)[True])
        single.learn_one(pi, yi)
        if len(log10) % 37 == 0:  # reads between the calls apply the queue
            log10.append(single.log10_value)
        else:
            log10.append(None)
    log10[-1] = single.log10_value
    np.testing.assert_array_equal(proba, res.protected_proba)  # bit for bit with run
    assert [v for v in log10 if v is not None] == [
        res.log10_martingale[i] for i, v in enumerate(log10) if v is not None]
    table = twin.union_values(_members(fam), p)
    if half_life is None:
        want_s = ref.jumper_martingale(p, y, table, 0.02)
        want_p = ref.jumper_predictor(p, y, table, 0.02)
    else:
        want_p, want_s = ref.jumper_forgetting(p, y, table, 0.02, half_life)
    assert_allclose(res.log10_martingale, [ref.log10_of(s) for s in want_s], rtol=1e-12,
                    atol=1e-13)
    assert_allclose(proba, [float(v) for v in want_p][:len(proba)], rtol=1e-12, atol=1e-300)


def test_a_pickle_from_before_the_compiled_union_continues_exactly():
    # Cox's families and unions used to queue through learn_many with the layout of the
    # quadratic family's memory (no parameters): such a pickle gets the new memory.
    rng = np.random.default_rng(8)
    p, y = rng.uniform(0.05, 0.95, 400), rng.random(400) < 0.4
    for fam in (named("shift+confidence"), cox()):
        model, whole = MeanJumper(fam), MeanJumper(fam)
        model.learn_many(p[:200], y[:200])
        state = model.__getstate__()
        K, R = len(fam), model._rates.shape[0]
        old, new = calls_layout(256, K, R, 0), model._off
        mem = np.zeros(old[-1])
        mem[old[1]:old[4]] = state["_mem"][new[1]:new[4]]
        state.update(_mem=mem, _kind=-1, _off=old, _ctl=old[0])
        revived = MeanJumper.__new__(MeanJumper)
        revived.__setstate__(state)
        for pi, yi in zip(p[200:].tolist(), y[200:].tolist(), strict=True):
            revived.learn_one(pi, yi)
        whole.learn_many(p, y)
        assert revived.log10_value == whole.log10_value
        np.testing.assert_array_equal(revived.weights_, whole.weights_)


def test_a_users_family_in_a_union_stays_on_the_python_path():
    fam = union(quadratic(), family(np.sqrt))
    model = JumperMartingale(fam)
    assert fam._compiled is None and model._queue == 0
    model.learn_one(0.3, True)
    model.learn_one(0.6, False)
    whole = JumperMartingale(fam)
    whole.learn_many([0.3, 0.6], [True, False])
    assert model.log10_value == whole.log10_value


def test_a_forecast_at_minus_zero_is_not_the_values_at_zero():
    # A River loop's learn_one takes the column of the forecast just made at the same base
    # probability; -0.0 and 0.0 compare equal but are different floats, so the values are
    # computed again (bit for bit the batch path's).
    fast, batch = JumperPredictor(named("shift+confidence")), JumperPredictor(named("shift+confidence"))
    for model in (fast, batch):
        model.learn_many([0.3], [True])
    assert fast.predict_proba_one(-0.0) == {False: 1.0 - batch.predict_proba_many([-0.0])[0, 1],
                                            True: batch.predict_proba_many([-0.0])[0, 1]}
    fast.learn_one(0.0, False)
    batch.learn_many([0.0], [False])
    assert fast.predict_proba_one(0.3)[True] == batch.predict_proba_many([0.3])[0, 1]
    assert fast.log10_value == batch.log10_value


@pytest.mark.parametrize("make, first, second", [
    (lambda: quadratic([0.0, 0.0, 1.0]), "eps=0", "eps=0"),
    (lambda: quadratic([0.0, -0.0, 1.0]), "eps=0", "eps=-0"),
    (lambda: cubic([(0.0, 0.5), (0.0, 0.25), (1.0, 0.5)]), "a=0,b=0.5", "a=0,b=0.25"),
    (lambda: cox([1.0, 2.0, 2.0]), "beta=2", "beta=2"),
    (lambda: cox2([(0.5, 1.0), (0.5, 1.0)]), "alpha=0.5,beta=1", "alpha=0.5,beta=1"),
    (lambda: family(np.sqrt, np.sqrt), "sqrt", "sqrt#2"),
])
def test_a_family_with_a_function_twice_is_refused(make, first, second):
    # attack 38 F4: quadratic([0, 0, 1]) weighed eps = 0 twice (log10 S -0.447) where
    # union(quadratic([0, 0, 1])) kept it once (-0.710): one rule, a family is a set
    with pytest.raises(ValueError, match=f"{first} and {second} are the same function"):
        make()
