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
    scoreCols = Param(
        Params._dummy(), "scoreCols",
        "the K class-score columns of a model of K classes, in the order of its classes "
        "(instead of scoreCol)",
        typeConverter=TypeConverters.toListString,
    )
    scoreKind = Param(
        Params._dummy(), "scoreKind", "what scoreCols hold: 'proba' or 'logit' (or 'margin')",
        typeConverter=TypeConverters.toString,
    )
    multiclass = Param(
        Params._dummy(), "multiclass",
        "with scoreCols, how a binary method covers K classes: 'ovr' (one per class, default) "
        "or 'ovo' (one per pair)",
        typeConverter=TypeConverters.toString,
    )
    coupling = Param(
        Params._dummy(), "coupling", "how multiclass='ovo' combines the pairs (venncal's names)",
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

    def _score_columns(self):
        """Return ``scoreCols`` (a list, K classes) when set, else ``scoreCol`` (two classes)."""
        cols = self._value(self.scoreCols)
        return list(cols) if cols is not None else self.getOrDefault(self.scoreCol)


class SparkCalibrator(Estimator, _CalibrationParams, DefaultParamsReadable, DefaultParamsWritable):
    """Spark ML estimator: fit a venncal calibrator on a score column.

    Parameters
    ----------
    scoreCol : str, default="score"
    scoreCols : list of str, optional
        For K classes: the class-score columns, in the order of the classes
        (``calibratorParams={"classes": [...]}`` names them; default the
        labels sorted).  ``method`` is then a name ``venncal fit --method``
        takes with ``--score-cols`` (``"ivap"``, ``"ovr-ivap"``,
        ``"ovo-ivap"``, ``"platt"``, ...) among those fitted from score
        summaries (one-vs-rest and one-vs-one; the parametric K-class
        calibrators are refused), as :func:`venncal.files.calibrator_for`
        builds it.
    scoreKind : {"proba", "logit", "margin"}, optional
        What ``scoreCols`` hold; required with them.
    multiclass : {"ovr", "ovo"}, optional
        With ``scoreCols`` and a binary method: one calibrator per class
        (default) or per pair.
    coupling : str, optional
        How ``multiclass="ovo"`` combines the pairs.
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
        The output columns; with ``scoreCols``, their prefixes
        (``p_<class>``, and ``p0_<unit>``, ``p1_<unit>`` from a Venn-Abers
        base), as for :func:`venncal.spark.transform`.
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
        scoreCols=None, scoreKind=None, multiclass=None, coupling=None,
    ) -> None:
        super().__init__()
        self._set(**{k: v for k, v in self._input_kwargs.items() if v is not None})

    def _fit(self, dataset) -> SparkCalibratorModel:
        params = dict(self.getOrDefault(self.calibratorParams) or {})
        method = self.getOrDefault(self.method)
        if self._value(self.scoreCols) is not None:
            method, params = self._class_scores_calibrator(method, params), {}
        else:
            for name in ("scoreKind", "multiclass", "coupling"):
                if self._value(getattr(self, name)) is not None:
                    one = self.getOrDefault(self.scoreCol)
                    raise ValueError(f"{name} goes with scoreCols (K class-score columns); "
                                     f"this estimator has scoreCol={one!r}")
        calibrator = fit(
            dataset,
            method,
            score_col=self._score_columns(),
            label_col=self.getOrDefault(self.labelCol),
            weight_col=self._value(self.weightCol),
            by=self._value(self.foldCol),
            round_scores=self._value(self.roundScores),
            max_distinct=self.getOrDefault(self.maxDistinct),
            **params,
        )
        return self._copyValues(SparkCalibratorModel(calibrator))

    def _class_scores_calibrator(self, method: str, params: dict):
        """The unfitted calibrator of K class-score columns that ``method`` names."""
        from ..files import calibrator_for

        kind = self._value(self.scoreKind)
        if kind is None:
            raise ValueError("scoreCols needs scoreKind: 'proba' (probabilities summing to 1) "
                             "or 'logit' (the model's class logits)")
        if self._value(self.coupling) is not None and self._value(self.multiclass) != "ovo":
            raise ValueError("coupling combines the pairs of multiclass='ovo'; set "
                             "multiclass='ovo' or leave coupling out")
        classes = params.pop("classes", None)
        return calibrator_for(method, "multiclass", score=kind, params=params or None,
                              by=self._value(self.foldCol), multiclass=self._value(self.multiclass),
                              coupling=self._value(self.coupling), classes=classes)


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
            dataset, self.calibrator, self._score_columns(),
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
        # Spark wrote this text itself and read it whole already: no size bound
        instance.calibrator = persist.load(io.StringIO(row[0]), max_bytes=None)
        return instance
