"""One-vs-one: one binary calibrator per pair of classes, coupled."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from sklearn.utils.metaestimators import available_if

from .._kernels.multiclass import pair_half_diff_columns, pair_log_ratio_columns
from .._validation import Options
from ._common import MulticlassCalibrator, base_has
from ._coupling import COUPLINGS, couple
from ._scores import pair_parts, pair_scores

__all__ = ["OneVsOneCalibrator"]


def _pairs(K: int) -> tuple[np.ndarray, np.ndarray]:
    first, second = np.triu_indices(K, 1)
    return first.astype(np.intp), second.astype(np.intp)


class OneVsOneCalibrator(MulticlassCalibrator):
    """Calibrate K class scores with one binary calibrator per pair of classes (one-vs-one).

    The pair ``(i, j)``, ``i < j`` in the order of ``classes_``, is the
    binary problem "class j (label 1) against class i (label 0)" on the
    rows of those two classes, with a score that increases with
    ``p_j / (p_i + p_j)`` (see Notes).  ``base`` (cloned, never changed) is
    fitted on each; the K(K-1)/2 calibrated pairwise probabilities of a test
    row are combined into K class probabilities by ``coupling``.

    Parameters
    ----------
    base : binary score calibrator, default=None
        Any venncal binary score-level calibrator with its ``classes``
        unset; None means ``VennAbersCalibrator()``.  With a Venn-Abers base
        the pairwise probability is its minimax merge of ``(p0, p1)`` (its
        ``merge``).
    score : {"proba", "logit", "margin"}, default="proba"
        What the columns of the scores are (never guessed from the values).
    coupling : {"price", "normalize", "wu-lin-weng"}, default="price"
        How pairwise probabilities make class probabilities, with ``r_ij``
        the probability of class i within pair ``{i, j}``:
        ``"price"``: ``p_i = 1 / (sum_{j != i} 1 / r_ij - (K - 2))``,
        normalised (Price et al. 1995; venn-abers, MAPIE);
        ``"normalize"``: ``p_i = 2 / (K (K - 1)) sum_{j != i} r_ij``;
        ``"wu-lin-weng"``: Wu, Lin & Weng 2004, method 2, ``p`` minimising
        ``sum_i sum_{j != i} (r_ji p_i - r_ij p_j)**2`` with ``sum p = 1``.
    classes : array-like of shape (K,), default=None
        The classes, in the order of the score columns; by default the
        labels of ``y`` sorted.

    Attributes
    ----------
    classes_ : ndarray of shape (K,)
    pairs_ : ndarray of shape (P, 2)
        ``P = K(K-1)/2`` pairs of class indices ``(i, j)``, ``i < j``, in
        the order of ``calibrators_`` and of the columns of
        :meth:`predict_interval`.
    calibrators_ : list of P fitted binary calibrators
        ``calibrators_[q]``: class ``classes_[pairs_[q, 1]]`` (label 1)
        against class ``classes_[pairs_[q, 0]]`` (label 0).
    folds_ : ndarray of shape (F,)
        With a cross Venn-Abers base: the folds.

    Notes
    -----
    The binary score of pair ``(i, j)``: with ``score="proba"``
    ``ln(p_j / p_i) / 2``, computed from the exact ratio (so that it depends
    on the two probabilities only through ``p_j / (p_i + p_j)``; ``+-1075
    ln(2) / 2``, beyond every finite ratio, when exactly one of them is 0,
    and 0 when both are); with ``"logit"`` ``(z_j - z_i) / 2`` (the same
    number for a softmax model; correctly rounded and finite for any finite
    logits); with ``"margin"`` ``(m_j - m_i) / 2``.

    :meth:`summaries` gives one :class:`~venncal.ScoreSummary` per pair, keyed
    by the pair of class labels ``(classes_[i], classes_[j])`` (by
    ``((label_i, label_j), fold)`` with a cross Venn-Abers base); :meth:`fit`
    is :meth:`fit_summary` of it.  Every pair needs calibration rows (in
    every fold).

    Examples
    --------
    >>> import numpy as np
    >>> from venncal import OneVsOneCalibrator
    >>> p = np.array([[0.7, 0.2, 0.1], [0.2, 0.5, 0.3], [0.1, 0.3, 0.6],
    ...               [0.6, 0.3, 0.1], [0.3, 0.4, 0.3], [0.2, 0.2, 0.6]])
    >>> y = [5, 7, 9, 7, 7, 9]
    >>> cal = OneVsOneCalibrator(coupling="price").fit(p, y)
    >>> cal.pairs_.tolist()
    [[0, 1], [0, 2], [1, 2]]
    >>> cal.predict_proba([[0.5, 0.3, 0.2]]).round(3)
    array([[0.25, 0.5 , 0.25]])
    >>> cal.predict_interval([[0.5, 0.3, 0.2]]).shape    # (n, P, 2): pair (i, j): j against i
    (1, 3, 2)
    """

    _unit_name = "pair"
    _needs_column0 = True
    _parameter_constraints: ClassVar[dict] = {
        **MulticlassCalibrator._parameter_constraints,
        "coupling": [Options(COUPLINGS)],
    }

    def __init__(self, base=None, *, score="proba", coupling="price", classes=None):
        self.base = base
        self.score = score
        self.coupling = coupling
        self.classes = classes

    def _check_all_params(self) -> None:
        super()._check_all_params()
        # the pair scores are log-ratios (any real number): the base must not
        # expect probabilities
        stage = self._base()
        if getattr(stage, "score", None) == "proba":
            name = type(stage).__name__
            raise ValueError(
                f"{type(self).__name__} gives its base the pair scores ln(p_j / p_i) / 2 "
                f"(real numbers, not probabilities), so a {name} base must read logits: "
                f"pass {name}(score='logit'), not score='proba'"
            )

    @property
    def pairs_(self) -> np.ndarray:
        """The class indices ``(i, j)`` of each pair, shape (P, 2)."""
        first, second = _pairs(self.classes_.shape[0])
        return np.column_stack((first, second))

    def _units(self, K: int) -> list:
        first, second = _pairs(K)
        return list(zip(first.tolist(), second.tolist(), strict=True))

    def _unit_rows(self, unit, codes):
        i, j = unit
        rows = np.flatnonzero((codes == i) | (codes == j))
        return rows, codes[rows] == j

    def _unit_key(self, unit, names):
        return (names[unit[0]], names[unit[1]])

    def _labels_of_key(self, key) -> tuple:
        if not (isinstance(key, tuple) and len(key) == 2):
            raise ValueError(f"a one-vs-one summary's key is a pair of class labels; got {key!r}")
        return key

    def _binary_scores(self, x: np.ndarray, K: int) -> np.ndarray:
        # pair_scores of every row (the same kernels' arithmetic), from the
        # class scores by class: each pair reads two contiguous columns
        first, second = _pairs(K)
        out = np.empty((first.shape[0], x.shape[0]))
        by_class = np.ascontiguousarray(x.T)
        if self.score == "proba":
            m, e = np.frexp(by_class)
            pair_log_ratio_columns(m, e.astype(np.intp), first, second, out)
        else:
            pair_half_diff_columns(by_class, first, second, out)
        return out

    def _fit_prepare(self, x: np.ndarray, K: int):
        return pair_parts(x, self.score)

    def _unit_column(self, prepared, x, unit, rows) -> np.ndarray:
        i, j = unit
        return pair_scores(prepared, self.score, np.array([i]), np.array([j]), rows)[0]

    def _combine(self, r: np.ndarray, r0: np.ndarray | None = None) -> np.ndarray:
        # r0: each pair calibrator's column 0 (class i of pair (i, j)), exact
        # where it is tiny and 1 - r is not
        first, second = _pairs(self.classes_.shape[0])
        return couple(r, first, second, self.classes_.shape[0], self.coupling, r0=r0)

    @available_if(base_has("predict_interval"))
    def predict_interval(self, scores) -> np.ndarray:
        """Return each pair's Venn-Abers pair (Venn-Abers bases).

        Parameters
        ----------
        scores : array-like of shape (n_samples, K)
            As for :meth:`predict_proba`.

        Returns
        -------
        ndarray of shape (n_samples, P, 2)
            For pair ``q`` with ``pairs_[q] = (i, j)``: the lower and upper
            probability ``p0``, ``p1`` of class ``classes_[j]`` against class
            ``classes_[i]``.
        """
        return self._binary_interval(self._test_scores(scores))
