"""The calibration arena: every venncal calibrator and chain over tasks available offline.

Issue 25, deliverable 5, reported like CalArena (Berta et al. 2026): mean ranks by log
loss and by Brier, pairwise win rates, median times, Venn-Abers interval widths, and the
issue's two quality targets.  The tasks are built in
:mod:`venncal.experiments._arena_tasks`, the methods in
:mod:`venncal.experiments._arena_methods`, the numbers in
:mod:`venncal.experiments._arena_summary` and the report in
:mod:`venncal.experiments._arena_report`.

Protocol: each tabular task is one (data set, model, repetition): each class's rows are
split at random into training (50%), calibration (25%) and test (25%); the model is
trained on the training rows and scores the others.  Each synthetic task draws 2,000
calibration and 5,000 test rows of distorted logits.  Every method is fitted on the
calibration rows and scored on the test rows; "venncal recommends" runs
``venncal.compare`` (5 stratified folds) on the calibration rows only and takes the test
result of the method it recommends; the same comparison's pick under the lowest-mean rule
(the rule before the default rule) is kept as ``ArenaTask.recommended_old`` and ranked
beside it as "lowest CV mean (old rule)".
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ._arena_methods import run_methods
from ._arena_report import report
from ._arena_tasks import (
    BINARY_MODELS,
    BINARY_SETS,
    DISTORTIONS,
    MULTICLASS_MODELS,
    MULTICLASS_SETS,
    SYNTHETIC_K,
    TaskSpec,
    build_task,
)
from ._report import has_data_dir
from ._run import RunInfo, RunOptions, experiment_run

__all__ = ["ArenaResult", "ArenaTask", "default_specs", "report", "run", "run_task"]

NAME = "calibration-arena"
#: Repetitions (random splits) per (data, model): full, quick.
REPS = {False: 5, True: 1}
#: The quick mode's tasks: a few of each group.
QUICK = (
    ("binary", "breast-cancer", ("LR", "RF", "NB")),
    ("multiclass", "wine", ("LR", "NB")),
    ("synthetic-binary", "K2-overconfident", ("logits",)),
    ("synthetic-multiclass", "K10-over+biased", ("logits",)),
)


@dataclass
class ArenaTask:
    """What one task measured."""

    spec: TaskSpec
    score: str
    sizes: tuple[int, int, int]
    n_classes: int
    #: method -> MethodScore (log_loss, brier, width, seconds)
    scores: dict
    #: method -> error message
    failures: dict[str, str]
    #: what "venncal recommends" picked, and compare's reason
    recommended: str | None
    reason: str
    #: method -> warnings caught
    warnings: dict[str, int] = field(default_factory=dict)
    #: the true probabilities' log loss (synthetic tasks), else None
    oracle: float | None = None
    seconds: float = 0.0
    #: what the same comparison picks under the lowest-mean rule (the rule before)
    recommended_old: str | None = None
    #: the comparison's :meth:`~venncal.comparison.Comparison.rule_inputs`, so that a
    #: rule can be replayed on it (``venncal.comparison.recommend``); written to
    #: ``tasks.json`` by :func:`report`
    rule_inputs: dict | None = None


@dataclass
class ArenaResult:
    """Everything :func:`run` measured, as :func:`report` needs it."""

    info: RunInfo
    tasks: list[ArenaTask]
    reps: int
    #: data sets left out, and why
    skipped: dict[str, str]


def default_specs(quick: bool, reps: int, uci: bool) -> list[TaskSpec]:
    """The tasks of a run: quick or full, ``reps`` repetitions, UCI sets if ``uci``."""
    if quick:
        return [TaskSpec(g, d, m, r) for g, d, models in QUICK for m in models
                for r in range(reps)]
    specs = [TaskSpec("binary", d, m, r) for d, where in BINARY_SETS.items()
             if uci or where != "uci" for m in BINARY_MODELS for r in range(reps)]
    specs += [TaskSpec("multiclass", d, m, r) for d in MULTICLASS_SETS
              for m in MULTICLASS_MODELS for r in range(reps)]
    for K in SYNTHETIC_K:
        group = "synthetic-binary" if K == 2 else "synthetic-multiclass"
        specs += [TaskSpec(group, f"K{K}-{dist}", "logits", r) for dist in DISTORTIONS
                  for r in range(reps)]
    return specs


def run_task(spec: TaskSpec, seed: int = 0, data_dir=None, methods: Sequence[str] | None = None,
             recommend: bool = True, cache: dict | None = None) -> ArenaTask:
    """Build one task and run every method (or ``methods``) and the meta-method on it."""
    from threadpoolctl import threadpool_limits

    from ._arena_methods import score_proba

    start = time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"):
        task = build_task(spec, seed, data_dir, cache)
        only = None if methods is None else tuple(methods)
        scores, failures, rec, warned = run_methods(task, seed, only, recommend)
    oracle = None if task.truth is None else score_proba(task.y_test, task.truth)[0]
    pick, reason, old, inputs = rec if rec else (None, "", None, None)
    return ArenaTask(spec, task.score, task.sizes, task.n_classes, scores, failures, pick,
                     reason, warned, oracle, time.perf_counter() - start, old, inputs)


def _warm_up(methods: Sequence[str] | None) -> None:
    """Fit every method once on tiny data, so no time includes numba's compilation."""
    import numpy as np

    from ._arena_methods import _fit_predict, methods_for
    from ._arena_tasks import Task, synthetic_logits

    only = None if methods is None else tuple(methods)
    rng = np.random.default_rng(0)
    for K in (2, 3):
        z, y, _ = synthetic_logits(K, "biased", rng, 120)
        task = Task(TaskSpec("synthetic", "warm-up", "logits", 0), "logit", z, y, z, y, None,
                    (0, 120, 120))
        for cand in methods_for("binary" if K == 2 else "multiclass", "logit", K, only):
            try:
                _fit_predict(cand, task, 0)
            except Exception:  # noqa: BLE001 - a failure here shows again in the run
                pass


@experiment_run(NAME)
def run(options: RunOptions, *, specs: Sequence[TaskSpec] | None = None, reps: int | None = None,
        methods: Sequence[str] | None = None, recommend: bool = True) -> ArenaResult:
    """Run the arena and return its results.

    Parameters
    ----------
    quick : bool, default=False
        :data:`QUICK`'s few tasks, one repetition each, instead of every task.
    seed : int, default=0
        The run is deterministic given the seed (whatever `jobs` is), times apart.
    jobs : int, default=1
        Tasks run on this many processes (joblib).
    data_dir : path-like, optional
        The shared data store holding the UCI sets (or ``VENNCAL_DATA``); without it
        the binary tabular tasks are breast-cancer (scikit-learn) and adult (shipped).
    specs : sequence of TaskSpec, optional
        The tasks (default: :func:`default_specs`).
    reps : int, optional
        Repetitions per (data, model); overrides the mode's :data:`REPS`.
    methods : sequence of str, optional
        Run only these fixed methods (for tests); default every applicable one.
    recommend : bool, default=True
        Whether to run the meta-method "venncal recommends".
    echo : callable, optional
        Receives one progress line per finished task.

    Returns
    -------
    ArenaResult
    """
    from joblib import Parallel, delayed

    n_reps = REPS[options.quick] if reps is None else int(reps)
    if n_reps < 1:
        raise ValueError(f"reps must be at least 1, got {reps}")
    uci = has_data_dir(options.data_dir)
    skipped = {} if uci or options.quick or specs is not None else {
        d: "needs the data folder (--data-dir or VENNCAL_DATA)"
        for d, where in BINARY_SETS.items() if where == "uci"}
    todo = list(default_specs(options.quick, n_reps, uci) if specs is None else specs)
    _warm_up(methods)
    calls = (delayed(run_task)(s, options.seed, options.data_dir, methods, recommend)
             for s in todo)
    tasks = []
    for i, t in enumerate(Parallel(n_jobs=options.jobs, return_as="generator_unordered")(calls), 1):
        tasks.append(t)
        options.echo(f"  [{i:>3}/{len(todo)}] {t.spec.name:<32} {t.seconds:6.1f} s")
    order = {s: i for i, s in enumerate(todo)}
    tasks.sort(key=lambda t: order[t.spec])
    return ArenaResult(options.info(), tasks, n_reps, skipped)
