"""A Spark ML ``Estimator``/``Model`` pair over :func:`venncal.spark.fit` and ``transform``.

Saved models hold Spark's usual parameter metadata and, in the
``calibrator`` directory, the fitted calibrator as a venncal JSON document
(:mod:`venncal.persist`; ``docs/model-format.md``), written and read by
Spark, so any file system Spark reaches will do.

Spark's metadata names the class by its ``__module__``, and a reader
imports that path, so both classes say they belong to the public
:mod:`venncal.spark` (which every venncal with Spark ML support provides):
a saved model does not depend on where the class is defined.  Models saved
while it was ``venncal._spark_ml`` load through that compatibility module.
"""

from __future__ import annotations

import io

from pyspark import keyword_only
from pyspark.ml import Estimator, Model
from pyspark.ml.param import Param, Params, TypeConverters
from pyspark.ml.param.shared import HasLabelCol, HasOutputCols, HasWeightCol
from pyspark.ml.util import (
    DefaultParamsReadable,
    DefaultParamsReader,
    DefaultParamsWritable,
    DefaultParamsWriter,
    MLReadable,
    MLWritable,
)

from .. import persist
from .._engine import DEFAULT_MAX_DISTINCT
from ._fit import fit
from ._transform import transform

__all__ = ["SparkCalibrator", "SparkCalibratorModel"]


class _CalibrationParams(HasLabelCol, HasWeightCol, HasOutputCols):
    """Parameters shared by :class:`SparkCalibrator` and :class:`SparkCalibratorModel`."""

    scoreCol = Param(
        Params._dummy(), "scoreCol", "column of the classifier's scores",
        typeConverter=TypeConverters.toString,
    )
    foldCol = Param(
        Params._dummy(), "foldCol", "column of each row's fold (for method 'cvap')",
        typeConverter=TypeConverters.toString,
    )
    method = Param(
        Params._dummy(), "method", "venncal calibration method ('ivap', 'cvap', 'isotonic', ...)",
        typeConverter=TypeConverters.toString,
    )
    calibratorParams = Param(
        Params._dummy(), "calibratorParams", "parameters of the calibrator (a JSON-able dict)",
    )
    roundScores = Param(
        Params._dummy(), "roundScores",
        "round the scores to this many decimals first (numpy's rule, as venncal.spark.fit)",
        typeConverter=TypeConverters.toInt,
    )
    maxDistinct = Param(
        Params._dummy(), "maxDistinct", "most distinct scores brought to the driver",
        typeConverter=TypeConverters.toInt,
    )
    nanScores = Param(
        Params._dummy(), "nanScores",
        "a missing (null or NaN) score when scoring: 'error' or 'propagate' (null outputs)",
        typeConverter=TypeConverters.toString,
    )

    def __init__(self) -> None:
        super().__init__()
        self._setDefault(
            scoreCol="score", labelCol="label", method="ivap", calibratorParams={},
            maxDistinct=DEFAULT_MAX_DISTINCT, outputCols=["p", "p0", "p1"],
            nanScores="error",
        )

    def _value(self, param: Param):
        """Return the value of ``param``, or None when it is neither set nor defaulted."""
        return self.getOrDefault(param) if self.isDefined(param) else None


class SparkCalibrator(Estimator, _CalibrationParams, DefaultParamsReadable, DefaultParamsWritable):
    """Spark ML estimator: fit a venncal calibrator on a score column.

    Parameters
    ----------
    scoreCol : str, default="score"
    labelCol : str, default="label"
    weightCol : str, optional
    foldCol : str, optional
        The fold of each row, for ``method="cvap"``.
    method : str, default="ivap"
        A registered venncal method.
    calibratorParams : dict, default={}
        Parameters of the calibrator, e.g. ``{"classes": ["no", "yes"]}``.
    roundScores, maxDistinct : int, optional
        As ``round_scores`` and ``max_distinct`` of :func:`venncal.spark.fit`.
    outputCols : list of str, default=["p", "p0", "p1"]
    nanScores : {"error", "propagate"}, default="error"
        As ``nan_scores`` of :func:`venncal.spark.transform`, for the model.

    Examples
    --------
    >>> from pyspark.ml import Pipeline
    >>> from venncal.spark import SparkCalibrator
    >>> df = spark.createDataFrame([(0.1, 0), (0.4, 0), (0.35, 1), (0.8, 1)], ["score", "label"])
    >>> model = Pipeline(stages=[SparkCalibrator(method="ivap")]).fit(df)
    >>> model.stages[0].calibrator.predict_interval([0.5]).round(4)
    array([[0.3333, 1.    ]])
    >>> model.transform(df).columns
    ['score', 'label', 'p', 'p0', 'p1']
    """

    __module__ = "venncal.spark"  # the class path that saved models record (module notes)

    @keyword_only
    def __init__(
        self, *, scoreCol="score", labelCol="label", weightCol=None, foldCol=None,
        method="ivap", calibratorParams=None, roundScores=None,
        maxDistinct=DEFAULT_MAX_DISTINCT, outputCols=None, nanScores=None,
    ) -> None:
        super().__init__()
        self._set(**{k: v for k, v in self._input_kwargs.items() if v is not None})

    def _fit(self, dataset) -> SparkCalibratorModel:
        calibrator = fit(
            dataset,
            self.getOrDefault(self.method),
            score_col=self.getOrDefault(self.scoreCol),
            label_col=self.getOrDefault(self.labelCol),
            weight_col=self._value(self.weightCol),
            by=self._value(self.foldCol),
            round_scores=self._value(self.roundScores),
            max_distinct=self.getOrDefault(self.maxDistinct),
            **dict(self.getOrDefault(self.calibratorParams) or {}),
        )
        return self._copyValues(SparkCalibratorModel(calibrator))


class SparkCalibratorModel(Model, _CalibrationParams, MLReadable, MLWritable):
    """Spark ML model: a fitted venncal calibrator applied to the score column.

    ``calibrator`` is the fitted score-level calibrator; ``transform`` adds
    ``outputCols`` as :func:`venncal.spark.transform` does.  ``save`` and
    ``load`` keep it in venncal's JSON model format, so it reloads bit for
    bit, also as a stage of a saved ``PipelineModel``.
    """

    __module__ = "venncal.spark"  # the class path that saved models record (module notes)

    def __init__(self, calibrator=None) -> None:
        super().__init__()
        self.calibrator = calibrator

    def _transform(self, dataset):
        return transform(
            dataset, self.calibrator, self.getOrDefault(self.scoreCol),
            self.getOrDefault(self.outputCols), nan_scores=self.getOrDefault(self.nanScores),
        )

    def write(self) -> _ModelWriter:
        """Return a writer that saves the parameters and the calibrator."""
        return _ModelWriter(self)

    @classmethod
    def read(cls) -> _ModelReader:
        """Return a reader of models saved by :meth:`write`."""
        return _ModelReader(cls)


class _ModelWriter(DefaultParamsWriter):
    def saveImpl(self, path: str) -> None:
        super().saveImpl(path)
        text = io.StringIO()
        persist.save(self.instance.calibrator, text)
        frame = self.sparkSession.createDataFrame([(text.getvalue(),)], "value string")
        frame.coalesce(1).write.text(f"{path}/calibrator")


class _ModelReader(DefaultParamsReader):
    def load(self, path: str) -> SparkCalibratorModel:
        instance = super().load(path)
        row = self.sparkSession.read.text(f"{path}/calibrator", wholetext=True).first()
        instance.calibrator = persist.load(io.StringIO(row[0]))
        return instance
