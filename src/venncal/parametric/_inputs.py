"""Inputs of the parametric calibrators: class score rows, class labels, weights."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._input_scales import as_array
from .._rows import RowError
from .._validation import Interval
from ..multiclass._labels import _label_values, class_codes
from ..multiclass._scores import check_class_scores

__all__ = [
    "EPS", "EPS_CONSTRAINT", "ProbaFitScores", "check_fitted_classes", "check_open_proba", "class_codes",
    "class_score_rows", "check_clipped_weight", "clipped_log_sides", "clipped_weight", "power_of_two_scale",
    "check_fit_rows", "UnitFrame", "absent_classes", "light_classes",
]

#: The default ``eps`` of the calibrators that take probabilities (``score="proba"``): every
#: class probability below it is raised to it, at fit and at predict (docs/parametric.md,
#: "Probabilities of 0 and 1", for the measurement that chose it).
EPS = 1e-7

#: The ``eps`` parameter's rule (for ``_parameter_constraints``): 0 (no clipping) up to 1/2.
EPS_CONSTRAINT = [Interval("real", 0.0, 0.5, closed="left")]


def check_open_proba(s: np.ndarray, owner: str, name: str = "scores", *,
                     eps: float = 0.0, fitting: bool = True) -> None:
    """Raise unless every probability score is in [0, 1], and strictly inside to fit with
    ``eps = 0`` (whose log-odds of 0 and 1 are infinite; at prediction they give the
    limits 0 and 1)."""
    strict = fitting and not eps > 0.0
    if strict:
        bad = ~((s > 0.0) & (s < 1.0))
        rule = "strictly between 0 and 1 (their log-odds must be finite to fit, and eps=0)"
    else:
        bad = ~((s >= 0.0) & (s <= 1.0))
        rule = "in [0, 1]"
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise RowError(
            f"{owner}: with score='proba' the {name} must be probabilities {rule}; found "
            f"{int(bad.sum())} outside, the first ", i, f" ({float(s[i])!r})"
            + ("; pass score='logit' with the model's logits, or eps > 0 to clip them"
               if strict else ""), at_index=True, count=int(bad.sum()),
        )


class ProbaFitScores:
    """``_check_fit_scores`` of a binary calibrator with ``score`` and ``eps`` parameters.

    With ``score="proba"`` the calibration rows as given (before the summary,
    whose own check counts distinct sorted scores) must be probabilities that
    :func:`check_open_proba` accepts for fitting.
    """

    def _check_fit_scores(self, s: np.ndarray) -> None:
        if self.score == "proba":
            check_open_proba(s, type(self).__name__, eps=float(self.eps))


def clipped_log_sides(q: np.ndarray, eps: float):
    """``(ln s, ln(1 - s), moved)`` of probabilities ``q`` in [0, 1] clipped to [eps, 1 - eps].

    ``1 - eps`` is taken exactly (in logarithms), so an ``eps`` below
    ``2**-53`` still moves 1 (whose ``ln(1 - s)`` is ``-inf``) to a finite
    point: a score with ``s < eps`` gets ``(ln eps, ln(1 - eps))``, one with
    ``1 - s < eps`` gets ``(ln(1 - eps), ln eps)``, every other score keeps
    its own logarithms (the same numbers, bit for bit, as without clipping).
    Both are monotone in ``s``.  ``eps = 0`` moves nothing (0 and 1 keep
    their infinite logarithms).  ``moved``: a boolean mask of the moved scores.
    """
    with np.errstate(divide="ignore"):
        ls, l1s = np.log(q), np.log1p(-q)
    if not eps > 0.0:
        return ls, l1s, np.zeros(q.shape, dtype=bool)
    low = q < eps
    high = (1.0 - q) < eps  # exact: 1 - q is exact for q >= 1/2, and eps < 1/2
    le, l1e = math.log(eps), math.log1p(-eps)
    ls[low], l1s[low] = le, l1e
    ls[high], l1s[high] = l1e, le
    return ls, l1s, low | high


def clipped_weight(weights: np.ndarray, moved: np.ndarray) -> float:
    """The total weight of the moved rows (their number when unweighted), a finite float.

    A total past the largest double (weights near 1e308) is reported as the largest double.
    """
    if not moved.any():
        return 0.0
    w = np.asarray(weights, dtype=np.float64)[moved]
    with np.errstate(over="ignore"):
        total = float(np.sum(w))
    if not math.isfinite(total):  # weights near 1e308: the largest double, a lower bound
        total = float(np.finfo(np.float64).max)
    return total


def _as_array(scores) -> np.ndarray:
    """``np.asarray``, or ``np.from_dlpack`` for an array that only speaks DLPack (torch, jax)."""
    if hasattr(scores, "__dlpack__") and not isinstance(scores, np.ndarray):
        try:
            return np.from_dlpack(scores)
        except (BufferError, RuntimeError, TypeError):  # e.g. on a GPU: copy through asarray
            pass
    return as_array(scores)  # (a list of floats and ints past 2**53: 56 F6)


def check_clipped_weight(owner) -> None:
    """Raise ``ValueError`` unless a reloaded ``clipped_weight_`` is one ``fit`` could give."""
    value = owner.clipped_weight_
    if not (isinstance(value, float) and math.isfinite(value) and value >= 0.0):
        raise ValueError(f"clipped_weight_ must be a finite float >= 0; got {value!r}")
    if value and (owner.score != "proba" or owner.eps == 0):
        raise ValueError("clipped_weight_ must be 0 when nothing is clipped (score='logit' or "
                         "eps=0)")


def class_score_rows(scores, kind: str, classes, *, fitted: bool = False, eps: float = 0.0,
                     moved: list | None = None, wide: bool = False):
    """Return ``(z, top)``: validated class scores (n, K) and each row's largest score.

    ``kind="logit"`` keeps float32 scores as float32 (the kernels read them
    as float64); a row whose spread (largest minus smallest) is not a
    finite double is refused unless ``wide`` (temperature scaling, which
    fits and predicts such rows at a power of two of their scale).  ``kind="proba"`` validates probabilities as
    the multiclass calibrators do (finite, in [0, 1], rows summing to 1) and
    returns the logarithms of ``max(p, eps)``: every class probability below
    ``eps`` is raised to it (``eps = 0``: ``-inf`` for 0).  ``moved``: a list
    that receives the boolean mask of the rows with a raised probability.
    ``classes``: the known classes (their number is K) or None.
    """
    arr = _as_array(scores)
    K = None if classes is None else len(classes)
    if K is None:
        if arr.ndim != 2 or arr.shape[1] < 2:
            raise ValueError(
                "scores must have shape (n_samples, K), one column per class, K >= 2; "
                f"got shape {arr.shape}"
            )
        K = arr.shape[1]
    if kind == "proba":
        p = check_class_scores(arr, K, "proba")
        low = p < eps
        if moved is not None:
            moved.append(low.any(axis=1))
        with np.errstate(divide="ignore"):
            z = np.log(np.where(low, eps, p))
        return z, z.max(axis=1)
    if arr.dtype == np.float32 and arr.ndim == 2 and arr.shape[-1] == K and arr.shape[0]:
        if not np.isfinite(arr).all():
            check_class_scores(arr, K, "logit")  # raises, naming the row
        z = np.ascontiguousarray(arr)
    else:
        z = check_class_scores(arr, K, "logit")
    top = z.max(axis=1).astype(np.float64)
    if wide:
        return z, top
    with np.errstate(over="ignore"):
        spread = top - z.min(axis=1).astype(np.float64)
    past = ~np.isfinite(spread)
    if past.any():
        i = int(np.flatnonzero(past)[0])
        raise RowError(
            "scores ", i, f" spans more than the largest double ({float(z[i].min())!r} to "
            f"{float(z[i].max())!r}): its smallest class's log-probability is below -1.8e308, "
            "which float64 cannot hold; multiply every row's scores by a positive constant "
            "below 1, or fit TemperatureCalibrator (which takes logits of any scale)"
        )
    return z, top


def power_of_two_scale(w: np.ndarray) -> np.ndarray:
    """Return ``w`` divided by the power of two at or below its largest value (exact).

    The weights' ratios are unchanged bit for bit (the division is by a
    power of two, and a result that would be subnormal is one that is
    negligible, 2**-1022 of the largest, in a weighted mean), and weighted
    sums neither overflow (weights near 1e308) nor lose every digit
    (weights near 1e-310).
    """
    _, e = np.frexp(np.max(w))
    return np.ldexp(w, 1 - int(e))


def check_fitted_classes(classes_, classes) -> np.ndarray:
    """Return a reloaded ``classes_``, or raise ``ValueError`` unless ``fit`` could give it.

    K >= 2 distinct labels (numbers, booleans or text): the ``classes``
    parameter when it was given, else sorted.
    """
    if (not isinstance(classes_, np.ndarray) or classes_.ndim != 1
            or classes_.dtype.kind not in "biufU" or classes_.shape[0] < 2
            or np.unique(classes_).shape[0] != classes_.shape[0]):
        raise ValueError("classes_ must be an array of at least two distinct labels")
    if classes is not None:
        if not np.array_equal(classes_, _label_values(np.asarray(classes))):
            raise ValueError("classes_ must be the classes parameter")
    elif not np.array_equal(np.unique(classes_), classes_):
        raise ValueError("classes_ must be sorted (no classes parameter was given)")
    return classes_


#: Log-probabilities deeper than this are fitted in units of a power of two (:class:`UnitFrame`).
UNIT_LIMIT = 2.0**16


#: A column within this (relative) of its centre on every row is constant (:class:`UnitFrame`):
#: 256 ulps of it, well above the rounding of renormalised log-probabilities.
FLAT = 2.0**-44
#: Log-probabilities whose deviations from their column's centre stay below this are
#: fitted in units of a power of two too (:class:`UnitFrame`): near-uniform predictions.
NEAR_UNIFORM = 2.0**-8


class UnitFrame:
    """Vector scaling's frame: ``x'' = (x - m) 2**-s``, centred and scaled exactly.

    ``m_k`` is the weighted mean of column ``k`` over the rows of positive
    weight where each of them lies within a factor 2 of it (``x - m`` is
    then exact, Sterbenz), else 0; ``s`` the power of two that brings the
    largest ``|x - m|`` to ``[0.5, 1)`` where it is above ``UNIT_LIMIT`` or
    below ``NEAR_UNIFORM``, else 0.  ``a x + b = a'' x'' + b''`` with
    ``a'' = a 2**s`` and ``b''_k = b_k + a_k m_k - a_K m_K`` (vector
    scaling's last intercept stays 0): the same unpenalised objective, in which
    ``tol`` on the gradient means the same at any scale of the logits.  On
    logits of 1e-9 the deviations of ``x`` from ``-ln K`` are 1e-9, the scales
    near 1e9, and in the logits' own unit the gradient fell below ``tol``
    (and its rounding above it) far from the optimum (attack 47 F1).  For
    any map ``softmax(W x + b)``: ``W'' = W 2**s``, ``b'' = b + W m``; an
    unpenalised one only (a penalty on ``W`` or ``b`` would change).

    A centred column within ``FLAT`` of its centre on every row is taken as
    constant: 0 in the frame, and its weights in ``W`` 0 out of it (the
    intercept holds it), so its rounding is neither fitted nor amplified
    (attack 47 F4: a class of probability 0.2 on every row, whose
    renormalised logarithm varies in its last bit, got a scale of 1e15).

    >>> f = UnitFrame(np.array([[-1.0, -2.0], [-1.5, -3e10]]), np.ones(2))
    >>> f.shift, f.centre.tolist()
    (35, [-1.25, 0.0])
    """

    def __init__(self, x: np.ndarray, w: np.ndarray):
        live = x[w > 0] if x.size else x
        K = x.shape[1]
        self.centre = np.zeros(K)
        if live.shape[0]:
            m = np.average(live, axis=0, weights=w[w > 0])
            near = np.all((live >= 2.0 * m) & (live <= 0.5 * m), axis=0) & (m < 0.0)
            self.centre = np.where(near, m, 0.0)
        spread = np.max(np.abs(live - self.centre), axis=0) if live.size else np.zeros(K)
        # a centred column that varies only in its last bits (a class of constant probability,
        # renormalised) is constant: amplified, its rounding would be fitted as a signal
        self.flat = (self.centre != 0.0) & (spread <= np.abs(self.centre) * FLAT)
        # ... and one that varies by more than a log-softmax's rounding (36 ulps seen: 2**-47)
        # may carry a signal: said (attack 51 F6: logits 1e-14 apart, 90 ulps of theirs)
        self.noisy = self.flat & (spread > np.abs(self.centre) * 2.0**-46)
        dev = float(np.max(np.where(self.flat, 0.0, spread))) if K else 0.0
        self.shift = math.frexp(dev)[1] if (dev > UNIT_LIMIT or 0.0 < dev < NEAR_UNIFORM) else 0

    def __bool__(self) -> bool:
        return bool(self.shift or self.centre.any())

    def warn_noisy(self, name: str, classes: np.ndarray) -> None:
        """Warn of columns taken as constant although they vary beyond their rounding."""
        if self.noisy.any():
            which = classes[self.noisy].tolist()
            warnings.warn(
                f"{name}: the log-probabilities of class(es) {which} vary only within 2**-44 of "
                "their size on every row, and are taken as constant (a class of constant "
                "probability varies so by rounding); if they carry a signal (logits closer "
                "than about 1e-13), multiply the logits by a positive constant",
                UserWarning, stacklevel=4)

    def x(self, x: np.ndarray) -> np.ndarray:
        """``x''``, the rows in the frame (0 in a flat column)."""
        return np.where(self.flat, 0.0, np.ldexp(x - self.centre, -self.shift))

    def map_into(self, W: np.ndarray, b: np.ndarray):
        """``(W'', b'')`` of the map ``(W, b)`` (``W x + b = W'' x'' + b''``)."""
        return np.ldexp(W, self.shift), b + W @ self.centre

    def map_out(self, W2: np.ndarray, b2: np.ndarray):
        """``(W, b)`` in the logits' own unit of the map ``(W'', b'')`` of the frame."""
        W = np.where(self.flat, 0.0, np.ldexp(W2, -self.shift))  # (columns of W)
        return W, b2 - W @ self.centre


def logit_rounding(x: np.ndarray, W: np.ndarray, b: np.ndarray) -> float:
    """A bound on the rounding of the logits ``W x + b`` of rows ``x`` in float64.

    ``(K + 2) 2**-53 max_k (sum_j |W_kj| max_i |x_ij| + |b_k|)``: large parameters
    cancelling (near-uniform scores) leave the logits, and so the predictions,
    only that many digits (attack 51 F7: scales near 3e15 at logits of 1e-9 gave
    logit steps of 0.5).
    """
    if not x.size:
        return 0.0
    K = W.shape[0]
    top = np.abs(W) @ np.max(np.abs(x), axis=0) + np.abs(b)
    return float((K + 2) * 2.0**-53 * np.max(top))


def check_fit_rows(name: str, rows: np.ndarray) -> None:
    """Refuse the log-probability rows (of positive weight) that an affine scaling cannot fit.

    Rows all alike (up to a constant, which changes no probability) leave
    the map unidentified; log-probabilities below ``-2**480`` would make the
    fit's curvature (products of two, summed over rows) pass the doubles
    (attack 45 F8: a ``loss_`` of inf, saved, that ``load`` refused).
    """
    deepest = float(-rows.min()) if rows.size else 0.0
    if deepest >= 2.0**480:
        raise ValueError(
            f"{name}: the log-probabilities reach {-deepest:.3g}: the fit's "
            "curvature (products of two of them, summed over the rows) would pass the "
            "doubles; multiply the logits by a positive constant, or fit "
            "TemperatureCalibrator (which takes logits of any scale)")
    if (rows == rows[0]).all():
        # (logits spanning 1e-300 in a row differ, but their log-probabilities round alike)
        raise ValueError(
            f"{name}: the scores are the same on every calibration row (up "
            "to a constant added to a row, which changes no probability), so the scales "
            "and intercepts are not identified: every choice fits these rows equally and "
            "would map other scores arbitrarily; fit on rows whose scores differ. (The "
            "rows compared are the log-probabilities as float64 rounds them: logits that "
            "differ within a row by less than about 1e-16 give the same; multiply such "
            "logits by a positive constant, or fit TemperatureCalibrator.)"
        )


def absent_classes(classes, codes, raw, seen, name: str) -> str:
    """The message for the classes without a row of weight that survives scaling (``seen == 0``).

    ``seen``: each class's count of such rows; ``raw``: the weights before scaling (or None).
    """
    none = np.flatnonzero(seen == 0)
    missing = classes[none].tolist()
    absent = np.isin(codes, none)
    tail = (f"{name} has no finite optimum then (the class's own parameters fall toward "
            "-inf); drop the column or use TemperatureCalibrator")
    if raw is not None and bool(np.any(raw[absent] > 0.0)):
        return (
            f"class(es) {missing!r} have no row of weight above 2**-1074 times the largest "
            f"weight ({float(np.max(raw)):g}; theirs are at most "
            f"{float(np.max(raw[absent])):g}), and such weights vanish when the weights are "
            f"scaled to the largest: {tail}; rescale sample_weight to a narrower range"
        )
    return f"class(es) {missing!r} have no row of positive weight in y: {tail}"


def light_classes(codes, w, classes, tol: float) -> str:
    """A note naming the classes whose share of the weight is below ``tol`` ("" if none).

    The gradient in such a class's own parameters is of the order of its share at any
    map, so the absolute tolerance cannot pin them (a class at 1e-100 of the weight).
    """
    share = np.bincount(codes, weights=w, minlength=len(classes)) / float(np.sum(w))
    light = np.flatnonzero(share < tol)
    if not light.size:
        return ""
    return (f"; class(es) {classes[light].tolist()!r} each hold less than tol={tol:g} of the "
            f"total weight (the most: {float(share[light].max()):.3g}): the gradient in their "
            "parameters is of that order at any map, so tol cannot pin them (weigh their rows "
            "up, or use TemperatureCalibrator)")
