"""scikit-learn's own estimator checks, the second half of the wrappers.

The first half, and the reasons for the expected failures, are in
``test_estimator_checks.py``; the wrappers are split over two files so that
``pytest -n 2 --dist loadfile`` runs the halves on both workers at once.
"""

from sklearn.naive_bayes import GaussianNB
from sklearn.utils.estimator_checks import parametrize_with_checks
from test_estimator_checks import (
    DENSE,
    SPARSE,
    SPLIT,
    SPLIT_BY_PLATFORM,
    SUBSET,
    TIES_BY_PLATFORM,
    run_check,
)

from venncal import CalibratedClassifier, FullVennAbersClassifier, VennAbersClassifier

# (estimator, {check name: expected-failure mark}); every other check must pass.
ESTIMATORS = [
    (CalibratedClassifier(method="platt", random_state=0), {}),
    (CalibratedClassifier(method="bbq", cv="split", random_state=0), {DENSE: SPLIT_BY_PLATFORM}),
    # One-vs-one: the K(K-1)/2 pairwise calibrators, coupled.
    (
        VennAbersClassifier(multiclass="ovo", random_state=0),
        {SUBSET: TIES_BY_PLATFORM, DENSE: SPLIT_BY_PLATFORM, SPARSE: SPLIT},
    ),
    (CalibratedClassifier(method="platt", multiclass="ovo", random_state=0), {}),
    # A fast base estimator: the full predictor refits it twice per test row.
    (FullVennAbersClassifier(GaussianNB()), {}),
]


@parametrize_with_checks([estimator for estimator, _ in ESTIMATORS])
def test_sklearn_compatible_estimator(estimator, check, request):
    run_check(ESTIMATORS, estimator, check, request)
