"""Bad single calls of the online objects get the checked path's clear messages (attack 50 F2, F4)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from venncal.online import JumperPredictor, MeanJumper, ProtectedClassifier, QuantizedIsotonic

HUGE = 10**400  # an int beyond float64: float() raised a bare OverflowError


@pytest.mark.parametrize("make", [lambda: JumperPredictor(classes=[0, 1]),
                                  lambda: MeanJumper(classes=[0, 1])])
def test_a_huge_integer_forecast_is_named(make):
    obj = make()
    with pytest.raises(ValueError, match="p holds a number beyond float64's range"):
        obj.learn_one(HUGE, 1)
    obj.learn_one(0.3, 1)  # a queued step, then the fast predict path
    with pytest.raises(ValueError, match="p holds a number beyond float64's range"):
        obj.predict_proba_one(HUGE)
    assert obj.predict_proba_one(1)[1] == 1.0


def test_a_huge_integer_target_or_score_is_named():
    q = QuantizedIsotonic()
    with pytest.raises(ValueError, match="y holds a number beyond float64's range"):
        q.learn_one(0.3, HUGE)
    with pytest.raises(ValueError, match="score holds a number beyond float64's range"):
        q.learn_one(HUGE, 1)


def test_protected_classifier_names_the_users_label():
    clf = ProtectedClassifier(DecisionTreeClassifier()).fit(np.array([[0.0], [1.0]]),
                                                           np.array(["neg", "pos"]))
    with pytest.raises(ValueError, match="probability 0 to its label 'neg'"):
        clf.partial_fit(np.array([[1.0]]), np.array(["neg"]))
