"""What the one-vs-rest and one-vs-one calibrators share: labels, summaries, state."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import ClassVar

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from .._base import check_member_state, check_summary, same_param, same_values
from .._score_names import check_frame, forget, from_frame
from .._validation import Check, Options, ParamsMixin, check_sample_weight, classes_array
from .._kernels.multiclass_lookup import (
    index_lookup_columns,
    index_proba_column0,
    index_proba_columns,
    table_index,
)
from .._kernels.multiclass_tables import ivap_tables_list
from ._cache import CACHES, fit_key, same_fit
from ..negated import fits_from_summary
from ..summary import ScoreSummary, WeightSumOverflow
from ..venn_abers import VennAbersCalibrator
from ._labels import observed_codes, recoded
from ._scores import SCORE_KINDS, check_class_scores

__all__ = ["MulticlassCalibrator", "base_has"]


def _is_binary_calibrator(value) -> bool:
    return value is None or (
        not isinstance(value, (type, MulticlassCalibrator))
        and all(callable(getattr(value, m, None)) for m in ("predict_proba", "get_params"))
        and fits_from_summary(value)
    )


def base_has(name: str):
    """For ``available_if``: the base calibrator has method ``name`` (Venn-Abers: the interval)."""

    def check(self) -> bool:
        return hasattr(self._base(), name)

    return check


class MulticlassCalibrator(ParamsMixin, BaseEstimator):
    """One binary calibrator per *unit* (a class, or a pair of classes), on class scores.

    A subclass defines the units (:meth:`_units`: the labels' indices, one
    tuple per unit), the rows and labels of a unit's binary problem
    (:meth:`_unit_rows`), the binary scores (:meth:`_binary_scores`, shape
    (n, U)), the key of a unit in a mapping of summaries (:meth:`_unit_key`)
    and how the U binary probabilities make K class probabilities
    (:meth:`_combine`; with ``_needs_column0`` it also gets the binary
    calibrators' label-0 probabilities, each with its own relative precision).
    """

    _state: ClassVar[tuple[str, ...]] = ("calibrators_",)
    _parameter_constraints: ClassVar[dict] = {
        "base": [Check(_is_binary_calibrator,
                       "a venncal binary score calibrator, e.g. VennAbersCalibrator(), or None")],
        "score": [Options(SCORE_KINDS)],
        "classes": [Check(lambda v: v is None or np.ndim(v) == 1,
                          "None or a 1-D array-like of the class labels")],
    }
    _unit_name: ClassVar[str] = "class"
    # True: :meth:`_combine` also takes the binary calibrators' column 0
    _needs_column0: ClassVar[bool] = False

    # -- parameters -----------------------------------------------------------------

    def _base(self):
        if self.base is None:
            return VennAbersCalibrator()
        return self.base

    @property
    def _grouped(self) -> bool:
        """Whether the base is fitted per fold (a cross Venn-Abers predictor)."""
        return getattr(self._base(), "_group_param", None) is not None

    def _check_all_params(self) -> None:
        self._check_params()
        params = self._base().get_params(deep=True)
        named = {k: v for k, v in params.items()
                 if (k == "classes" or k.endswith("__classes")) and v is not None}
        if named:
            raise ValueError(
                f"{type(self).__name__}: leave the base calibrator's classes unset "
                f"(got {', '.join(f'{k}={v!r}' for k, v in named.items())}); each binary "
                "problem's labels are 0 and 1, and classes= of this calibrator names the classes"
            )

    def _given_classes(self) -> np.ndarray | None:
        if self.classes is None:
            return None
        cls = classes_array(self.classes)
        if cls.ndim != 1 or cls.shape[0] < 2:
            raise ValueError(f"classes must name at least two labels; got {self.classes!r}")
        if np.unique(cls).shape[0] != cls.shape[0]:
            raise ValueError(f"classes must be distinct labels; got {self.classes!r}")
        return cls

    # -- labels ---------------------------------------------------------------------

    def _labels(self, y, n: int, w):
        """``(classes_, codes)``: the classes and each row's index in them.

        Every class must have calibration rows of positive weight.
        """
        observed, codes = observed_codes(y, n)
        classes = self._given_classes()
        if classes is None:
            classes = observed
        else:
            codes = recoded(observed, codes, classes)
        if classes.shape[0] < 2:
            raise ValueError(
                f"y holds a single class ({classes[0].item()!r}); a multiclass calibrator "
                "needs at least two classes"
            )
        weight = np.bincount(codes, weights=w, minlength=classes.shape[0])
        absent = np.flatnonzero(~(weight > 0))
        if absent.size:
            missing = [classes[i].item() for i in absent]
            raise ValueError(
                f"class(es) {missing!r} of classes={classes.tolist()!r} have no calibration "
                "rows (of positive weight); every class needs calibration data, so this "
                "calibrator refuses (drop the class from classes=, or add data)"
            )
        return classes, codes

    # -- summaries ------------------------------------------------------------------

    def summaries(self, scores, y, sample_weight=None, *, folds=None) -> dict:
        """Reduce calibration data to one :class:`~venncal.ScoreSummary` per binary problem.

        :meth:`fit` is :meth:`fit_summary` of this mapping, so a distributed
        engine that builds the same summaries (per partition, then merged)
        fits the same model bit for bit.

        Parameters
        ----------
        scores : array-like of shape (n_samples, K)
            Class scores of the kind ``score``, one column per class of the
            classes (``classes`` when given, else the labels of ``y``
            sorted).
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights.
        folds : array-like of shape (n_samples,), default=None
            Each row's fold, required with a cross Venn-Abers base (and
            refused otherwise).

        Returns
        -------
        dict
            Keyed by the binary problem (see the class's Notes), or by
            ``(problem, fold)`` with a cross Venn-Abers base; each summary
            has the binary score of the problem and label 1 for its positive
            class.
        """
        self._check_all_params()
        x = np.asarray(scores)
        n = x.shape[0] if x.ndim >= 1 else 0
        w = check_sample_weight(sample_weight, n)
        classes, codes = self._labels(y, n, w)
        K = classes.shape[0]
        x = check_class_scores(scores, K, self.score)
        fold_ids, fold_index = self._folds(folds, n)
        prepared = self._fit_prepare(x, K)
        names = classes.tolist()
        out = {}
        for u, unit in enumerate(self._units(K)):
            rows, y01 = self._unit_rows(unit, codes)
            column = self._unit_column(prepared, x, unit, rows)
            w_unit = None if w is None else (w if rows is None else w[rows])
            key = self._unit_key(unit, names)
            if fold_ids is None:
                out[key] = self._summary(column, y01, w_unit, key, None)
                continue
            f_unit = fold_index if rows is None else fold_index[rows]
            for f, fold in enumerate(fold_ids.tolist()):
                m = f_unit == f
                out[(key, fold)] = self._summary(
                    column[m], y01[m], None if w_unit is None else w_unit[m], key, fold
                )
        return out

    def _folds(self, folds, n: int):
        if not self._grouped:
            if folds is not None:
                raise TypeError(
                    f"folds= is for a cross Venn-Abers base; {type(self._base()).__name__} "
                    "is fitted on all rows"
                )
            return None, None
        if folds is None:
            raise TypeError(
                f"{type(self).__name__} with a {type(self._base()).__name__} base needs folds= "
                "(one fold id per row), given by keyword"
            )
        f = np.asarray(folds)
        if f.ndim != 1 or f.shape[0] != n:
            raise ValueError(
                f"folds must be 1-D with one fold per row ({n}); got shape {f.shape}"
            )
        return np.unique(f, return_inverse=True)

    def _summary(self, s, y01, w, key, fold):
        if s.shape[0] == 0 or (w is not None and not (w > 0).any()):
            where = "" if fold is None else f" in fold {fold!r}"
            raise ValueError(
                f"{self._unit_name} {key!r} has no calibration rows (of positive weight){where}"
            )
        return self._problem_summary(key if fold is None else (key, fold), s, y01, w)

    def _problem_summary(self, key, s, y01, w) -> ScoreSummary:
        """The summary of one problem's rows (``key`` as :meth:`summaries` keys it); tied
        weights past float64 named by the problem, not by an inner score alone (the local
        fit's and the engines' partitions' words)."""
        try:
            return ScoreSummary._from_validated(np.ascontiguousarray(s), y01, w)
        except WeightSumOverflow as exc:
            raise ValueError(self._tied_overflow(key, exc.score)) from None

    def _tied_overflow(self, key, score: float) -> str:
        """Why tied weights of a problem's summary (``key`` as :meth:`summaries` keys it)
        cannot be summed: the words of the local fit and of the engines."""
        unit, where = (key[0], f" in fold {key[1]!r}") if self._grouped else (key, "")
        # the problem, not "the rows of class 1": rows of every label tie there (attack 49 F4)
        problem = f"{self._unit_name} {unit!r}" + (
            " against the rest" if self._unit_name == "class" else "")
        return (f"sample_weight: the weights of the rows at binary score {score!r} of "
                f"{problem}{where} sum to more than the largest float64 (1.8e308); divide the "
                "weights by a common factor")

    # -- fitting --------------------------------------------------------------------

    def fit(self, scores, y, sample_weight=None, *, folds=None):
        """Fit one binary calibrator per problem: :meth:`fit_summary` of :meth:`summaries`.

        Parameters
        ----------
        scores : array-like of shape (n_samples, K)
            Class scores of the kind ``score`` (a DataFrame's names are kept: ``score_cols_``).
        y : array-like of shape (n_samples,)
            Class labels (any K >= 2 values).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative frequency weights.
        folds : array-like of shape (n_samples,), default=None
            Each row's fold (with a cross Venn-Abers base only).

        Returns
        -------
        self
        """
        return from_frame(self.fit_summary(self.summaries(scores, y, sample_weight, folds=folds)),
                          scores)

    def fit_summary(self, summaries: Mapping):
        """Fit from one :class:`~venncal.ScoreSummary` per binary problem (and fold).

        Parameters
        ----------
        summaries : mapping
            As :meth:`summaries` returns: keyed by the problem, or by
            ``(problem, fold)`` with a cross Venn-Abers base.  The classes
            are ``classes`` when given, else those the keys name, sorted.

        Returns
        -------
        self
        """
        self._check_all_params()
        forget(self)  # names of columns: a table fit records them after (from_frame, record)
        if not isinstance(summaries, Mapping) or len(summaries) == 0:
            raise TypeError(
                "summaries must be a non-empty mapping of binary problem -> ScoreSummary "
                "(see the summaries method)"
            )
        grouped = self._grouped
        per_unit: dict = {}
        for key, summary in summaries.items():
            if grouped:
                if not (isinstance(key, tuple) and len(key) == 2):
                    raise ValueError(
                        f"with a cross Venn-Abers base the keys are ({self._unit_name}, fold); "
                        f"got {key!r}"
                    )
                unit_key, fold = key
            else:
                unit_key, fold = key, None
            if not isinstance(summary, ScoreSummary):
                raise TypeError(f"summaries[{key!r}] must be a ScoreSummary, not "
                                f"{type(summary).__name__}")
            per_unit.setdefault(unit_key, {})[fold] = summary
        classes = self._given_classes()
        if classes is None:
            classes = self._classes_of_keys(list(per_unit))
        if classes.shape[0] < 2:
            raise ValueError(
                f"the summaries name a single class ({classes.tolist()!r}); a multiclass "
                "calibrator needs at least two classes"
            )
        names = classes.tolist()
        expected = [self._unit_key(unit, names) for unit in self._units(classes.shape[0])]
        extra = [k for k in per_unit if k not in expected]
        if extra:
            raise ValueError(
                f"summaries has key(s) {extra[:3]!r} that are no {self._unit_name} of "
                f"classes {names!r} (expected keys such as {expected[0]!r})"
            )
        missing = [k for k in expected if k not in per_unit]
        if missing:
            raise ValueError(
                f"summaries has no summary of {self._unit_name} {missing[0]!r} (classes "
                f"{names!r}); every {self._unit_name} needs calibration data"
            )
        folds = None
        if grouped:
            folds = sorted(per_unit[expected[0]])
            for k in expected:
                if sorted(per_unit[k]) != folds:
                    lack = [f for f in folds if f not in per_unit[k]] or sorted(per_unit[k])
                    raise ValueError(
                        f"{self._unit_name} {k!r} has no calibration rows in fold {lack[0]!r}; "
                        "every binary problem needs rows in every fold"
                    )
        template = clone(self._base())
        if type(template) is VennAbersCalibrator:
            calibrators = _fit_ivap_many(template, [per_unit[k][None] for k in expected])
        else:
            calibrators = []
            for k in expected:
                cal = copy.deepcopy(template)  # a clone, without clone's signature inspection
                cal.fit_summary(per_unit[k] if grouped else per_unit[k][None])
                calibrators.append(cal)
        self.classes_, self.calibrators_ = classes, calibrators
        return self

    def _classes_of_keys(self, keys) -> np.ndarray:
        try:
            labels = sorted({v for k in keys for v in self._labels_of_key(k)})
        except TypeError:
            raise TypeError("the summaries' keys mix labels that cannot be compared") from None
        return classes_array(labels)

    # -- state ----------------------------------------------------------------------

    @property
    def folds_(self) -> np.ndarray:
        """The fold ids of a cross Venn-Abers base (column blocks of per-fold test scores)."""
        check_is_fitted(self, "calibrators_")
        return self.calibrators_[0].folds_

    def _check_state(self) -> None:
        """Raise ``ValueError`` unless a reloaded model is one ``fit`` can produce.

        ``classes_``: at least two distinct labels (``classes`` when given,
        else sorted); ``calibrators_``: one fitted clone of the base per
        binary problem, with the base's parameters and labels ``[0, 1]``,
        each consistent itself; with a cross Venn-Abers base, the same folds
        in every one.
        """
        classes = self.classes_
        if (not isinstance(classes, np.ndarray) or classes.ndim != 1
                or classes.dtype.kind not in "biufU" or classes.shape[0] < 2
                or np.unique(classes).shape[0] != classes.shape[0]):
            raise ValueError("classes_ must be an array of at least two distinct labels")
        given = self._given_classes()
        if given is not None:
            if not same_values(classes, given):
                raise ValueError("classes_ must be the classes parameter")
        elif not same_values(np.unique(classes), classes):
            raise ValueError("classes_ must be sorted (no classes parameter was given)")
        cals = self.calibrators_
        units = len(self._units(classes.shape[0]))
        if not isinstance(cals, list) or len(cals) != units:
            raise ValueError(f"calibrators_ must be a list of {units} calibrators")
        base = self._base()
        theirs = base.get_params(deep=False)
        for cal in cals:
            if type(cal) is not type(base):
                raise ValueError(
                    f"calibrators_ must hold {type(base).__name__} objects; got {type(cal).__name__}"
                )
            for name, value in cal.get_params(deep=False).items():
                if name in theirs and not same_param(value, theirs[name]):
                    raise ValueError(f"every calibrator must have the base's {name}")
            if not same_values(cal.classes_, np.array([0, 1])):
                raise ValueError("every binary calibrator's classes_ must be [0, 1]")
            check_member_state(cal)
        if self._grouped:
            folds = cals[0].folds_
            if any(not same_values(cal.folds_, folds) for cal in cals):
                raise ValueError("every binary calibrator must have the same folds_")

    # -- prediction -----------------------------------------------------------------

    def _test_scores(self, scores):
        """Validated test scores: (n, K), or (n, F, K) per fold with a cross Venn-Abers base."""
        check_is_fitted(self, "calibrators_")
        check_frame(self, scores)  # a DataFrame's columns at their recorded places (54 F9)
        blocks = len(self.folds_) if self._grouped else None
        return check_class_scores(scores, self.classes_.shape[0], self.score, blocks=blocks)

    def _binary_test(self, x) -> np.ndarray:
        """Binary scores, shape (U, n), or (U, n, F) from per-fold blocks (n, F, K)."""
        K = self.classes_.shape[0]
        if x.ndim == 2:
            return self._binary_scores(x, K)
        n, F, _ = x.shape
        return self._binary_scores(x.reshape(n * F, K), K).reshape(-1, n, F)

    def _ivap_tables(self):
        """The IVAP tables of every binary calibrator laid end to end, indexed (None for other bases).

        ``(s, F0, F1, starts, log_merge, index)``: table ``u`` is
        ``s[starts[u]:starts[u + 1]]``, and ``index`` the bucket index of
        :func:`venncal._kernels.multiclass_lookup.build_index`.  Built once per
        fitted (or loaded) model and cached.
        """
        cals = self.calibrators_
        cached = self.__dict__.get("_tables")
        if cached is not None and same_fit(cached[0], cals):
            return cached[1]
        tables = None
        if all(type(cal) is VennAbersCalibrator for cal in cals):
            sizes = [cal.scores_.shape[0] for cal in cals]
            starts = np.zeros(len(cals) + 1, dtype=np.intp)
            np.cumsum(sizes, out=starts[1:])
            s = np.concatenate([cal.scores_ for cal in cals])
            tables = (
                s,
                np.concatenate([cal.p0_ for cal in cals]),
                np.concatenate([cal.p1_ for cal in cals]),
                starts,
                cals[0].merge == "log",
                table_index(s, starts),
            )
        self.__dict__["_tables"] = (fit_key(cals), tables)
        return tables

    def __getstate__(self):
        # the look-up caches are rebuilt from the calibrators on first use, not saved
        state = dict(super().__getstate__())
        for name in CACHES:
            state.pop(name, None)
        return state

    def _binary_pairs(self, b) -> tuple[np.ndarray, np.ndarray]:
        """Venn-Abers ``(p0, p1)``, each of shape (U, n), of binary scores ``b`` (U, n)."""
        tables = self._ivap_tables()
        if tables is not None and b.ndim == 2:
            s, F0, F1, starts, _, index = tables
            p0 = np.empty(b.shape)
            p1 = np.empty(b.shape)
            index_lookup_columns(s, F0, F1, starts, *index, b, p0, p1)
            return p0, p1
        pairs = [cal.predict_interval(q) for cal, q in zip(self.calibrators_, b, strict=True)]
        return np.stack([v[:, 0] for v in pairs]), np.stack([v[:, 1] for v in pairs])

    def _binary_proba(self, x, column0: bool = False):
        """The U binary probabilities, shape (U, n); with ``column0`` also their complements.

        ``column0``: return ``(r0, r1)``, both (U, n): ``r1`` as without it and
        ``r0`` each binary calibrator's ``predict_proba[:, 0]`` (the label-0
        probability with its own relative precision, not ``1 - r1``).
        """
        b = self._binary_test(x)
        tables = self._ivap_tables()
        if tables is not None and b.ndim == 2:
            if column0:
                return self._ivap_column0(b)
            s, F0, F1, starts, log_merge, index = tables
            out = np.empty(b.shape)
            index_proba_columns(s, F0, F1, starts, *index, b, log_merge, out)
            return out
        if not column0:
            return np.stack(
                [cal.predict_proba(q)[:, 1] for cal, q in zip(self.calibrators_, b, strict=True)]
            )
        both = [cal.predict_proba(q) for cal, q in zip(self.calibrators_, b, strict=True)]
        return np.stack([v[:, 0] for v in both]), np.stack([v[:, 1] for v in both])

    def _ivap_column0(self, b) -> tuple[np.ndarray, np.ndarray]:
        """Both columns of every Venn-Abers calibrator's ``predict_proba`` (U, n), bit for bit.

        ``(r0, r1)`` of binary scores ``b`` (U, n), one search per score
        (:func:`venncal._kernels.multiclass_lookup.index_proba_column0`):
        ``r1`` the minimax merge of ``(p0, p1)``, ``r0`` ``1 - r1`` where
        ``r1 <= 1/2`` and past 1/2 the complement from ``q0_`` (``1 - p0``
        from the weights) at ``p0``'s position (1 below the table),
        ``q0 / (q0 + p1)`` (log) or ``q0 + q1**2/2 - q0**2/2`` with
        ``q1 = 1 - p1`` (Brier), as :func:`venncal.venn_abers.merge_with_complement`
        computes them for one calibrator.
        """
        cals = self.calibrators_
        s, F0, F1, starts, log_merge, index = self._ivap_tables()
        Q0 = self.__dict__.get("_q0_tables")
        if Q0 is None or not same_fit(Q0[0], cals):
            Q0 = (fit_key(cals), np.concatenate([cal.q0_ for cal in cals]))
            self.__dict__["_q0_tables"] = Q0
        r0 = np.empty(b.shape)
        r1 = np.empty(b.shape)
        index_proba_column0(s, F0, F1, Q0[1], starts, *index, b, log_merge, r1, r0)
        return r0, r1

    def _binary_interval(self, x) -> np.ndarray:
        """The U binary Venn-Abers pairs, shape (n, U, 2)."""
        p0, p1 = self._binary_pairs(self._binary_test(x))
        return np.stack((p0.T, p1.T), axis=2)

    def predict_proba(self, scores) -> np.ndarray:
        """Return calibrated class probabilities, rows summing to 1.

        Parameters
        ----------
        scores : array-like of shape (n_samples, K)
            Class scores of the kind ``score``, columns in the order of
            ``classes_`` (with a cross Venn-Abers base also (n_samples, F,
            K): one block per fold, in the order of ``folds_``).

        Returns
        -------
        ndarray of shape (n_samples, K)
        """
        x = self._test_scores(scores)
        if self._needs_column0:
            r0, r1 = self._binary_proba(x, column0=True)
            return self._combine(r1, r0)
        return self._combine(self._binary_proba(x), x)

    def predict(self, scores) -> np.ndarray:
        """Return the most probable class of ``classes_`` (the first one on a tie)."""
        return self.classes_[np.argmax(self.predict_proba(scores), axis=1)]

    # -- for subclasses -------------------------------------------------------------

    def _units(self, K: int) -> list:
        raise NotImplementedError

    def _unit_rows(self, unit, codes):
        raise NotImplementedError

    def _unit_key(self, unit, names):
        raise NotImplementedError

    def _labels_of_key(self, key) -> tuple:
        raise NotImplementedError

    def _binary_scores(self, x: np.ndarray, K: int) -> np.ndarray:
        """All binary scores of validated class scores (n, K): shape (U, n)."""
        raise NotImplementedError

    def _fit_prepare(self, x: np.ndarray, K: int):
        """What :meth:`_unit_column` needs (computed once per fit)."""
        return None

    def _unit_column(self, prepared, x: np.ndarray, unit, rows) -> np.ndarray:
        """A unit's binary scores at its rows (all rows if ``rows`` is None)."""
        raise NotImplementedError

    def _combine(self, p: np.ndarray, x: np.ndarray | None = None) -> np.ndarray:
        """The probabilities (n, K) from the binary ones ``p`` (U, n) of the test scores ``x``."""
        raise NotImplementedError


def _fit_ivap_many(template, summaries) -> list:
    """``copy(template).fit_summary(summary)`` of each summary, the IVAP tables in one kernel call.

    The same checks, warnings and fitted arrays, bit for bit, as the loop
    (tests/test_multiclass_batch.py compares every attribute).
    """
    template._check_params()
    for summary in summaries:
        check_summary(summary)
    # each summary's own negative weights, as VennAbersCalibrator._fit_from passes them
    tables = ivap_tables_list([s.weights for s in summaries],
                              [s.positive_weights for s in summaries],
                              [s.negative_weights for s in summaries])
    calibrators = []
    for summary, four in zip(summaries, tables, strict=True):
        cal = copy.copy(template)  # its parameters are a string and None: nothing shared
        cal._warn_weight_total(summary.total_weight, summary.n_distinct, False)
        cal.classes_ = cal._summary_classes()
        cal._set_tables(summary.scores, summary.weights, summary.positive_weights,
                        summary.negative_weights, four)
        # each class's own sums, as VennAbersCalibrator._fit_from takes them
        cal.n_negative_, cal.n_positive_ = summary.negative_weight, summary.positive_weight
        calibrators.append(cal)
    return calibrators

