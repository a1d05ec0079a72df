"""Prequential runs of stream calibrators: each sample predicted, then learned, each call timed.

Used by :mod:`venncal.experiments.quantized_drift`: venncal's sliding-window quantized
isotonic regression updated after every sample (:func:`prequential_window`) and
scikit-learn's ``IsotonicRegression`` refitted every ``N`` samples
(:func:`prequential_sklearn`).  Both start from a burn-in (the first ``start``
samples) and return the forecasts of the samples after it, with the time of every
update (venncal: one ``insert``; scikit-learn: one ``fit``).

Examples
--------
Both over one stream of 300 samples, after a burn-in of 100: the window of 100 samples
learns each of the 200 others (its map checked against a batch fit twice), while
scikit-learn is refitted on the last 100 samples every 50 samples, 4 times:

>>> rng = np.random.default_rng(0)
>>> s = rng.random(300)
>>> y = (rng.random(300) < s).astype(int)
>>> run = prequential_window(s, y, levels=11, window=100, checks=[100, 250])
>>> run.proba.shape, run.n_updates, run.checks
((200,), 200, [(100, True), (250, True)])
>>> run = prequential_sklearn(s, y, start=100, every=50, window=100)
>>> run.proba.shape, run.n_updates
((200,), 4)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Prequential", "prequential_sklearn", "prequential_window", "rolling_mean"]


@dataclass
class Prequential:
    """One calibrator run over a stream, predicting each sample before learning it."""

    #: Forecasts of the samples after the burn-in.
    proba: np.ndarray
    #: Seconds of each update (venncal: one per sample; scikit-learn: one refit per N samples).
    update_seconds: np.ndarray
    #: Seconds of each prediction call (venncal: one sample; scikit-learn: a block of N).
    predict_seconds: np.ndarray
    #: Stream index ``t`` -> the map that predicted sample ``t``, at the run's grid.
    snapshots: dict[int, np.ndarray] = field(default_factory=dict)
    #: (stream index ``t``, equal): the window's map before learning sample ``t`` against
    #: a batch fit of the ``window`` samples before ``t``.
    checks: list[tuple[int, bool]] = field(default_factory=list)
    #: Wall-clock and CPU seconds of the whole run (burn-in and checks included).
    wall: float = 0.0
    cpu: float = 0.0

    @property
    def n_updates(self) -> int:
        """Number of updates."""
        return int(self.update_seconds.shape[0])


def _clocks() -> tuple[float, float]:
    """Return the wall-clock and CPU clocks (seconds), for :func:`_stopped`."""
    return time.perf_counter(), time.process_time()


def _stopped(run: Prequential, started: tuple[float, float]) -> Prequential:
    """Set ``run``'s wall-clock and CPU seconds since ``started`` (:func:`_clocks`); return it."""
    run.wall, run.cpu = time.perf_counter() - started[0], time.process_time() - started[1]
    return run


def _same_map(model, levels: int, scores: np.ndarray, y: np.ndarray, probe: np.ndarray) -> bool:
    """Whether ``model`` is, bit for bit, the batch quantized isotonic fit of ``(scores, y)``."""
    from ..baselines import QuantizedIsotonicCalibrator

    batch = QuantizedIsotonicCalibrator(levels=levels, classes=[0, 1]).fit(scores, y)
    return bool(
        np.array_equal(batch.thresholds_, model.thresholds_)
        and np.array_equal(batch.values_, model.values_)
        and np.array_equal(batch.predict_proba(probe)[:, 1], model.predict(probe))
    )


def prequential_window(
    scores: np.ndarray,
    y: np.ndarray,
    levels: int,
    window: int,
    *,
    grid: np.ndarray | None = None,
    snapshots: Sequence[int] = (),
    checks: Sequence[int] = (),
) -> Prequential:
    """Run ``QuantizedIsotonic(levels, window=window)`` over a stream, sample by sample.

    The first ``window`` samples are the burn-in (one ``learn_many``); each later sample
    is predicted by :meth:`~venncal.online.QuantizedIsotonic.predict_one`, then learned
    by :meth:`~venncal.online.QuantizedIsotonic.insert` (which deletes the oldest).

    Parameters
    ----------
    scores, y : ndarray of shape (n,)
        The stream (labels 0/1), ``n > window``.
    levels : int
        ``K``, evenly spaced levels in [0, 1].
    window : int
        ``W``.
    grid : ndarray, optional
        Scores at which to record the map at the ``snapshots``.
    snapshots : sequence of int
        Stream indices ``t >= window`` at which to record the map that predicts sample ``t``.
    checks : sequence of int
        Stream indices ``t >= window`` at which to compare the map that predicts sample
        ``t`` with a batch :class:`~venncal.baselines.QuantizedIsotonicCalibrator` fit
        of samples ``t - window .. t - 1`` (thresholds, values, and predictions of the
        next 50 scores, bit for bit).

    Returns
    -------
    Prequential
    """
    from ..online import QuantizedIsotonic

    started = _clocks()
    n = scores.shape[0]
    model = QuantizedIsotonic(levels, window=window)
    model.learn_many(scores[:window], y[:window])
    proba, upd, pred = np.empty(n - window), np.empty(n - window), np.empty(n - window)
    out = Prequential(proba, upd, pred)
    snap_at, check_at = set(snapshots), set(checks)
    s_list, y_list = scores.tolist(), y.tolist()  # Python numbers: no numpy scalar per call
    clock = time.perf_counter
    for t in range(window, n):
        if t in check_at:
            past = slice(t - window, t)
            out.checks.append((t, _same_map(model, levels, scores[past], y[past],
                                            scores[t : t + 50])))
        if t in snap_at:
            out.snapshots[t] = model.predict(grid)
        a = clock()
        proba[t - window] = model.predict_one(s_list[t])
        b = clock()
        model.insert(s_list[t], y_list[t])
        c = clock()
        pred[t - window] = b - a
        upd[t - window] = c - b
    return _stopped(out, started)


def prequential_sklearn(
    scores: np.ndarray,
    y: np.ndarray,
    start: int,
    every: int,
    window: int | None,
    *,
    grid: np.ndarray | None = None,
    snapshots: Sequence[int] = (),
) -> Prequential:
    """Refit scikit-learn's ``IsotonicRegression`` every ``every`` samples from ``start``.

    At ``t = start, start + every, ...`` a fresh ``IsotonicRegression(out_of_bounds="clip")``
    is fitted on samples ``t - window .. t - 1`` (``window=None``: ``0 .. t - 1``) and
    predicts samples ``t .. t + every - 1``.

    Parameters
    ----------
    scores, y : ndarray of shape (n,)
        The stream (labels 0/1), ``n > start >= window``.
    start : int
        The burn-in.
    every : int
        ``N``.
    window : int or None
        ``W``, or None to fit on every sample seen.
    grid, snapshots
        As for :func:`prequential_window`.

    Returns
    -------
    Prequential
    """
    from sklearn.isotonic import IsotonicRegression

    started = _clocks()
    n = scores.shape[0]
    proba = np.empty(n - start)
    fits, pred, snaps = [], [], {}
    clock = time.perf_counter
    for t in range(start, n, every):
        lo = 0 if window is None else t - window
        a = clock()
        iso = IsotonicRegression(out_of_bounds="clip").fit(scores[lo:t], y[lo:t])
        b = clock()
        end = min(t + every, n)
        proba[t - start : end - start] = iso.predict(scores[t:end])
        pred.append(clock() - b)
        fits.append(b - a)
        for u in snapshots:
            if t <= u < end:
                snaps[u] = iso.predict(grid)
    return _stopped(Prequential(proba, np.array(fits), np.array(pred), snapshots=snaps), started)


def rolling_mean(x: np.ndarray, r: int) -> np.ndarray:
    """Means of ``x[i - r + 1 .. i]`` for ``i = r - 1 .. len(x) - 1``.

    Examples
    --------
    >>> rolling_mean(np.array([1.0, 2.0, 3.0, 4.0]), 2)
    array([1.5, 2.5, 3.5])
    """
    c = np.concatenate(([0.0], np.cumsum(x)))
    return (c[r:] - c[:-r]) / r
