"""Where the Spark ML pair lived until it moved into :mod:`venncal.spark`; kept for saved models.

A Spark ML model saved then names its class ``venncal._spark_ml.SparkCalibratorModel``
in its metadata, and pyspark's reader imports that path: this module
re-exports both classes so that such models still load.  Models saved now
name ``venncal.spark.SparkCalibratorModel``.
"""

from .spark._ml import SparkCalibrator, SparkCalibratorModel

__all__ = ["SparkCalibrator", "SparkCalibratorModel"]
