"""Calibration beyond one machine: venncal on Spark and Dask beside Spark MLlib and one process.

Spark (``local[2]``, one session for everything), for each size n (default
1e6 and 1e7 rows; scores ``round(U[0, 1], 6)``, so about 1e6 distinct, and
labels ``y ~ Bernoulli(score)``), on one cached DataFrame:

- ``venncal.spark.fit(df, "ivap")``: summarise on the executors + fit IVAP
  on the driver;
- Spark MLlib ``IsotonicRegression().fit`` on the same DataFrame;
- scoring through Spark's ``noop`` writer (``count()`` would let Spark skip
  the scoring): ``venncal.spark.transform`` with ``method="lookup"`` (JVM
  cell + short search in the run table) and ``method="udf"`` (pandas UDF),
  beside MLlib's ``IsotonicRegressionModel.transform``, each called once
  (the first call: it compiles the plan's generated code) and then
  ``--repeats`` times (default 3): the tables show the median of the
  repeats, the ratios the first call too;
- single-process venncal on the same rows as numpy arrays (fit,
  ``predict_interval``), for reference;

then, at the largest size, the same with 2, 8 and 32 partitions.

Dask (``LocalCluster(n_workers=2, threads_per_worker=1, processes=True)``):
the rows are written as Parquet files, partition by partition, to a
temporary folder (so that no process ever holds all of them), then
``venncal.dask.fit(df, "ivap")`` and ``venncal.dask.transform(...).to_parquet``
are timed, and each worker's peak resident memory (``ru_maxrss``) is read
with ``client.run``.  Sizes 1e6 and 1e7 by default; ``--dask-max 1e8`` adds 1e8.

This is a script, not a test::

    python benchmarks/bench_scale.py --save                    # the full run (~15 min idle)
    python benchmarks/bench_scale.py --save --dask-max 1e8     # with 1e8 rows on Dask
    python benchmarks/bench_scale.py --quick                   # 1e5 rows, about a minute
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

from _harness import add_sizes, load_average, log, machine_lines, measure, save_report, time_once

warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")


def rate(n, seconds):
    return f"{n / seconds / 1e6:,.2f} M"


# -- Spark -------------------------------------------------------------------

def spark_session(driver_memory):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[2]").appName("venncal-bench-scale")
        .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", driver_memory).getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def spark_frame(spark, n, partitions, seed=0):
    from pyspark.sql import functions as F

    score = F.round(F.rand(seed), 6)
    df = spark.range(n, numPartitions=partitions).select(score.alias("score"))
    df = df.withColumn("label", (F.rand(seed + 1) < F.col("score")).cast("double")).cache()
    df.count()
    return df


def noop(df):
    df.write.format("noop").mode("overwrite").save()


def clock_repeats(fn, repeats):
    """Time ``fn`` once, then ``repeats`` times; return ``(first, median of the repeats)``."""
    t = measure(fn, repeats=repeats)
    return t.first, t.median


def spark_run(spark, n, partitions, single_process, repeats):
    from pyspark.ml.regression import IsotonicRegression

    import venncal.spark as vs

    df = spark_frame(spark, n, partitions)
    row = {"n": n, "partitions": partitions}
    row["venncal fit"], cal = time_once(
        lambda: vs.fit(df, "ivap", score_col="score", label_col="label"))
    row["distinct"] = cal.scores_.shape[0]
    iso = IsotonicRegression(featuresCol="score", labelCol="label")
    row["MLlib fit"], model = time_once(lambda: iso.fit(df))
    # Scoring: the first call of a session compiles and loads the plan's
    # generated code; the median of `repeats` calls is the steady state.
    for method in ("lookup", "udf"):
        row[f"first transform ({method})"], row[f"venncal transform ({method})"] = clock_repeats(
            lambda m=method: noop(vs.transform(df, cal, "score", method=m)), repeats)
    row["first transform (MLlib)"], row["MLlib transform"] = clock_repeats(
        lambda: noop(model.transform(df)), repeats)
    if single_process:
        from venncal import VennAbersCalibrator

        table = df.toArrow()
        s = table.column("score").to_numpy()
        y = table.column("label").to_numpy()
        row["numpy fit"], local = time_once(lambda: VennAbersCalibrator().fit(s, y))
        row["numpy predict"], _ = time_once(lambda: local.predict_interval(s))
        same = np.array_equal(local.p0_, cal.p0_) and np.array_equal(local.p1_, cal.p1_)
        row["same model"] = "yes" if same else "NO"
    df.unpersist()
    return row


# -- Dask --------------------------------------------------------------------

def write_parquet(folder, n, rows_per_file, seed=0):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True)
    files = max(2, -(-n // rows_per_file))
    edges = np.linspace(0, n, files + 1).astype(np.int64)
    for i in range(files):
        rng = np.random.default_rng([seed, i])
        m = int(edges[i + 1] - edges[i])
        s = rng.random(m).round(6)
        y = (rng.random(m) < s).astype(np.int8)
        pq.write_table(pa.table({"score": s, "label": y}), folder / f"part-{i:05d}.parquet")
    return files, int(edges[1] - edges[0])


def dask_run(client, n, rows_per_file, tmp):
    import dask.dataframe as dd

    import venncal.dask as vd

    folder = Path(tmp) / f"in-{n}"
    _, per_file = write_parquet(folder, n, rows_per_file)
    df = dd.read_parquet(str(folder))
    row = {"n": n, "partitions": df.npartitions, "rows per partition": per_file}
    client.run(_reset_peak)  # a fresh peak memory per size
    row["venncal fit"], cal = time_once(
        lambda: vd.fit(df, "ivap", score_col="score", label_col="label"))
    row["distinct"] = cal.scores_.shape[0]
    row["peak RSS after fit (MB)"] = worker_peaks(client)
    client.run(_reset_peak)
    out = Path(tmp) / f"out-{n}"
    row["venncal transform"], _ = time_once(
        lambda: vd.transform(df, cal, "score").to_parquet(str(out), write_index=False))
    row["peak RSS during transform (MB)"] = worker_peaks(client)
    subprocess.run(["rm", "-rf", str(folder), str(out)], check=True)
    return row


def _reset_peak():
    """Reset this process's peak resident set size (Linux: ``clear_refs`` 5)."""
    Path("/proc/self/clear_refs").write_text("5")


def _peak_rss_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024  # kB
    return float("nan")


def worker_peaks(client):
    peaks = client.run(_peak_rss_mb)
    return " / ".join(f"{v:,.0f}" for v in peaks.values())


# -- report --------------------------------------------------------------------

def java_version():
    try:
        out = subprocess.run(["java", "-version"], check=False, capture_output=True, text=True)
    except OSError:
        return "java: not found"
    return (out.stderr.splitlines() or ["java: ?"])[0]


def table(rows, columns):
    lines = ["| " + " | ".join(columns) + " |", "|" + "---:|" * len(columns)]
    for row in rows:
        cells = []
        for c in columns:
            v = row.get(c, "")
            cells.append(f"{v:,.2f}" if isinstance(v, float) else
                         f"{v:,}" if isinstance(v, int) else str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def spark_report(rows):
    timed = ["venncal fit", "MLlib fit", "venncal transform (lookup)", "venncal transform (udf)",
             "MLlib transform", "numpy fit", "numpy predict"]
    cols = ["n", "partitions", "distinct", *[f"{c} (s)" for c in timed], "same model"]
    out = [{**r, **{f"{c} (s)": r[c] for c in timed if c in r}} for r in rows]
    rates = [{"n": r["n"], "partitions": r["partitions"],
              **{f"{c} (rows/s)": rate(r["n"], r[c]) for c in timed if c in r}} for r in rows]
    text = [table(out, cols), "", "Rows per second (wall clock):", "",
            table(rates, ["n", "partitions", *[f"{c} (rows/s)" for c in timed]])]
    text += ["", ("Ratios (targets of issue 14: fit >= 2x faster than MLlib's fit; scoring "
                  "within 2x of MLlib's transform):"), ""]
    for r in rows:
        best = min(r["venncal transform (lookup)"], r["venncal transform (udf)"])
        text.append(
            f"- n = {r['n']:.0e}, {r['partitions']} partitions: MLlib fit / venncal fit = "
            f"{r['MLlib fit'] / r['venncal fit']:.2f}x; venncal transform (lookup) / MLlib "
            f"transform = {r['venncal transform (lookup)'] / r['MLlib transform']:.2f}x, (udf) / "
            f"MLlib = {r['venncal transform (udf)'] / r['MLlib transform']:.2f}x, best / MLlib = "
            f"{best / r['MLlib transform']:.2f}x (medians); first calls: lookup "
            f"{r['first transform (lookup)']:.2f} s / MLlib {r['first transform (MLlib)']:.2f} s = "
            f"{r['first transform (lookup)'] / r['first transform (MLlib)']:.2f}x")
    return "\n".join(text)


def dask_report(rows):
    cols = ["n", "partitions", "rows per partition", "distinct", "venncal fit (s)",
            "fit rows/s", "venncal transform (s)", "transform rows/s",
            "peak RSS after fit (MB)", "peak RSS during transform (MB)"]
    out = [{**r, "venncal fit (s)": r["venncal fit"], "fit rows/s": rate(r["n"], r["venncal fit"]),
            "venncal transform (s)": r["venncal transform"],
            "transform rows/s": rate(r["n"], r["venncal transform"])} for r in rows]
    return table(out, cols)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_sizes(parser, (10**6, 10**7), help="Spark sizes (rows)")
    add_sizes(parser, (2, 8, 32), "--partitions", "partition counts tried at the largest "
              "Spark size")
    add_sizes(parser, (10**6, 10**7, 10**8), "--dask-sizes", "Dask sizes (rows)")
    add_sizes(parser, 10**7, "--dask-max", "largest Dask size run (1e8 to include 1e8 rows)",
              many=False)
    add_sizes(parser, 2 * 10**6, "--rows-per-file", "rows per Parquet file (= Dask partition)",
              many=False)
    add_sizes(parser, 10**7, "--single-process-max", "largest size also fitted by venncal on "
              "numpy arrays", many=False)
    parser.add_argument("--driver-memory", default="4g")
    parser.add_argument("--repeats", type=int, default=3,
                        help="calls of each Spark transform (the first and the median are shown)")
    parser.add_argument("--quick", action="store_true",
                        help="1e5 rows, 2 partitions, Dask 1e5: a check that everything runs")
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--save", action="store_true",
                        help="also write benchmarks/results/scale-<date>.md")
    parser.add_argument("--output", type=Path, help="the results file (implies --save)")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.partitions, args.dask_sizes = [10**5], [2], [10**5]
        args.rows_per_file = 25_000
    head = machine_lines(argv, extra=("scipy", "pyarrow", "pyspark", "dask", "distributed"))
    parts = []
    if not args.no_spark:
        spark = spark_session(args.driver_memory)
        spark_frame(spark, 10**5, 2).unpersist()  # JVM warm-up
        rows = []
        for n in args.sizes:
            log(f"spark n={n:.0e}, 2 partitions")
            rows.append(spark_run(spark, n, 2, n <= args.single_process_max, args.repeats))
        for p in args.partitions:
            if p != 2:
                log(f"spark n={max(args.sizes):.0e}, {p} partitions")
                rows.append(spark_run(spark, max(args.sizes), p, False, args.repeats))
        spark.stop()
        parts += ["## Spark (`local[2]`, one session)", "", spark_report(rows), ""]
    if not args.no_dask:
        from distributed import Client, LocalCluster

        rows = []
        with (LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None) as cluster, Client(cluster) as client,
              tempfile.TemporaryDirectory(prefix="venncal-scale-") as tmp):
            for n in args.dask_sizes:
                if n <= args.dask_max:
                    log(f"dask n={n:.0e}")
                    rows.append(dask_run(client, n, int(args.rows_per_file), tmp))
        per_row = 8 + 1  # float64 score + int8 label
        parts += ["## Dask (`LocalCluster`, 2 worker processes, 1 thread each)", "",
                  dask_report(rows), "",
                  (f"A partition of {int(args.rows_per_file):,} rows holds "
                   f"{int(args.rows_per_file) * per_row / 1e6:,.1f} MB of columns in memory "
                   "(score float64 + label int8); the peak RSS is each worker process's "
                   "high-water mark (`VmHWM` via `client.run`), reset (`/proc/self/clear_refs`) "
                   "before the fit and before the transform of each size."), ""]
    head = [
        "# venncal at scale: Spark and Dask (issue 14)", "",
        *head,
        f"- load average (1 / 5 / 15 min) at end: {load_average()}",
        f"- {java_version()}",
        ("- data: scores `round(U[0, 1], 6)` (about 1e6 distinct), labels `Bernoulli(score)`; "
         "wall-clock seconds, one run each"),
        "",
    ]
    report = "\n".join(head + parts)
    print(report)
    if args.save or args.output:
        save_report(report, "scale", args.output)


if __name__ == "__main__":
    main()
