"""One-vs-rest: one binary calibrator per class, normalised."""

from __future__ import annotations

import numpy as np
from scipy.special import softmax
from sklearn.utils.metaestimators import available_if

from .. import _wide as wide
from ._common import MulticlassCalibrator, base_has
from ._scores import ovr_scores

__all__ = ["OneVsRestCalibrator"]

#: Rows with a one-vs-rest probability below this (the smallest normal double) are
#: normalised in log space where the base gives logs: a subnormal q_k has fewer than 53 bits.
_TINY = 2.0**-1022


class OneVsRestCalibrator(MulticlassCalibrator):
    """Calibrate K class scores with one binary calibrator per class (one-vs-rest).

    Class k's binary problem is "class k against the rest" on every row,
    with a binary score that increases with the chance of class k (see
    Notes); ``base`` (cloned, never changed) is fitted on it.  The K
    calibrated probabilities of a test row are divided by their sum.

    Parameters
    ----------
    base : binary score calibrator, default=None
        Any venncal binary score-level calibrator (``VennAbersCalibrator``,
        ``CrossVennAbersCalibrator``, ``PlattCalibrator``,
        ``IsotonicCalibrator``, ...) with its ``classes`` unset; None means
        ``VennAbersCalibrator()``.
    score : {"proba", "logit", "margin"}, default="proba"
        What the columns of the scores are: probabilities (rows summing to
        1), softmax logits, or decision-function margins.  Never guessed
        from the values.
    classes : array-like of shape (K,), default=None
        The classes, in the order of the score columns; by default the
        labels of ``y`` sorted.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
        The classes; column k of the scores and of ``predict_proba`` is
        class ``classes_[k]``.
    calibrators_ : list of K fitted binary calibrators
        ``calibrators_[k]``: class ``classes_[k]`` (label 1) against the rest
        (label 0).
    folds_ : ndarray of shape (F,)
        With a cross Venn-Abers base: the folds.

    Notes
    -----
    The binary score of class k: with ``score="proba"`` the probability
    ``p_k`` itself (as scikit-learn's ``CalibratedClassifierCV`` and
    venn-abers); with ``"logit"`` half the log-odds of ``softmax(z)_k``,
    ``(z_k - logsumexp(z_c, c != k)) / 2``, computed without overflow for
    any finite logits; with ``"margin"`` the margin ``m_k`` itself.

    ``predict_proba`` is ``q_k / sum_c q_c`` with ``q_k`` the calibrated
    probability of class k against the rest; a row whose K values ``q_k`` are
    all 0 (possible with isotonic or histogram bases, never with
    Venn-Abers, whose probabilities are positive) gets ``1 / K`` for every
    class.  With a sigmoid base (Platt scaling, the binary parametric
    calibrators) a row with a value below ``2**-1022`` is normalised from
    the logarithms, ``softmax(log q)``: the ``q_k`` underflow (to 0 past
    margins of about -370) where ``log q_k`` is finite.

    :meth:`summaries` gives one :class:`~venncal.ScoreSummary` per class,
    keyed by the class label (by ``(label, fold)`` with a cross Venn-Abers
    base); :meth:`fit` is :meth:`fit_summary` of it.  A cross Venn-Abers base
    takes ``folds=`` in :meth:`fit`; its test scores are either (n, K), used
    for every fold, or (n, F, K), one block of K columns per fold in the
    order of ``folds_``.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal import OneVsRestCalibrator
    >>> p = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6],
    ...               [0.6, 0.3, 0.1], [0.3, 0.4, 0.3], [0.2, 0.2, 0.6]])
    >>> y = ["a", "b", "c", "b", "b", "c"]
    >>> cal = OneVsRestCalibrator().fit(p, y)
    >>> cal.classes_.tolist()
    ['a', 'b', 'c']
    >>> cal.predict_proba([[0.5, 0.3, 0.2]]).round(3)
    array([[0.308, 0.462, 0.231]])
    >>> cal.predict_interval([[0.5, 0.3, 0.2]]).shape    # (n, K, 2): p0, p1 per class
    (1, 3, 2)
    """

    _unit_name = "class"

    def __init__(self, base=None, *, score="proba", classes=None):
        self.base = base
        self.score = score
        self.classes = classes

    def _units(self, K: int) -> list:
        return [(k,) for k in range(K)]

    def _unit_rows(self, unit, codes):
        return None, codes == unit[0]

    def _unit_key(self, unit, names):
        return names[unit[0]]

    def _labels_of_key(self, key) -> tuple:
        return (key,)

    def _binary_scores(self, x: np.ndarray, K: int) -> np.ndarray:
        return ovr_scores(x, self.score)

    def _fit_prepare(self, x: np.ndarray, K: int):
        return ovr_scores(x, self.score)

    def _unit_column(self, prepared, x, unit, rows) -> np.ndarray:
        return prepared[unit[0]]

    def _combine(self, q: np.ndarray, x: np.ndarray | None = None) -> np.ndarray:
        q = np.ascontiguousarray(q.T)
        # Rows with a q_k below the normal doubles: it may be a subnormal of a few digits, or 0
        # where log q_k is finite (a sigmoid past -745), and its ratio to the row's sum a
        # normal number (1e-63 beside q's of 1e-300): normalised from the logs.
        tiny = np.flatnonzero(~(q.min(axis=1, initial=np.inf) >= _TINY)) if x is not None else []
        logs = self._log_rows(x[tiny]) if len(tiny) else None
        total = q.sum(axis=1, keepdims=True)
        zero = ~(total[:, 0] > 0)
        if zero.any():
            q[zero] = 1.0
            total[zero] = q.shape[1]
        q /= total
        if logs is not None:
            finite = np.isfinite(logs.max(axis=1))
            q[tiny[finite]] = softmax(logs[finite], axis=1)
            if not finite.all():
                self._widest(q, tiny[~finite], x)
        return q

    def _widest(self, q: np.ndarray, rows: np.ndarray, x: np.ndarray) -> None:
        """Rows whose logs are all ``-inf``: all to the largest logit, past 1.8e308 (attack 43 F1).

        Each ``log q_k`` is below the doubles, so each logit ``t_k`` is (its
        log is ``t_k`` to 1e-300 relative there): two distinct such logits
        differ by more than ``2**970``, and the ratio of their ``q``'s
        underflows to 0.  The row goes to its largest logit (shared by ties).
        A logit infinite from an infinite input (a probability 0 with
        ``eps=0``) is a limit, below every finite one; a row of limits only
        has no ratio and stays as above.
        """
        wides = []
        for cal, col in zip(self.calibrators_, self._binary_test(x[rows]), strict=True):
            wide_logit = getattr(cal, "_wide_logit", None)
            w = wide_logit(col) if wide_logit is not None else None
            if w is None:
                return
            wides.append(w)
        m = np.stack([w[0] for w in wides], axis=1)
        e = np.stack([w[1] for w in wides], axis=1)
        finite = np.isfinite(m)
        # all are negative: the largest is the one of least exponent, to which the row is scaled
        least = np.min(np.where(finite, e, 2**62), axis=1, keepdims=True)
        key = np.where(finite, wide.scaled((m, e), -least), -np.inf)
        best = key.max(axis=1, keepdims=True)
        top = (key == best) & np.isfinite(best)
        some = top.any(axis=1)
        q[rows[some]] = top[some] / top[some].sum(axis=1, keepdims=True)

    def _log_rows(self, x: np.ndarray) -> np.ndarray | None:
        """``log q_k`` of the rows ``x`` (m, K), or None unless every calibrator computes them."""
        if x.ndim != 2:
            return None
        logs = []
        for cal, col in zip(self.calibrators_, self._binary_test(x), strict=True):
            log_p1 = getattr(cal, "_log_p1", None)
            lq = log_p1(col) if log_p1 is not None else None
            if lq is None:
                return None
            logs.append(lq)
        return np.stack(logs, axis=1)

    @available_if(base_has("predict_interval"))
    def predict_interval(self, scores) -> np.ndarray:
        """Return each class's Venn-Abers pair against the rest (Venn-Abers bases).

        Parameters
        ----------
        scores : array-like of shape (n_samples, K)
            As for :meth:`predict_proba`.

        Returns
        -------
        ndarray of shape (n_samples, K, 2)
            ``[:, k, 0]``, ``[:, k, 1]``: the lower and upper probability
            ``p0``, ``p1`` of class ``classes_[k]`` against the rest (before
            any normalisation).
        """
        return self._binary_interval(self._test_scores(scores))
