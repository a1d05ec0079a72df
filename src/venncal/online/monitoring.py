"""Monitor a recorded stream of forecasts with the Jumper: the numbers ``venncal monitor`` prints.

A stream is the forecasts ``p`` of the positive class and the labels that
then arrived (``y01``, True for the positive class), in order.
:func:`monitor` runs a Jumper test martingale and predictor (Vovk, Petej &
Gammerman 2021) over it block by block (continuation is exact) and returns
its trajectory, the protected forecasts and a summary: the final and
largest ``log10 S``, the first step with ``S >= 1/alpha`` (the alarm), the
change points (CUSUM by default, :mod:`venncal.online.changepoint`), and the
base against the protected decimal log loss (summed), Brier loss and AUC.
:func:`summary_text` and :func:`json_ready` print it.

The default family, ``"shift+confidence"`` (``quadratic() + cubic() + cox()``,
21 functions), bets on shifts of the probabilities (the quadratic family) and
on over- and underconfidence (cubic about ``b`` in {0.25, 0.5, 0.75}, Cox's
sharpening and softening of the log-odds): the quadratic family alone cannot
see a model that is too confident.  The change points forget: CUSUM restarts
after each alarm and sees a change that comes after a long calibrated stretch,
where ``S`` has sunk far below 1.

Examples
--------
>>> import numpy as np
>>> from venncal.online.monitoring import monitor, summary_text
>>> rng = np.random.default_rng(0)
>>> p = rng.uniform(0.2, 0.8, 2000)
>>> y01 = rng.random(2000) < np.clip(p + 0.15, 0, 1)   # the forecasts are too low
>>> result = monitor(p, y01, positive="yes")
>>> result.summary["alarm"] is not None, result.summary["family"]
(True, 'shift+confidence')
>>> result.summary["changes"]["procedure"], result.summary["changes"]["alarms"][:1]
('cusum', [92])
>>> print(summary_text(result.summary).splitlines()[0])
rows: 2,000 (positive class 'yes')
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._json import strict_json
from ..tables import Param, ParameterError

__all__ = [
    "BATCH_ROWS", "CHANGES", "DEFAULT_FAMILY", "Monitored", "check_forecasts", "json_ready",
    "monitor", "monitor_scores_only", "plot", "summary_text",
]

#: Steps fed to the Jumper at a time (continuation is exact).
BATCH_ROWS = 65_536
#: The family of :func:`monitor` and ``venncal monitor`` when none is named.
DEFAULT_FAMILY = "shift+confidence"
#: The change-point procedures of :func:`monitor` (None: no change points).
CHANGES = ("cusum", "shiryaev-roberts", "ville")


class Monitored(NamedTuple):
    """What :func:`monitor` returns: per-step ``log10 S`` and protected ``p'``, and the summary."""

    log10_martingale: np.ndarray
    protected_proba: np.ndarray
    summary: dict


def check_forecasts(p: np.ndarray, y01: np.ndarray, source: str) -> None:
    """Refuse a forecast that gave probability 0 to the label that arrived (infinite log loss)."""
    bad = np.flatnonzero(np.where(y01, p == 0.0, p == 1.0))
    if bad.size:
        raise ParameterError(
            f"{source}: row {bad[0] + 1:,}: forecast {p[bad[0]]:g} gave probability 0 to the "
            "label that arrived (infinite log loss); keep forecasts away from 0 and 1 with ",
            Param("clip"), ", e.g. ", Param("clip", "0.1"),
        )


def _scores(y01: np.ndarray, p: np.ndarray, log10_loss: float | None = None) -> dict:
    """The summary's scores of forecasts ``p``; ``log10_loss`` when given (else computed)."""
    from ..metrics import brier_loss, roc_auc

    both = 0 < int(y01.sum()) < y01.shape[0]
    if log10_loss is None:
        log10_loss = float(-np.sum(np.log10(np.where(y01, p, 1.0 - p))))
    return {
        "log10_loss": log10_loss,
        "brier": brier_loss(y01, p),
        "auc": roc_auc(y01, p) if both else None,
    }


def monitor(p, y01, family: str = DEFAULT_FAMILY, *, jump_rate: float = 0.01, mean: bool = False,
            alpha: float = 0.01, clip: float | None = None, positive=True,
            changes: str | None = "cusum", threshold: float | None = None,
            progress=None) -> Monitored:
    """Run the Jumper (or, with ``mean``, the Mean Jumper) over a stream of forecasts.

    Parameters
    ----------
    p : ndarray of shape (n,)
        The forecasts of the positive class (already clipped when ``clip`` is given).
    y01 : ndarray of bool of shape (n,)
        True where the label that arrived is the positive class.
    family : str, default="shift+confidence"
        A calibrating family of :func:`venncal.online.families.named` (names
        joined by ``+`` for their union).
    jump_rate : float, default=0.01
        The jumping rate (ignored with ``mean``).
    mean : bool, default=False
        The Mean Jumper over its rates instead of one rate.
    alpha : float, default=0.01
        The alarm: the first step with ``S >= 1/alpha``.
    clip : float, default=None
        The clipping that was applied, for the summary.
    positive : label, default=True
        The positive class, for the summary.
    changes : {"cusum", "shiryaev-roberts", "ville"} or None, default="cusum"
        The change-point procedure run over the martingale's betting factors
        (:func:`venncal.online.detect_changes`, restarted after each alarm);
        None for none.
    threshold : float, default=None
        Its alarm level; by default ``1/alpha``.  The average run length to
        a false alarm is at least ``threshold`` (measured on 200,000
        calibrated steps at 100: CUSUM 2 false alarms, Shiryaev-Roberts one
        every 105 steps, so give Shiryaev-Roberts the run length you accept).
    progress : object with ``update(count, fraction)``, default=None

    Returns
    -------
    Monitored
        The summary's ``"changes"`` holds the procedure, threshold and alarm
        steps (None without a procedure).
    """
    from . import JumperPredictor, MeanJumper
    from .families import named

    fam = named(family)
    model = (MeanJumper(fam, classes=[False, True]) if mean
             else JumperPredictor(fam, jump_rate, classes=[False, True]))
    n = p.shape[0]
    log10, proba, factors = np.empty(n), np.empty(n), np.empty(n)
    for a in range(0, n, BATCH_ROWS):
        b = min(n, a + BATCH_ROWS)
        res = model.run(p[a:b], y01[a:b])
        log10[a:b], proba[a:b] = res.log10_martingale, res.protected_proba
        factors[a:b] = res.log10_factors  # each step's own factor, from the kernel
        if progress is not None:
            progress.update(b, b / n)
    found = _changes(factors, changes, alpha, threshold)
    final = float(log10[-1])
    # The Jumper's identity: the protected forecasts' log loss is the base's minus log10 S
    # (exact where -log10 p' is not: p' can be subnormal, or 1 - p' round to 0, so it is
    # never evaluated).  S = 0 (log10 S = -inf) only with a family that gave the label
    # probability 0: then the protected loss is infinite.
    base = _scores(y01, p)
    protected = _scores(y01, proba, log10_loss=base["log10_loss"] - final)
    summary = {
        "rows": int(n),
        "positive_label": positive,
        "family": family,
        "jump_rates": list(model.jump_rates) if mean else [jump_rate],
        "clip": None if clip is None else [clip, 1.0 - clip],
        "final_log10_S": final,
        "max_log10_S": float(log10.max()),
        "alpha": alpha,
        "alarm": model.alarm(alpha),
        "changes": found,
        "base": base,
        "protected": protected,
    }
    return Monitored(log10, proba, summary)


def _changes(factors: np.ndarray, changes: str | None, alpha: float,
             threshold: float | None) -> dict | None:
    """The change points of ``detect_changes`` over log10 betting factors, as a summary entry."""
    if changes is None:
        return None
    from .changepoint import detect_changes

    found = detect_changes(factors, procedure=changes,
                           threshold=1.0 / alpha if threshold is None else threshold)
    return {"procedure": found.procedure, "threshold": found.threshold,
            "alarms": found.alarms.tolist()}


def monitor_scores_only(scores, *, nonconformity: str = "high", betting: str = "composite",
                        jump_rate: float = 0.01, alpha: float = 0.01, seed: int = 0,
                        changes: str | None = "cusum", threshold: float | None = None,
                        row_base: int | None = None):
    """Monitor a stream of scores without labels; return ``(result, summary)``.

    A conformal test martingale (:func:`venncal.online.conformal.monitor_scores`)
    over the scores, and the change points of ``changes`` over its betting
    factors (as :func:`monitor`).  ``summary_text`` prints the summary.  A
    score the martingale cannot take is named by its index, or by its row
    counted from ``row_base`` when given (1 for a table read by the command line).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> res, s = monitor_scores_only(np.r_[rng.random(2000), rng.random(1000) + 0.3])
    >>> s["alarm"] > 2000, min(s["changes"]["alarms"]) > 2000
    (True, True)
    """
    from .conformal import monitor_scores

    res, summary = monitor_scores(scores, betting=betting, jump_rate=jump_rate,
                                  nonconformity=nonconformity, alpha=alpha, seed=seed,
                                  row_base=row_base)
    summary["changes"] = _changes(res.log10_factors, changes, alpha, threshold)
    return res, summary


def json_ready(value):
    """Return ``value`` with non-finite floats as None (``null``): JSON has no infinity."""
    return strict_json(value, nonfinite="null")


def summary_text(s: dict) -> str:
    """Return the summary of :func:`monitor` (or :func:`monitor_scores_only`) as ``venncal monitor`` prints it."""
    if "betting" in s:  # scores only
        from .conformal import summary_lines

        return "\n".join([*summary_lines(s), *_changes_lines(s.get("changes"))])

    def fmt(v):
        return "n/a" if v is None else f"{v:.6g}" if abs(v) < 1e4 else f"{v:.1f}"

    rates = ", ".join(f"{j:g}" for j in s["jump_rates"])
    alarm = "none" if s["alarm"] is None else f"step {s['alarm']:,}"
    lines = [
        f"rows: {s['rows']:,} (positive class {s['positive_label']!r})",
        f"family: {s['family']}, jump rate(s): {rates}",
        f"final log10 S: {s['final_log10_S']:.4f} (max {s['max_log10_S']:.4f})",
        f"alarm (S >= 1/{s['alpha']:g}): {alarm}",
        *_changes_lines(s.get("changes")),
        f"{'':<22}{'base':>12}{'protected':>12}",
    ]
    for key, name in (
        ("log10_loss", "decimal log loss (sum)"),
        ("brier", "Brier loss (mean)"),
        ("auc", "AUC"),
    ):
        lines.append(f"{name:<22}{fmt(s['base'][key]):>12}{fmt(s['protected'][key]):>12}")
    return "\n".join(lines)


def _changes_lines(c: dict | None) -> list[str]:
    if c is None:
        return []
    steps = ", ".join(f"{a:,}" for a in c["alarms"][:20])
    more = f", ... ({len(c['alarms']):,} in all)" if len(c["alarms"]) > 20 else ""
    return [f"change points ({c['procedure']}, threshold {c['threshold']:g}): "
            + (steps + more if c["alarms"] else "none")]


def plot(result: Monitored, y01, p, title: str = ""):
    """Draw the ``log10 S`` trajectory (alarm level and step, change points marked) beside the ROC curves.

    Needs matplotlib (:func:`venncal.plotting.figure`); returns the figure.
    """
    from ..plotting import figure, roc_curve

    s = result.summary
    labels = "base" in s
    fig = figure((10.5, 4.4) if labels else (6.0, 4.4))
    left, right = fig.subplots(1, 2) if labels else (fig.subplots(), None)
    log10 = result.log10_martingale
    left.plot(np.arange(1, log10.shape[0] + 1), log10, lw=1.0)
    left.axhline(math.log10(1 / s["alpha"]), color="0.5", ls="--", lw=0.8,
                 label=f"alarm level 1/{s['alpha']:g}")
    if s["alarm"] is not None:
        left.axvline(s["alarm"], color="C3", lw=0.9, label=f"alarm at step {s['alarm']:,}")
    changes = s.get("changes")
    if changes and changes["alarms"]:
        steps = np.array(changes["alarms"])
        left.plot(steps, log10[steps - 1], ls="none", marker="v", ms=5, color="C1",
                  label=f"{changes['procedure']} change points ({steps.size:,})")
    left.set_xlabel("step n")
    left.set_ylabel("log10 S_n")
    left.set_title("Jumper test martingale" if labels else "conformal test martingale "
                   "(scores only)", fontsize=10)
    left.legend(fontsize=8)
    if labels and s["base"]["auc"] is not None:
        roc_curve(y01, {"base": p, "protected": result.protected_proba}, ax=right)
    if labels:
        right.set_title("ROC curves", fontsize=10)
    fig.suptitle(title, fontsize=10)
    return fig
