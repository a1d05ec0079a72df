"""Sliding-window quantized isotonic calibration under drift (Gokcesu & Gokcesu 2022, a demo).

K. Gokcesu and H. Gokcesu, *A log-linear time sequential optimal calibration algorithm for
quantized isotonic L2 regression* (2022), keeps the optimal quantized isotonic map exact
under inserts and deletes, hence over a sliding window of the last ``W`` observations
(:class:`venncal.online.QuantizedIsotonic` with ``window=W``).  The paper has no
experiment; this one shows what the window buys on a stream whose calibration drifts,
against what users do today: refit scikit-learn's ``IsotonicRegression`` every ``N``
samples.

Two streams, each evaluated prequentially (every sample is predicted before it is
learned), after a burn-in of ``W`` samples that every method starts from:

- **synthetic** (known truth): scores ``s ~ U[0, 1]``; labels ``y ~ Bernoulli(f(s))``
  with the true calibration map ``f(s) = s`` for the first half of the stream and
  ``f(s) = s**3`` for the second half (the score keeps its ranking but the base rate
  drops from 1/2 to 1/4);
- **Bank Marketing** (real drift, needs the data folder): bank-full in its original,
  chronological order (read and encoded by :mod:`venncal.experiments.vovk2021_bank`:
  one-hot categories, ``duration`` dropped as it is known only after the call); a
  standardised logistic regression trained on the first 10,000 rows scores the other
  35,211, whose rate of sales climbs from about 5 % to about 50 % towards the end.

Calibrators:

- ``venncal window``: ``QuantizedIsotonic(levels=100, window=W)``, updated after every
  sample (each insert beyond ``W`` deletes the oldest);
- ``sklearn window``: ``IsotonicRegression(out_of_bounds="clip")`` refitted every ``N``
  samples on the last ``W``;
- ``sklearn all``: the same refitted every ``N`` samples on every sample seen (no
  forgetting);
- ``uncalibrated``: the score itself.

Losses are the Brier loss ``(p - y)**2`` (the main one: isotonic maps can say 0 or 1)
and the natural log loss with every forecast clipped to ``[EPS, 1 - EPS]``,
``EPS = 1 / (2 (K - 1))``: half the spacing of the K = 100 levels, the largest value
that still rounds to the level 0 (the same clip for every method).  Times are wall
clock, per call, in this process.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

from ._prequential import Prequential, prequential_sklearn, prequential_window, rolling_mean
from ._report import DATA_ENV, Report, ReportDraft, fmt_loss, has_data_dir, new_figure
from ._run import RunInfo, RunOptions, experiment_run

__all__ = [
    "EPS",
    "LEVELS",
    "METHODS",
    "TRUE_MAPS",
    "DriftResult",
    "StreamResult",
    "bank_scores",
    "report",
    "run",
    "synthetic_stream",
]

NAME = "quantized-drift"
#: Levels of the quantized map (evenly spaced in [0, 1], ends included).
LEVELS = 100
#: Log-loss clip: half the spacing of the levels.
EPS = 0.5 / (LEVELS - 1)
#: The calibrators compared, in the order of the tables and figures.
METHODS = ("uncalibrated", "venncal window", "sklearn window", "sklearn all")
#: (stream length, window W, refit every N), full and quick mode.
SYNTHETIC_SIZES = {False: (100_000, 5_000, 1_000), True: (8_000, 1_000, 250)}
#: (window W, refit every N) of the Bank stream.
BANK_SIZES = (2_000, 500)
#: Quick mode keeps the last rows of the Bank stream (where its rate of sales climbs).
QUICK_BANK_ROWS = 12_000
#: Exactness checkpoints per stream: the window's map against a batch fit of the window.
N_CHECKS = 6
STREAMS = ("synthetic", "bank")

_PROTOCOL = (
    "A demonstration of Gokcesu & Gokcesu, *A log-linear time sequential optimal "
    "calibration algorithm for quantized isotonic L2 regression* (2022), which "
    "has no experiment of its own: streams whose calibration drifts, calibrated prequentially "
    "(each sample predicted before it is learned) by venncal's sliding-window "
    "`QuantizedIsotonic(levels=100, window=W)`, updated after every sample, against "
    "scikit-learn's `IsotonicRegression(out_of_bounds='clip')` refitted every N samples "
    "on the last W samples or on all samples seen. Every method starts from a burn-in of "
    f"the first W samples. Brier loss (p - y)^2; natural log loss with forecasts clipped to "
    f"[{EPS:.5f}, {1 - EPS:.5f}] (half a level). Times are wall clock per call, and wall "
    "and CPU time of each whole run."
)


def _before(s: np.ndarray) -> np.ndarray:
    return s


def _after(s: np.ndarray) -> np.ndarray:
    return s**3


#: The synthetic stream's true calibration maps, before and after the drift.
TRUE_MAPS: dict[str, tuple[str, Callable[[np.ndarray], np.ndarray]]] = {
    "before": ("f(s) = s", _before),
    "after": ("f(s) = s^3", _after),
}


# ---------------------------------------------------------------------------------- data


def synthetic_stream(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return a stream whose true calibration map changes halfway.

    Parameters
    ----------
    n : int
        Length of the stream; the map is ``f(s) = s`` for the first ``n // 2``
        samples and ``f(s) = s**3`` after them.
    seed : int, default=0
        Seed of numpy's default generator.

    Returns
    -------
    scores : ndarray of shape (n,)
        Uniform on [0, 1].
    y : ndarray of shape (n,)
        Labels 0/1, ``y ~ Bernoulli(truth)``.
    truth : ndarray of shape (n,)
        The true probability ``f(score)`` of each sample.

    Examples
    --------
    >>> s, y, truth = synthetic_stream(6, seed=1)
    >>> bool(np.allclose(truth[:3], s[:3])), bool(np.allclose(truth[3:], s[3:] ** 3))
    (True, True)
    >>> sorted(set(y.tolist())) <= [0, 1]
    True
    """
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    half = n // 2
    truth = np.concatenate((_before(s[:half]), _after(s[half:])))
    y = (rng.random(n) < truth).astype(np.int64)
    return s, y, truth


def bank_scores(data_dir=None) -> tuple[np.ndarray, np.ndarray]:
    """Score the Bank stream after its first 10,000 rows with a model trained on them.

    The rows are read and encoded by :mod:`venncal.experiments.vovk2021_bank` (one-hot
    categories, ``duration`` dropped); the model is a scikit-learn logistic regression on
    standardised features.

    Returns
    -------
    scores : ndarray of shape (35211,)
        The model's probabilities of a sale, in the file's (chronological) order.
    y : ndarray of shape (35211,)
        1 for a sale, 0 otherwise.

    Raises
    ------
    FileNotFoundError
        Without a data folder, or when ``bank-marketing/bank-full.csv.gz`` is missing.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from .vovk2021_bank import N_TRAIN, bank_stream, encode

    columns, rows = bank_stream(data_dir)
    X, labels = encode(columns, rows, "one-hot", duration=False)
    y = (labels == 2).astype(np.int64)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    model.fit(X[:N_TRAIN], y[:N_TRAIN])
    return model.predict_proba(X[N_TRAIN:])[:, 1], y[N_TRAIN:]


# ----------------------------------------------------------------------------------- run


@dataclass
class StreamResult:
    """One stream and its calibrators' forecasts, losses and times."""

    name: str
    description: str
    #: Scores, labels (and the true probabilities, synthetic only) after the burn-in.
    scores: np.ndarray
    y: np.ndarray
    truth: np.ndarray | None
    #: Burn-in (= W), refit period N.
    window: int
    every: int
    #: Index (after the burn-in) of the first sample after the drift, if known.
    drift: int | None
    #: Method -> its run (``uncalibrated`` has no updates).
    runs: dict[str, Prequential]
    #: When the maps were recorded -> stream index after the burn-in; the scores where.
    snapshot_at: dict[str, int]
    grid: np.ndarray

    def proba(self, method: str) -> np.ndarray:
        """Forecasts of ``method`` on the samples after the burn-in."""
        return self.runs[method].proba

    @property
    def checks(self) -> list[tuple[int, bool]]:
        """The window's exactness checks (stream index, equal)."""
        return self.runs["venncal window"].checks


@dataclass
class DriftResult:
    """Everything :func:`run` measured, as :func:`report` needs it."""

    info: RunInfo
    streams: list[StreamResult]
    #: Why a stream was not run (no data folder), by name.
    skipped: dict[str, str]
    #: 1-minute load average of the machine at the start and the end of the run.
    load: tuple[float, float]


def _calibrate(name, description, scores, y, truth, window, every, drift, echo) -> StreamResult:
    n = scores.shape[0]
    if n <= window + 1:
        raise ValueError(f"the {name} stream has {n} samples; it needs more than W = {window}")
    grid = np.unique(np.quantile(scores, np.linspace(0, 1, 201)))
    snapshot_at = {"at the end of the stream": n - 1}
    if drift is not None:
        snapshot_at = {"just before the drift": window + drift, **snapshot_at}
    snaps = list(snapshot_at.values())
    echo(f"  {name}: {n - window:,} samples after a burn-in of {window:,}")
    checks = {*np.linspace(window, n - 1, N_CHECKS).astype(int).tolist()}
    if drift is not None and window + drift + window // 2 < n:
        checks.add(window + drift + window // 2)  # the window: half before the drift, half after
    runs = {
        "uncalibrated": Prequential(scores[window:].astype(float), np.empty(0), np.empty(0),
                                    snapshots={t: grid.copy() for t in snaps}),
        "venncal window": prequential_window(scores, y, LEVELS, window, grid=grid,
                                             snapshots=snaps, checks=sorted(checks)),
        "sklearn window": prequential_sklearn(scores, y, window, every, window, grid=grid,
                                              snapshots=snaps),
        "sklearn all": prequential_sklearn(scores, y, window, every, None, grid=grid,
                                           snapshots=snaps),
    }
    return StreamResult(
        name, description, scores[window:], y[window:],
        None if truth is None else truth[window:], window, every, drift, runs,
        {k: v - window for k, v in snapshot_at.items()}, grid,
    )  # fmt: skip


def _bank_stream(data_dir, quick: bool, max_test_rows: int | None):
    s, y = bank_scores(data_dir)
    rows = f"the next {len(s):,} rows"
    if max_test_rows:
        s, y, rows = s[:max_test_rows], y[:max_test_rows], f"the next {max_test_rows:,}"
    elif quick:
        s, y = s[-QUICK_BANK_ROWS:], y[-QUICK_BANK_ROWS:]
        rows = f"the other rows, of which the last {QUICK_BANK_ROWS:,} are kept (quick mode)"
    description = (
        "Bank Marketing (bank-full) in chronological order: a logistic regression "
        "trained on the first 10,000 rows (one-hot categories, `duration` dropped) "
        f"scores {rows}"
    )
    return s, y, description


@experiment_run(NAME)
def run(
    options: RunOptions,
    *,
    streams: Sequence[str] = STREAMS,
    n_synthetic: int | None = None,
    max_test_rows: int | None = None,
    window: int | None = None,
    every: int | None = None,
) -> DriftResult:
    """Run the demonstration and return its results.

    Parameters
    ----------
    quick : bool, default=False
        A synthetic stream of 8,000 samples (W = 1,000, N = 250) instead of 100,000
        (W = 5,000, N = 1,000), and only the last 12,000 rows of the Bank stream
        (W = 2,000, N = 500 in both modes).
    seed : int, default=0
        Seed of the synthetic stream.
    jobs : int, default=1
        Ignored: the calibrators run one after the other in this process, so that
        their times are comparable.
    data_dir : path-like, optional
        Folder holding ``bank-marketing/bank-full.csv.gz`` (default: ``VENNCAL_DATA``).
        Without either, the Bank stream is skipped (and the report says so).
    streams : sequence of {"synthetic", "bank"}, default=both
        The streams to run.
    n_synthetic : int, optional
        Length of the synthetic stream (overrides the mode's).
    max_test_rows : int, optional
        Keep only this prefix of the Bank stream (for tests).
    window, every : int, optional
        ``W`` and ``N`` for every stream (override the mode's).
    echo : callable, optional
        Receives progress lines.

    Returns
    -------
    DriftResult

    Raises
    ------
    FileNotFoundError
        When ``data_dir`` (or ``VENNCAL_DATA``) is given but the Bank file is not in it.
    """
    unknown = set(streams) - set(STREAMS)
    if unknown:
        raise ValueError(f"unknown streams {sorted(unknown)}; expected some of {STREAMS}")
    load0 = os.getloadavg()[0]
    bank, skipped = None, {}
    if "bank" in streams:  # read first: a missing file fails before the long synthetic run
        if has_data_dir(options.data_dir):
            bank = _bank_stream(options.data_dir, options.quick, max_test_rows)
        else:
            skipped["Bank"] = (
                "no data folder: give `--data-dir DIR` (laid out as the shared data store) "
                f"or set {DATA_ENV}"
            )
            options.echo(f"  Bank: skipped ({skipped['Bank']})")
    out = []
    if "synthetic" in streams:
        n, w, k = SYNTHETIC_SIZES[options.quick]
        n, w, k = n_synthetic or n, window or w, every or k
        if n // 2 <= w:
            raise ValueError(f"the synthetic stream needs n // 2 > W; got n = {n}, W = {w}")
        s, y, truth = synthetic_stream(n, options.seed)
        description = (
            f"{n:,} scores s ~ U[0, 1], labels y ~ Bernoulli(f(s)); true map "
            f"{TRUE_MAPS['before'][0]} for the first {n // 2:,} samples, "
            f"{TRUE_MAPS['after'][0]} after them (seed {options.seed})"
        )
        drift = n // 2 - w
        out.append(_calibrate("synthetic", description, s, y, truth, w, k, drift, options.echo))
    if bank is not None:
        s, y, description = bank
        w, k = window or BANK_SIZES[0], every or BANK_SIZES[1]
        out.append(_calibrate("Bank", description, s, y, None, w, k, None, options.echo))
    info = options.info()
    return DriftResult(info, out, skipped, (load0, os.getloadavg()[0]))


# -------------------------------------------------------------------------------- report

_COLOURS = {"uncalibrated": "0.55", "venncal window": "C0", "sklearn window": "C1",
            "sklearn all": "C2"}
_ON_TOP = {"venncal window": 3}  # drawn over scikit-learn's window, which it follows closely


def _losses(y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-sample Brier loss and natural log loss (forecasts clipped to ``[EPS, 1 - EPS]``)."""
    q = np.clip(p, EPS, 1.0 - EPS)
    return (p - y) ** 2, -np.log(np.where(y == 1, q, 1.0 - q))


def _segments(sr: StreamResult) -> dict[str, slice]:
    n = sr.y.shape[0]
    if sr.drift is not None:
        return {"before the drift": slice(0, sr.drift), "after the drift": slice(sr.drift, n)}
    return {"first half": slice(0, n // 2), "second half": slice(n // 2, n)}


def _loss_table(sr: StreamResult) -> list[str]:
    from ..metrics import brier_loss, log_loss

    segs = _segments(sr)
    cols = ["Brier, all", *(f"Brier, {k}" for k in segs), "log loss, all"]
    if sr.truth is not None:
        cols += ["MSE to the truth, all", *(f"MSE to the truth, {k}" for k in segs)]
    md = [f"| calibrator | {' | '.join(cols)} |", "|---" * (len(cols) + 1) + "|"]
    for m in METHODS:
        p = sr.proba(m)
        cells = [brier_loss(sr.y, p)]
        cells += [brier_loss(sr.y[s], p[s]) for s in segs.values()]
        cells.append(log_loss(sr.y, p, base="e", eps=EPS))
        if sr.truth is not None:
            err = (p - sr.truth) ** 2
            cells += [float(err.mean()), *(float(err[s].mean()) for s in segs.values())]
        md.append(f"| {m} | {' | '.join(fmt_loss(v) for v in cells)} |")
    if sr.truth is not None:
        bayes = sr.truth * (1 - sr.truth)
        cells = [float(bayes.mean()), *(float(bayes[s].mean()) for s in segs.values())]
        md.append(f"| true probabilities | {' | '.join(fmt_loss(v) for v in cells)} |"
                  + " |" * (len(cols) - len(cells)))
    return md


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f}"


def _time_table(sr: StreamResult) -> list[str]:
    n = sr.y.shape[0]
    md = [
        ("| calibrator | updates | time per update (us): median | mean | 99th percentile "
        "| update time per sample, amortised (us) | prediction time per sample (us) "
        "| whole run (s): wall | CPU |"),
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for m in METHODS[1:]:
        r = sr.runs[m]
        u, p = r.update_seconds, r.predict_seconds
        if m == "venncal window":
            what, pred = "insert + delete", f"{_us(np.median(p))} (mean {_us(p.mean())})"
        else:
            what, pred = f"refits, every {sr.every:,}", _us(p.sum() / n)
        md.append(
            f"| {m} | {r.n_updates:,} {what} | {_us(np.median(u))} | {_us(u.mean())} "
            f"| {_us(np.quantile(u, 0.99))} | {_us(u.sum() / n)} | {pred} "
            f"| {r.wall:.2f} | {r.cpu:.2f} |"
        )
    return md


def _speed_lines(sr: StreamResult) -> list[str]:
    n = sr.y.shape[0]
    ours = sr.runs["venncal window"]
    upd, pred = np.median(ours.update_seconds), np.median(ours.predict_seconds)
    refit = np.median(sr.runs["sklearn window"].update_seconds)
    return [
        (f"- keeping the map exact after every sample: venncal's window takes {_us(upd)} us "
        f"per update (median); a refit of scikit-learn on the window takes {_us(refit)} us "
        f"(median), {refit / upd:,.0f} x as long, so refitting after every sample would take "
        f"about {refit * n:.1f} s for these {n:,} samples; refitting every {sr.every:,} "
        f"costs {_us(refit / sr.every)} us per sample but lags up to {sr.every:,} samples"),
        (f"- a prediction after each update (`predict_one`) takes {_us(pred)} us (median): "
        "it rebuilds the map's table of nearest-score steps"),
    ]


def _check_line(sr: StreamResult) -> str:
    idx = ", ".join(f"{t:,}" for t, _ in sr.checks)
    ok = all(eq for _, eq in sr.checks)
    verdict = "**equal, bit for bit**" if ok else "**NOT EQUAL** (a bug: please report it)"
    return (
        f"- exactness: at stream indices {idx}, the window's map (thresholds, levels and "
        f"the predictions of the next 50 scores) against `QuantizedIsotonicCalibrator"
        f"(levels={LEVELS})` fitted on the last {sr.window:,} samples: {verdict}"
    )


def _figure(sr: StreamResult, path: Path) -> bool:
    panels = 1 + (sr.truth is None) + len(sr.snapshot_at)
    made = new_figure(panels, (4.6 * panels, 3.9))
    if made is None:
        return False
    fig, axes = made
    n = sr.y.shape[0]
    r = max(1, min(sr.window // 2, n // 4))
    x = np.arange(r, n + 1) + sr.window  # stream index of each window's last sample + 1
    ax = axes[0]
    for m in METHODS:
        ax.plot(x, rolling_mean(_losses(sr.y, sr.proba(m))[0], r), color=_COLOURS[m], lw=1.1,
                label=m, zorder=_ON_TOP.get(m, 2))
    if sr.truth is not None:
        ax.plot(x, rolling_mean(sr.truth * (1 - sr.truth), r), color="k", ls="--", lw=0.9,
                label="true probabilities")
    ax.set_xlabel("sample")
    ax.set_ylabel(f"Brier loss, mean of the last {r:,}")
    ax.set_title(f"{sr.name}: loss over time (W = {sr.window:,}, N = {sr.every:,})",
                 fontsize=10)
    if sr.drift is not None:
        ax.axvline(sr.window + sr.drift, color="k", lw=0.6, ls=":")
    ax.legend(fontsize=7)
    rest = list(axes[1:])
    if sr.truth is None:
        ax = rest.pop(0)
        ax.plot(x, rolling_mean(sr.y.astype(float), r), color="k", lw=1.1, label="rate of label 1")
        for m in METHODS:
            ax.plot(x, rolling_mean(sr.proba(m), r), color=_COLOURS[m], lw=1.0, label=m,
                    zorder=_ON_TOP.get(m, 2))
        ax.set_xlabel("sample")
        ax.set_ylabel(f"mean of the last {r:,}")
        ax.set_title(f"{sr.name}: labels and forecasts", fontsize=10)
        ax.legend(fontsize=7)
    for ax, (label, t) in zip(rest, sr.snapshot_at.items(), strict=True):
        for m in METHODS:
            ax.plot(sr.grid, sr.runs[m].snapshots[t + sr.window], color=_COLOURS[m], lw=1.1,
                    label=m, drawstyle="steps-post" if m == "venncal window" else "default")
        if sr.truth is not None:
            key = "before" if sr.drift is not None and t <= sr.drift else "after"
            text, f = TRUE_MAPS[key]
            ax.plot(sr.grid, f(sr.grid), color="k", ls="--", lw=0.9, label=f"truth: {text}")
        if sr.truth is None:
            ax.set_xscale("log")  # the model's scores crowd near 0
        ax.set_xlabel("score")
        ax.set_ylabel("calibrated probability")
        ax.set_title(f"{sr.name}: the maps {label}", fontsize=10)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    return True


def report(result: DriftResult, out_dir: str | Path, *, command: str | None = None) -> Report:
    """Write ``out_dir/report.md`` and one figure per stream (``drift-<stream>.png``).

    The text is the loss and time tables. Parameters and return value: as for every
    experiment (:mod:`venncal.experiments._report`).
    """
    load = (
        f"- load average (1 min) of the machine: {result.load[0]:.2f} at the start, "
        f"{result.load[1]:.2f} at the end (2 cores: above about 1, other processes "
        "shared the machine and the times are pessimistic)"
    )
    draft = ReportDraft(result.info, out_dir, _PROTOCOL, command, [load])
    for sr in result.streams:
        losses, times = _loss_table(sr), _time_table(sr)
        draft.md += [f"## {sr.name} stream", "", sr.description + ".", ""]
        draft.md += [
            (f"- window W = {sr.window:,} (also the burn-in), refit period N = {sr.every:,}, "
            f"K = {LEVELS} levels; {sr.y.shape[0]:,} samples evaluated"),
            _check_line(sr),
            *_speed_lines(sr),
            "",
        ]  # fmt: skip
        draft.image(
            f"drift-{sr.name.lower()}.png",
            partial(_figure, sr),
            f"{sr.name}: loss over time and the maps",
        )
        draft.md += ["### Losses (means over the samples after the burn-in)", "", *losses, ""]
        draft.md += ["### Time", "", *times, ""]
        draft.text += [f"{sr.name} stream", *losses, "", *times, "", _check_line(sr), ""]
    for name, why in result.skipped.items():
        draft.md += [f"## {name} stream", "", f"Not run: {why}.", ""]
        draft.text += [f"{name} stream: not run ({why})"]
    return draft.write()
