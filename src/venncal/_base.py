"""The contract shared by every score-level calibrator."""

from __future__ import annotations

import contextlib
import contextvars
import functools
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ._kernels import scaled_sum
from ._validation import (
    ParamsMixin,
    check_labels,
    check_sample_weight,
    check_scores,
    classes_array,
    warn_if_relative_weights,
)
from .summary import ScoreSummary

__all__ = [
    "ScoreCalibrator",
    "check_float_arrays",
    "check_float_numbers",
    "check_increasing",
    "check_int_array",
    "check_summary",
    "check_sums_to",
    "own_knots",
    "same_values",
]

# The rounding error of a float64 operation, relative (2**-53).
_EPS = np.finfo(np.float64).eps / 2
_TINY = float(np.finfo(np.float64).smallest_subnormal)


def check_float_arrays(owner, names, *, length=None, unit_interval=(), finite=True):
    """Check that fitted attributes are 1-D float64 arrays of one length (finite if ``finite``).

    Those named in ``unit_interval`` must also lie in [0, 1] (and NaN is
    never allowed).  Returns the common length.  For the ``_check_state``
    of a reloaded calibrator.
    """
    for name in names:
        arr = getattr(owner, name)
        if not isinstance(arr, np.ndarray) or arr.dtype != np.float64 or arr.ndim != 1:
            raise ValueError(f"{name} must be a 1-D float64 array")
        if length is None:
            length = arr.shape[0]
        if arr.shape[0] != length:
            raise ValueError(f"{name} must have length {length}; got {arr.shape[0]}")
        if not (np.isfinite(arr).all() if finite else not np.isnan(arr).any()):
            raise ValueError(f"{name} must be finite" if finite else f"{name} must not be NaN")
        if name in unit_interval and not ((arr >= 0) & (arr <= 1)).all():
            raise ValueError(f"{name} must lie in [0, 1]")
    return length


def own_knots(method):
    """Mark ``method`` as the ``_knots`` of its class, which a subclass does not inherit.

    Knots describe the prediction of the class that defines them; a
    subclass may predict otherwise (override ``_predict_p`` or
    ``predict_proba``), and the engines' look-up would then return the
    parent's outputs.  So on an instance of a class that does not define
    ``_knots`` in its own body the decorated method returns None (such a
    calibrator is scored by its own ``predict``).  A subclass that predicts
    as its parent says so with ``_knots = Parent._knots``.
    """

    @functools.wraps(method)
    def _knots(self) -> np.ndarray | None:
        if "_knots" not in vars(type(self)):
            return None
        return method(self)

    return _knots


def check_int_array(owner, name, *, length=None, minimum=None) -> int:
    """Check that a fitted attribute is a 1-D integer array (of ``length``, ``>= minimum``)."""
    arr = getattr(owner, name)
    if not isinstance(arr, np.ndarray) or arr.dtype.kind not in "iu" or arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D integer array")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name} must have length {length}; got {arr.shape[0]}")
    if minimum is not None and (arr < minimum).any():
        raise ValueError(f"{name} must be at least {minimum}")
    return arr.shape[0]


def check_float_numbers(owner, names, *, minimum=None, allow_inf=False) -> None:
    """Check that fitted attributes are finite floats (``>= minimum`` when given).

    With ``allow_inf``, ``+inf`` passes too: a total of weights past the
    largest double.
    """
    for name in names:
        value = getattr(owner, name)
        if not isinstance(value, float) or np.isnan(value) or (
            np.isinf(value) and not (allow_inf and value > 0)
        ):
            raise ValueError(f"{name} must be a {'' if allow_inf else 'finite '}float")
        if minimum is not None and value < minimum:
            raise ValueError(f"{name} must be at least {minimum}")


def check_increasing(arr: np.ndarray, name: str, *, strict: bool, nonempty: bool = True) -> None:
    """Raise unless ``arr`` is (strictly) increasing, and non-empty if ``nonempty``."""
    if nonempty and arr.shape[0] == 0:
        raise ValueError(f"{name} must not be empty")
    steps = np.diff(arr)
    if (steps <= 0).any() if strict else (steps < 0).any():
        raise ValueError(f"{name} must be {'strictly increasing' if strict else 'non-decreasing'}")


def check_sums_to(total: float, parts: np.ndarray, what: str, scale=None) -> None:
    """Raise unless ``total`` is the sum of the non-negative ``parts`` up to float64 rounding.

    The sum may have been taken in another order (pairwise, by another numpy):
    any order is within ``n * 2**-53`` of the exact sum, relative.  With
    ``scale`` (non-negative, as many as ``parts``), each part may be off by
    its rounding relative to the scale's (the parts are differences of
    rounded sums): the tolerance is relative to ``sum(scale)`` instead.  A sum
    past the largest double is ``inf``: then ``total`` must be ``inf`` or
    within that rounding of the largest double (compared at scale 2**-64).
    """
    n = parts.shape[0] + 2
    with np.errstate(over="ignore"):  # a sum beyond doubles is compared below, not warned of
        exact = float(np.sum(parts))
        size = exact if scale is None else max(exact, float(np.sum(scale)))
    if np.isfinite(exact) and np.isfinite(total) and np.isfinite(size):
        ok = abs(total - exact) <= 2 * n * (_EPS * size + _TINY)
    else:  # past float64 on one side: compare at 2**-64, where nothing overflows
        scaled = float(np.sum(parts * 2.0**-64))
        size = scaled if scale is None else max(scaled, float(np.sum(scale * 2.0**-64)))
        big = float(np.finfo(np.float64).max) * 2.0**-64
        if np.isinf(total):
            ok = total > 0 and scaled >= big * (1 - 2 * n * _EPS)
        else:
            ok = abs(total * 2.0**-64 - scaled) <= 2 * n * (_EPS * size + _TINY)
    if not ok:
        raise ValueError(
            f"{what} must be the sum of the {n - 2} weights ({exact!r}); got {total!r}"
        )


#: The ids of the calibrators whose ``_check_state`` passed during the current ``load``
#: (None outside one): a wrapper's check need not check its members again.
_CHECKED: contextvars.ContextVar[set[int] | None] = contextvars.ContextVar(
    "venncal_checked", default=None)


@contextlib.contextmanager
def checking_once():
    """Within this block, :func:`check_member_state` skips the calibrators passed to :func:`checked`.

    ``load`` decodes a model's members before the model and checks each of
    them; a wrapper's ``_check_state`` then checks only how they fit together
    (a one-vs-one CVAP of 50 classes checked each IVAP three times).
    """
    token = _CHECKED.set(set())
    try:
        yield
    finally:
        _CHECKED.reset(token)


def checked(calibrator) -> None:
    """Note that ``calibrator._check_state()`` passed (inside :func:`checking_once`)."""
    seen = _CHECKED.get()
    if seen is not None:
        seen.add(id(calibrator))


def check_member_state(calibrator) -> None:
    """``calibrator._check_state()``, unless it passed already in this ``load``."""
    seen = _CHECKED.get()
    if seen is None or id(calibrator) not in seen:
        calibrator._check_state()


def same_values(a, b) -> bool:
    """Whether two arrays hold the same values in the same shape (NaN equal to NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    kinds = {a.dtype.kind, b.dtype.kind}
    if "f" in kinds and kinds <= set("biuf"):  # numbers, one of them floats: NaN may be there
        return bool(np.array_equal(a, b, equal_nan=True))
    return a.tolist() == b.tolist()


def same_param(a, b) -> bool:
    """Whether two parameter values are the same, as two fits of one base would hold them.

    Arrays by :func:`same_values`; estimators (a calibrator inside another,
    as ``NegatedScoreCalibrator`` holds one) by their class and, recursively,
    their parameters; other values by their type and ``==`` (NaN equal to NaN).
    """
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return same_values(a, b)
    if isinstance(a, BaseEstimator) or isinstance(b, BaseEstimator):
        if type(a) is not type(b):
            return False
        pa, pb = a.get_params(deep=False), b.get_params(deep=False)
        return pa.keys() == pb.keys() and all(same_param(pa[k], pb[k]) for k in pa)
    return type(a) is type(b) and (a == b or (a != a and b != b))


def paired(values: np.ndarray, complements: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(values, complements)`` that add to 1 within ``2**-53``, each precise relative to itself.

    Two tables of probabilities computed on their own (from each class's sums)
    are each precise where they are small, relative to themselves; where one
    is large, and its own sums were rounded, it can be a few units of
    ``2**-53`` off, which ``p + (1 - p)`` shows (``1 - 3 * 2**-53`` at weights
    ``2**53 : 1``).  Where the two miss 1 by more than ``2**-53``, the larger
    becomes 1 minus the smaller (as precise, and they then add to 1 to one
    rounding); elsewhere both stay as computed (a ratio of exact sums stays
    correctly rounded).

    Examples
    --------
    >>> v, c = paired(np.array([0.25, 1.0 - 2.0**-50]), np.array([0.75, 1e-20]))
    >>> v.tolist(), c.tolist()
    ([0.25, 1.0], [0.75, 1e-20])
    """
    off = np.abs((values - 1.0) + complements) > 2.0**-53
    small = values <= complements
    return (np.where(off & ~small, 1.0 - complements, values),
            np.where(off & small, 1.0 - values, complements))


def check_complements(values: np.ndarray, complements: np.ndarray, *, monotone: bool,
                      names: tuple[str, str] = ("values_", "complements_"),
                      tolerance: float = 2.0**-20) -> None:
    """Raise ``ValueError`` unless ``complements`` is a fitted complement of ``values``.

    Same shape, and ``values + complements`` within ``tolerance`` of 1.  The
    default, ``2**-20``: both are ratios of sums of non-negative weights, or
    averages of such ratios, each within ``n * 2**-53`` of itself for
    ``n < 2**32`` summands; a caller whose tables round more (or less) says
    so with its own.  With ``monotone`` (the values do not decrease), the
    complements do not increase.  ``names``: the attributes' names, for the
    message, which names the worst entry.
    """
    v, c = names
    if complements.shape != values.shape:
        raise ValueError(f"{c} must have the shape (length) of {v} {values.shape}")
    gap = np.abs((values - 1.0) + complements)
    if not (gap <= tolerance).all():
        i = int(np.argmax(np.where(gap == gap, gap, np.inf)))
        raise ValueError(
            f"{v} + {c} must sum to 1 (to {tolerance:.3g}): "
            f"{float(values[i])!r} + {float(complements[i])!r} at entry {i}"
        )
    if monotone and (complements[1:] > complements[:-1]).any():
        raise ValueError(f"{c} must not increase ({v} do not decrease)")


class ScoreCalibrator(ParamsMixin, BaseEstimator):
    """Base class of the score-level calibrators (no model inside).

    A subclass implements ``_fit_sums(s, w, a)`` (fit from a score summary:
    sorted distinct scores ``s``, weights ``w > 0``, positive weights ``a``)
    and ``_predict_p(q)`` (probability of ``classes_[1]`` for validated
    float64 scores ``q``), and lists in ``_state`` the names of the fitted
    attributes (besides ``classes_``) that define it, all plain numbers or
    arrays, so that the calibrator saves and reloads exactly.  Parameter
    rules go in ``_parameter_constraints`` (see
    :func:`venncal._validation.validate_params`), checked by ``fit``, by
    ``fit_summary`` and when a saved model is loaded.

    Parameters are those of the subclass; ``classes`` (the two labels,
    ``[negative, positive]`` in that order; by default the observed labels
    sorted; needed when the calibration labels show a single class, unless
    they are booleans) is a parameter of every subclass.

    A subclass whose fit depends on the total of the (frequency) weights,
    not only on their ratios, says what depends on it in
    ``_weight_total_use`` (or overrides :meth:`_weight_total_depends`):
    weights that look relative then get a
    :class:`~venncal.WeightScaleWarning`.

    A calibrator fitted per group of rows (the cross Venn-Abers predictor,
    one IVAP per fold) names in ``_group_param`` the keyword-only argument of
    its ``fit`` that takes one group id per row (``"folds"``); its
    ``fit_summary`` then takes a mapping group id -> :class:`ScoreSummary`.
    Callers that only hold a table (the command line's ``--fold-col``, the
    distributed adapters' grouped aggregations) read this hook instead of
    testing for a method name.
    """

    _state: tuple[str, ...] = ()
    _group_param: ClassVar[str | None] = None
    #: The outputs of a base estimator that the estimator wrappers take as the score
    #: (``response_method="auto"``), in order of preference: the first one the base
    #: estimator has.  The isotonic family depends on the score only through its order,
    #: so the probability serves; calibrators that model a logit (Platt) prefer the
    #: decision function (docs/estimators.md).
    _response_methods: ClassVar[tuple[str, ...]] = ("predict_proba", "decision_function")
    _weight_total_use: ClassVar[str | None] = None

    def fit(self, scores, y, sample_weight=None):
        """Fit on calibration scores and labels.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)
            Calibration scores (any finite reals; higher means more likely
            positive).
        y : array-like of shape (n_samples,)
            Labels of two classes (any two values).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights.

        Returns
        -------
        self
        """
        s, classes, y01, w = self._check_fit_input(scores, y, sample_weight)
        summary = ScoreSummary._from_validated(s, y01, w)
        if w is not None and self._weight_total_depends() is not None:
            with np.errstate(over="ignore"):
                total = float(np.sum(summary.weights))  # inf past float64: no warning either way
            if total < 0.5 * w.shape[0]:  # else no warning is possible: skip the count
                self._warn_weight_total(
                    scaled_sum(summary.weights), int(np.count_nonzero(w)), True
                )
        self.classes_ = classes
        self._refit_from(summary)
        return self

    def fit_summary(self, summary: ScoreSummary):
        """Fit from a :class:`~venncal.ScoreSummary` (labels 0 and 1).

        ``classes_`` is the ``classes`` parameter when given (its second
        label is the summary's label 1), else ``[0, 1]``.

        Returns
        -------
        self
        """
        self._check_params()
        check_summary(summary)
        self._warn_weight_total(summary.total_weight, summary.n_distinct, False)
        self.classes_ = self._summary_classes()
        self._refit_from(summary)
        return self

    def _refit_from(self, summary: ScoreSummary) -> None:
        """:meth:`_fit_from`, after forgetting how a loaded model was read.

        A model read from a file saved before its complements existed marks
        them derived (``1.0 - p``); a new fit computes them, so the mark goes
        (attack 14 F3: a refitted model kept predicting ``1.0 - p``).
        """
        self.__dict__.pop("_complements_derived", None)
        self._fit_from(summary)

    def predict_proba(self, scores) -> np.ndarray:
        """Return calibrated probabilities, columns for ``classes_[0]`` and ``classes_[1]``.

        Column 0 is ``1 - p``: ``1.0 - p``, or, for the Venn-Abers
        predictors, computed from their tables' ``1 - p0`` where ``p > 1/2``;
        for isotonic regression, histogram binning and BBQ from the negative
        weights (each block's or bin's negative weight over its weight,
        averaged over BBQ's models); for ENIR from its own table of averaged
        complements (``complements_``, from each bin's negative weight); and
        for Platt scaling and the binary parametric calibrators as the
        sigmoid of minus their log-odds, so that it keeps its relative
        precision when ``p`` is near 1.

        Parameters
        ----------
        scores : array-like of shape (n_samples,)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        check_is_fitted(self, "classes_")
        q = self._check_test_scores(scores)
        # a subclass that predicts otherwise gets the complement of its own p
        if self._hook_applies("_predict_p_and_complement"):
            p, complement = self._predict_p_and_complement(q)
        else:
            p = self._predict_p(q)
            complement = 1.0 - p
        return np.column_stack((complement, p))

    def __setstate__(self, state) -> None:
        # A fitted calibrator pickled before a member of ``_state_added`` existed gets it
        # as ``venncal.load`` gives it to an old file (``_derive_state``).
        super().__setstate__(state)
        if "classes_" in state and hasattr(self, "_derive_state"):
            self._derive_state()

    def predict(self, scores) -> np.ndarray:
        """Return the more probable label (``classes_[0]`` on a tie)."""
        p = self.predict_proba(scores)[:, 1]
        return self.classes_[(p > 0.5).astype(np.intp)]

    # -- for subclasses -------------------------------------------------------

    def _check_state(self) -> None:
        """Raise ``ValueError`` unless the fitted state is consistent.

        Called by :func:`venncal.persist.load` on a reloaded calibrator, so a
        corrupt or edited model file fails loudly instead of predicting
        nonsense.  Subclasses extend it for their own attributes, checking
        every one of them, and the relations between them that ``fit``
        guarantees, but nothing that ``fit`` may not produce.

        ``classes_`` holds two distinct labels: the ``classes`` parameter when
        it is given, else sorted.
        """
        classes = self.classes_
        if (
            not isinstance(classes, np.ndarray)
            or classes.dtype.kind not in "biufU"
            or classes.shape != (2,)
            or same_values(classes[:1], classes[1:])
        ):
            raise ValueError("classes_ must be an array of two distinct labels")
        given = getattr(self, "classes", None)
        if given is not None:
            if not same_values(classes, given):
                raise ValueError("classes_ must be the classes parameter")
        elif not classes[0] < classes[1]:
            raise ValueError("classes_ must be sorted (no classes parameter was given)")

    def _check_fit_input(self, scores, y, sample_weight):
        """Check the parameters and the arrays of ``fit``; return ``(s, classes, y01, w)``.

        A single observed class is refused unless ``classes`` names both
        (or the labels are booleans): one class coded 1 is not silently the
        positive class of {0, 1}.
        """
        self._check_params()
        s = check_scores(scores)
        self._check_fit_scores(s)
        classes, y01 = check_labels(
            y, s.shape[0], getattr(self, "classes", None), single_01=False
        )
        return s, classes, y01, check_sample_weight(sample_weight, s.shape[0])

    def _check_fit_scores(self, s: np.ndarray) -> None:
        """Refuse scores this calibrator cannot fit, naming the user's rows (here: none)."""

    def _weight_total_depends(self) -> str | None:
        """What in this fit depends on the total weight (None: only its ratios matter)."""
        return self._weight_total_use

    def _warn_weight_total(self, total: float, rows: int, rows_known: bool) -> None:
        """Warn if weights of this total over ``rows`` rows look relative (WeightScaleWarning)."""
        depends = self._weight_total_depends()
        if depends is not None:
            warn_if_relative_weights(
                type(self).__name__, total, rows, depends, stacklevel=3, rows_known=rows_known
            )

    def _summary_classes(self) -> np.ndarray:
        """``classes_`` of a fit from summaries: the ``classes`` parameter (in its order), else ``[0, 1]``."""
        given = getattr(self, "classes", None)
        if given is None:
            return np.array([0, 1])
        return check_labels(classes_array(given), None, given)[0]

    def _check_test_scores(self, scores):
        """Validate test scores for ``_predict_p`` (1-D finite floats unless overridden)."""
        return check_scores(scores)

    def _knots(self) -> np.ndarray | None:
        """Return the sorted points where the prediction may change, or None.

        A calibrator whose prediction is a step function of the score
        (constant between consecutive knots, below the first and above the
        last) returns its knots, so that the engines can tabulate its
        ``predict`` exactly and score without Python (Spark's JVM look-up,
        :mod:`venncal.spark._lookup`).  None, the default, means any other
        prediction; an implementation is decorated with :func:`own_knots`.
        """
        return None

    #: Whether ``_fit_sums`` also takes the negative weights ``b``, each class's own
    #: sums (``w - a`` loses a class of weight 1e-300 tied with 1e300): for a class-0
    #: column computed from them.
    _class_sums: ClassVar[bool] = False

    def _fit_from(self, summary: ScoreSummary) -> None:
        """Fit from a summary: ``_fit_sums`` of its scores, total and positive weights.

        With ``_class_sums``, the negative weights too.  A subclass that needs
        more of the summary overrides this.
        """
        if self._class_sums:
            self._fit_sums(summary.scores, summary.weights, summary.positive_weights,
                           summary.negative_weights)
        else:
            self._fit_sums(summary.scores, summary.weights, summary.positive_weights)

    def _fit_sums(self, s: np.ndarray, w: np.ndarray, a: np.ndarray) -> None:
        raise NotImplementedError

    def _predict_p(self, q: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _predict_log_p(self, q: np.ndarray) -> np.ndarray | None:
        """``log p`` for validated scores ``q``, or None where this calibrator has no such rule.

        Overridden by the calibrators whose ``p`` is a sigmoid (Platt scaling,
        the binary parametric calibrators), whose ``p`` underflows to 0 (or to
        a subnormal of a few digits) where its logarithm is still a finite
        number; every other calibrator's ``p`` is a ratio of weights, exact
        to rounding down to 0 itself.
        """
        return None

    def _log_p1(self, scores) -> np.ndarray | None:
        """The logarithm of :meth:`predict_proba`'s column 1, or None if not computed separately.

        For the calibrators whose probability is a sigmoid (Platt scaling, the
        binary parametric calibrators) ``log p`` keeps its relative precision
        where ``p`` itself underflows (past 1e-308); the one-vs-rest
        calibrator normalises such rows in log space.  None for the others
        (and for a subclass that predicts ``p`` by a rule of its own).
        """
        check_is_fitted(self, "classes_")
        if not self._hook_applies("_predict_log_p"):
            return None
        return self._predict_log_p(self._check_test_scores(scores))

    def _predict_wide_logit(self, q: np.ndarray) -> tuple | None:
        """``logit p`` at validated scores ``q`` as :mod:`venncal._wide` numbers, or None."""
        return None

    def _wide_logit(self, scores) -> tuple | None:
        """``logit p`` as ``(m, e)`` (:mod:`venncal._wide`), past the float64 range too.

        For the sigmoid calibrators a logit such as ``a x + b`` passes
        1.8e308 with finite ``a``, ``x``, ``b``: ``p`` and ``log p`` are then
        0 and ``-inf`` as doubles, and the one-vs-rest calibrator compares
        the logits themselves (the largest wins by more than ``2**970``).
        None for the other calibrators.
        """
        check_is_fitted(self, "classes_")
        if not self._hook_applies("_predict_wide_logit"):
            return None
        return self._predict_wide_logit(self._check_test_scores(scores))

    def _hook_applies(self, hook: str) -> bool:
        """Whether the rule ``hook`` beside ``_predict_p`` (its complement, its log) holds here.

        A hook is used with the ``_predict_p`` of the class that defines it,
        below :class:`ScoreCalibrator` (whose hooks are the defaults): a
        subclass that predicts ``p`` by a rule of its own does not inherit it.
        """
        owner = next(k for k in type(self).__mro__ if hook in vars(k))
        return owner is not ScoreCalibrator and type(self)._predict_p is owner._predict_p

    def _predict_p_and_complement(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(p, 1 - p)`` for validated scores ``q`` (:meth:`predict_proba`'s columns 1 and 0).

        By default ``1.0 - p``; a subclass that can compute the complement
        with full relative precision overrides this together with
        ``_predict_p`` (see :meth:`predict_proba` for the rule).
        """
        p = self._predict_p(q)
        return p, 1.0 - p


def check_summary(summary) -> None:
    """Raise unless ``summary`` is a non-empty :class:`ScoreSummary`."""
    if not isinstance(summary, ScoreSummary):
        raise TypeError(f"summary must be a ScoreSummary, not {type(summary).__name__}")
    if summary.n_distinct == 0:
        raise ValueError("the summary is empty: at least one calibration score is needed")
