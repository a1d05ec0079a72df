"""venncal: exact, fast probability calibration for binary classifiers.

The score-level calibrators (:mod:`venncal.venn_abers`, :mod:`venncal.baselines`)
fit on scores and labels (no model inside); the estimator wrappers
(:mod:`venncal.estimators`) are scikit-learn classifiers around any base
estimator.

Names are imported on first use (PEP 562), so ``import venncal`` and the
command line's ``--help`` stay fast: scikit-learn, scipy and numba load only
when a calibrator is asked for.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._version import __version__

#: Public name -> the module that defines it.
_EXPORTS = {
    "BBQCalibrator": "venncal.baselines",
    "HistogramBinningCalibrator": "venncal.baselines",
    "IsotonicCalibrator": "venncal.baselines",
    "PlattCalibrator": "venncal.baselines",
    "QuantizedIsotonicCalibrator": "venncal.baselines",
    "ENIRCalibrator": "venncal.enir",
    "near_isotonic_path": "venncal.enir",
    "CalibratedClassifier": "venncal.estimators",
    "FullVennAbersClassifier": "venncal.estimators",
    "VennAbersClassifier": "venncal.estimators",
    "CrossVennAbersCalibrator": "venncal.venn_abers",
    "VennAbersCalibrator": "venncal.venn_abers",
    "brier_minimax": "venncal.venn_abers",
    "log_minimax": "venncal.venn_abers",
    "merge_folds": "venncal.venn_abers",
    "ScoreSummary": "venncal.summary",
    "NegatedScoreCalibrator": "venncal.negated",
    "ChainedCalibrator": "venncal.chain",
    "OneVsOneCalibrator": "venncal.multiclass",
    "OneVsRestCalibrator": "venncal.multiclass",
    "TemperatureCalibrator": "venncal.parametric",
    "BetaCalibrator": "venncal.parametric",
    "QuadraticLogisticCalibrator": "venncal.parametric",
    "VectorScalingCalibrator": "venncal.parametric",
    "MatrixScalingCalibrator": "venncal.parametric",
    "StructuredMatrixScalingCalibrator": "venncal.parametric",
    "WeightScaleWarning": "venncal._validation",
    "compare": "venncal.comparison",
    "load": "venncal.persist",
    "save": "venncal.persist",
}

#: Subpackages reachable as attributes of ``venncal`` without an import of their own.
_SUBMODULES = (
    "baselines", "chain", "enir", "estimators", "metrics", "multiclass", "parametric", "persist",
    "plotting", "venn_abers",
)

__all__ = [
    "BBQCalibrator",
    "BetaCalibrator",
    "CalibratedClassifier",
    "ChainedCalibrator",
    "CrossVennAbersCalibrator",
    "ENIRCalibrator",
    "FullVennAbersClassifier",
    "HistogramBinningCalibrator",
    "IsotonicCalibrator",
    "MatrixScalingCalibrator",
    "NegatedScoreCalibrator",
    "OneVsOneCalibrator",
    "OneVsRestCalibrator",
    "PlattCalibrator",
    "QuadraticLogisticCalibrator",
    "QuantizedIsotonicCalibrator",
    "ScoreSummary",
    "StructuredMatrixScalingCalibrator",
    "TemperatureCalibrator",
    "VectorScalingCalibrator",
    "VennAbersCalibrator",
    "VennAbersClassifier",
    "WeightScaleWarning",
    "__version__",
    "brier_minimax",
    "compare",
    "load",
    "log_minimax",
    "merge_folds",
    "near_isotonic_path",
    "persist",
    "save",
]


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"venncal.{name}")
    else:
        raise AttributeError(f"module 'venncal' has no attribute {name!r}")
    globals()[name] = value  # the next access is a plain attribute lookup
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS, *_SUBMODULES})


if TYPE_CHECKING:  # for type checkers and IDEs; never executed
    from . import persist
    from ._validation import WeightScaleWarning
    from .baselines import (
        BBQCalibrator,
        HistogramBinningCalibrator,
        IsotonicCalibrator,
        PlattCalibrator,
        QuantizedIsotonicCalibrator,
    )
    from .chain import ChainedCalibrator
    from .comparison import compare
    from .enir import ENIRCalibrator, near_isotonic_path
    from .estimators import CalibratedClassifier, FullVennAbersClassifier, VennAbersClassifier
    from .multiclass import OneVsOneCalibrator, OneVsRestCalibrator
    from .negated import NegatedScoreCalibrator
    from .parametric import (
        BetaCalibrator,
        MatrixScalingCalibrator,
        QuadraticLogisticCalibrator,
        StructuredMatrixScalingCalibrator,
        TemperatureCalibrator,
        VectorScalingCalibrator,
    )
    from .persist import load, save
    from .summary import ScoreSummary
    from .venn_abers import (
        CrossVennAbersCalibrator,
        VennAbersCalibrator,
        brier_minimax,
        log_minimax,
        merge_folds,
    )
