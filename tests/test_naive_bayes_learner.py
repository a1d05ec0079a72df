"""The Weka-like naive Bayes learner of the reproduced experiments."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.naive_bayes import CategoricalNB, GaussianNB

from venncal.experiments.naive_bayes import MixedNaiveBayes, groups_from_names


def _laplace_prior(y):
    counts = np.bincount(y)
    return (counts + 1) / (counts.sum() + len(counts))


def test_groups_from_names():
    names = ["age", "workclass=Private", "workclass=State-gov", "fnlwgt", "sex=F", "sex=M"]
    assert groups_from_names(names) == [[1, 2], [4, 5]]
    assert groups_from_names(["a", "b"]) == []
    # a value holding "=" stays in its attribute's group
    assert groups_from_names(["k=a=b", "k=c"]) == [[0, 1]]


def test_categorical_part_is_laplace_smoothed_frequency_tables():
    rng = np.random.default_rng(0)
    n = 300
    c1, c2 = rng.integers(0, 3, n), rng.integers(0, 2, n)
    y = (rng.random(n) < 0.2 + 0.3 * c1 / 2).astype(int)
    X = np.column_stack([np.eye(3)[c1], np.eye(2)[c2]])
    nb = MixedNaiveBayes(groups=[[0, 1, 2], [3, 4]]).fit(X, y)
    codes = np.column_stack([c1, c2])
    ref = CategoricalNB(alpha=1.0, class_prior=_laplace_prior(y)).fit(codes, y)
    np.testing.assert_allclose(nb.predict_proba(X), ref.predict_proba(codes), rtol=1e-12)
    np.testing.assert_array_equal(nb.predict(X), ref.predict(codes))


def test_numeric_part_is_gaussian_with_population_std():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(200, 3)) * [1.0, 5.0, 0.1]
    y = (Z[:, 0] + rng.normal(size=200) > 0).astype(int)
    nb = MixedNaiveBayes().fit(Z, y)
    ref = GaussianNB(var_smoothing=0.0, priors=_laplace_prior(y)).fit(Z, y)
    np.testing.assert_allclose(
        np.log(nb.predict_proba(Z)), np.log(ref.predict_proba(Z)), rtol=1e-9, atol=1e-12
    )


def test_std_floor_is_precision_over_six_and_labels_any_two():
    X = np.array([[1.0, 0.0], [1.0, 2.0], [1.0, 4.0], [1.0, 4.0]])
    nb = MixedNaiveBayes().fit(X, ["b", "a", "b", "a"])
    assert list(nb.classes_) == ["a", "b"]
    # constant column: Weka's default precision 0.01; column 2: distinct 0, 2, 4 -> gap 2
    np.testing.assert_allclose(nb.sigma_[:, 0], 0.01 / 6)
    assert np.all(nb.sigma_[:, 1] >= 2 / 6)
    p = nb.predict_proba([[1.0, 1.0]])
    assert p.shape == (1, 2)
    assert p.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"alpha": 0.0}, "alpha"),
        ({"groups": [[0, 1], [1, 2]]}, "disjoint"),
        ({"groups": [[]]}, "non-empty"),
    ],
)
def test_errors(kwargs, match):
    X = np.eye(3)[[0, 1, 2, 0]]
    with pytest.raises(ValueError, match=match):
        MixedNaiveBayes(**kwargs).fit(X, [0, 1, 0, 1])
