"""Vovk, Petej & Gammerman 2021, section 5: the Jumper on the Bank Marketing stream.

The paper: V. Vovk, I. Petej and A. Gammerman, *Adaptive calibration for binary
classification*, On-line Compression Modelling Project, Working Paper 35, 2021.

Bank-full in its original (chronological) order; the first 10,000 rows train a
scikit-learn random forest (default parameters, ``random_state=2021``); its
probabilities of the label 2 (a sale) on the other 35,211 rows, clipped to
``[0.1, 0.9]``, are the base predictive system.  The Jumper (quadratic family,
``E = {-1, -0.5, 0, 0.5, 1}``, ``J = 0.01``) bets against it and protects it.
The report gives the base and protected decimal log losses and the final
``log10 S`` beside the paper's (5684.1, 4764.8, 919.3), Figures 2-4, the Mean
Jumper, the other calibrating families of section 2, and how much the numbers
move with the encoding of the categorical columns and the forest's seed.

The paper read OpenML's copy of the data, where the categorical columns are nominal
attributes (``fetch_openml`` gives a forest their category codes) and ``duration`` is
kept.  Ordinal codes of the sorted categories, with ``duration``, give the paper's
three numbers to the last printed digit (:data:`PAPER_ENCODING`); the other natural
encodings do not (the report's last table).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from ._report import Report, ReportDraft, new_figure, require_data_dir
from ._run import RunInfo, RunOptions, experiment_run

__all__ = ["ENCODINGS", "PAPER_ENCODING", "BankResult", "bank_stream", "encode", "report", "run"]

NAME = "vovk2021-bank"
N_TRAIN = 10_000
CLIP = (0.1, 0.9)
FOREST_SEED = 2021
JUMP_RATE = 0.01
FIGURE_RATES = (0.1, 0.001)
MEAN_RATES = (1.0, 0.1, 0.01, 0.001)
#: Extra forest seeds of the sensitivity table: full and quick mode.
EXTRA_SEEDS = {False: 5, True: 2}
#: Encodings of the categorical columns: ordinal codes of the sorted categories (as an
#: ARFF file declares them), ordinal codes in order of first appearance, or one-hot.
ENCODINGS = ("ordinal-sorted", "ordinal-appearance", "one-hot")
#: (encoding, keep ``duration``): the one that reproduces the paper.
PAPER_ENCODING = ("ordinal-sorted", True)
_FILE = "bank-marketing/bank-full.csv.gz"

_PROTOCOL = (
    "Vovk, Petej & Gammerman, *Adaptive calibration for binary classification* (2021), "
    "section 5, Figures 2-4: bank-full (45,211 rows) in chronological order; a "
    "scikit-learn `RandomForestClassifier()` with `random_state=2021` trained on the first "
    "10,000 rows; its probabilities of label 2 on the other 35,211 rows, clipped to "
    "[0.1, 0.9], are the base forecasts; the Jumper with the quadratic family "
    "E = {-1, -0.5, 0, 0.5, 1} and J = 0.01 protects them. Losses are decimal log losses "
    "summed over the test rows; log10 S_N = L_base - L_Jumper exactly."
)


def _families() -> dict[str, object]:
    from ..online.families import named

    return {
        "quadratic (1), paper's E": named("quadratic"),
        "cubic (3), a in +-{0.5, 1}, b in {0.25, 0.5, 0.75}": named("cubic"),
        "Cox (4), beta in {0.5, 0.75, 1, 1.5, 2}": named("cox"),
        "Cox (5), alpha in {0, +-0.5, +-1}, beta in {0.5, 1, 2}": named("cox2"),
    }


# ---------------------------------------------------------------------------------- data


def bank_stream(data_dir=None) -> tuple[list[str], list[list[str]]]:
    """Return the header and the rows (as text) of bank-full, in the file's order.

    Parameters
    ----------
    data_dir : path-like, optional
        Folder laid out as the shared data store (default: ``VENNCAL_DATA``).

    Raises
    ------
    FileNotFoundError
        Without a data folder, or when the file is missing from it.
    """
    from ..datasets._uci import _csv_rows, _read_text, _resolve_dir

    require_data_dir(data_dir, NAME, _FILE)
    rows = _csv_rows(_read_text(_resolve_dir(data_dir), _FILE), delimiter=";")
    return rows[0], rows[1:]


def _is_numeric(values: Sequence[str]) -> bool:
    try:
        for v in values:
            float(v)
    except ValueError:
        return False
    return True


def encode(
    columns: Sequence[str], rows: Sequence[Sequence[str]], encoding: str, duration: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Encode the Bank rows as a float matrix and labels 1 (no sale) / 2 (sale).

    Parameters
    ----------
    columns : sequence of str
        The header (the last column is the label ``y``, ``"yes"`` or ``"no"``).
    rows : sequence of sequence of str
        The rows as text.
    encoding : {"ordinal-sorted", "ordinal-appearance", "one-hot"}
        Categorical columns as one code per category (categories sorted, or in order
        of first appearance in the file) or one 0/1 column per sorted category.
    duration : bool, default=True
        Keep the ``duration`` column (the length of the call, known only afterwards).

    Returns
    -------
    X : ndarray of shape (n_rows, n_features)
    y : ndarray of shape (n_rows,)
        1 or 2, as in the paper.

    Examples
    --------
    >>> cols = ["job", "duration", "y"]
    >>> rows = [["b", "10", "no"], ["a", "20", "yes"], ["b", "5", "no"]]
    >>> X, y = encode(cols, rows, "ordinal-sorted")
    >>> X.tolist(), y.tolist()
    ([[1.0, 10.0], [0.0, 20.0], [1.0, 5.0]], [1, 2, 1])
    >>> encode(cols, rows, "one-hot", duration=False)[0].tolist()
    [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]
    """
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}; expected one of {ENCODINGS}")
    blocks = []
    for j, name in enumerate(columns[:-1]):
        if name == "duration" and not duration:
            continue
        values = [row[j] for row in rows]
        if _is_numeric(values):
            blocks.append(np.array(values, dtype=float)[:, None])
            continue
        cats = (
            list(dict.fromkeys(values)) if encoding == "ordinal-appearance" else sorted(set(values))
        )
        index = {c: i for i, c in enumerate(cats)}
        codes = np.array([index[v] for v in values])
        if encoding == "one-hot":
            blocks.append((codes[:, None] == np.arange(len(cats))).astype(float))
        else:
            blocks.append(codes.astype(float)[:, None])
    y = np.array([2 if row[-1] == "yes" else 1 for row in rows])
    return np.hstack(blocks), y


def base_forecasts(X: np.ndarray, y: np.ndarray, seed: int, jobs: int = 1) -> np.ndarray:
    """Clipped random-forest probabilities of label 2 on the rows after the first 10,000."""
    from sklearn.ensemble import RandomForestClassifier

    forest = RandomForestClassifier(random_state=seed, n_jobs=jobs).fit(X[:N_TRAIN], y[:N_TRAIN])
    return np.clip(forest.predict_proba(X[N_TRAIN:])[:, 1], *CLIP)


def decimal_log_loss(y: np.ndarray, p: np.ndarray) -> float:
    """Sum over the rows of ``-log10`` of the probability given to the label (2 positive)."""
    return float(-np.sum(np.log10(np.where(y == 2, p, 1.0 - p))))


# ----------------------------------------------------------------------------------- run


@dataclass
class Protected:
    """One Jumper run over the test stream."""

    name: str
    log10_martingale: np.ndarray
    protected_proba: np.ndarray
    loss: float
    alarm: int | None


@dataclass
class BankResult:
    """Everything :func:`run` measured, as :func:`report` needs it."""

    info: RunInfo
    y: np.ndarray
    base_proba: np.ndarray
    base_loss: float
    #: jump rate -> the Jumper predictor with the quadratic family
    jumpers: dict[float, Protected]
    mean: Protected
    families: list[Protected]
    #: (encoding, duration, forest seed, base loss, Jumper loss, final log10 S)
    sensitivity: list[tuple] = field(default_factory=list)


def _protect(name: str, model, y: np.ndarray, p: np.ndarray) -> Protected:
    res = model.run(p, y)
    pp = res.protected_proba
    return Protected(name, res.log10_martingale, pp, decimal_log_loss(y, pp), res.alarm(0.01))


def _jumper_numbers(y: np.ndarray, p: np.ndarray) -> tuple[float, float, float]:
    from ..online import JumperPredictor

    prot = _protect("", JumperPredictor(jump_rate=JUMP_RATE, classes=[1, 2]), y, p)
    return decimal_log_loss(y, p), prot.loss, float(prot.log10_martingale[-1])


def _sensitivity(options, columns, rows, max_test_rows, main) -> list[tuple]:
    """Every variant's numbers; ``main`` is the main run's ``(y_test, p)``, not forecast again."""
    variants = [(e, d, FOREST_SEED) for e in ENCODINGS for d in (True, False)]
    variants += [(*PAPER_ENCODING, options.seed + k) for k in range(EXTRA_SEEDS[options.quick])]
    out = []
    for enc, dur, s in variants:
        if (enc, dur, s) == (*PAPER_ENCODING, FOREST_SEED):
            y_test, p = main
        else:
            X, y = encode(columns, rows, enc, dur)
            keep = slice(N_TRAIN, N_TRAIN + max_test_rows if max_test_rows else None)
            y_test, p = y[keep], base_forecasts(X[: keep.stop], y[: keep.stop], s, options.jobs)
        out.append((enc, dur, s, *_jumper_numbers(y_test, p)))
        options.echo(f"  {enc:<18} duration={dur!s:<5} seed={s:<5} log10 S = {out[-1][-1]:.1f}")
    return out


@experiment_run(NAME)
def run(
    options: RunOptions,
    *,
    max_test_rows: int | None = None,
    sensitivity: bool = True,
) -> BankResult:
    """Run the experiment and return its results.

    Parameters
    ----------
    quick : bool, default=False
        Fewer extra forest seeds in the sensitivity table (2 instead of 5).
    seed : int, default=0
        First of the extra forest seeds of the sensitivity table (``seed``,
        ``seed + 1``, ...); the main run always uses the paper's seed 2021.
    jobs : int, default=1
        Processes for the random forest (its result does not depend on them).
    data_dir : path-like, optional
        Folder holding ``bank-marketing/bank-full.csv.gz`` (default: ``VENNCAL_DATA``).
    max_test_rows : int, optional
        Keep only this prefix of the test stream (for tests).
    sensitivity : bool, default=True
        Also run the other encodings and seeds.
    echo : callable, optional
        Receives progress lines.

    Returns
    -------
    BankResult
    """
    from ..online import JumperPredictor, MeanJumper

    columns, rows = bank_stream(options.data_dir)
    X, y = encode(columns, rows, *PAPER_ENCODING)
    stop = N_TRAIN + max_test_rows if max_test_rows else None
    p, y_test = base_forecasts(X[:stop], y[:stop], FOREST_SEED, options.jobs), y[N_TRAIN:stop]
    options.echo(f"  base forecasts on {len(p):,} test rows")
    jumpers = {
        J: _protect(f"J = {J:g}", JumperPredictor(jump_rate=J, classes=[1, 2]), y_test, p)
        for J in (JUMP_RATE, *FIGURE_RATES)
    }
    mean = _protect("Mean Jumper", MeanJumper(jump_rates=MEAN_RATES, classes=[1, 2]), y_test, p)
    families = [
        _protect(name, JumperPredictor(fam, JUMP_RATE, classes=[1, 2]), y_test, p)
        for name, fam in _families().items()
    ]
    table = _sensitivity(options, columns, rows, max_test_rows, (y_test, p)) if sensitivity else []
    info = options.info()
    return BankResult(info, y_test, p, decimal_log_loss(y_test, p), jumpers, mean, families, table)


# -------------------------------------------------------------------------------- report


def _paper() -> dict:
    from ..datasets import paper_tables

    return paper_tables("002")["bank"]


def _main_table(result: BankResult) -> list[str]:
    paper = _paper()
    main = result.jumpers[JUMP_RATE]
    rows = [
        ("base decimal log loss", paper["base_log10_loss"], result.base_loss),
        ("Jumper decimal log loss (J = 0.01)", paper["jumper_log10_loss"], main.loss),
        ("final log10 S (J = 0.01)", paper["final_log10_martingale"], main.log10_martingale[-1]),
    ]
    return [
        "| quantity | paper | ours |",
        "|---|---|---|",
        *(f"| {name} | {p:.1f} | {o:.2f} |" for name, p, o in rows),
    ]


def _auc(y: np.ndarray, p: np.ndarray) -> float:
    from ..metrics import roc_auc

    return roc_auc(y, p, pos_label=2)


def _runs_table(result: BankResult) -> list[str]:
    md = [
        "| Jumper | decimal log loss | final log10 S | max log10 S | alarm at alpha = 0.01 | AUC |",
        "|---|---|---|---|---|---|",
        (
            f"| base forecasts | {result.base_loss:.1f} | | | "
            f"| {_auc(result.y, result.base_proba):.4f} |"
        ),
    ]
    runs = [*result.jumpers.values(), result.mean, *result.families]
    for r in runs:
        md.append(
            f"| {r.name} | {r.loss:.1f} | {r.log10_martingale[-1]:.1f} "
            f"| {r.log10_martingale.max():.1f} | {r.alarm if r.alarm is not None else 'none'} "
            f"| {_auc(result.y, r.protected_proba):.4f} |"
        )
    return md


def _sensitivity_table(result: BankResult) -> list[str]:
    md = [
        "| encoding | duration | forest seed | base loss | Jumper loss | log10 S |",
        "|---|---|---|---|---|---|",
    ]
    for enc, dur, s, base, jump, log_s in result.sensitivity:
        mark = " **(paper's)**" if (enc, dur, s) == (*PAPER_ENCODING, FOREST_SEED) else ""
        md.append(
            f"| {enc}{mark} | {'kept' if dur else 'dropped'} | {s} | {base:.1f} | {jump:.1f} "
            f"| {log_s:.1f} |"
        )
    return md


def _roc(ax, result: BankResult, J: float) -> None:
    from ..plotting import roc_curve

    roc_curve(
        result.y,
        {
            "random forest": result.base_proba,
            f"Jumper, J = {J:g}": result.jumpers[J].protected_proba,
        },
        ax=ax,
        pos_label=2,
    )
    ax.set_title(f"ROC, J = {J:g}", fontsize=10)


def _martingale_figure(result: BankResult, path: Path) -> bool:
    """Figure 2: the Jumper's log10 S_n for each rate and the Mean Jumper."""
    made = new_figure(1, (6.5, 4.2))
    if made is None:
        return False
    fig, (ax,) = made
    n = np.arange(1, len(result.y) + 1)
    for r in [*result.jumpers.values(), result.mean]:
        ax.plot(n, r.log10_martingale, lw=1.6 if r.name == "J = 0.01" else 0.9, label=r.name)
    ax.set_xlabel("n (test rows)")
    ax.set_ylabel("log10 S_n")
    ax.set_title("Figure 2: the Jumper test martingale", fontsize=10)
    ax.legend(fontsize=8)
    fig.savefig(path, dpi=110)
    return True


def _roc_figure(result: BankResult, rates: tuple[float, ...], path: Path) -> bool:
    """Figures 3-4: ROC curves of the base and the protected forecasts, one panel per rate."""
    made = new_figure(len(rates), (4.8 * len(rates), 4.4))
    if made is None:
        return False
    fig, axes = made
    for ax, J in zip(axes, rates, strict=True):
        _roc(ax, result, J)
    fig.savefig(path, dpi=110)
    return True


def report(result: BankResult, out_dir: str | Path, *, command: str | None = None) -> Report:
    """Write ``out_dir/report.md`` and Figures 2-4 (``bank-figure{2,3,4}.png``).

    The text is the paper-against-ours table, the runs and the sensitivity table.
    Parameters and return value: as for every experiment (:mod:`venncal.experiments._report`).
    """
    rows = (
        f"- test rows: {len(result.y):,}; encoding: ordinal codes of the sorted categories, "
        "`duration` kept (as in OpenML's copy)"
    )
    facts = [rows]
    if result.info.quick and result.sensitivity:
        facts.append(f"- quick mode: {EXTRA_SEEDS[True]} extra forest seeds in the sensitivity "
                     f"table instead of {EXTRA_SEEDS[False]}")
    draft = ReportDraft(result.info, out_dir, _PROTOCOL, command, facts)
    draft.figure("bank-figure2.png", partial(_martingale_figure, result))
    draft.figure("bank-figure3.png", partial(_roc_figure, result, (JUMP_RATE,)))
    draft.figure("bank-figure4.png", partial(_roc_figure, result, FIGURE_RATES))
    main, runs, sens = _main_table(result), _runs_table(result), _sensitivity_table(result)
    draft.md += ["## The paper's numbers", "", *main, ""]
    draft.md += [f"![{f.stem}]({f.name})" for f in draft.figures] + [""]
    draft.md += ["## Jumping rates, the Mean Jumper and the other families", "", *runs, ""]
    if result.sensitivity:
        draft.md += ["## Encodings and seeds", "", *sens, ""]
    draft.text += main + [""] + runs + (["", *sens] if result.sensitivity else [])
    return draft.write()
