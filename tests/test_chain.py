"""ChainedCalibrator (issue 25, deliverable 2): Venn-Abers on top of a first stage.

The guarantees are tested as what they rest on: with ``fitting="split"`` the
chain *is*, bit for bit, an IVAP fitted by hand on the held-out rows' outputs
of a first stage fitted by hand on the other rows (so the IVAP's validity,
for a fixed scoring function, carries over); with ``fitting="cross"`` each
fold's IVAP is the one fitted by hand on its fold's outputs of the first
stage fitted on the other folds, and the prediction is CVAP's merge of them.
"""

from __future__ import annotations

import io
import json
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from test_persist import seal

import venncal
from venncal import (
    ChainedCalibrator,
    CrossVennAbersCalibrator,
    IsotonicCalibrator,
    OneVsOneCalibrator,
    OneVsRestCalibrator,
    PlattCalibrator,
    TemperatureCalibrator,
    VennAbersCalibrator,
    persist,
)


def _same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    if a.dtype.kind == "f":
        assert np.array_equal(a.view(np.uint64), b.view(np.uint64))
    else:
        assert a.tolist() == b.tolist()


def _binary(seed, n=160):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=n) * 2
    y = (rng.random(n) < 1 / (1 + np.exp(-1.5 * s))).astype(int)
    return s, y, rng


def _classes(seed, n=240, K=3):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, K)) * 3
    p = np.exp(z / 3)
    p /= p.sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) < rng.random((n, 1))).sum(axis=1)
    return z, y, rng


CODINGS = {
    "ints": lambda y: y,
    "text": lambda y: np.array(["neg", "pos"])[y],
    "bools": lambda y: y.astype(bool),
    "floats": lambda y: y * 2.5 - 1.0,
}


def _weights(rng, n, kind):
    if kind is None:
        return None
    w = rng.integers(1, 4, size=n).astype(float)
    if kind == "zeros":
        w[rng.random(n) < 0.2] = 0.0
    return w


def _sub(w, rows):
    return None if w is None else w[rows]


# ---------------------------------------------------------------- split: an IVAP by hand


@pytest.mark.parametrize("coding", list(CODINGS))
@pytest.mark.parametrize("weights", [None, "integers", "zeros"])
def test_split_is_an_ivap_on_the_held_out_rows_bit_for_bit(coding, weights):
    s, y01, rng = _binary(1)
    y = CODINGS[coding](y01)
    w = _weights(rng, s.shape[0], weights)
    chain = ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(merge="brier"),
                              fitting="split", calibration_size=0.4, random_state=7)
    chain.fit(s, y, w)
    (a, b), = chain.split(y, w)
    assert np.intersect1d(a, b).size == 0
    if w is not None:
        assert not np.isin(np.flatnonzero(w == 0), np.concatenate([a, b])).any()
    first = PlattCalibrator().fit(s[a], y[a], _sub(w, a))
    ivap = VennAbersCalibrator(merge="brier").fit(
        first.predict_proba(s[b])[:, 1], y[b], _sub(w, b)
    )
    _same_bits(chain.first_.a_, first.a_)
    for name in ("scores_", "weights_", "p0_", "p1_"):
        _same_bits(getattr(chain.then_, name), getattr(ivap, name))
    t = np.linspace(-5, 5, 41)
    q = first.predict_proba(t)[:, 1]
    _same_bits(chain.transform(t), q)
    _same_bits(chain.predict_proba(t), ivap.predict_proba(q))
    _same_bits(chain.predict_interval(t), ivap.predict_interval(q))
    _same_bits(chain.predict(t), ivap.predict(q))
    _same_bits(chain.classes_, ivap.classes_)


def test_split_rows_are_stratified_and_reproducible():
    s, y, _ = _binary(2, n=200)
    chain = ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), fitting="split",
                              calibration_size=0.25, random_state=0)
    (a, b), = chain.split(y)
    assert len(b) == 50 and len(a) == 150
    share = y[b].mean() - y.mean()
    assert abs(share) <= 1 / 50
    (a2, b2), = chain.split(y)
    _same_bits(a, a2)
    _same_bits(b, b2)


def test_zero_weight_rows_count_nowhere():
    # the chain with some weights 0 is the chain on the other rows, bit for bit
    s, y, rng = _binary(3)
    w = _weights(rng, s.shape[0], "zeros")
    kept = w > 0
    for fitting, then in (("split", VennAbersCalibrator()), ("cross", CrossVennAbersCalibrator())):
        chain = ChainedCalibrator(PlattCalibrator(), then, fitting=fitting, cv=3, random_state=5)
        one = clone(chain).fit(s, y, w)
        two = clone(chain).fit(s[kept], y[kept], w[kept])
        t = np.linspace(-4, 4, 17)
        _same_bits(one.predict_proba(t), two.predict_proba(t))


# ---------------------------------------------------------------- cross: CVAP's folds by hand


@pytest.mark.parametrize("weights", [None, "zeros"])
@pytest.mark.parametrize("merge", ["log", "brier"])
def test_cross_is_one_ivap_per_fold_merged_as_cvap(weights, merge):
    s, y, rng = _binary(4)
    y = CODINGS["text"](y)
    w = _weights(rng, s.shape[0], weights)
    chain = ChainedCalibrator(PlattCalibrator(), CrossVennAbersCalibrator(merge=merge),
                              fitting="cross", cv=4, random_state=11).fit(s, y, w)
    parts = chain.split(y, w)
    assert len(parts) == 4 and len(chain.first_) == 4
    out = np.empty(s.shape[0])
    fold = np.full(s.shape[0], -1)
    t = np.linspace(-5, 5, 33)
    columns = []
    for k, (a, b) in enumerate(parts):
        assert np.intersect1d(a, b).size == 0
        first = PlattCalibrator().fit(s[a], y[a], _sub(w, a))
        _same_bits(chain.first_[k].a_, first.a_)
        out[b] = first.predict_proba(s[b])[:, 1]
        fold[b] = k
        columns.append(first.predict_proba(t)[:, 1])
        # each fold's IVAP: fitted on its own rows' outputs of a first stage that never saw them
        ivap = VennAbersCalibrator(merge=merge).fit(out[b], y[b], _sub(w, b))
        for name in ("scores_", "weights_", "p0_", "p1_"):
            _same_bits(getattr(chain.then_.calibrators_[k], name), getattr(ivap, name))
        q = columns[-1]
        _same_bits(chain.then_.calibrators_[k].predict_interval(q), ivap.predict_interval(q))
    kept = fold >= 0
    cvap = CrossVennAbersCalibrator(merge=merge).fit(out[kept], y[kept], _sub(w, kept),
                                                     folds=fold[kept])
    x = np.column_stack(columns)
    _same_bits(chain.transform(t), x)
    _same_bits(chain.predict_proba(t), cvap.predict_proba(x))
    _same_bits(chain.predict_interval(t), cvap.predict_interval(x))
    _same_bits(chain.folds_, np.arange(4))


def test_cross_with_given_folds():
    s, y, _ = _binary(5)
    folds = np.array(["a", "b", "c"])[np.arange(s.shape[0]) % 3]
    chain = ChainedCalibrator(PlattCalibrator(), CrossVennAbersCalibrator(), fitting="cross")
    chain.fit(s, y, folds=folds)
    assert chain.folds_.tolist() == ["a", "b", "c"]
    parts = chain.split(y, folds=folds)
    for k, f in enumerate("abc"):
        _same_bits(parts[k][1], np.flatnonzero(folds == f))
        _same_bits(parts[k][0], np.flatnonzero(folds != f))
        first = PlattCalibrator().fit(s[folds != f], y[folds != f])
        _same_bits(chain.first_[k].b_, first.b_)


# ---------------------------------------------------------------- K classes


@pytest.mark.parametrize("labels", ["ints", "text"])
def test_classes_split_is_ovr_ivap_on_the_held_out_rows(labels):
    z, y, rng = _classes(6)
    if labels == "text":
        y = np.array(["cat", "dog", "emu"])[y]
    w = rng.integers(0, 3, size=y.shape[0]).astype(float)
    then = OneVsRestCalibrator(VennAbersCalibrator(), score="proba")
    chain = ChainedCalibrator(TemperatureCalibrator(), then, fitting="split",
                              random_state=2).fit(z, y, w)
    (a, b), = chain.split(y, w)
    first = TemperatureCalibrator().fit(z[a], y[a], w[a])
    ovr = clone(then).fit(first.predict_proba(z[b]), y[b], w[b])
    _same_bits(chain.first_.inverse_temperature_, first.inverse_temperature_)
    t = rng.normal(size=(20, 3)) * 3
    q = first.predict_proba(t)
    _same_bits(chain.predict_proba(t), ovr.predict_proba(q))
    _same_bits(chain.predict_interval(t), ovr.predict_interval(q))
    _same_bits(chain.predict(t), ovr.predict(q))
    _same_bits(chain.classes_, ovr.classes_)


def test_classes_cross_is_ovo_cvap_over_the_folds():
    z, y, rng = _classes(7)
    then = OneVsOneCalibrator(CrossVennAbersCalibrator(), score="proba", coupling="normalize")
    chain = ChainedCalibrator(TemperatureCalibrator(), then, fitting="cross", cv=3,
                              random_state=4).fit(z, y)
    out = np.empty(z.shape)
    fold = np.empty(z.shape[0], dtype=int)
    t = rng.normal(size=(15, 3)) * 3
    blocks = []
    for k, (a, b) in enumerate(chain.split(y)):
        first = TemperatureCalibrator().fit(z[a], y[a])
        _same_bits(chain.first_[k].inverse_temperature_, first.inverse_temperature_)
        out[b] = first.predict_proba(z[b])
        fold[b] = k
        blocks.append(first.predict_proba(t))
    ovo = clone(then).fit(out, y, folds=fold)
    x = np.stack(blocks, axis=1)
    _same_bits(chain.transform(t), x)
    _same_bits(chain.predict_proba(t), ovo.predict_proba(x))
    _same_bits(chain.predict_interval(t), ovo.predict_interval(x))


def test_same_is_both_stages_on_every_row():
    z, y, _ = _classes(8)
    then = OneVsRestCalibrator(CrossVennAbersCalibrator(), score="proba")
    folds = np.arange(y.shape[0]) % 2
    chain = ChainedCalibrator(TemperatureCalibrator(), then).fit(z, y, folds=folds)
    first = TemperatureCalibrator().fit(z, y)
    ovr = clone(then).fit(first.predict_proba(z), y, folds=folds)
    _same_bits(chain.predict_proba(z[:9]), ovr.predict_proba(first.predict_proba(z[:9])))
    s, yb, _ = _binary(8)
    chain = ChainedCalibrator(PlattCalibrator(), IsotonicCalibrator()).fit(s, yb)
    iso = IsotonicCalibrator().fit(PlattCalibrator().fit(s, yb).predict_proba(s)[:, 1], yb)
    assert not hasattr(chain, "predict_interval")
    _same_bits(chain.then_.values_, iso.values_)


def test_same_with_an_increasing_first_stage_is_the_ivap_of_the_scores():
    # Venn-Abers depends on the scores only through their order: a strictly increasing
    # first stage (Platt 1 / (1 + exp(a s + b)) with a < 0, no ties made by rounding) changes
    # nothing
    s, y, _ = _binary(9)
    chain = ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator()).fit(s, y)
    assert chain.first_.a_ < 0
    t = np.linspace(-3, 3, 25)
    ivap = VennAbersCalibrator().fit(s, y)
    np.testing.assert_array_equal(chain.predict_interval(t), ivap.predict_interval(t))


# ---------------------------------------------------------------- scikit-learn, save and load


def test_parameters_clone_and_get_params():
    first, then = PlattCalibrator(), OneVsRestCalibrator(VennAbersCalibrator(), score="proba")
    chain = ChainedCalibrator(TemperatureCalibrator(tol=1e-10), then, fitting="cross", cv=3)
    params = chain.get_params(deep=True)
    assert params["first__tol"] == 1e-10 and params["then__base__merge"] == "log"
    assert params["fitting"] == "cross" and params["cv"] == 3
    copy = clone(chain.set_params(first__tol=1e-9))
    assert copy.first.tol == 1e-9 and copy.first is not chain.first
    s, y, _ = _binary(10)
    chain = ChainedCalibrator(first, VennAbersCalibrator())
    chain.fit(s, y)
    assert chain.first is first and not hasattr(first, "a_")  # cloned, never fitted
    with pytest.raises(NotFittedError):
        ChainedCalibrator(first, VennAbersCalibrator()).predict_proba(s)
    assert "ChainedCalibrator" in venncal.__all__
    with pytest.raises(TypeError, match="no method name"):
        venncal._registry.method_of(ChainedCalibrator)


def _round_trip(model):
    buffer = io.StringIO()
    persist.save(model, buffer)
    return persist.load(io.StringIO(buffer.getvalue())), json.loads(buffer.getvalue())


@pytest.mark.parametrize("fitting", ["same", "split", "cross"])
def test_saves_and_loads_bit_for_bit(fitting):
    z, y, rng = _classes(11, n=150)
    base = CrossVennAbersCalibrator() if fitting == "cross" else VennAbersCalibrator()
    chain = ChainedCalibrator(TemperatureCalibrator(), OneVsRestCalibrator(base, score="proba"),
                              fitting=fitting, cv=3, random_state=1)
    chain.fit(z, np.array(["a", "b", "c"])[y])
    again, doc = _round_trip(chain)
    t = rng.normal(size=(10, 3))
    _same_bits(again.predict_proba(t), chain.predict_proba(t))
    _same_bits(again.predict_interval(t), chain.predict_interval(t))
    assert doc["class"] == "venncal.chain.ChainedCalibrator"
    assert doc["params"]["first"]["state"] is None  # the parameters stay unfitted
    assert not hasattr(again.first, "inverse_temperature_")
    s, yb, _ = _binary(11)
    binary = ChainedCalibrator(PlattCalibrator(), CrossVennAbersCalibrator(), fitting="cross",
                               cv=3, random_state=0).fit(s, yb)
    again, _ = _round_trip(binary)
    _same_bits(again.predict_proba(s), binary.predict_proba(s))


def test_tampered_files_are_refused():
    s, y, _ = _binary(12)
    chain = ChainedCalibrator(PlattCalibrator(), CrossVennAbersCalibrator(), fitting="cross",
                              cv=3, random_state=0).fit(s, y)
    _, doc = _round_trip(chain)

    def load(d):
        return persist.load(io.StringIO(json.dumps(d)))

    bad = json.loads(json.dumps(doc))
    bad["state"]["first_"] = bad["state"]["first_"][:2]
    with pytest.raises(persist.ModelFormatError, match="one first stage per fold"):
        load(seal(bad))
    bad = json.loads(json.dumps(doc))
    bad["params"]["fitting"] = "split"
    with pytest.raises(persist.ModelFormatError, match="fitting='split' fits then"):
        load(seal(bad))
    bad = json.loads(json.dumps(doc))
    bad["params"]["then"]["params"]["merge"] = "brier"
    with pytest.raises(persist.ModelFormatError, match="then_ must have the parameters"):
        load(seal(bad))


# ---------------------------------------------------------------- errors


def test_mismatched_stages_are_clear_errors():
    s, y, _ = _binary(13)
    z, y3, _ = _classes(13)
    ovr = OneVsRestCalibrator(VennAbersCalibrator(), score="proba")
    cases = [
        (ChainedCalibrator(PlattCalibrator(), ovr), s, y,
         r"first \(PlattCalibrator\) gives one probability per row, but then"),
        (ChainedCalibrator(TemperatureCalibrator(), VennAbersCalibrator()), z, y3,
         r"wrap it, e.g. OneVsRestCalibrator\(VennAbersCalibrator\(\), score='proba'\)"),
        (ChainedCalibrator(TemperatureCalibrator(), OneVsRestCalibrator(score="logit")), z, y3,
         "must take probabilities, score='proba'"),
        (ChainedCalibrator(TemperatureCalibrator(), TemperatureCalibrator()), z, y3,
         "got score='logit'"),
        (ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), fitting="cross"), s, y,
         "then must be a CrossVennAbersCalibrator"),
        (ChainedCalibrator(PlattCalibrator(), CrossVennAbersCalibrator(), fitting="split"), s, y,
         "use fitting='cross'"),
        (ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), fitting="mixed"), s, y,
         "ChainedCalibrator: fitting must be one of"),
        (ChainedCalibrator("platt", VennAbersCalibrator()), s, y,
         "first must be a venncal calibrator object"),
        (ChainedCalibrator(PlattCalibrator, VennAbersCalibrator()), s, y, "first must be"),
        (ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), cv=1), s, y,
         "cv must be an integer >= 2"),
        (ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), calibration_size=1.5), s, y,
         "calibration_size must be"),
        (ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator()), z, y3,
         r"scores must have shape \(n_samples,\): one score per row; got shape \(240, 3\)"),
        (ChainedCalibrator(TemperatureCalibrator(), ovr), s, y,
         r"scores must have shape \(n_samples, K\): one column per class; got shape \(160,\)"),
        (ChainedCalibrator(PlattCalibrator(classes=[1, 0]), VennAbersCalibrator()), s, y,
         r"the stages have different classes: first's \[1, 0\], then's \[0, 1\]"),
        (ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator()), s, y[:-1],
         "one label per row of scores"),
    ]
    for chain, x, labels, match in cases:
        with pytest.raises(ValueError, match=match):
            chain.fit(x, labels)


def test_folds_where_they_do_not_belong_and_classes_without_rows():
    s, y, _ = _binary(14)
    folds = np.arange(s.shape[0]) % 2
    with pytest.raises(TypeError, match="folds= is for fitting='cross'"):
        ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator()).fit(s, y, folds=folds)
    with pytest.raises(TypeError, match="folds= is for fitting='cross'"):
        ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), fitting="split").split(
            y, folds=folds)
    with pytest.raises(TypeError, match="needs folds="):
        ChainedCalibrator(PlattCalibrator(), CrossVennAbersCalibrator()).fit(s, y)
    y1 = y.copy()
    y1[:] = 0
    y1[0] = 1
    with pytest.raises(ValueError, match=r"fitting='split' \(a stratified split\) needs at least 2 "
                                         r"rows of each class .* class 1 has 1"):
        ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), fitting="split").fit(s, y1)
    y1[1] = 1
    with pytest.raises(ValueError, match="cv=5 folds needs at least 5 rows of each class"):
        ChainedCalibrator(PlattCalibrator(), CrossVennAbersCalibrator(), fitting="cross").fit(
            s, y1)
    z, y3, _ = _classes(14)
    f = np.where(y3 == 2, 0, np.arange(y3.shape[0]) % 2)  # class 2 only in fold 0
    then = OneVsRestCalibrator(CrossVennAbersCalibrator(), score="proba")
    with pytest.raises(ValueError, match=r"the first stage of fold 0 .* has no rows of class\(es\) "
                                         r"\[2\].*other folds"):
        ChainedCalibrator(TemperatureCalibrator(), then, fitting="cross").fit(z, y3, folds=f)
    with pytest.raises(ValueError, match="at least two folds"):
        ChainedCalibrator(TemperatureCalibrator(), then, fitting="cross").fit(
            z, y3, folds=np.zeros(y3.shape[0]))


# ---------------------------------------------------------------- edges of floating point

EDGE_WEIGHTS = st.sampled_from([1e-310, 1e-300, 0.5, 1.0, 3.0, 2.0**53 - 1, 1e308])


@given(
    weights=st.lists(EDGE_WEIGHTS, min_size=12, max_size=12),
    scores=st.lists(st.sampled_from([-3.0, -1e-310, 0.0, 0.25, 1 - 2.0**-53, 2.0]),
                    min_size=12, max_size=12),
    seed=st.integers(0, 2**16),
)
def test_split_equals_the_hand_fit_at_the_edges(weights, scores, seed):
    s = np.array(scores)
    y = np.arange(12) % 2
    w = np.array(weights)
    chain = ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(), fitting="split",
                              random_state=seed)

    def by_hand():
        (a, b), = chain.split(y, w)
        first = PlattCalibrator().fit(s[a], y[a], w[a])
        q = first.predict_proba(s)[:, 1]
        ivap = VennAbersCalibrator().fit(first.predict_proba(s[b])[:, 1], y[b], w[b])
        return ivap.predict_proba(q), ivap.predict_interval(q)

    outcomes = []
    for run in (lambda: (chain.fit(s, y, w).predict_proba(s), chain.predict_interval(s)),
                by_hand):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                outcomes.append(run())
            except ValueError as exc:
                outcomes.append(str(exc))
    if isinstance(outcomes[0], str):
        # the same refusal; the chain's says which stage refused
        assert outcomes[0] == outcomes[1] or outcomes[0].endswith(f"refused them: {outcomes[1]}")
    else:
        for mine, theirs in zip(outcomes[0], outcomes[1], strict=True):
            _same_bits(mine, theirs)


def test_float32_logits_reach_the_first_stage_as_they_are():
    z, y, _ = _classes(15)
    z32 = z.astype(np.float32)
    then = OneVsRestCalibrator(VennAbersCalibrator(), score="proba")
    chain = ChainedCalibrator(TemperatureCalibrator(), then, fitting="split",
                              random_state=3).fit(z32, y)
    (a, b), = chain.split(y)
    first = TemperatureCalibrator().fit(z32[a], y[a])
    _same_bits(chain.first_.inverse_temperature_, first.inverse_temperature_)
    _same_bits(chain.transform(z32[:5]), first.predict_proba(z32[:5]))


@pytest.mark.parametrize("fitting", ["same", "split"])
def test_a_second_stage_refusal_says_it_is_about_the_first_stages_output(fitting):
    # the value named (0.0) is an isotonic output, not a score the user gave (issue 22, F5)
    s = np.random.default_rng(0).normal(size=50)
    y = (s > 0).astype(int)
    chain = ChainedCalibrator(IsotonicCalibrator(), PlattCalibrator(), fitting=fitting,
                              random_state=0)
    with pytest.raises(ValueError, match=r"second stage \(PlattCalibrator\).*first stage's "
                                         r"probabilities.*score 0\.0"):
        chain.fit(s, y, sample_weight=np.full(50, 1e308))


@pytest.mark.parametrize("fitting", ["split", "cross"])
@pytest.mark.parametrize("weighted", [False, True])
def test_a_bad_row_is_named_as_the_input_counts_it(fitting, weighted):
    """``"split"``/``"cross"`` fit stages on parts: a refusal names the input's row (attack 20 F2).

    Row 40 sums to 1.07 (K classes) or is NaN (one score); the part's own numbering named a
    good row (19, 16, 27, ...), and counted only the part's bad rows.
    """
    rng = np.random.default_rng(0)
    n, K = 60, 3
    P = rng.dirichlet([2] * K, n)
    y = np.where(rng.random(n) < 0.7, P.argmax(axis=1), rng.integers(0, K, n))
    y[:K] = range(K)
    P[40, 0] += 0.07
    w = np.ones(n)
    if weighted:
        w[[1, 2, 3, 5, 30]] = 0.0
    base = CrossVennAbersCalibrator() if fitting == "cross" else VennAbersCalibrator()
    chain = ChainedCalibrator(TemperatureCalibrator(score="proba"),
                              OneVsRestCalibrator(base, score="proba"), fitting=fitting,
                              point="cap", cv=3, random_state=0)
    with pytest.raises(ValueError, match=r"row 40 \(from 0\) sums to 1\.07"):
        chain.fit(P, y, sample_weight=w)
    s = rng.normal(size=n)
    s[[40, 50]] = np.nan
    yb = (s + rng.normal(size=n) > 0).astype(int)
    chain = ChainedCalibrator(PlattCalibrator(), base, fitting=fitting, cv=3, random_state=0)
    with pytest.raises(ValueError, match=r"found 2 NaN or infinite value\(s\), the first at "
                                         r"index 40 \(nan\)"):
        chain.fit(s, yb, sample_weight=w)


def test_a_second_stage_row_is_the_inputs_row_and_stays_a_row_error(monkeypatch):
    """The second stage's refusal of a row of a part names the input's row, as a RowError."""
    from venncal._rows import RowError

    plain = TemperatureCalibrator.predict_proba

    def spiky(self, scores):  # a first stage whose output has a bad row (the input's row 40)
        p = plain(self, scores)
        p[np.flatnonzero((np.asarray(scores) == 7.0).all(axis=1)), 0] += 0.5
        return p

    monkeypatch.setattr(TemperatureCalibrator, "predict_proba", spiky)
    rng = np.random.default_rng(1)
    z = rng.normal(size=(60, 3))
    y = np.where(rng.random(60) < 0.7, z.argmax(axis=1), rng.integers(0, 3, 60))
    y[:3] = range(3)
    z[40] = 7.0
    chain = ChainedCalibrator(TemperatureCalibrator(),
                              OneVsRestCalibrator(VennAbersCalibrator(), score="proba"),
                              fitting="split", calibration_size=0.5, random_state=0)
    (_, b), = chain.split(y)
    assert 40 in b
    with pytest.raises(RowError, match=r"second stage .*refused them: .*row 40 \(from 0\)") as info:
        chain.fit(z, y)
    assert info.value.index == 40
