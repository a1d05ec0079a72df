"""scikit-learn's own estimator checks for every estimator wrapper."""

import pytest
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.estimator_checks import parametrize_with_checks

from venncal import CalibratedClassifier, FullVennAbersClassifier, VennAbersClassifier

TIES = (
    "a test score equal to a calibration score is pooled with it (the definition), one ulp "
    "away it is not; the base estimator's scores of the same row differ in the last bit "
    "between batch sizes (BLAS), so predictions on the calibration rows can jump"
)
SPLIT = "repeated rows change the random proper-training/calibration split or folds"
SOLVER = (
    "the base estimator's weighted fit equals the repeated-rows fit only to its solver "
    "tolerance, and Venn-Abers outputs jump at calibration scores"
)


PLATT = "Platt scaling fits a sigmoid by an iterative solver: weighted and repeated-row fits agree only to its tolerance"


def known_departures(estimator):
    """Checks whose premise Venn-Abers predictors do not meet, with the reason.

    Whether such a check fails depends on bits of the base estimator's output,
    so it runs and counts as an expected failure only when it does fail.
    """
    method = getattr(estimator, "method", None)
    if isinstance(estimator, CalibratedClassifier):
        return {
            "check_methods_subset_invariance": TIES,
            "check_sample_weight_equivalence_on_dense_data": SPLIT,
            "check_sample_weight_equivalence_on_sparse_data": SPLIT,
        }
    if method == "cvap":
        return {
            "check_methods_subset_invariance": TIES,
            "check_sample_weight_equivalence_on_dense_data": SPLIT,
            "check_sample_weight_equivalence_on_sparse_data": SPLIT,
        }
    if method == "ivap":
        return {
            "check_sample_weight_equivalence_on_dense_data": SPLIT,
            "check_sample_weight_equivalence_on_sparse_data": SPLIT,
        }
    if method == "sva":
        return {
            "check_methods_subset_invariance": TIES,
            "check_sample_weight_equivalence_on_dense_data": SOLVER,
            "check_sample_weight_equivalence_on_sparse_data": SOLVER,
        }
    return {}


@parametrize_with_checks(
    [
        VennAbersClassifier(random_state=0),
        VennAbersClassifier(method="ivap", random_state=0),
        VennAbersClassifier(method="sva"),
        CalibratedClassifier(random_state=0),
        CalibratedClassifier(method="platt", random_state=0),
        CalibratedClassifier(method="bbq", cv="split", random_state=0),
        # A fast base estimator: the full predictor refits it twice per test row.
        FullVennAbersClassifier(GaussianNB()),
    ],
)
def test_sklearn_compatible_estimator(estimator, check):
    reason = known_departures(estimator).get(check.func.__name__)
    if reason is None:
        check(estimator)
        return
    try:
        check(estimator)
    except AssertionError:
        pytest.xfail(reason)
