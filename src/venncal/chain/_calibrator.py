"""``ChainedCalibrator``: a second calibrator fitted on the output of a first."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._base import same_values
from .._rows import RowError, rows_of
from .._score_names import check_frame, from_frame
from .._validation import RANDOM_STATE, Check, Interval, Options, ParamsMixin, check_sample_weight
from ..negated import _same_param
from ..parametric._inputs import _as_array
from ._complements import pair_complements
from ._stages import BINARY, FITTINGS, fold_ids, is_grouped, is_stage, row_parts, stage_kind, subset

__all__ = ["ChainedCalibrator"]


def _same_setting(a, b) -> bool:
    """Whether two parameter values are equal; calibrators (a stage's base) by class and parameters."""
    if hasattr(a, "get_params") and not isinstance(a, type):
        if type(a) is not type(b):
            return False
        theirs = b.get_params(deep=False)
        ours = a.get_params(deep=False)
        return ours.keys() == theirs.keys() and all(_same_setting(v, theirs[k]) for k, v in ours.items())
    return _same_param(a, b)


def _then_has(name: str):
    def check(self) -> bool:
        return hasattr(self.then, name)

    return check


class ChainedCalibrator(ParamsMixin, BaseEstimator):
    """Two calibrators in a row: ``then`` fitted on what ``first`` predicts.

    The first stage maps the scores to probabilities (a parametric map such
    as Platt scaling or temperature scaling); the second calibrates those
    probabilities again, typically with Venn-Abers, which adds its
    intervals ``(p0, p1)`` and their guarantee of validity.  The chain
    predicts what the second stage predicts: ``then_.predict_proba(
    first_.predict_proba(scores))`` (for one score per row, the first
    stage's probability of ``classes_[1]``).

    ``fitting`` says which rows fit which stage, and so what is left of the
    Venn-Abers guarantee (docs/parametric.md, "Venn–Abers on top"):

    - ``"same"``: both stages on every row.  The first stage has seen the
      labels the second calibrates on, so the second stage's validity is
      no longer exact (it is, still, when the first stage is a strictly
      increasing map of one score: Venn-Abers depends only on the order).
    - ``"split"``: the first stage on a stratified part of the rows, the
      second on the rest (``calibration_size`` of them): the first stage is
      then a fixed function of the second part's scores, and a Venn-Abers
      second stage is exactly valid on it.
    - ``"cross"``: ``cv`` stratified folds (or the ``folds`` given to
      :meth:`fit`); for each fold a first stage fitted on the other folds
      scores the fold's rows, and ``then`` (a cross Venn-Abers predictor:
      one IVAP per fold) is fitted on these out-of-fold outputs and merges
      the folds as CVAP does.  Each fold's IVAP is exactly valid; the merge
      is CVAP's, which has no guarantee of its own.

    Parameters
    ----------
    first : calibrator
        The first stage (cloned, never changed): a binary score calibrator
        (``PlattCalibrator()``, any venncal binary calibrator) for one score
        per row, or a calibrator of K class scores
        (``TemperatureCalibrator()``) for (n, K) scores.
    then : calibrator
        The second stage (cloned), fitted on the first stage's output: for
        one score per row a binary calibrator (``VennAbersCalibrator()``,
        ``CrossVennAbersCalibrator()``, or any other); for K classes a
        calibrator of class probabilities, with ``score="proba"``
        (``OneVsRestCalibrator(VennAbersCalibrator(), score="proba")``,
        ``OneVsOneCalibrator(...)``).  With ``fitting="cross"`` a cross
        Venn-Abers predictor (``CrossVennAbersCalibrator()``, or a
        multiclass calibrator with that base).  ``classes`` set on one stage
        must be set, equal, on the other.
    fitting : {"same", "split", "cross"}, default="same"
        Which rows fit which stage (above).
    calibration_size : float in (0, 1) or int >= 1, default=0.5
        With ``fitting="split"``: the share (or number) of the rows held out
        for ``then``; the first stage is fitted on the others.
    cv : int >= 2, default=5
        With ``fitting="cross"``: the number of folds (unless :meth:`fit`
        is given ``folds``).
    random_state : int, RandomState instance or None, default=None
        The split and the folds (``train_test_split`` and
        ``StratifiedKFold(shuffle=True)``, stratified by class); an int
        makes them, and :meth:`split`, reproducible.  ``venncal.save``
        stores an int or None (not a RandomState).
    point : {"then", "clip", "cap"}, default="then"
        The probability the chain predicts.  ``"then"``: the second stage's
        (for Venn-Abers, its merge of ``(p0, p1)``).  ``"clip"``: the first
        stage's probability clipped into the second stage's interval
        ``[p0, p1]`` (a Venn-Abers second stage, one-vs-rest for K classes:
        each class's probability clipped into its interval, then the row
        renormalised); with ``fitting="cross"`` the first stage's
        probability is the mean of the F first stages'.  The first stage's
        probability is kept wherever Venn-Abers finds it consistent with
        the data, and moved to the nearest end of the interval where it is
        not; the intervals are the same as with ``"then"``.  A CVAP pair
        need not be ordered (folds that disagree): it is clipped into
        ``[min(p0, p1), max(p0, p1)]``.  For one score
        per row the prediction lies in ``[p0, p1]``, like every Venn-Abers
        point prediction; for K classes the renormalisation may move it
        outside (docs/parametric.md measures how far).  ``"cap"``: for K classes, each class's
        probability above its upper end is lowered to it, none is raised
        to its lower end, then the row is renormalised, which can lift a
        lowered class back above its end (where the calibration rows per
        class are few it keeps the first stage's log loss more often than
        ``"clip"``: docs/parametric.md); for one score per row it is
        ``"clip"`` (both ends there are upper ends: ``p1`` of the class and
        ``1 - p0`` of the other).

    Attributes
    ----------
    first_ : calibrator, or list of F calibrators with ``fitting="cross"``
        The fitted first stage (fold ``folds_[k]``'s is ``first_[k]``,
        fitted on the other folds).
    then_ : calibrator
        The fitted second stage.
    classes_ : ndarray
        ``then_.classes_`` (every first stage has the same).
    folds_ : ndarray of shape (F,)
        With ``fitting="cross"``: the fold ids, ``then_.folds_``.

    Notes
    -----
    Rows of weight 0 count nowhere; with ``"split"`` and ``"cross"`` they
    are left out before the rows are split.  Every class needs rows in
    every part a stage is fitted on; a part without one is refused.

    ``"cross"`` predicts from the F first stages' outputs of the test
    scores, stacked as the cross Venn-Abers predictor takes them ((n, F),
    or (n, F, K) blocks for K classes): :meth:`transform` returns them.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal import ChainedCalibrator, PlattCalibrator, VennAbersCalibrator
    >>> rng = np.random.default_rng(0)
    >>> s = rng.normal(size=400)
    >>> y = (rng.random(400) < 1 / (1 + np.exp(-3 * s))).astype(int)
    >>> chain = ChainedCalibrator(PlattCalibrator(), VennAbersCalibrator(),
    ...                           fitting="split", random_state=0).fit(s, y)
    >>> chain.predict_proba([0.0, 1.0]).shape, chain.classes_.tolist()
    ((2, 2), [0, 1])
    >>> p0, p1 = chain.predict_interval([1.0])[0]
    >>> bool(p0 <= p1)
    True
    >>> a, b = chain.split(y)[0]                    # the first stage's rows, Venn-Abers' rows
    >>> len(a), len(b)
    (200, 200)
    """

    _state: ClassVar[tuple[str, ...]] = ("first_", "then_")
    _parameter_constraints: ClassVar[dict] = {
        "first": [Check(is_stage, "a venncal calibrator object, e.g. PlattCalibrator() or "
                        "TemperatureCalibrator()")],
        "then": [Check(is_stage, "a venncal calibrator object, e.g. VennAbersCalibrator() or "
                       "OneVsRestCalibrator(score='proba')")],
        "fitting": [Options(FITTINGS)],
        "calibration_size": [Interval("real", 0, 1, closed="neither"), Interval("int", 1, None)],
        "cv": [Interval("int", 2, None)],
        "random_state": [RANDOM_STATE],
        "point": [Options(("then", "clip", "cap"))],
    }
    #: Parameters newer than the first saved chains: left out of a file at their default.
    _params_added: ClassVar[dict] = {"point": "then"}

    def __init__(self, first, then, *, fitting="same", calibration_size=0.5, cv=5,
                 random_state=None, point="then"):
        self.first = first
        self.then = then
        self.fitting = fitting
        self.calibration_size = calibration_size
        self.cv = cv
        self.random_state = random_state
        self.point = point

    # -- the stages -------------------------------------------------------------------

    def _chain_kind(self) -> str:
        """Check the parameters and that the stages fit together; return the kind of the scores."""
        self._check_params()
        kind = stage_kind(self.first, "first")
        then_kind = stage_kind(self.then, "then")
        first_name, then_name = type(self.first).__name__, type(self.then).__name__
        if kind == BINARY and then_kind != BINARY:
            raise ValueError(
                f"first ({first_name}) gives one probability per row, but then ({then_name}) "
                "calibrates K class scores: chain a binary calibrator (e.g. "
                "VennAbersCalibrator()), or a first stage of K class scores (e.g. "
                "TemperatureCalibrator())"
            )
        if kind != BINARY and then_kind == BINARY:
            raise ValueError(
                f"first ({first_name}) gives K class probabilities per row, but then "
                f"({then_name}) calibrates one score per row: wrap it, e.g. "
                f"OneVsRestCalibrator({then_name}(), score='proba')"
            )
        if kind != BINARY and getattr(self.then, "score", None) != "proba":
            raise ValueError(
                f"then ({then_name}) must take probabilities, score='proba' (the first stage "
                f"gives class probabilities); got score={getattr(self.then, 'score', None)!r}"
            )
        grouped = is_grouped(self.then)
        if self.fitting == "cross" and not grouped:
            raise ValueError(
                f"fitting='cross' fits one Venn-Abers predictor per fold and merges them: then "
                "must be a CrossVennAbersCalibrator (or a multiclass calibrator with that "
                f"base); got {then_name}"
            )
        if self.fitting == "split" and grouped:
            raise ValueError(
                f"fitting='split' fits then ({then_name}) once, on the held-out rows, but it is "
                "fitted per fold: use fitting='cross', or an inductive Venn-Abers predictor"
            )
        if self.point != "then":
            if not hasattr(self.then, "predict_interval"):
                raise ValueError(
                    f"point={self.point!r} bounds the first stage's probability by the second "
                    f"stage's Venn-Abers interval, but then ({then_name}) gives no intervals: use "
                    "a Venn-Abers second stage"
                )
            if kind != BINARY and then_name != "OneVsRestCalibrator":
                raise ValueError(
                    f"point={self.point!r} bounds each class's probability by its interval, "
                    f"which only a one-vs-rest second stage gives (then is {then_name}, whose "
                    "intervals are per pair of classes)"
                )
        return kind

    def _scores(self, scores, kind: str) -> np.ndarray:
        """The scores as an array (DLPack too), of the chain's shape: (n,) or (n, K)."""
        x = _as_array(scores)
        want = 1 if kind == BINARY else 2
        if x.ndim != want:
            shape = "(n_samples,): one score per row" if kind == BINARY else (
                "(n_samples, K): one column per class")
            raise ValueError(
                f"{type(self.first).__name__} then {type(self.then).__name__}: scores must have "
                f"shape {shape}; got shape {x.shape}"
            )
        return x

    @staticmethod
    def _output(first, x: np.ndarray, kind: str) -> np.ndarray:
        """What the second stage sees: P(classes_[1]) (n,), or the K class probabilities (n, K)."""
        p = first.predict_proba(x)
        return np.ascontiguousarray(p[:, 1]) if kind == BINARY else p

    # -- fitting ----------------------------------------------------------------------

    def split(self, y, sample_weight=None, *, folds=None) -> list:
        """Return the rows :meth:`fit` gives each stage: ``[(first_rows, then_rows), ...]``.

        One pair for ``"same"`` (every row, twice) and ``"split"``; one per
        fold, in the order of ``folds_``, for ``"cross"`` (the other folds'
        rows, the fold's rows).  Reproducible with an int ``random_state``.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Rows of weight 0 are in no part (``"split"``, ``"cross"``).
        folds : array-like of shape (n_samples,), default=None
            With ``"cross"``: each row's fold, instead of ``cv`` random folds.

        Returns
        -------
        list of (ndarray, ndarray)
            Row indices, sorted.
        """
        self._chain_kind()
        y = np.asarray(y)
        if y.ndim != 1:
            raise ValueError(f"y must be a 1-D array of shape (n_samples,); got shape {y.shape}")
        w = check_sample_weight(sample_weight, y.shape[0])
        if folds is not None and self.fitting != "cross":
            raise TypeError(self._folds_message())
        return row_parts(self.fitting, y, w, calibration_size=self.calibration_size,
                         cv=self.cv, random_state=self.random_state, folds=folds)

    def _folds_message(self) -> str:
        return (
            f"folds= is for fitting='cross' (its folds) or, with fitting='same', a then fitted "
            f"per fold (CrossVennAbersCalibrator); here fitting={self.fitting!r} and then is "
            f"{type(self.then).__name__}"
        )

    def fit(self, scores, y, sample_weight=None, *, folds=None):
        """Fit the first stage, then the second on the first's output (rows as ``fitting`` says).

        Parameters
        ----------
        scores : array-like of shape (n_samples,) or (n_samples, K)
            One score per row (binary stages) or K class scores.
        y : array-like of shape (n_samples,)
            Labels, any coding.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights, given to both stages.
        folds : array-like of shape (n_samples,), default=None
            ``fitting="cross"``: each row's fold (default: ``cv`` stratified
            folds).  ``fitting="same"`` with a cross Venn-Abers ``then``:
            its folds (required).  Refused otherwise.

        Returns
        -------
        self
        """
        kind = self._chain_kind()
        x = self._scores(scores, kind)
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != x.shape[0]:
            raise ValueError(
                f"y must be 1-D with one label per row of scores ({x.shape[0]}); got shape {y.shape}"
            )
        w = check_sample_weight(sample_weight, x.shape[0])
        grouped_same = self.fitting == "same" and is_grouped(self.then)
        if folds is not None and not (self.fitting == "cross" or grouped_same):
            raise TypeError(self._folds_message())
        if self.fitting == "same":
            first = clone(self.first).fit(x, y, w)
            extra = {} if folds is None else {"folds": folds}
            then = self._fit_then(self._output(first, x, kind), y, w, **extra)
            return from_frame(self._set_fitted(first, then), scores)
        parts = row_parts(self.fitting, y, w, calibration_size=self.calibration_size,
                          cv=self.cv, random_state=self.random_state, folds=folds)
        try:
            firsts, out = self._fit_firsts(parts, x, y, w, kind)
        except RowError as exc:
            # A bad row of a part, named as the input's: the first stage's refusal of all
            # the rows, if it refuses them so, names the input's first bad row and counts them.
            try:
                clone(self.first).fit(x, y, w)
            except RowError as whole:
                raise whole from exc
            except ValueError:
                pass
            raise
        if self.fitting == "split":
            (_, b), = parts
            then = self._fit_then(out, y[b], subset(w, b), rows=b)
            return from_frame(self._set_fitted(firsts[0], then), scores)
        kept = np.sort(np.concatenate([b for _, b in parts]))
        ids = fold_ids(parts, x.shape[0], folds)[kept]
        then = self._fit_then(out[kept], y[kept], subset(w, kept), rows=kept, folds=ids)
        return from_frame(self._set_fitted(firsts, then), scores)

    def _fit_firsts(self, parts, x, y, w, kind):
        """The first stage fitted on each part's first rows, and its output on its second rows.

        ``"split"``: the output on the held-out rows.  ``"cross"``: each fold's rows scored
        by the first stage fitted on the other folds, at their places among all the rows.
        """
        firsts, out = [], None
        for a, b in parts:
            with rows_of(a):
                first = clone(self.first).fit(x[a], y[a], subset(w, a))
            with rows_of(b):
                part = self._output(first, x[b], kind)
            firsts.append(first)
            if self.fitting == "split":
                return firsts, part
            if out is None:
                out = np.empty((x.shape[0], *part.shape[1:]))
            out[b] = part
        return firsts, out

    def _fit_then(self, out, y, w, rows=None, **extra):
        """A clone of ``then`` fitted on the first stage's output; its refusals say so.

        ``rows``: the input's rows of ``out`` (a row named by the refusal is one of them).
        """
        try:
            return clone(self.then).fit(out, y, w, **extra)
        except ValueError as exc:
            said = (f"{type(self).__name__}: the second stage ({type(self.then).__name__}), fitted "
                    f"on the first stage's probabilities (not the scores given), refused them: ")
            if isinstance(exc, RowError):  # still a row a table's reader can renumber
                raise (exc if rows is None else exc.of_rows(rows)).prefixed(said) from exc
            raise ValueError(said + str(exc)) from exc

    def _set_fitted(self, first, then):
        for stage in first if isinstance(first, list) else [first]:
            if not same_values(stage.classes_, then.classes_):
                raise ValueError(
                    f"the stages have different classes: first's {stage.classes_.tolist()!r}, "
                    f"then's {then.classes_.tolist()!r}; give classes= to both stages, or to "
                    "neither"
                )
        self.first_ = first
        self.then_ = then
        self.classes_ = then.classes_
        return self

    # -- prediction -------------------------------------------------------------------

    @property
    def folds_(self) -> np.ndarray:
        """The fold ids of ``fitting="cross"`` (``then_.folds_``)."""
        check_is_fitted(self, "then_")
        if not isinstance(self.first_, list):
            raise AttributeError("folds_: only a chain fitted with fitting='cross' has folds")
        return self.then_.folds_

    def transform(self, scores) -> np.ndarray:
        """Return what the second stage sees: the first stage's output of the scores.

        Parameters
        ----------
        scores : array-like of shape (n_samples,) or (n_samples, K)

        Returns
        -------
        ndarray
            (n,) (the probability of ``classes_[1]``) or (n, K); with
            ``fitting="cross"`` one column (n, F) or block (n, F, K) per
            fold, in the order of ``folds_``.
        """
        check_is_fitted(self, "then_")
        check_frame(self, scores)  # a DataFrame's columns at their recorded places (54 F9)
        kind = stage_kind(self.first, "first")
        x = self._scores(scores, kind)
        if not isinstance(self.first_, list):
            return self._output(self.first_, x, kind)
        return np.stack([self._output(f, x, kind) for f in self.first_], axis=1)

    def predict_proba(self, scores) -> np.ndarray:
        """Return the chain's probabilities: the second stage's, or clipped (``point``).

        Returns
        -------
        ndarray of shape (n_samples, 2) or (n_samples, K)
            Columns in the order of ``classes_``.
        """
        x = self.transform(scores)
        if self.point == "then":
            return self.then_.predict_proba(x)
        first = x.mean(axis=1) if isinstance(self.first_, list) else x  # cross: F outputs
        interval = self.then_.predict_interval(x)
        # A CVAP pair need not be ordered (folds that disagree): clip into [min, max].
        low, high = interval.min(axis=-1), interval.max(axis=-1)
        if first.ndim == 1:  # "cap" is "clip" for one score per row
            clipped = np.clip(first, low, high)
            return np.column_stack([self._clipped_complement(scores, x, first, interval, clipped),
                                    clipped])
        clipped = np.minimum(first, high) if self.point == "cap" else np.clip(first, low, high)
        total = clipped.sum(axis=1, keepdims=True)
        # Each class's p1 is positive unless Venn-Abers saw no row of it: a row of zeros
        # cannot be renormalised, so it takes the second stage's own probabilities.
        bad = ~(total[:, 0] > 0.0)
        out = clipped / np.where(bad[:, None], 1.0, total)
        if bad.any():
            out[bad] = self.then_.predict_proba(x[bad])
        return out

    def _clipped_complement(self, scores, x, first, interval, clipped) -> np.ndarray:
        """``1 - clip(first, p0, p1)`` of one score per row, each case from its own complement.

        The first stage's column 0 (the mean of the folds' for ``"cross"``)
        where ``first`` is kept, ``1 - p0`` or ``1 - p1`` from the second
        stage's weights where it is raised to ``p0`` or lowered to ``p1``
        (:func:`pair_complements`).  The case is that of ``np.clip``
        (``min(max(first, low), high)``, the pair's ends in order: a CVAP
        pair ``p0 > p1`` swaps them, with their complements), so that both
        columns come from it;
        where rounding makes two of them equal (all three 1.0 near 1), the
        complements decide, as the exact values would.  Where ``clipped <=
        1/2``, ``1.0 - clipped`` (as precise there, and as before).
        """
        out = 1.0 - clipped
        near_one = clipped > 0.5  # only there the complements are needed
        if not near_one.any():
            return out
        x_scores = self._scores(scores, BINARY)[near_one]
        firsts = self.first_ if isinstance(self.first_, list) else [self.first_]
        first_c = np.mean([f.predict_proba(x_scores)[:, 0] for f in firsts], axis=0)
        first, interval = first[near_one], interval[near_one]
        low_c, high_c = pair_complements(self.then_, x[near_one], interval)
        swapped = interval[:, 0] > interval[:, 1]  # an unordered CVAP pair: ends swapped
        low, high = interval.min(axis=1), interval.max(axis=1)
        low_c, high_c = np.where(swapped, high_c, low_c), np.where(swapped, low_c, high_c)
        raised = (first < low) | ((first == low) & (low_c < first_c))
        kept_c = np.where(raised, low_c, first_c)
        kept = np.maximum(first, low)
        lowered = (kept > high) | ((kept == high) & (high_c > kept_c))
        out[near_one] = np.where(lowered, high_c, kept_c)
        return out

    def predict(self, scores) -> np.ndarray:
        """Return the label of largest probability (``point="then"``: the second stage's)."""
        if self.point == "then":
            return self.then_.predict(self.transform(scores))
        return self.classes_[np.argmax(self.predict_proba(scores), axis=1)]

    @available_if(_then_has("predict_interval"))
    def predict_interval(self, scores) -> np.ndarray:
        """Return the second stage's Venn-Abers pairs ``(p0, p1)`` (Venn-Abers second stages).

        Returns
        -------
        ndarray of shape (n_samples, 2), or (n_samples, U, 2) for K classes
            As ``then_.predict_interval``: per class (one-vs-rest) or pair
            (one-vs-one) for K classes.
        """
        x = self.transform(scores)
        return self.then_.predict_interval(x)

    # -- a loaded model ---------------------------------------------------------------

    def _check_state(self) -> None:
        """Raise ``ValueError`` unless a reloaded chain is one :meth:`fit` can produce.

        ``then_`` a fitted clone of ``then`` and ``first_`` of ``first`` (same
        classes, same parameters), a list of one per fold exactly with
        ``fitting="cross"``; ``classes_`` is ``then_.classes_``.  Each stage
        was checked when its document was read.
        """
        self._chain_kind()
        cross = self.fitting == "cross"
        firsts = self.first_ if cross else [self.first_]
        if cross:
            folds = getattr(self.then_, "folds_", None)
            if not isinstance(self.first_, list) or folds is None or len(firsts) != len(folds):
                raise ValueError("first_ must be a list of one first stage per fold of then_")
        for stage in [*firsts, self.then_]:
            param = self.first if stage is not self.then_ else self.then
            role = "then_" if stage is self.then_ else "first_"
            if type(stage) is not type(param):
                raise ValueError(f"{role} must be a fitted {type(param).__name__}; got "
                                 f"{type(stage).__name__}")
            theirs = param.get_params(deep=False)
            for name, value in stage.get_params(deep=False).items():
                if not _same_setting(value, theirs.get(name)):
                    raise ValueError(f"{role} must have the parameters of its stage; {name} differs")
            if not same_values(getattr(stage, "classes_", None), self.then_.classes_):
                raise ValueError("every stage's classes_ must be then_.classes_")
        if not same_values(self.classes_, self.then_.classes_):
            raise ValueError("classes_ must equal then_.classes_")
