"""Every metric at once (:func:`evaluate`, its :class:`Evaluation`), and several side by side."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike

from .._json import strict_json
from .._validation import NONE, Interval, Options, check_probabilities, validate_params
from ._binned import (
    BINNING_CONSTRAINTS,
    MIN_BIN_COUNT_CONSTRAINTS,
    CalibrationBins,
    _bins,
    _errors,
)
from ._bootstrap import _binary_intervals, _multiclass_intervals
from ._checks import _check_inputs, _mean
from ._diagnostics import diagnostic_values
from ._docstrings import fill
from ._discrimination import _accuracy, _auc, _class_weights
from ._losses import (
    BRIER_SCALE_CONSTRAINTS,
    LOG_BASE_CONSTRAINTS,
    _log_loss,
    _log_of_base,
    _mean_nll,
    _mean_square,
    _root,
    _scaled_by,
    log_loss_unit,
)
from ._multiclass import (
    _classwise_bins,
    _classwise_ece,
    _mean_squared_errors,
    _named_inputs,
    _log_losses,
    _top_label,
)
from ._smooth import _smooth_ece

__all__ = [
    "Evaluation",
    "evaluate",
    "evaluate_multiclass",
    "evaluations_json",
    "evaluations_table",
]


_EXTRA_CONSTRAINTS = {
    "diagnostics": [Options((True, False))],
    "bootstrap": [Interval("int", 0, None)],
    "confidence": [Interval("real", 0, 1, "neither")],
    "seed": [NONE, Interval("int", 0, None)],
}
#: The diagnostics a bootstrap interval is given for, besides the losses and ECEs.
_STATISTICS = ("spiegelhalter_z", "calibration_slope", "calibration_intercept", "ks", "kuiper",
               "smooth_ece")


def _extra_params(owner: str, diagnostics, bootstrap, confidence, seed) -> None:
    params = {"diagnostics": diagnostics, "bootstrap": bootstrap, "confidence": confidence,
              "seed": seed}
    validate_params(owner, params, _EXTRA_CONSTRAINTS)


def _add_intervals(values: dict, units: dict, intervals: dict, base) -> None:
    """Add ``<metric>_low`` and ``<metric>_high`` (the log loss converted to ``base``)."""
    for name, (low, high) in intervals.items():
        if name == "log_loss":
            low, high = low / _log_of_base(base), high / _log_of_base(base)
            units["log_loss_low"] = units["log_loss_high"] = units["log_loss"]
        values[f"{name}_low"], values[f"{name}_high"] = low, high


def _json_object(ev: Mapping[str, float]) -> dict[str, float | str]:
    return {k: strict_json(float(v)) for k, v in ev.items()}  # "inf", "-inf" or "nan"


class Evaluation(Mapping):
    """Read-only, ordered mapping from metric name to value, as returned by :func:`evaluate`.

    Examples
    --------
    >>> from venncal.metrics import evaluate
    >>> ev = evaluate([0, 1, 1, 0], [0.0, 0.8, 0.6, 0.3])
    >>> ev["accuracy"]
    1.0
    >>> list(ev)
    ['log_loss', 'brier', 'rmse', 'ece', 'mce', 'auc', 'accuracy']
    >>> ev.units
    {'log_loss': 'nats'}
    >>> ev.bins.weight  # the bins behind "ece" and "mce"
    array([1., 0., 0., 1., 0., 0., 1., 0., 1., 0.])
    """

    __slots__ = ("_bins", "_notes", "_units", "_values")

    def __init__(
        self,
        values: Mapping[str, float],
        *,
        units: Mapping[str, str] | None = None,
        bins: CalibrationBins | None = None,
        notes: Sequence[str] = (),
    ):
        self._values = {str(k): float(v) for k, v in values.items()}
        self._units = {str(k): str(u) for k, u in (units or {}).items()}
        self._bins = bins
        self._notes = tuple(str(n) for n in notes)

    @property
    def notes(self) -> tuple[str, ...]:
        """What explains a value, e.g. why "log_loss" is infinite (printed under :meth:`to_text`)."""
        return self._notes

    @property
    def bins(self) -> CalibrationBins | None:
        """The bins of "ece" and "mce", or of "top_label_ece" and "top_label_mce"; or None."""
        return self._bins

    @property
    def units(self) -> dict[str, str]:
        """The metrics' units, e.g. ``{"log_loss": "nats"}`` (labels of :meth:`to_text`)."""
        return dict(self._units)

    def __getitem__(self, key: str) -> float:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"Evaluation({self._values!r})"

    def to_dict(self) -> dict[str, float]:
        """Return the metrics as a new plain ``dict`` (same order).

        Examples
        --------
        >>> from venncal.metrics import Evaluation
        >>> Evaluation({"brier": 0.25}).to_dict()
        {'brier': 0.25}
        """
        return dict(self._values)

    def to_text(self, *, digits: int = 4) -> str:
        """Return an aligned two-column table: metric names (with their units) and values.

        Parameters
        ----------
        digits : int, default=4
            Digits after the decimal point.

        Examples
        --------
        >>> from venncal.metrics import Evaluation
        >>> ev = Evaluation({"log_loss": float("inf"), "brier": 0.25}, units={"log_loss": "bits"})
        >>> print(ev.to_text())
        metric            value
        log_loss (bits)     inf
        brier            0.2500
        """
        return evaluations_table({"value": self}, digits=digits)

    def to_json(self, *, indent: int | None = None) -> str:
        """Return a JSON object keyed by metric name.

        JSON has no infinity or NaN, so non-finite values are written as the
        strings ``"inf"``, ``"-inf"`` and ``"nan"``; ``float()`` reads them
        back.  Finite values are JSON numbers.

        Examples
        --------
        >>> from venncal.metrics import Evaluation
        >>> Evaluation({"log_loss": float("inf"), "brier": 0.25}).to_json()
        '{"log_loss": "inf", "brier": 0.25}'
        """
        return json.dumps(_json_object(self._values), indent=indent, allow_nan=False)


def _check_evaluations(evaluations: Mapping[str, Mapping[str, float]]) -> None:
    if not evaluations:
        raise ValueError("no evaluations to show")


def evaluations_table(evaluations: Mapping[str, Mapping[str, float]], *, digits: int = 4) -> str:
    """Return an aligned table of several evaluations: a row per metric, a column per evaluation.

    The rows are the metrics of all the evaluations, in order of first
    appearance (a metric that one evaluation lacks is shown as ``-``); a
    metric with a unit (see :attr:`Evaluation.units`) is labelled with it.

    Parameters
    ----------
    evaluations : dict of str to Evaluation
        Column name -> metrics (any mapping of metric name to number).
    digits : int, default=4
        Digits after the decimal point.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``evaluations`` is empty, or two of them give one metric different units.

    Examples
    --------
    >>> from venncal.metrics import evaluate, evaluations_table
    >>> y = [0, 0, 1, 1]
    >>> print(evaluations_table({"raw": evaluate(y, [0.1, 0.6, 0.4, 0.9]),
    ...                          "calibrated": evaluate(y, [0.2, 0.5, 0.5, 0.8])}))
    metric              raw  calibrated
    log_loss (nats)  0.5108      0.4581
    brier            0.1850      0.1450
    rmse             0.4301      0.3808
    ece              0.3500      0.1000
    mce              0.6000      0.2000
    auc              0.7500      0.8750
    accuracy         0.5000      0.7500
    """
    _check_evaluations(evaluations)
    units: dict[str, str] = {}
    for name, ev in evaluations.items():
        for metric, unit in getattr(ev, "units", {}).items():
            if units.setdefault(metric, unit) != unit:
                raise ValueError(
                    f"{metric!r} is in {units[metric]} in one evaluation and in {unit} in "
                    f"{name!r}: compare evaluations in one unit"
                )
    metrics = list(dict.fromkeys(m for ev in evaluations.values() for m in ev))
    header = ["metric", *map(str, evaluations)]
    rows = [header] + [
        [
            f"{m} ({units[m]})" if m in units else m,
            *(_cell(ev[m], digits) if m in ev else "-" for ev in evaluations.values()),
        ]
        for m in metrics
    ]
    widths = [max(len(row[j]) for row in rows) for j in range(len(header))]
    return "\n".join(
        "  ".join(
            cell.ljust(width) if j == 0 else cell.rjust(width)
            for j, (cell, width) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in rows
    ) + "".join(
        f"\nnote: {note}" if len(evaluations) == 1 else f"\nnote ({name}): {note}"
        for name, ev in evaluations.items() for note in getattr(ev, "notes", ())
    )


def _cell(value: float, digits: int) -> str:
    """A table cell: fixed point, or exponent notation from 1e10 on (a statistic that grows
    with the total weight reaches 1e154 with weights near 1e308)."""
    return f"{value:.{digits}e}" if abs(value) >= 1e10 else f"{value:.{digits}f}"


def evaluations_json(
    evaluations: Mapping[str, Mapping[str, float]], *, indent: int | None = None
) -> str:
    """Return a JSON object keyed by evaluation name, each an object keyed by metric name.

    Non-finite values are the strings ``"inf"``, ``"-inf"`` and ``"nan"``, as
    in :meth:`Evaluation.to_json`.

    Parameters
    ----------
    evaluations : dict of str to Evaluation
        Name -> metrics (any mapping of metric name to number).
    indent : int, default=None
        As for :func:`json.dumps`.

    Returns
    -------
    str

    Examples
    --------
    >>> from venncal.metrics import Evaluation, evaluations_json
    >>> a, b = Evaluation({"brier": 0.25}), Evaluation({"brier": float("inf")})
    >>> evaluations_json({"a": a, "b": b})
    '{"a": {"brier": 0.25}, "b": {"brier": "inf"}}'
    """
    _check_evaluations(evaluations)
    data = {str(name): _json_object(ev) for name, ev in evaluations.items()}
    return json.dumps(data, indent=indent, allow_nan=False)


@fill
def evaluate(
    y: ArrayLike, p: ArrayLike, *, interval: ArrayLike | None = None, n_bins: int = 10,
    strategy: str = "uniform", min_bin_count: float | None = None, base: float | str = "e",
    brier_scale: float = 1, pos_label=None, sample_weight: ArrayLike | None = None,
    diagnostics: bool = False, bootstrap: int = 0, confidence: float = 0.95, seed: int | None = 0,
) -> Evaluation:
    """Compute every binary metric at once (for ``K`` columns, :func:`evaluate_multiclass`).

    Parameters
    ----------
    {y_p}
    interval : array-like of shape (n_samples, 2), default=None
        Venn-Abers pairs, columns ``p0`` and ``p1``; adds "interval_width"
        (see :func:`interval_width`).
    n_bins : int, default=10
        Bins for "ece" and "mce".
    strategy : {"uniform", "quantile"}, default="uniform"
        Binning for "ece" and "mce" (see :func:`ece`).
    min_bin_count : float >= 0, default=None
        "mce" leaves out the bins holding fewer rows (see :func:`mce`).
    base : {2, 10, e}, default="e"
        Base of the logarithm in "log_loss" (nats by default, as scikit-learn);
        the result's :attr:`Evaluation.units` names the unit.
    brier_scale : float, default=1
        Factor of the Brier loss (4 in Vovk, Petej & Fedorova 2015).
    {pos_label}
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights, used by every metric.
    diagnostics : bool, default=False
        Add the diagnostics beyond the ECE: "spiegelhalter_z" and
        "spiegelhalter_p" (:func:`spiegelhalter_test`), "calibration_slope"
        and "calibration_intercept" (:func:`calibration_slope_intercept`,
        unclipped), "ks", "ks_p", "kuiper", "kuiper_p" (the statistics and
        p-values of :func:`ks_calibration_test` and
        :func:`kuiper_calibration_test`) and "smooth_ece"
        (:func:`smooth_ece`).  Each is NaN where its function raises (all
        ``p`` in {0, 1/2, 1}; ``p`` of 0 or 1, one class, constant or
        separating ``p`` for the slope and intercept).
    bootstrap : int >= 0, default=0
        With ``n > 0`` replicates, add ``<metric>_low`` and ``<metric>_high``,
        the percentile interval of :func:`bootstrap_intervals`, for
        "log_loss" (in ``base``), "brier" (times ``brier_scale``), "ece"
        and, with ``diagnostics``, the six statistics above.
    confidence : float in (0, 1), default=0.95
        Coverage of the bootstrap intervals.
    seed : int >= 0 or None, default=0
        Seed of the bootstrap.

    Returns
    -------
    Evaluation
        Keys, in order: "log_loss", "brier", "rmse", "ece", "mce", "auc",
        "accuracy" and, with ``interval``, "interval_width", then the
        diagnostics and the intervals asked for; its
        :attr:`Evaluation.bins` are the bins of "ece" and "mce".  "auc" is NaN
        when ``y`` holds a single class (where :func:`roc_auc` raises).

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.metrics import evaluate
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(1000)
    >>> y = rng.random(1000) < p
    >>> ev = evaluate(y, p, interval=np.c_[0.9 * p, 0.9 * p + 0.1])
    >>> print(ev.to_text())
    metric            value
    log_loss (nats)  0.4936
    brier            0.1660
    rmse             0.4075
    ece              0.0309
    mce              0.0657
    auc              0.8339
    accuracy         0.7500
    interval_width   0.1000
    >>> import json
    >>> json.loads(ev.to_json())["accuracy"]
    0.75
    """
    if np.ndim(p) == 2 and np.shape(p)[1] > 2:
        raise ValueError(
            f"evaluate scores the probabilities of one class (p of shape (n_samples,)); got "
            f"shape {np.shape(p)}: for one column per class use evaluate_multiclass(y, proba)"
        )
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    validate_params("evaluate", {"n_bins": n_bins, "strategy": strategy}, BINNING_CONSTRAINTS)
    validate_params("evaluate", {"min_bin_count": min_bin_count}, MIN_BIN_COUNT_CONSTRAINTS)
    validate_params("evaluate", {"base": base}, LOG_BASE_CONSTRAINTS)
    validate_params(
        "evaluate", {"brier_scale": brier_scale}, {"brier_scale": BRIER_SCALE_CONSTRAINTS["scale"]}
    )
    _extra_params("evaluate", diagnostics, bootstrap, confidence, seed)
    iv = None if interval is None else _check_interval(interval, p.shape[0])
    # Validated once above; each metric below is the core its public function calls.
    bins = _bins(y01, p, w, n_bins, strategy)
    ece, mce = _errors(bins, min_bin_count)
    squared = _mean_square(y01 - p, w)
    values = {
        "log_loss": _log_loss(y01, p, w, base),
        "brier": _scaled_by(squared, brier_scale),
        "rmse": _root(squared),
        "ece": ece,
        "mce": mce,
        "auc": _auc_or_nan(y01, p, w),
        "accuracy": _accuracy(y01, p, w),
    }
    if iv is not None:
        values["interval_width"] = _mean(iv[:, 1] - iv[:, 0], w)
    units = {"log_loss": log_loss_unit(base)}
    undefined: list[str] = []
    if diagnostics:
        values.update(diagnostic_values("", y01, p, w, notes=undefined))
    if bootstrap:
        names = ("log_loss", "brier", "ece", *(_STATISTICS if diagnostics else ()))
        ci = _binary_intervals(y01, p, w, names, bootstrap, confidence, seed, n_bins, strategy)
        ci["brier"] = tuple(brier_scale * v for v in ci["brier"])
        _add_intervals(values, units, ci, base)
    impossible = (p == (1 - y01)) & (True if w is None else w > 0)  # 0 for the class observed
    return Evaluation(values, units=units, bins=bins, notes=_infinite_log_loss(
        values["log_loss"], impossible, [("p = 1", "a negative label"), ("p = 0", "a positive label")],
        y01) + undefined)


def _infinite_log_loss(value: float, impossible, kinds, group) -> list[str]:
    """The note saying why the log loss is infinite: the rows forecast 0 for their class."""
    if not (value == math.inf and impossible.any()):
        return []
    counts = np.bincount(np.asarray(group, dtype=np.intp)[impossible], minlength=len(kinds))
    parts = [f"{c:,} with {forecast} and {label}" for c, (forecast, label) in zip(counts, kinds)
             if c]
    total = int(counts.sum())
    rows = f"{total:,} rows forecast" if total != 1 else "1 row forecasts"
    return [f"log_loss is infinite: {rows} probability 0 for the class observed ({'; '.join(parts)})"]


def _auc_or_nan(y01, p, w) -> float:
    try:
        return _auc(*_class_weights(y01, p, w))
    except ValueError:  # a single class: no ROC curve
        return math.nan


def _check_interval(interval, n: int) -> np.ndarray:
    """Return the ``(n, 2)`` float64 pairs; each column is checked as probabilities."""
    iv = np.asarray(interval)
    if iv.ndim != 2 or iv.shape[1] != 2 or iv.shape[0] != n:
        raise ValueError(f"interval must have shape (n_samples, 2) = ({n}, 2); got {iv.shape}")
    columns = [check_probabilities(iv[:, j], name=name) for j, name in enumerate(("p0", "p1"))]
    return np.column_stack(columns)


@fill
def evaluate_multiclass(
    y: ArrayLike, proba: ArrayLike, *, n_bins: int = 10, strategy: str = "uniform",
    min_bin_count: float | None = None, base: float | str = "e", brier_scale: float = 1,
    classes: ArrayLike | None = None, sample_weight: ArrayLike | None = None,
    diagnostics: bool = False, bootstrap: int = 0, confidence: float = 0.95, seed: int | None = 0,
) -> Evaluation:
    """Compute every multiclass metric at once, for probabilities of ``K >= 2`` classes.

    The counterpart of :func:`evaluate` for ``(n, K)`` probabilities (the
    output of ``predict_proba``); the inputs are checked once.  For ``K = 2``
    it scores the two columns as two classes: its "brier" is twice
    :func:`evaluate`'s (see :func:`multiclass_brier_loss`) and its ECEs are
    of the confidence and of both classes, not of ``proba[:, 1]``.

    Parameters
    ----------
    {y_proba}
    n_bins : int, default=10
        Bins for "top_label_ece", "top_label_mce" and "classwise_ece".
    strategy : {"uniform", "quantile"}, default="uniform"
        Their binning (see :func:`ece`).
    min_bin_count : float >= 0, default=None
        "top_label_mce" leaves out the bins of less weight (see :func:`mce`).
    base : {2, 10, e}, default="e"
        Base of the logarithm in "log_loss"; :attr:`Evaluation.units` names the unit.
    brier_scale : float, default=1
        Factor of "brier" (:func:`multiclass_brier_loss`'s ``scale``).
    {classes_weights}
    diagnostics : bool, default=False
        Add the top-label forms of the diagnostics, each the binary one of
        the confidence ``max_k p_k`` against "the predicted class is the
        true one" (as the top-label ECE): "top_label_spiegelhalter_z",
        "top_label_spiegelhalter_p", "top_label_ks", "top_label_ks_p",
        "top_label_kuiper", "top_label_kuiper_p", "top_label_smooth_ece";
        and the class-wise "classwise_smooth_ece", the unweighted mean over
        classes of the binary :func:`smooth_ece` of class ``k`` against the
        rest (as "classwise_ece").  NaN where the binary function raises.
        No calibration slope: the logit of a confidence is not the model's
        score of one class.
    bootstrap : int >= 0, default=0
        With ``n > 0`` replicates, add ``<metric>_low`` and ``<metric>_high``
        (:func:`bootstrap_intervals_multiclass`) for "log_loss", "brier",
        "top_label_ece", "classwise_ece" and, with ``diagnostics``,
        "top_label_spiegelhalter_z", "top_label_ks", "top_label_kuiper" and
        "top_label_smooth_ece".
    confidence : float in (0, 1), default=0.95
        Coverage of the bootstrap intervals.
    seed : int >= 0 or None, default=0
        Seed of the bootstrap.

    Returns
    -------
    Evaluation
        Keys, in order: "log_loss" (:func:`multiclass_log_loss`), "brier"
        (:func:`multiclass_brier_loss`), "top_label_ece", "top_label_mce",
        "classwise_ece" and "accuracy" (the weighted fraction of rows whose
        first most probable class is the true one), then the diagnostics
        and intervals asked for; :attr:`Evaluation.bins`
        are the top-label bins (:func:`top_label_calibration_bins`).

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.metrics import evaluate_multiclass
    >>> rng = np.random.default_rng(0)
    >>> proba = rng.dirichlet([1.0, 1.0, 1.0], size=1000)
    >>> y = np.array([rng.choice(["a", "b", "c"], p=row) for row in proba])
    >>> print(evaluate_multiclass(y, proba).to_text())
    metric            value
    log_loss (nats)  0.8163
    brier            0.4878
    top_label_ece    0.0194
    top_label_mce    0.0979
    classwise_ece    0.0307
    accuracy         0.6220
    """
    names, idx, proba, w = _named_inputs(
        "evaluate_multiclass", y, proba, classes, sample_weight, n_bins=n_bins,
        strategy=strategy, min_bin_count=min_bin_count, base=base, brier_scale=brier_scale,
    )
    _extra_params("evaluate_multiclass", diagnostics, bootstrap, confidence, seed)
    correct, top = _top_label(idx, proba)
    bins = _bins(correct, top, w, n_bins, strategy)
    top_ece, top_mce = _errors(bins, min_bin_count)
    values = {
        "log_loss": _mean_nll(_log_losses(idx, proba), w, base),
        "brier": _scaled_by(_mean_squared_errors(idx, proba, w), brier_scale),
        "top_label_ece": top_ece,
        "top_label_mce": top_mce,
        "classwise_ece": _classwise_ece(_classwise_bins(idx, proba, w, n_bins, strategy)),
        "accuracy": _mean(correct, w),
    }
    units = {"log_loss": log_loss_unit(base)}
    undefined: list[str] = []
    if diagnostics:
        values.update(diagnostic_values("top_label_", correct, top, w, line=False,
                                        notes=undefined))
        values["classwise_smooth_ece"] = math.fsum(
            _smooth_ece(idx == k, np.ascontiguousarray(proba[:, k]), w)
            for k in range(proba.shape[1])
        ) / proba.shape[1]
    if bootstrap:
        names = ("log_loss", "brier", "top_label_ece", "classwise_ece")
        if diagnostics:
            names += tuple(f"top_label_{m}" for m in ("spiegelhalter_z", "ks", "kuiper",
                                                        "smooth_ece"))
        ci = _multiclass_intervals(idx, proba, w, names, bootstrap, confidence, seed, n_bins,
                                   strategy)
        ci["brier"] = tuple(brier_scale * v for v in ci["brier"])
        _add_intervals(values, units, ci, base)
    impossible = (proba[np.arange(idx.shape[0]), idx] == 0) & (True if w is None else w > 0)
    return Evaluation(values, units=units, bins=bins, notes=_infinite_log_loss(
        values["log_loss"], impossible, [("probability 0", f"label {c!r}") for c in np.asarray(names).tolist()],
        idx) + undefined)
