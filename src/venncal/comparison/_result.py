"""The result of :func:`~venncal.comparison.compare`: per method, per fold, ranks and advice."""

from __future__ import annotations

import math

import numpy as np

from .._json import strict_json
from ._candidates import BINARY, Candidate
from ._ranking import Recommendation, mean_ranks, recommend, win_rates

__all__ = ["Comparison", "MethodResult"]


class MethodResult:
    """One method's folds: metric values (None on a failed fold), times, failures, warnings."""

    def __init__(self, candidate: Candidate, folds: int):
        self.candidate = candidate
        self.values: list[dict | None] = [None] * folds
        self.fit_time = [math.nan] * folds
        self.predict_time = [math.nan] * folds
        self.failures: dict[int, str] = {}
        self.warnings: list[str] = []
        self._row_errors: dict = {}  # fold -> RowError of the input's rows, counted from 0

    def fail(self, fold: int, reason: str, row_error=None) -> None:
        """Record a failed fold; ``row_error`` (a RowError) when the reason is one row."""
        self.failures[fold] = reason
        if row_error is not None:
            self._row_errors[fold] = row_error

    def count_rows_from(self, first_row: int) -> None:
        """Name the failures' rows as a table counts them: row 0 is ``first_row``."""
        for fold, exc in self._row_errors.items():
            self.failures[fold] = f"ValueError: {exc.renumbered(first_row)}"

    def record(self, fold: int, values: dict, fit_time: float, predict_time: float,
               warned) -> None:
        self.values[fold] = values
        self.fit_time[fold] = fit_time
        self.predict_time[fold] = predict_time
        for message in warned:
            if message not in self.warnings:
                self.warnings.append(message)

    @property
    def complete(self) -> bool:
        """Whether it ran on every fold (only such methods are ranked)."""
        return not self.failures

    def column(self, metric: str) -> np.ndarray:
        """The metric on each fold (NaN where the method failed)."""
        return np.array([math.nan if v is None else v[metric] for v in self.values])


class Comparison:
    """Cross-validated metrics of several calibrators on one data set (see :func:`compare`).

    Attributes
    ----------
    methods : tuple of str
        The methods compared, in table order.
    metrics : tuple of str
        The metrics measured on each test fold.
    ranked : tuple of str
        The methods that ran on every fold, best mean log-loss rank first
        (ties: lower mean log loss first, then table order); only they are ranked.
    ranks : dict
        ``ranks[metric][method]``: the mean rank over the folds (1 is best) of each
        ranked method, for each metric that ranks.
    win_rates : dict
        ``win_rates[a][b]``: the fraction of folds where ``a``'s log loss is below
        ``b``'s (ties count half), for the ranked methods.
    recommendation : Recommendation
        The default rule's (see :meth:`recommend`).
    notes : tuple of str
        Warnings about the data as a whole, also raised by :func:`compare`
        (scores that rank the positive class below chance; K score columns
        that look out of the order of the classes).
    classes, score, folds, seed, problem, intervals
        As given to (or found by) :func:`compare`.
    """

    def __init__(self, *, problem, classes, score, folds, seed, y, sample_weight, results,
                 oof, metrics, intervals, notes=()):
        self.problem = problem
        self.notes = tuple(notes)
        self.classes = classes
        self.score = score
        self.folds = folds
        self.seed = seed
        self.n_samples = int(y.shape[0])
        self._y = y
        self._w = sample_weight
        self._results = results
        self._oof = oof
        self._metrics = metrics
        self.methods = tuple(results)
        self.metrics = tuple(m.name for m in metrics)
        done = {m: r for m, r in results.items() if r.complete}
        ll = {m: r.column("log_loss") for m, r in done.items()}
        self.ranks = {m.name: mean_ranks({k: r.column(m.name) for k, r in done.items()})
                      for m in metrics if m.ranked}
        position = {m: i for i, m in enumerate(results)}
        self.ranked = tuple(sorted(done, key=lambda m: (self.ranks["log_loss"][m],
                                                        np.nan_to_num(ll[m].mean(), nan=np.inf),
                                                        position[m])))
        self.win_rates = win_rates(ll)
        self.intervals = bool(intervals)
        self.recommendation: Recommendation = self.recommend()

    def recommend(self, *, rule: str = "default", intervals: bool | None = None) -> Recommendation:
        """The recommendation under a rule (``recommendation`` is the default rule's).

        Parameters
        ----------
        rule : {"default", "lowest-mean"}, default="default"
            ``"default"``: keep the problem's default calibrator (the first of
            ``venncal.comparison.DEFAULTS`` that ran on every fold)
            unless the method of lowest mean log loss beats it by more than
            ``SWITCH_SE`` (3) standard errors of their paired gap (below
            ``SMALL_ROWS`` rows the binary defaults are ``SMALL_DEFAULTS``, and
            the K-class ones below ``SMALL_ROWS_PER_PARAMETER`` rows per
            parameter of structured matrix scaling; the rule never moves to a
            method that forecast a probability of 0 or 1 out of fold, or whose
            fit did not converge on a fold);
            ``"lowest-mean"``: the method of lowest mean log loss (the rule
            before the calibration arena).
        intervals : bool, optional
            Whether the pick must give Venn-Abers intervals (default: as given
            to :func:`compare`).
        """
        if rule not in ("default", "lowest-mean"):
            raise ValueError(f"rule must be 'default' or 'lowest-mean'; got {rule!r}")
        inputs = self.rule_inputs()
        if rule != "default":
            inputs["problem"] = None
        rec = recommend(**inputs, intervals=self.intervals if intervals is None else
                        bool(intervals))
        return rec._replace(reason=rec.reason + self._score_kind_hint(rec.reason))

    def _score_kind_hint(self, reason: str) -> str:
        """Why a default was not compared, when the cause is the unstated score kind."""
        if self.score is not None:
            return ""
        from ._candidates import CANDIDATES

        need = [c.name for c in CANDIDATES if c.problem == self.problem
                and None not in c.scores and f"{c.name} was not compared" in reason]
        if not need:
            return ""
        return (f" ({', '.join(need)} read{'s' if len(need) == 1 else ''} the scores as "
                "probabilities or logits: say which with score='proba' or 'logit' in Python, "
                "--score-kind on the command line)")

    def rule_inputs(self) -> dict:
        """What the recommendation rule reads, as keyword arguments of
        :func:`venncal.comparison.recommend` (all but ``intervals``).

        For studying rules: ``recommend(**c.rule_inputs(), intervals=False)`` is
        ``c.recommend(intervals=False)``, and the calibration arena stores these
        inputs per task so that a rule can be replayed on its comparisons.

        Returns
        -------
        dict
            ``order`` (the ranked methods), ``ranks`` (mean log-loss ranks),
            ``losses`` (method -> log loss per fold), ``gives_intervals``,
            ``problem``, ``failed``, ``rows`` (of positive weight), ``certain``,
            ``classes`` and ``unsettled`` (see :func:`recommend`).
        """
        kept = slice(None) if self._w is None else self._w > 0  # rows of positive weight
        return dict(
            order=self.ranked, ranks=self.ranks["log_loss"],
            losses={m: self._results[m].column("log_loss") for m in self.ranked},
            gives_intervals={m: r.candidate.intervals for m, r in self._results.items()},
            problem=self.problem,
            failed=[m for m, r in self._results.items() if not r.complete],
            rows=int(self._y[kept].shape[0]),
            certain={m: bool(np.any(self._oof[m][kept] == 0.0)) for m in self.ranked},
            classes=int(self.classes.shape[0]),
            unsettled={m: any("did not converge" in w for w in self._results[m].warnings)
                       for m in self.ranked})

    def _count_rows_from(self, first_row: int) -> None:
        """Name the folds' failures at one row as a table counts its rows: row 0 is ``first_row``."""
        for result in self._results.values():
            result.count_rows_from(first_row)

    # ---------------------------------------------------------------------------- access

    def mean(self, method: str) -> dict[str, float]:
        """The metrics of ``method`` averaged over the folds where it ran (NaN if none)."""
        r = self._results[method]
        return {m: _nanmean(r.column(m)) for m in self.metrics}

    def fold_values(self, method: str) -> list[dict | None]:
        """The metrics of ``method`` on each fold (None where it failed)."""
        return [None if v is None else dict(v) for v in self._results[method].values]

    def failures(self, method: str) -> dict[int, str]:
        """``{fold: reason}`` of each fold where ``method`` failed."""
        return dict(self._results[method].failures)

    def times(self, method: str) -> dict[str, list[float]]:
        """Seconds to fit and to predict, per fold (NaN where it failed)."""
        r = self._results[method]
        return {"fit": list(r.fit_time), "predict": list(r.predict_time)}

    def warnings(self, method: str) -> list[str]:
        """The distinct warnings ``method`` raised (fits and metrics), in order."""
        return list(self._results[method].warnings)

    def predictions(self, method: str) -> np.ndarray:
        """The out-of-fold probabilities of ``method``: ``(n, 2)`` or ``(n, K)``; NaN where it failed."""
        return self._oof[method].copy()

    # --------------------------------------------------------------------------- outputs

    def to_dict(self) -> dict:
        """Everything as plain JSON-ready values (non-finite numbers as "inf", "nan").

        Keys: ``problem``, ``classes``, ``score``, ``n_samples``, ``folds``,
        ``seed``, ``metrics``, ``ranked``, ``methods`` (per method: ``mean``,
        ``mean_rank``, ``folds`` (values or None), ``fit_time``,
        ``predict_time``, ``failures``, ``warnings``, ``intervals``, ``about``),
        ``win_rates``, ``notes`` and ``recommendation`` (``method``, ``reason``,
        ``best``, ``within_noise``, ``default``).
        """
        methods = {}
        for m, r in self._results.items():
            methods[m] = {
                "about": r.candidate.about, "intervals": r.candidate.intervals,
                "mean": self.mean(m),
                "mean_rank": {k: v[m] for k, v in self.ranks.items() if m in v},
                "folds": self.fold_values(m), "fit_time": r.fit_time,
                "predict_time": r.predict_time, "failures": r.failures, "warnings": r.warnings,
            }
        rec = self.recommendation
        return strict_json({
            "problem": self.problem, "classes": self.classes.tolist(), "score": self.score,
            "n_samples": self.n_samples, "folds": self.folds, "seed": self.seed,
            "metrics": list(self.metrics), "ranked": list(self.ranked), "methods": methods,
            "win_rates": self.win_rates, "notes": list(self.notes),
            "recommendation": {"method": rec.method, "reason": rec.reason, "best": rec.best,
                               "within_noise": list(rec.within_noise), "default": rec.default},
        })

    def to_frame(self):
        """A pandas DataFrame, one row per method: mean metrics, mean ranks, median times, failures."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Comparison.to_frame needs pandas: pip install pandas") from None
        return pd.DataFrame(self._rows()).set_index("method")

    def _rows(self) -> list[dict]:
        rows = []
        for m, r in self._results.items():
            row = {"method": m, **self.mean(m)}
            row.update({f"rank_{k}": v.get(m, math.nan) for k, v in self.ranks.items()})
            row["fit_s"] = _nanmedian(np.array(r.fit_time))
            row["predict_s"] = _nanmedian(np.array(r.predict_time))
            row["failed_folds"] = len(r.failures)
            rows.append(row)
        return rows

    def to_text(self, *, digits: int = 4) -> str:
        """The table of methods, the win rates by log loss, the recommendation and the failures."""
        classes = ", ".join(repr(c) for c in self.classes.tolist())
        kind = "" if self.score is None else f"score {self.score}, "  # None: not given
        lines = [f"{self.n_samples:,} rows, classes {classes}, {kind}"
                 f"{self.folds} stratified folds (seed {self.seed})", ""]
        rows = self._rows()
        keys = [k for k in rows[0] if k != "method"]
        lines += _table(["method", *keys], [[r["method"], *(_cell(r[k], digits) for k in keys)]
                                            for r in rows])
        if len(self.ranked) > 1:
            lines += ["", "win rates by log loss (row beats column on this fraction of folds, "
                          "ties half):"]
            lines += _table(["", *self.ranked], [[a, *("-" if a == b else f"{self.win_rates[a][b]:.2f}"
                                                       for b in self.ranked)] for a in self.ranked])
        rec = self.recommendation
        lines += ["", f"recommendation: {rec.method or 'none'}: {rec.reason}"]
        for m, r in self._results.items():
            lines += [f"{m} failed on fold {f + 1}: {why}" for f, why in sorted(r.failures.items())]
            lines += [f"{m} warned: {w}" for w in r.warnings]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def plot(self, *, top: int = 3, ax=None, n_bins: int = 10):
        """Reliability diagrams of the out-of-fold predictions of the ``top`` methods.

        The recommended method first, then the others by mean log-loss rank;
        top-label diagrams for K classes.  Needs matplotlib.  Returns the axes.
        """
        from ..plotting import reliability_diagram, top_label_reliability_diagram

        rec = self.recommendation.method
        shown = ([rec] if rec else []) + [m for m in self.ranked if m != rec]
        if not shown:
            raise ValueError("no method ran on every fold: nothing to plot")
        curves = {m: self._oof[m] for m in shown[:top]}
        if self.problem == BINARY:
            return reliability_diagram(self._y.astype(bool), {m: p[:, 1] for m, p in curves.items()},
                                       ax=ax, n_bins=n_bins, sample_weight=self._w)
        return top_label_reliability_diagram(self._y, curves, ax=ax, n_bins=n_bins,
                                             classes=np.arange(len(self.classes)),
                                             sample_weight=self._w)


def _nanmean(values: np.ndarray) -> float:
    """The mean of the non-NaN values (NaN if there are none)."""
    ok = ~np.isnan(values)
    return float(values[ok].mean()) if ok.any() else math.nan


def _nanmedian(values: np.ndarray) -> float:
    """The median of the non-NaN values (NaN if there are none): times, robust to compilation."""
    ok = ~np.isnan(values)
    return float(np.median(values[ok])) if ok.any() else math.nan


def _cell(v, digits: int) -> str:
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float) and math.isnan(v):
        return "-"
    return f"{v:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(r[j])) for r in [header, *rows]) for j in range(len(header))]
    return ["  ".join(str(c).ljust(wd) if j == 0 else str(c).rjust(wd)
                      for j, (c, wd) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in [header, *rows]]
