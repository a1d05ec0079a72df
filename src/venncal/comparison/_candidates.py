"""The calibrators :func:`~venncal.comparison.compare` cross-validates: one table, one entry each.

Each :class:`Candidate` says which problems it applies to (two classes from one
score column, or K classes from K columns), which kinds of score it accepts
and how to build it, unfitted, for a score kind and the classes.  A new
calibrator (or a chain of two) joins every comparison with one entry in
:data:`CANDIDATES`; its class is imported only when it is built.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

__all__ = [
    "BINARY", "CANDIDATES", "MULTICLASS", "Candidate", "Uncalibrated", "build_candidate",
    "candidates_for", "fit_methods", "score_params", "set_named_params",
]

#: The two kinds of problem: one score column and two classes, or K columns and K classes.
BINARY = "binary"
MULTICLASS = "multiclass"
#: Every score kind a candidate may accept (``None``: a binary score of unstated scale).
ANY_SCORE = ("proba", "logit", "margin", None)


class Candidate(NamedTuple):
    """One calibrator of the comparison.

    Attributes
    ----------
    name : str
        Its name in the results and in ``methods=``.
    problem : {"binary", "multiclass"}
        One score column (two classes) or K columns (K classes).
    build : callable
        ``build(score, classes)`` returns the unfitted calibrator (``fit(scores, y,
        sample_weight=None)``, ``predict_proba``, and ``predict_interval`` if it
        gives intervals) for the score kind (``"proba"``, ``"logit"``,
        ``"margin"``, or None for a binary score of unstated scale) and the classes.
    scores : tuple
        The score kinds it accepts.
    intervals : bool
        Whether it gives Venn-Abers intervals (``predict_interval``).
    about : str
        One line for the table of methods.
    """

    name: str
    problem: str
    build: Callable
    scores: tuple = ANY_SCORE
    intervals: bool = False
    about: str = ""


#: The ``score=`` a calibrator of "proba" | "logit" is given for each score kind (a margin
#: is a real score like a logit; a score of unstated scale leaves the class's default).
_SCORE_PARAM = {"proba": "proba", "logit": "logit", "margin": "logit", None: None}


def _construct(path: str, *, score: bool = False, **params) -> Callable:
    """A builder of the class at ``path`` (``classes=``, and ``score=`` when ``score``)."""

    def build(kind, classes):
        module, _, name = path.rpartition(".")
        cls = getattr(importlib.import_module(module), name)
        given = _SCORE_PARAM.get(kind, kind) if score else None
        return cls(classes=classes, **({"score": given} if given else {}), **params)

    return build


def _chain(first: Callable, then: Callable, fitting: str = "same", point: str = "then") -> Callable:
    """A builder of ``ChainedCalibrator(first, then)``: ``then`` runs on probabilities."""

    def build(kind, classes):
        from ..chain import ChainedCalibrator

        return ChainedCalibrator(first(kind, classes), then("proba", classes), fitting=fitting,
                                 point=point)

    return build


def _multiclass(wrapper: str, base: str, **params) -> Callable:
    """A builder of ``OneVsRestCalibrator`` / ``OneVsOneCalibrator`` over a registered method."""

    def build(kind, classes):
        from .. import multiclass
        from .._registry import method_class

        cls = getattr(multiclass, wrapper)
        return cls(method_class(base)(), score=kind, classes=classes, **params)

    return build


class Uncalibrated:
    """The scores themselves as probabilities: the reference row of a comparison.

    ``proba``: as given; ``logit``: the logistic function of a binary score,
    the softmax of K class scores.  ``fit`` only checks the labels' classes.
    """

    def __init__(self, score, classes):
        self.score = score
        self.classes = classes

    def fit(self, scores, y, sample_weight=None):
        return self

    def predict_proba(self, scores) -> np.ndarray:
        s = np.asarray(scores, dtype=np.float64)
        if s.ndim == 1:
            p = s if self.score == "proba" else _expit(s)
            return np.column_stack((1.0 - p, p))
        if self.score == "proba":
            return s
        z = s - s.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)


def _expit(s: np.ndarray) -> np.ndarray:
    from scipy.special import expit

    return expit(s)


def _uncalibrated(kind, classes):
    return Uncalibrated(kind, classes)


_PLATT = _construct("venncal.baselines.PlattCalibrator", score=True)
_BETA = _construct("venncal.parametric.BetaCalibrator", score=True)
_IVAP = _construct("venncal.venn_abers.VennAbersCalibrator")
_TEMP = _construct("venncal.parametric.TemperatureCalibrator", score=True)
_VECTOR = _construct("venncal.parametric.VectorScalingCalibrator", score=True)
_SMS = _construct("venncal.parametric.StructuredMatrixScalingCalibrator", score=True)
_OVR = _multiclass("OneVsRestCalibrator", "ivap")

#: What a guarded chain keeps (``point="clip"`` or ``"cap"``), said once in each of their lines.
_GUARD = {
    "clip": (" (the point prediction: the first stage's, moved to the nearest end of the "
             "interval where it lies outside; not itself a Venn-Abers prediction)"),
    "cap": (" (the point prediction: the first stage's, each class lowered to the upper end "
            "of its interval where it lies above, then renormalised; not itself a Venn-Abers "
            "prediction)"),
}


def _clipped(name: str, problem: str, first: Callable, then: Callable, about: str,
             point: str = "clip") -> Candidate:
    """A chain fitted on the same rows whose point prediction is ``point`` ("clip", "cap")."""
    return Candidate(name, problem, _chain(first, then, point=point), ("proba", "logit"),
                     intervals=True, about=about + _GUARD[point])


#: Every calibrator compared, in the order of the results.  ``uncalibrated`` is the
#: reference row (the scores read as probabilities: needs a score kind that says how).
CANDIDATES: tuple[Candidate, ...] = (
    Candidate("uncalibrated", BINARY, _uncalibrated, ("proba", "logit"),
              about="the scores themselves (proba), or their logistic function (logit)"),
    Candidate("platt", BINARY, _PLATT,
              about="Platt scaling: logistic regression on the score (on the log-odds of a "
                    "probability)"),
    Candidate("beta", BINARY, _BETA, ("proba", "logit"),
              about="Beta calibration, three parameters (abm)"),
    Candidate("quadratic-logistic", BINARY,
              _construct("venncal.parametric.QuadraticLogisticCalibrator", score=True),
              about="logistic regression on the log-odds and its square"),
    Candidate("isotonic", BINARY, _construct("venncal.baselines.IsotonicCalibrator"),
              about="isotonic regression"),
    Candidate("histogram", BINARY, _construct("venncal.baselines.HistogramBinningCalibrator"),
              about="histogram binning, 10 equal-count bins"),
    Candidate("bbq", BINARY, _construct("venncal.baselines.BBQCalibrator"),
              about="Bayesian binning into quantiles"),
    Candidate("enir", BINARY, _construct("venncal.enir.ENIRCalibrator"),
              about="ensemble of near-isotonic regressions"),
    Candidate("ivap", BINARY, _IVAP, intervals=True, about="inductive Venn-Abers predictor"),
    Candidate("cvap", BINARY, _construct("venncal.venn_abers.CrossVennAbersCalibrator"),
              intervals=True, about="cross Venn-Abers predictor: one inductive predictor per "
                                    "fold of the rows, merged (compare: 5 inner folds)"),
    _clipped("platt+ivap-clip", BINARY, _PLATT, _IVAP,
             "Platt scaling clipped into IVAP's interval [p0, p1] fitted on its "
             "probabilities"),
    _clipped("beta+ivap-clip", BINARY, _BETA, _IVAP,
             "Beta calibration clipped into IVAP's interval [p0, p1] fitted on its "
             "probabilities"),
    Candidate("uncalibrated", MULTICLASS, _uncalibrated, ("proba", "logit"),
              about="the scores themselves (proba), or their softmax (logit)"),
    Candidate("temperature", MULTICLASS, _TEMP, ("proba", "logit"), about="temperature scaling"),
    Candidate("vector-scaling", MULTICLASS, _VECTOR, ("proba", "logit"),
              about="vector scaling: a scale and an intercept per class"),
    Candidate("matrix-scaling", MULTICLASS,
              _construct("venncal.parametric.MatrixScalingCalibrator", score=True),
              ("proba", "logit"), about="matrix scaling with off-diagonal and intercept "
                                        "penalties (Dirichlet calibration on probabilities)"),
    Candidate("structured-matrix-scaling", MULTICLASS, _SMS, ("proba", "logit"),
              about="a shared scale plus a penalised matrix (ours)"),
    Candidate("ovr-platt", MULTICLASS, _multiclass("OneVsRestCalibrator", "platt"),
              about="one-vs-rest Platt scaling, renormalised"),
    Candidate("ovr-isotonic", MULTICLASS, _multiclass("OneVsRestCalibrator", "isotonic"),
              about="one-vs-rest isotonic regression, renormalised"),
    Candidate("ovr-ivap", MULTICLASS, _OVR, intervals=True,
              about="one-vs-rest inductive Venn-Abers, renormalised"),
    Candidate("ovo-ivap", MULTICLASS, _multiclass("OneVsOneCalibrator", "ivap"),
              intervals=True, about="one-vs-one inductive Venn-Abers, coupled (price)"),
    Candidate("temperature+ovr-ivap", MULTICLASS, _chain(_TEMP, _OVR), ("proba", "logit"),
              intervals=True,
              about="temperature scaling, then one-vs-rest Venn-Abers on its probabilities "
                    "(fitted on the same rows)"),
    _clipped("temperature+ovr-ivap-cap", MULTICLASS, _TEMP, _OVR,
             "temperature scaling capped by the one-vs-rest IVAP intervals fitted on its "
             "probabilities", "cap"),
    _clipped("vector-scaling+ovr-ivap-cap", MULTICLASS, _VECTOR, _OVR,
             "vector scaling capped by the one-vs-rest IVAP intervals fitted on its "
             "probabilities", "cap"),
    _clipped("structured-matrix-scaling+ovr-ivap-cap", MULTICLASS, _SMS, _OVR,
             "structured matrix scaling capped by the one-vs-rest IVAP intervals fitted on "
             "its probabilities", "cap"),
)


def candidates_for(problem: str, score, methods: Sequence[str] | None) -> list[Candidate]:
    """The candidates of ``methods`` (default: every applicable one) for a problem and score kind.

    Raises
    ------
    ValueError
        For a method that is not in :data:`CANDIDATES`, or not applicable here (saying why).
    """
    from ..tables import Param, ParameterError

    mine = [c for c in CANDIDATES if c.problem == problem]
    if methods is None:
        return [c for c in mine if score in c.scores]
    if isinstance(methods, str) or not len(methods):
        raise ParameterError(Param("methods"), " must be a non-empty list of method names; got "
                             f"{methods!r}")
    by_name = {c.name: c for c in mine}
    chosen = []
    for name in methods:
        if name not in by_name:
            raise ParameterError(
                Param("methods"), f" names {name!r}, which is not a method for {problem} "
                "scores; methods: " + ", ".join(by_name)
            )
        cand = by_name[name]
        if score not in cand.scores:
            raise ParameterError(
                Param("methods"), f" names {name!r}, which needs ", Param("score"),
                " " + " or ".join(repr(k) for k in cand.scores if k) + f"; got {score!r}"
            )
        if cand not in chosen:
            chosen.append(cand)
    return chosen


def fit_methods(problem: str) -> dict[str, str]:
    """Every method name ``venncal fit`` takes for a problem, each with its one line.

    The candidates of ``problem`` in table order, then the registered binary
    methods that are not among them: as they are (``"binary"``), or fitted
    once per class or per pair of classes (``"multiclass"``: one-vs-rest
    unless one-vs-one is asked for).

    Examples
    --------
    >>> list(fit_methods("multiclass"))[:3]
    ['uncalibrated', 'temperature', 'vector-scaling']
    >>> fit_methods("binary")["quantized-isotonic"][:8]
    'isotonic'
    """
    from .._registry import UNCOMPARED, available_methods

    out = {c.name: c.about for c in CANDIDATES if c.problem == problem}
    binary = {c.name: c.about for c in CANDIDATES if c.problem == BINARY}
    for method in available_methods():
        out.setdefault(method, binary.get(method) or UNCOMPARED[method])
    return out


def build_candidate(name: str, problem: str, score, classes=None, params=None):
    """The unfitted calibrator of candidate ``name``, as a comparison builds it, with ``params`` set.

    Parameters
    ----------
    name : str
        A name of :data:`CANDIDATES` for ``problem``.
    problem : {"binary", "multiclass"}
    score : {"proba", "logit", "margin"} or None
        The kind of the scores (:class:`Candidate`'s ``build``).
    classes : sequence, default=None
        The classes (of the K columns, in order), or None for the labels sorted.
    params : mapping, default=None
        Parameters set after building (:func:`set_named_params`).

    Raises
    ------
    ParameterError
        For a name that is not a candidate of ``problem``, or not for ``score``.
    ValueError
        For a parameter the calibrator does not have.

    Examples
    --------
    >>> build_candidate("matrix-scaling", "multiclass", "logit",
    ...                 params={"l2_off_diagonal": "cv"}).l2_off_diagonal
    'cv'
    """
    (candidate,) = candidates_for(problem, score, [name])
    return set_named_params(candidate.build(score, classes), params or {}, name)


#: Parameters that the problem sets (``score=``: the kind of the scores; ``classes=``) and the
#: stages of a wrapper or chain: not set by name.
_FIXED = ("score", "classes", "base", "first", "then")


def set_named_params(calibrator, params, name: str):
    """Set ``params`` on ``calibrator`` (returned): each by its name, or inside a stage.

    A key the calibrator has is set as it is; a key it does not have is set
    on the one stage that has it (``merge`` of a one-vs-rest Venn-Abers
    calibrator is its base's ``base__merge``).  The score kind, the classes
    and the stages are not parameters here.

    Raises
    ------
    ValueError
        For a key no stage has, or several do (listing them), or a fixed one.

    Examples
    --------
    >>> from venncal.multiclass import OneVsRestCalibrator
    >>> from venncal import VennAbersCalibrator
    >>> m = set_named_params(OneVsRestCalibrator(VennAbersCalibrator()), {"merge": "brier"}, "x")
    >>> m.base.merge
    'brier'
    """
    known = [k for k in calibrator.get_params(deep=True) if k.rpartition("__")[2] not in _FIXED]
    resolved = {}
    for key, value in dict(params).items():
        if key.rpartition("__")[2] in _FIXED:
            raise ValueError(f"{key!r} of {name} is not set by name: the score kind and the "
                             "classes are the data's, the stages the method's")
        where = [key] if key in known else [k for k in known if k.endswith("__" + key)]
        if len(where) != 1:
            what = (f"{key!r} in several stages ({', '.join(where)}): name one" if where else
                    f"no parameter {key!r}")
            raise ValueError(f"{type(calibrator).__name__} ({name}) has {what}; its parameters: "
                             + (", ".join(known) or "none"))
        resolved[where[0]] = value
    return calibrator.set_params(**resolved)


def score_params(name: str, problem: str, score) -> dict:
    """The parameters a candidate's builder sets from the score kind, beyond its class's defaults.

    What a binary method fitted outside a comparison needs to be the
    candidate compared on scores of kind ``score`` (``venncal fit --param``).

    Examples
    --------
    >>> score_params("platt", "binary", "proba"), score_params("platt", "binary", "logit")
    ({'score': 'proba'}, {})
    """
    (candidate,) = candidates_for(problem, score, [name])
    given = candidate.build(score, None).get_params(deep=False)
    default = candidate.build(None, None).get_params(deep=False)
    # A chain's stages are calibrators (the score kind is its first stage's): not parameters.
    return {k: v for k, v in given.items()
            if not hasattr(v, "get_params") and default.get(k) != v}
