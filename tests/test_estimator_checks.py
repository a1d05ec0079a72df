"""scikit-learn's own estimator checks for every estimator wrapper.

Two checks assume what a Venn-Abers predictor does not give: that weights equal
repeated rows (repeats change a random proper-training/calibration split or the
folds) and that predicting a subset gives the same numbers (a test score equal
to a calibration score is pooled with it, one ulp away it is not). Whether such
a check fails can depend on the last bits of the base estimator's scores, which
change with the BLAS kernel and thread count. We ran them under OpenBLAS with
OPENBLAS_CORETYPE=Haswell, Sandybridge and Prescott, on 1 and 2 threads: a check
that failed in all six is a strict expected failure; one whose outcome changed
is non-strict, with that reason, and ``test_exact_base_estimator`` asserts the
property strictly with a base estimator whose scores are exact.

The wrappers take K >= 3 classes (scikit-learn's ``multi_class`` tag), so these
checks also fit them on multiclass data; the departures are the ones above.
scikit-learn grants ``CalibratedClassifierCV`` none besides the array API.
"""

import pytest
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import (
    check_methods_subset_invariance,
    check_sample_weight_equivalence_on_dense_data,
    check_sample_weight_equivalence_on_sparse_data,
    parametrize_with_checks,
)

from venncal import CalibratedClassifier, VennAbersClassifier

_SPLIT = "repeated rows change the random proper-training/calibration split or folds"
_SOLVER = (
    "the base estimator's weighted fit equals its repeated-rows fit only to the solver's "
    "tolerance, and Venn-Abers outputs jump at calibration scores"
)
SPLIT = pytest.mark.xfail(strict=True, reason=_SPLIT)
SOLVER = pytest.mark.xfail(strict=True, reason=_SOLVER)
SPLIT_BY_PLATFORM = pytest.mark.xfail(
    strict=False,
    reason=f"{_SPLIT}; passes by chance on most BLAS kernels (not Prescott, 2 threads)",
)
SOLVER_BY_PLATFORM = pytest.mark.xfail(
    strict=False, reason=f"{_SOLVER}; which rows jump depends on the BLAS kernel"
)
TIES_BY_PLATFORM = pytest.mark.xfail(
    strict=False,
    reason="a test score equal to a calibration score is pooled with it, one ulp away it is "
    "not, and the base estimator's score of a row differs in the last bit between batch sizes "
    "on some BLAS kernels (fails with Haswell, passes with Sandybridge)",
)

MULTICLASS_TIES = pytest.mark.xfail(
    strict=False,
    reason="a test score equal to a calibration score is pooled with it, one ulp away it is "
    "not, and logistic regression's multiclass predict_proba of a row differs in the last bit "
    "between batch sizes (37 of 90 entries on this machine); passes with a tree base "
    "(test_exact_base_estimator)",
)

SUBSET = "check_methods_subset_invariance"
DENSE = "check_sample_weight_equivalence_on_dense_data"
SPARSE = "check_sample_weight_equivalence_on_sparse_data"

# (estimator, {check name: expected-failure mark}); every other check must pass.
# The other half of the wrappers is in test_estimator_checks_more.py (a file each, so that
# ``pytest -n 2 --dist loadfile`` can give them to both workers).
ESTIMATORS = [
    (
        VennAbersClassifier(random_state=0),
        {SUBSET: TIES_BY_PLATFORM, DENSE: SPLIT_BY_PLATFORM, SPARSE: SPLIT},
    ),
    (
        VennAbersClassifier(method="ivap", random_state=0),
        {SUBSET: MULTICLASS_TIES, DENSE: SPLIT, SPARSE: SPLIT},
    ),
    (
        VennAbersClassifier(method="sva"),
        {SUBSET: TIES_BY_PLATFORM, DENSE: SOLVER_BY_PLATFORM, SPARSE: SOLVER},
    ),
    (CalibratedClassifier(random_state=0), {}),
]


def run_check(estimators, estimator, check, request) -> None:
    """Run one scikit-learn check, marked as ``estimators`` expects for ``estimator``."""
    departures = next(d for e, d in estimators if repr(e) == repr(estimator))
    mark = departures.get(check.func.__name__)
    if mark is not None:
        request.applymarker(mark)
    check(estimator)


@parametrize_with_checks([estimator for estimator, _ in ESTIMATORS])
def test_sklearn_compatible_estimator(estimator, check, request):
    run_check(ESTIMATORS, estimator, check, request)


TREE = DecisionTreeClassifier(max_depth=3, random_state=0)
SVA = VennAbersClassifier(TREE, method="sva")


@pytest.mark.parametrize(
    ("estimator", "check"),
    [
        (VennAbersClassifier(TREE, random_state=0), check_methods_subset_invariance),
        (
            VennAbersClassifier(TREE, method="ivap", random_state=0),
            check_methods_subset_invariance,
        ),
        (SVA, check_methods_subset_invariance),
        (SVA, check_sample_weight_equivalence_on_dense_data),
        (SVA, check_sample_weight_equivalence_on_sparse_data),
    ],
    ids=["cvap-subset", "ivap-subset", "sva-subset", "sva-weights-dense", "sva-weights-sparse"],
)
def test_exact_base_estimator(estimator, check):
    # A tree's score of a row does not depend on the batch, and its weighted fit
    # is its repeated-rows fit (sva has no split), so these hold exactly.
    check(type(estimator).__name__, estimator)
