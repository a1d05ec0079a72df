"""Multiclass calibration: Venn-Abers one-vs-rest, one-vs-one and CVAP against the usual methods.

Not a paper's table: issue 24's benchmark of :mod:`venncal.multiclass` on data available
offline (the pieces are in :mod:`venncal.experiments._multiclass_cases`).

Cases (data set / learner): iris, wine and digits (bundled with scikit-learn) with a
logistic regression (LR) and Gaussian naive Bayes (NB); digits with a small neural
network (MLP), whose output-layer logits are the "deep-net logits" case; and synthetic
logits of a known softmax model made overconfident (temperature 0.5) and shifted per
class, whose true probabilities give the floor of every loss.

Protocol: for each repetition, each class's rows are split at random into proper
training (50%), calibration (25%) and test (25%) rows (:func:`~._multiclass_cases.three_way_split`;
the same splits for every learner of a data set). The learner is trained on the proper
training rows; every method calibrates it on the calibration rows and predicts the test
rows:

- uncalibrated: the learner's ``predict_proba``;
- VA OvR (IVAP): :class:`~venncal.OneVsRestCalibrator` with a Venn-Abers base on the
  learner's class logits (``score="logit"``);
- VA OvO x {price, normalize, wu-lin-weng}: :class:`~venncal.OneVsOneCalibrator`;
- CVAP OvR (5 folds): the learner retrained on 4 of 5 stratified folds of proper training +
  calibration rows, each fold calibrating its model (a multiclass cross Venn-Abers
  predictor, ``CrossVennAbersCalibrator`` base);
- scikit-learn's ``CalibratedClassifierCV(FrozenEstimator(model), method=...)`` with
  ``"sigmoid"``, ``"isotonic"`` (one-vs-rest) and ``"temperature"``;
- venn-abers 1.5.4's ``VennAbersCalibrator`` (its calibration-set form, on the learner's
  probabilities, ``one_vs_rest`` and ``one_vs_one``) only when the package is importable.

Metrics on the test rows (:func:`venncal.metrics.evaluate_multiclass`, 10 equal-width
bins): log loss (nats), Brier (summed over classes), top-label ECE, class-wise ECE,
accuracy; the mean width ``p1 - p0`` of the Venn-Abers methods' binary intervals (per
class for OvR, per pair for OvO); the seconds from the fitted model to the test
probabilities (model scoring included; CVAP's five refits included; numba's first-call
compilation excluded by a warm-up). Means over the repetitions with standard errors.
"""

from __future__ import annotations

import math
import time
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from . import _multiclass_cases as mc
from ._multiclass_report import FIGURE_CASES, METRICS, ORACLE, aggregate, report
from ._run import RunInfo, RunOptions, experiment_run

__all__ = ["CASES", "FIGURE_CASES", "METRICS", "REPS", "MulticlassResult", "TaskResult",
           "aggregate", "report", "run", "run_task"]

NAME = "multiclass"
#: (data set, learner) pairs, in the report's order.
CASES = (
    ("iris", "LR"), ("iris", "NB"), ("wine", "LR"), ("wine", "NB"), ("digits", "LR"),
    ("digits", "NB"), ("digits", "MLP"), ("synthetic", "logits"),
)
#: Repetitions (random splits): full, quick.
REPS = {False: 20, True: 3}
_PROTOCOL = (
    "Multiclass calibration on data available offline (issue 24): iris, wine and digits "
    "(bundled with scikit-learn) with logistic regression (LR) and Gaussian naive Bayes (NB), "
    "digits with a small neural network (MLP, its output-layer logits), and synthetic logits "
    "of a known softmax model (temperature 0.5, shifted per class). Each repetition splits "
    "each class's rows at random into proper training (50%), calibration (25%) and test "
    "(25%); the learner is trained on the proper training rows and every method calibrates "
    "it on the calibration rows (CVAP: 5 stratified folds of proper training + calibration, "
    "the learner retrained on 4). Venn-Abers methods calibrate the class logits; "
    "scikit-learn's `CalibratedClassifierCV(FrozenEstimator(model))` uses the model's "
    "decision function when it has one (LR, synthetic) and else its probabilities; "
    "venn-abers its probabilities. Metrics on the test rows, 10 equal-width bins; means "
    "over the repetitions ± standard error."
)


# ------------------------------------------------------------------------------ one task


@dataclass
class TaskResult:
    """What one repetition of one (data set, learner) measured."""

    dataset: str
    learner: str
    rep: int
    #: method -> metric -> value (also "width" and "seconds"; NaN where not defined)
    values: dict[str, dict[str, float]]
    #: method -> error message, for a method that raised or gave non-finite probabilities
    failures: dict[str, str]
    #: (proper training, calibration, test) rows
    sizes: tuple[int, int, int]
    n_classes: int
    #: "method: warning category" (or "learner: ...") -> count
    warnings: dict[str, int] = field(default_factory=dict)
    #: test labels and method -> test probabilities (figure cases only)
    predictions: tuple[np.ndarray, dict[str, np.ndarray]] | None = None
    seconds: float = 0.0


def split_rng(seed: int, dataset: str, rep: int) -> np.random.Generator:
    """The generator of repetition ``rep``'s split of ``dataset`` (the same for every learner)."""
    return np.random.default_rng([seed, mc.DATASETS.index(dataset), rep])


def _warm_up() -> None:
    """Run each Venn-Abers method once on tiny data, so no timing includes numba's compilation."""
    z, y, _ = mc.synthetic_logits(np.random.default_rng(0), n=60)
    case = mc.Case("logits", 0, mc.FixedLogitsClassifier().fit(z, y), z, y, z, z, y,
                   np.arange(60) % 2)
    for name, (method, _package) in mc.METHODS.items():
        if name.startswith(("VA", "CVAP")):
            method(case)


def _evaluate(y: np.ndarray, proba: np.ndarray, K: int) -> dict[str, float]:
    from ..metrics import evaluate_multiclass

    ev = evaluate_multiclass(y, proba, classes=np.arange(K))
    # Signed: positive when overconfident, negative when underconfident.
    gap = float(np.mean(proba.max(axis=1))) - ev["accuracy"]
    return {**{m: ev[m] for m in METRICS}, "conf_minus_acc": gap}


def run_task(
    dataset: str,
    learner: str,
    rep: int,
    seed: int = 0,
    methods: Sequence[str] | None = None,
    keep_predictions: bool = False,
    data: tuple | None = None,
) -> TaskResult:
    """Run every method on repetition ``rep`` of one (data set, learner).

    Parameters
    ----------
    dataset, learner : str
        A pair of :data:`CASES` (or any data set of ``_multiclass_cases.DATASETS`` with a
        learner of ``_multiclass_cases.LEARNERS``).
    rep : int
        The repetition: its split comes from :func:`split_rng`; the learner's
        ``random_state`` is ``seed + rep``.
    seed : int
    methods : sequence of str, optional
        Names of ``_multiclass_cases.METHODS`` (default: all whose package is importable).
    keep_predictions : bool
        Keep the test labels and every method's test probabilities.
    data : (X, y, true probabilities or None), optional
        The data set already loaded (default: loaded here).

    Returns
    -------
    TaskResult
    """
    from threadpoolctl import threadpool_limits

    start = time.perf_counter()
    X, y, truth = mc.load(dataset, seed) if data is None else data
    K = len(np.unique(y))
    rng = split_rng(seed, dataset, rep)
    train, cal, test = mc.three_way_split(y, rng)
    fit_rows = np.sort(np.concatenate([train, cal]))
    folds = mc.stratified_folds(y[fit_rows], mc.N_FOLDS, rng)
    names = _available_methods() if methods is None else tuple(methods)
    values, failures, kept = {}, {}, {}
    caught: Counter = Counter()
    with threadpool_limits(limits=1, user_api="blas"), warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _warm_up()
        del w[:]
        model = mc.make_learner(learner, seed + rep).fit(X[train], y[train])
        caught.update(f"learner: {item.category.__name__}" for item in w)
        case = mc.Case(learner, seed + rep, model, X[cal], y[cal], X[test],
                       X[fit_rows], y[fit_rows], folds)
        for name in names:
            del w[:]
            method, package = mc.METHODS[name]
            t0 = time.perf_counter()
            try:
                proba, width = method(case)
            except Exception as exc:  # a failing third-party method is reported, not fatal
                if not package:
                    raise
                failures[name] = f"{type(exc).__name__}: {exc}"
                continue
            finally:
                caught.update(f"{name}: {item.category.__name__}" for item in w)
            seconds = time.perf_counter() - t0
            bad = ~np.isfinite(proba).all(axis=1)
            if bad.any():
                failures[name] = f"non-finite probabilities in {int(bad.sum())} of {len(bad)} rows"
                continue
            values[name] = {**_evaluate(y[test], proba, K), "seconds": seconds,
                            "width": math.nan if width is None else width}
            if keep_predictions:
                kept[name] = proba
    if truth is not None:
        values[ORACLE] = {**_evaluate(y[test], truth[test], K), "seconds": math.nan,
                          "width": math.nan}
        if keep_predictions:
            kept[ORACLE] = truth[test]
    return TaskResult(
        dataset, learner, rep, values, failures, (len(train), len(cal), len(test)), K,
        dict(caught), (y[test], kept) if keep_predictions else None,
        time.perf_counter() - start,
    )


def _available_methods() -> tuple[str, ...]:
    has_package = mc.venn_abers_version() is not None
    return tuple(n for n, (_m, package) in mc.METHODS.items() if has_package or not package)


# ------------------------------------------------------------------------------ all tasks


@dataclass
class MulticlassResult:
    """Everything :func:`run` measured, as :func:`report` needs it."""

    info: RunInfo
    cases: tuple[tuple[str, str], ...]
    reps: int
    methods: tuple[str, ...]
    #: every task, in the order of the cases and repetitions
    tasks: list[TaskResult]
    #: the installed venn-abers version, or None
    venn_abers: str | None
    #: the protocol paragraph of the report
    protocol: str = ""

    def case_tasks(self, case: tuple[str, str]) -> list[TaskResult]:
        return [t for t in self.tasks if (t.dataset, t.learner) == case]


@experiment_run(NAME)
def run(
    options: RunOptions,
    *,
    cases: Sequence[tuple[str, str]] = CASES,
    reps: int | None = None,
    methods: Sequence[str] | None = None,
) -> MulticlassResult:
    """Run the experiment and return its results.

    Parameters
    ----------
    quick : bool, default=False
        :data:`REPS` ``[True]`` repetitions instead of ``REPS[False]``.
    seed : int, default=0
        The run is deterministic given the seed (whatever `jobs` is), times apart.
    jobs : int, default=1
        (case, repetition) tasks run on this many processes (joblib).
    data_dir : path-like, optional
        Not used: every data set is bundled with scikit-learn or synthetic.
    cases : sequence of (str, str)
        (data set, learner) pairs; default :data:`CASES`.
    reps : int, optional
        Repetitions; overrides the default of the mode.
    methods : sequence of str, optional
        Names of ``_multiclass_cases.METHODS``; default all (the venn-abers ones only when
        the package is importable).
    echo : callable, optional
        Receives one progress line per finished task.

    Returns
    -------
    MulticlassResult

    Raises
    ------
    ValueError
        For an unknown case or method, a venn-abers method without the package, or
        `reps` below 1.
    """
    from joblib import Parallel, delayed

    cases = tuple((str(d), str(c)) for d, c in cases)
    for d, c in cases:
        if d not in mc.DATASETS or c not in mc.LEARNERS or (d == "synthetic") != (c == "logits"):
            raise ValueError(f"unknown case {(d, c)}; expected pairs such as {list(CASES)}")
    available = _available_methods()
    methods = available if methods is None else tuple(methods)
    unknown = [m for m in methods if m not in mc.METHODS]
    if unknown:
        raise ValueError(f"unknown methods {unknown}; expected some of {list(mc.METHODS)}")
    missing = [m for m in methods if m not in available]
    if missing:
        raise ValueError(f"methods {missing} need the venn-abers package, which is not installed")
    n_reps = REPS[options.quick] if reps is None else int(reps)
    if n_reps < 1:
        raise ValueError(f"reps must be at least 1, got {reps}")
    data = {d: mc.load(d, options.seed) for d in {d for d, _c in cases}}
    todo = [(d, c, r) for d, c in cases for r in range(n_reps)]
    calls = (
        delayed(run_task)(d, c, r, options.seed, methods, (d, c) in FIGURE_CASES, data[d])
        for d, c, r in todo
    )
    tasks = []
    for i, t in enumerate(Parallel(n_jobs=options.jobs, return_as="generator_unordered")(calls), 1):
        tasks.append(t)
        options.echo(f"  [{i:>3}/{len(todo)}] {t.dataset:<9} {t.learner:<6} rep {t.rep:<3} "
                     f"{t.seconds:6.1f} s")
    tasks.sort(key=lambda t: (cases.index((t.dataset, t.learner)), t.rep))
    return MulticlassResult(options.info(), cases, n_reps, methods, tasks, mc.venn_abers_version(),
                            _PROTOCOL)


