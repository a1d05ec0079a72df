"""Naeini & Cooper 2016, section IV-C, Tables III-VI: real data sets.

The paper uses 40 UCI and LibSVM data sets; the venncal loaders have six of them
(:data:`DATASETS`: adult, australian, breast, diabetes, ionosphere, liver disorders),
read with :func:`venncal.datasets.load_dataset` from ``data_dir`` or ``VENNCAL_DATA``.

Protocol, as the paper states it: for each data set and each base classifier (logistic
regression, SVM, naive Bayes; see :func:`make_base`), 10 random runs of stratified
10-fold cross-validation; in each fold the base classifier is trained on the training
part, and IsoReg, BBQ and ENIR are fitted on the *training* part's scores ("we always
used the train data for calibrating the models") and evaluated on the held-out part with
the five measures of section IV-A (:func:`~venncal.experiments.naeini2016_simulated.measures`).
A data set's value of a measure is its mean over the 100 folds. Then, per base and
measure:

- the methods are ranked on each data set (1 = best, ties share the mean rank) and the
  ranks averaged over the data sets (Tables III-V);
- the Friedman test over the data sets, and Holm's step-down procedure on the
  comparisons of ENIR with IsoReg and with BBQ (the z statistics of Demšar 2006,
  section 3.2.2), at level 0.05 (:func:`friedman_holm`);
- the 95% t confidence interval of the mean over the data sets of ENIR's relative change
  against the base classifier, ``(ENIR - base) / base`` (Table VI, eq. (10)).

With six data sets instead of 40 the tests have little power; the report says so.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._report import Report, ReportDraft, require_data_dir
from ._run import RunInfo, RunOptions, experiment_run
from .naeini2016_simulated import (
    CALIBRATORS,
    HIGHER_IS_BETTER,
    MEASURES,
    _sigmoid,
    calibrate,
    measures,
)

__all__ = [
    "BASES",
    "DATASETS",
    "UCIResult",
    "average_ranks",
    "friedman_holm",
    "gain_interval",
    "holm",
    "make_base",
    "report",
    "run",
    "run_task",
]

NAME = "naeini2016-uci"
#: The paper's data sets that the venncal loaders have.
DATASETS = ("adult", "australian", "breast", "diabetes", "ionosphere", "liver")
BASES = ("LR", "SVM", "NB")
#: (runs, folds) of the full and the quick mode; rows of adult kept by the quick mode.
PLAN = {False: (10, 10), True: (2, 5)}
QUICK_ADULT_ROWS = 5000
ALPHA = 0.05

_PROTOCOL = (
    "Naeini & Cooper, ICDM 2016, section IV-C, Tables III-V (average ranks of "
    "IsoReg, BBQ and ENIR; Friedman test and Holm's step-down procedure at 0.05) and VI "
    "(95% interval of ENIR's mean relative change against the base classifier), on the "
    "six of the paper's 40 data sets that venncal loads: LR, SVM and NB base classifiers, "
    "random runs of stratified k-fold cross-validation, calibration on the training "
    "folds, measures on the held-out fold, averaged over all folds of all runs."
)


def make_base(code: str, groups: list[list[int]] | None = None):
    """Return the unfitted base classifier `code` (``"LR"``, ``"SVM"`` or ``"NB"``).

    LR: standardised features, scikit-learn's ``LogisticRegression`` (L2, ``C = 1``).
    SVM: standardised features, ``LinearSVC`` (``C = 1``); its decision values are
    mapped through the sigmoid, as in section IV-B. NB: naive Bayes with frequency tables
    for the one-hot groups of nominal attributes and normal densities for the others
    (:class:`~venncal.experiments.naive_bayes.MixedNaiveBayes`).

    Examples
    --------
    >>> make_base("SVM")
    Pipeline(steps=[('standardscaler', StandardScaler()), ('linearsvc', LinearSVC())])
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    from .naive_bayes import MixedNaiveBayes

    if code == "LR":
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    if code == "SVM":
        return make_pipeline(StandardScaler(), LinearSVC())
    if code == "NB":
        return MixedNaiveBayes(groups=groups)
    raise ValueError(f"unknown base classifier {code!r}; expected one of {BASES}")


def _scores(model, X: np.ndarray, code: str) -> np.ndarray:
    if code == "SVM":
        return _sigmoid(model.decision_function(X))
    return model.predict_proba(X)[:, 1]


# ------------------------------------------------------------------------------ statistics


def holm(pvalues: Sequence[float], alpha: float = ALPHA) -> list[bool]:
    """Holm's step-down procedure: which hypotheses are rejected at family level `alpha`.

    The p-values are taken in increasing order; the i-th smallest (i = 0, 1, ...) is
    rejected while ``p <= alpha / (m - i)``; the first one that is not stops the
    procedure and it and every larger one are retained.

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03, 0.005], alpha=0.05)
    [True, False, False, True]
    """
    m = len(pvalues)
    reject = [False] * m
    for i, j in enumerate(sorted(range(m), key=lambda k: pvalues[k])):
        if pvalues[j] > alpha / (m - i):
            break
        reject[j] = True
    return reject


def average_ranks(values: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Mean rank of each column over the rows (1 = best in a row, ties share the mean rank).

    Examples
    --------
    >>> average_ranks(np.array([[0.1, 0.2, 0.2], [0.3, 0.1, 0.2]]), higher_is_better=False)
    array([2.  , 1.75, 2.25])
    """
    from scipy.stats import rankdata

    v = np.asarray(values, dtype=float)
    return rankdata(-v if higher_is_better else v, axis=1).mean(axis=0)


def friedman_holm(values: np.ndarray, higher_is_better: bool, control: int, alpha=ALPHA):
    """Friedman test over the rows, then Holm on the comparisons with column `control`.

    Returns ``(ranks, friedman_p, {column: (z, p, rejected)})``: the average ranks, the
    Friedman test's p-value, and for every other column Demšar's statistic
    ``z = (R_j - R_control) / sqrt(k (k + 1) / (6 N))`` with its two-sided normal
    p-value and Holm's decision (made only when the Friedman test rejects).
    """
    from scipy.stats import friedmanchisquare, norm

    v = np.asarray(values, dtype=float)
    n, k = v.shape
    ranks = average_ranks(v, higher_is_better)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # constant rows: p is nan
        f_p = float(friedmanchisquare(*v.T).pvalue) if n >= 2 else math.nan
    se = math.sqrt(k * (k + 1) / (6.0 * n))
    others = [j for j in range(k) if j != control]
    z = [(ranks[j] - ranks[control]) / se for j in others]
    p = [float(2 * norm.sf(abs(x))) for x in z]
    rej = holm(p, alpha) if f_p <= alpha else [False] * len(p)
    return ranks, f_p, {j: (z_, p_, r_) for j, z_, p_, r_ in zip(others, z, p, rej, strict=True)}


def gain_interval(enir: np.ndarray, base: np.ndarray, level: float = 0.95):
    """Mean and t interval of ``(enir - base) / base`` over the data sets (eq. (10))."""
    from scipy.stats import t

    x = (np.asarray(enir, float) - base) / np.asarray(base, float)
    x = x[np.isfinite(x)]
    if len(x) < 2:
        return float(np.mean(x)) if len(x) else math.nan, math.nan, math.nan
    half = t.ppf(0.5 + level / 2, len(x) - 1) * np.std(x, ddof=1) / math.sqrt(len(x))
    return float(x.mean()), float(x.mean() - half), float(x.mean() + half)


# ------------------------------------------------------------------------------ one task


def run_task(dataset, base, rep, X, y, n_folds, seed=0, groups=None) -> dict:
    """One random run of `n_folds`-fold CV: ``method -> measure -> list over folds``."""
    from sklearn.model_selection import StratifiedKFold
    from threadpoolctl import threadpool_limits

    cv = StratifiedKFold(n_folds, shuffle=True, random_state=_rep_seed(seed, dataset, rep))
    out: dict = {m: {x: [] for x in MEASURES} for m in ("base", *CALIBRATORS)}
    with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarnings of LR/LinearSVC
        for tr, te in cv.split(X, y):
            model = make_base(base, groups).fit(X[tr], y[tr])
            s_tr, s_te = _scores(model, X[tr], base), _scores(model, X[te], base)
            probs = {"base": s_te, **calibrate(s_tr, y[tr], s_te)}
            for m, p in probs.items():
                for x, v in measures(y[te], p).items():
                    if x in out[m]:
                        out[m][x].append(v)
    return out


def _rep_seed(seed: int, dataset: str, rep: int) -> int:
    return int(np.random.default_rng([seed, DATASETS.index(dataset), rep]).integers(2**31))


# ------------------------------------------------------------------------------ all tasks


@dataclass
class UCIResult:
    """Everything :func:`run` measured, as :func:`report` needs it."""

    info: RunInfo
    #: base -> data set -> method -> measure -> mean over all folds of all runs
    table: dict
    runs: int
    folds: int
    datasets: tuple[str, ...]
    bases: tuple[str, ...]
    #: data set -> (rows used, positives)
    sizes: dict


def _load(datasets, data_dir, quick, seed):
    from ..datasets import load_dataset
    from .naive_bayes import groups_from_names

    data = {}
    for name in datasets:
        X, y, names = load_dataset(name, data_dir=data_dir)
        if quick and name == "adult" and len(y) > QUICK_ADULT_ROWS:
            keep = np.random.default_rng([seed, 99]).choice(len(y), QUICK_ADULT_ROWS, False)
            X, y = X[np.sort(keep)], y[np.sort(keep)]
        data[name] = (X, y, groups_from_names(names))
    return data


@experiment_run(NAME)
def run(
    options: RunOptions,
    *,
    datasets: Sequence[str] = DATASETS,
    bases: Sequence[str] = BASES,
    plan: tuple[int, int] | None = None,
) -> UCIResult:
    """Run the experiment and return its results.

    Parameters
    ----------
    quick : bool, default=False
        2 runs of 5-fold CV and a random subsample of 5,000 adult rows.
    seed : int, default=0
        The run is deterministic given the seed (whatever `jobs` is).
    jobs : int, default=1
        (data set, base, run) tasks run on this many processes (joblib).
    data_dir : path-like, optional
        Folder of the data sets (default: the environment variable ``VENNCAL_DATA``).
    datasets, bases : sequence of str
        Subsets of :data:`DATASETS` and :data:`BASES`.
    plan : (int, int), optional
        (runs, folds), overriding the mode's :data:`PLAN`.
    echo : callable, optional
        Receives one progress line per finished (data set, base).

    Returns
    -------
    UCIResult
    """
    from joblib import Parallel, delayed

    for names, pool, what in ((datasets, DATASETS, "data sets"), (bases, BASES, "bases")):
        if unknown := sorted(set(names) - set(pool)):
            raise ValueError(f"unknown {what}: {unknown}; expected some of {list(pool)}")
    runs, folds = PLAN[options.quick] if plan is None else plan
    if runs < 1 or folds < 2:
        raise ValueError(f"plan takes at least 1 run and 2 folds, got {(runs, folds)}")
    require_data_dir(options.data_dir, NAME)
    data = _load(datasets, options.data_dir, options.quick, options.seed)
    order = sorted(datasets, key=lambda d: -len(data[d][1]))  # big first: load balance
    todo = [(d, b, r) for d in order for b in bases for r in range(runs)]
    calls = (
        delayed(run_task)(d, b, r, data[d][0], data[d][1], folds, options.seed, data[d][2])
        for d, b, r in todo
    )
    done = Parallel(n_jobs=options.jobs)(calls)
    table = _aggregate(todo, done, options.echo)
    sizes = {d: (len(data[d][1]), int(data[d][1].sum())) for d in datasets}
    info = options.info()
    return UCIResult(info, table, runs, folds, tuple(datasets), tuple(bases), sizes)


def _aggregate(todo, done, echo) -> dict:
    pooled: dict = {}
    for (d, b, _), res in zip(todo, done, strict=True):
        cell = pooled.setdefault(b, {}).setdefault(d, {})
        for m, by_measure in res.items():
            for x, vals in by_measure.items():
                cell.setdefault(m, {}).setdefault(x, []).extend(vals)
    for b, by_d in pooled.items():
        for d in by_d:
            echo(f"  {d:<11} {b:<4} done")
    return {
        b: {
            d: {m: {x: float(np.mean(v)) for x, v in bm.items()} for m, bm in cell.items()}
            for d, cell in by_d.items()
        }
        for b, by_d in pooled.items()
    }


# ------------------------------------------------------------------------------ analysis


def rank_analysis(result: UCIResult, base: str) -> dict:
    """Per measure: average ranks, Friedman p and ENIR-vs-others Holm decisions."""
    out = {}
    control = CALIBRATORS.index("ENIR")
    for x in MEASURES:
        v = np.array([[result.table[base][d][m][x] for m in CALIBRATORS] for d in result.datasets])
        out[x] = friedman_holm(v, HIGHER_IS_BETTER[x], control)
    return out


def _marker(rank_enir: float, rank_other: float, rejected: bool) -> str:
    if not rejected:
        return ""
    return "*" if rank_enir < rank_other else "(x)"


def _rank_section(result: UCIResult, paper: dict) -> tuple[list[str], list[str]]:
    md, txt = ["### Tables III-V: average ranks, ours (paper)", ""], []
    md += [
        (
            "`*`: ENIR significantly better than that method, `(x)`: worse (Friedman test, "
            "then Holm on ENIR's two comparisons, 0.05); the paper's markers are in the "
            "paper's cell. `Friedman p` is ours."
        ),
        "",
    ]
    for b in result.bases:
        analysis = rank_analysis(result, b)
        sig = paper["significant"][b]
        md += [
            f"**{b}**",
            "",
            "| measure | IsoReg | BBQ | ENIR | Friedman p |",
            "|---|---|---|---|---|",
        ]
        txt.append(f"{b}: average ranks ours (paper)")
        for x in MEASURES:
            ranks, f_p, post = analysis[x]
            cells = []
            for j, m in enumerate(CALIBRATORS):
                ours = f"{ranks[j]:.3f}"
                if j in post:
                    ours += _marker(ranks[CALIBRATORS.index("ENIR")], ranks[j], post[j][2])
                theirs = f"{paper['ranks'][b][m][x]:.3f}" + ("*" if x in sig.get(m, ()) else "")
                cells.append(f"{ours} ({theirs})")
            md.append(f"| {x} | " + " | ".join(cells) + f" | {f_p:.3f} |")
            txt.append(f"  {x:<5}" + "".join(f"{c:>20}" for c in cells) + f"  p={f_p:.3f}")
        md.append("")
    return md, txt


def _gain_section(result: UCIResult, paper: dict) -> tuple[list[str], list[str]]:
    md = [
        "### Table VI: ENIR's relative change against the base classifier, 95% interval",
        "",
        "Ours: mean [low, high] over our data sets; paper: [low, high] over its 40.",
        "",
        "| measure | " + " | ".join(result.bases) + " |",
        "|---|" + "---|" * len(result.bases),
    ]
    txt = ["Table VI: ours mean [low, high] (paper [low, high])"]
    for x in MEASURES:
        cells = []
        for b in result.bases:
            enir = [result.table[b][d]["ENIR"][x] for d in result.datasets]
            base = [result.table[b][d]["base"][x] for d in result.datasets]
            mean, lo, hi = gain_interval(np.array(enir), np.array(base))
            plo, phi = paper["table6"][b][x]
            cells.append(f"{mean:+.3f} [{lo:+.3f}, {hi:+.3f}] ([{plo:+.3f}, {phi:+.3f}])")
        md.append(f"| {x} | " + " | ".join(cells) + " |")
        txt.append(f"  {x:<5} " + " | ".join(cells))
    return [*md, ""], [*txt, ""]


def _means_section(result: UCIResult) -> list[str]:
    methods = ("base", *CALIBRATORS)
    md = [
        "### Means over all folds, per data set",
        "",
        "| base | data set | measure | " + " | ".join(methods) + " |",
        "|---|---|---|" + "---|" * len(methods),
    ]
    for b in result.bases:
        for d in result.datasets:
            for x in MEASURES:
                cells = " | ".join(f"{result.table[b][d][m][x]:.4f}" for m in methods)
                md.append(f"| {b} | {d} | {x} | {cells} |")
    return [*md, ""]


def report(result: UCIResult, out_dir: str | Path, *, command: str | None = None) -> Report:
    """Write ``out_dir/report.md``: Tables III-VI, ours beside the paper's, and the means.

    The text is Tables III-VI. Parameters and return value: as for every experiment
    (:mod:`venncal.experiments._report`).
    """
    from ..datasets import paper_tables

    paper = paper_tables("004")
    facts = [
        f"- {result.runs} runs of {result.folds}-fold cross-validation (paper: 10 of 10)",
        "- data sets (rows, positives): "
        + ", ".join(f"{d} ({n}, {p})" for d, (n, p) in result.sizes.items()),
        (
            f"- {len(result.datasets)} data sets instead of the paper's 40: the Friedman test "
            "and Holm's procedure have little power, and the t intervals are wide."
        ),
    ]
    if result.info.quick and "adult" in result.datasets:
        facts.append(f"- quick mode: a seeded random {QUICK_ADULT_ROWS:,} of adult's rows")
    draft = ReportDraft(result.info, out_dir, _PROTOCOL, command, facts)
    md_r, txt_r = _rank_section(result, paper)
    md_g, txt_g = _gain_section(result, paper)
    draft.md += md_r + md_g + _means_section(result)
    draft.text += txt_r + txt_g
    return draft.write()
