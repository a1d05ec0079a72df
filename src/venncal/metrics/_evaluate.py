"""Every metric at once: :func:`evaluate` and the :class:`Evaluation` it returns."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping

import numpy as np
from numpy.typing import ArrayLike

from .._validation import validate_params
from ._binned import BINNING_CONSTRAINTS, _bins, _errors
from ._checks import _check_inputs
from ._discrimination import accuracy, roc_auc
from ._interval import interval_width
from ._losses import brier_loss, log_loss, rmse

__all__ = ["Evaluation", "evaluate"]


def _json_number(v: float) -> float | str:
    return v if math.isfinite(v) else str(v)  # "inf", "-inf" or "nan"


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
    """

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, float]):
        self._values = {str(k): float(v) for k, v in values.items()}

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
        """Return an aligned two-column table: metric names and values.

        Parameters
        ----------
        digits : int, default=4
            Digits after the decimal point.

        Examples
        --------
        >>> from venncal.metrics import Evaluation
        >>> print(Evaluation({"log_loss": float("inf"), "brier": 0.25}).to_text())
        metric     value
        log_loss     inf
        brier     0.2500
        """
        cells = [(k, f"{v:.{digits}f}") for k, v in self._values.items()]
        left = max(len("metric"), *(len(k) for k, _ in cells))
        right = max(len("value"), *(len(s) for _, s in cells))
        rows = [("metric", "value"), *cells]
        return "\n".join(f"{k:<{left}}  {s:>{right}}" for k, s in rows)

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
        data = {k: _json_number(v) for k, v in self._values.items()}
        return json.dumps(data, indent=indent, allow_nan=False)


def evaluate(
    y: ArrayLike,
    p: ArrayLike,
    *,
    interval: ArrayLike | None = None,
    n_bins: int = 10,
    strategy: str = "uniform",
    base: float | str = 2,
    brier_scale: float = 1,
    pos_label=None,
    sample_weight: ArrayLike | None = None,
) -> Evaluation:
    """Compute every metric of this module at once.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels 0 and 1, or booleans (or any two labels with ``pos_label``).
    p : array-like of shape (n_samples,)
        Predicted probabilities of the positive class, in [0, 1].
    interval : array-like of shape (n_samples, 2), default=None
        Venn-Abers pairs, columns ``p0`` and ``p1``; adds "interval_width"
        (see :func:`interval_width`).
    n_bins : int, default=10
        Bins for "ece" and "mce".
    strategy : {"uniform", "quantile"}, default="uniform"
        Binning for "ece" and "mce" (see :func:`ece`).
    base : {2, 10, e}, default=2
        Base of the logarithm in "log_loss".
    brier_scale : float, default=1
        Factor of the Brier loss (4 in paper 000).
    pos_label : label, default=None
        The positive class, for labels other than 0/1 and booleans.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights, used by every metric.

    Returns
    -------
    Evaluation
        Keys, in order: "log_loss", "brier", "rmse", "ece", "mce", "auc",
        "accuracy" and, with ``interval``, "interval_width".  "auc" is NaN
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
    metric           value
    log_loss        0.7121
    brier           0.1660
    rmse            0.4075
    ece             0.0309
    mce             0.0657
    auc             0.8339
    accuracy        0.7500
    interval_width  0.1000
    >>> import json
    >>> json.loads(ev.to_json())["accuracy"]
    0.75
    """
    y01, p, w = _check_inputs(y, p, pos_label, sample_weight)
    validate_params("evaluate", {"n_bins": n_bins, "strategy": strategy}, BINNING_CONSTRAINTS)
    iv = None if interval is None else _check_interval(interval, p.shape[0])
    kw = {"sample_weight": w}
    # One binning for both errors: the internal that ece and mce call too.
    ece, mce = _errors(_bins(y01, p, w, n_bins, strategy))
    values = {
        "log_loss": log_loss(y01, p, base=base, **kw),
        "brier": brier_loss(y01, p, scale=brier_scale, **kw),
        "rmse": rmse(y01, p, **kw),
        "ece": ece,
        "mce": mce,
        "auc": _auc_or_nan(y01, p, w),
        "accuracy": accuracy(y01, p, **kw),
    }
    if iv is not None:
        values["interval_width"] = interval_width(iv[:, 0], iv[:, 1], **kw)
    return Evaluation(values)


def _auc_or_nan(y01, p, w) -> float:
    try:
        return roc_auc(y01, p, sample_weight=w)
    except ValueError:  # a single class: no ROC curve
        return math.nan


def _check_interval(interval, n: int) -> np.ndarray:
    iv = np.asarray(interval)
    if iv.ndim != 2 or iv.shape[1] != 2 or iv.shape[0] != n:
        raise ValueError(f"interval must have shape (n_samples, 2) = ({n}, 2); got {iv.shape}")
    return iv
