"""Names of the score-level calibrators, resolved lazily to their classes.

Two names lead to each calibrator: the short *method* name used on the command
line (``"ivap"``), and the public dotted *class path* written in saved models
(``"venncal.venn_abers.VennAbersCalibrator"``).  A *wrapper* (a calibrator of
calibrators, such as :class:`~venncal.NegatedScoreCalibrator`) has a class path,
so that it saves and loads, but no method name of its own.  Classes are imported only
when asked for, so a calibrator whose module is not installed (or not written
yet) makes only its own names fail, with a message saying which module is
missing.  Saved models are loaded only through this table: a model file can
never make venncal import anything else.
"""

from __future__ import annotations

import importlib

__all__ = [
    "CALIBRATORS",
    "CLASS_SCORE_CALIBRATORS",
    "UNCOMPARED",
    "WRAPPERS",
    "available_methods",
    "calibrator_class",
    "class_path",
    "method_class",
    "method_of",
]

#: Method name -> public dotted path of the class (module path + class name).
CALIBRATORS: dict[str, str] = {
    "ivap": "venncal.venn_abers.VennAbersCalibrator",
    "cvap": "venncal.venn_abers.CrossVennAbersCalibrator",
    "platt": "venncal.baselines.PlattCalibrator",
    "isotonic": "venncal.baselines.IsotonicCalibrator",
    "histogram": "venncal.baselines.HistogramBinningCalibrator",
    "bbq": "venncal.baselines.BBQCalibrator",
    "enir": "venncal.enir.ENIRCalibrator",
    "quantized-isotonic": "venncal.baselines.QuantizedIsotonicCalibrator",
    "beta": "venncal.parametric.BetaCalibrator",
    "quadratic-logistic": "venncal.parametric.QuadraticLogisticCalibrator",
}

#: The one line of each method that :data:`venncal.comparison.CANDIDATES` does not compare
#: (the others have theirs there): ``venncal fit --help`` lists every method with one.
UNCOMPARED: dict[str, str] = {
    "quantized-isotonic": "isotonic regression with values restricted to a set of levels "
                          "(parameter levels: a count or a list)",
}

#: Public dotted paths of the wrappers: saved and loaded like the calibrators,
#: around a registered calibrator, but not methods themselves.
WRAPPERS: tuple[str, ...] = (
    "venncal.negated.NegatedScoreCalibrator",
    "venncal.multiclass.OneVsRestCalibrator",
    "venncal.multiclass.OneVsOneCalibrator",
    "venncal.chain.ChainedCalibrator",
)


#: Public dotted paths of the calibrators of K class scores that are not a
#: binary method (no method name): saved and loaded like the calibrators.
CLASS_SCORE_CALIBRATORS: tuple[str, ...] = (
    "venncal.parametric.TemperatureCalibrator",
    "venncal.parametric.VectorScalingCalibrator",
    "venncal.parametric.MatrixScalingCalibrator",
    "venncal.parametric.StructuredMatrixScalingCalibrator",
)


def _saved_paths() -> tuple[str, ...]:
    """Every class path a saved model may name: the calibrators', the wrappers', the K-class ones."""
    return (*CALIBRATORS.values(), *WRAPPERS, *CLASS_SCORE_CALIBRATORS)


def _import(path: str) -> type:
    module_name, _, name = path.rpartition(".")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        # Only a missing venncal module (or one of its parents) is "not
        # available"; a missing third-party dependency inside it is reported
        # as such.
        missing = exc.name or ""
        if missing and module_name.startswith(missing):
            raise ImportError(
                f"calibrator class {path} is not available: module {module_name} "
                "is not part of this installation of venncal"
            ) from exc
        raise
    try:
        return getattr(module, name)
    except AttributeError:
        raise ImportError(
            f"calibrator class {path} is not available: module {module_name} "
            f"has no attribute {name!r}"
        ) from None


def available_methods() -> tuple[str, ...]:
    """Return every registered method name, in registry order.

    Examples
    --------
    >>> available_methods()[:2]
    ('ivap', 'cvap')
    """
    return tuple(CALIBRATORS)


def method_class(method: str) -> type:
    """Return the calibrator class registered under a method name.

    Parameters
    ----------
    method : str
        A method name such as ``"ivap"`` (see :func:`available_methods`).

    Raises
    ------
    ValueError
        For an unknown name; the message lists the known ones.
    ImportError
        If the class's module is not available; the message names it.

    Examples
    --------
    >>> method_class("ivap") is calibrator_class("venncal.venn_abers.VennAbersCalibrator")
    True
    """
    try:
        path = CALIBRATORS[method]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown calibration method {method!r}; available methods: " + ", ".join(CALIBRATORS)
        ) from None
    return _import(path)


def calibrator_class(path: str) -> type:
    """Return the class named by a dotted class path from a saved model.

    Only paths in :data:`CALIBRATORS`, :data:`WRAPPERS` and
    :data:`CLASS_SCORE_CALIBRATORS` are accepted.

    Raises
    ------
    ValueError
        For a path that is not registered; the message lists the known ones.
    ImportError
        If the class's module is not available; the message names it.

    Examples
    --------
    A saved model cannot name any other class (nothing is imported):

    >>> calibrator_class("os.system")
    Traceback (most recent call last):
    ...
    ValueError: unknown calibrator class 'os.system'; known classes: venncal.venn_abers...
    """
    if path not in _saved_paths():
        raise ValueError(
            f"unknown calibrator class {path!r}; known classes: " + ", ".join(_saved_paths())
        )
    return _import(path)


def class_path(cls: type) -> str:
    """Return the registered dotted path of a calibrator class.

    Raises
    ------
    TypeError
        If ``cls`` (exactly; not a subclass) is not registered.

    Examples
    --------
    >>> from venncal import VennAbersCalibrator
    >>> class_path(VennAbersCalibrator)
    'venncal.venn_abers.VennAbersCalibrator'
    """
    for path in _saved_paths():
        if path.rpartition(".")[2] != cls.__name__:
            continue
        try:
            if _import(path) is cls:
                return path
        except ImportError:
            continue
    raise TypeError(
        f"{cls.__module__}.{cls.__qualname__} is not a registered venncal calibrator; "
        "registered classes: " + ", ".join(_saved_paths())
    )


def method_of(cls: type) -> str:
    """Return the method name of a registered calibrator class.

    Raises
    ------
    TypeError
        If ``cls`` is not registered, or is a wrapper (which has no method name).

    Examples
    --------
    >>> from venncal import VennAbersCalibrator
    >>> method_of(VennAbersCalibrator)
    'ivap'
    """
    path = class_path(cls)
    for method, registered in CALIBRATORS.items():
        if registered == path:
            return method
    raise TypeError(f"{path} wraps a calibrator and has no method name of its own")
