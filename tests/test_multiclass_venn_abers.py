"""venncal's one-vs-rest and one-vs-one equal venn-abers 1.5.4 (labels 0..K-1, where it is right).

venn-abers is not a dependency: this runs where it is installed (skipped elsewhere).
Its pairwise score is ``p_j / (p_i + p_j)``, ours ``ln(p_j / p_i) / 2``: the same
order wherever the rounded ratio keeps it (random probabilities; no zeros, no pairs
whose ratio rounds to 1 in venn-abers' form).
"""

from __future__ import annotations

import numpy as np
import pytest

from venncal import OneVsOneCalibrator, OneVsRestCalibrator

va = pytest.importorskip("venn_abers")


def _data(seed, n, K):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, K)) * 1.5
    p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(K, p=row) for row in p])
    y[:K] = np.arange(K)
    return p, y


@pytest.mark.parametrize(("K", "n"), [(3, 200), (5, 500), (10, 1000)])
def test_one_vs_rest_equals_venn_abers(K, n):
    p, y = _data(K, n, K)
    pt, _ = _data(K + 100, 300, K)
    want, _ = va.venn_abers.predict_proba_prefitted_va(p, y, pt, va_tpe="one_vs_all")
    got = OneVsRestCalibrator().fit(p, y).predict_proba(pt)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("K", "n"), [(3, 200), (5, 500), (10, 1000)])
def test_one_vs_one_equals_venn_abers(K, n):
    p, y = _data(K, n, K)
    pt, _ = _data(K + 100, 300, K)
    want, _ = va.venn_abers.predict_proba_prefitted_va(p, y, pt, va_tpe="one_vs_one")
    got = OneVsOneCalibrator(coupling="price").fit(p, y).predict_proba(pt)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
