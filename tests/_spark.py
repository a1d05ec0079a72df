"""The local Spark session the Spark test modules share (one definition for all of them)."""

import os
import sys


def local_session():
    """Yield a ``local[2]`` session for a module's tests; stop it at the end if this made it.

    Tiny jobs in a short-lived JVM: the quick (C1) JIT alone starts and warms up faster.
    """
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ.setdefault(
        "PYSPARK_SUBMIT_ARGS", "--driver-java-options=-XX:TieredStopAtLevel=1 pyspark-shell"
    )
    before = SparkSession.getActiveSession()
    session = (
        SparkSession.builder.master("local[2]")
        .appName("venncal-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.default.parallelism", "2")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    if before is None:  # a session another module made stops at that module's end
        session.stop()
