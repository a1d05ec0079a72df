"""Speed benchmark of the command line: ``venncal fit`` and ``venncal predict`` on big tables.

Each command is timed as a user runs it, in a fresh interpreter (start-up,
imports and numba's cached kernels included), beside the same work written by
hand in Python, also in a fresh interpreter:

* **fit**: ``venncal fit cal.csv --score-col score --label-col label --method
  ivap -o model.json`` against ``pyarrow.csv.read_csv`` +
  ``VennAbersCalibrator().fit`` + ``venncal.save``;
* **predict**: ``venncal predict model.json test.csv --score-col score -o
  out.csv`` against ``pyarrow.csv.read_csv`` + ``predict_proba`` +
  ``predict_interval`` + the input columns and p, p0, p1 written with
  ``pyarrow.csv.write_csv``; and the same with Parquet in and out.

The hand-written versions read the whole table at once and skip every check
the command line makes (cell by cell parsing with row numbers, NA labels,
output checks, temporary file and rename, streaming in blocks).

Data: ``id`` (integer), ``score ~ N(0, 1)`` written with full precision,
``label`` in {0, 1} with ``P(1) = 1 / (1 + exp(-2 score))``, ``tag`` (text).

Targets (issue 10): fit <= 2x the hand-written time and <= 2 s at 1e6 rows;
predict <= 2x the hand-written time.  Times are the best of ``--repeats`` runs
(wall clock) after one warm-up run that is not counted (it also fills numba's
on-disk cache and the OS file cache); the median is shown beside it.

This is a script, not a test::

    python benchmarks/bench_cli.py                 # 1e6 rows, 3 repeats
    python benchmarks/bench_cli.py --rows 1e5 --repeats 1
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np

from _harness import Timing, add_sizes, log, machine_lines, measure, save_report

FIT_TARGET_SECONDS = 2.0
RATIO_TARGET = 2.0

HAND_FIT = """
import pyarrow.csv as pcsv
import venncal
columns = pcsv.ConvertOptions(include_columns=["score", "label"])
t = pcsv.read_csv("cal.csv", convert_options=columns)
cal = venncal.VennAbersCalibrator().fit(t.column("score").to_numpy(), t.column("label").to_numpy())
venncal.save(cal, "hand.json")
"""

HAND_PREDICT = """
import sys
import pyarrow as pa, pyarrow.csv as pcsv, pyarrow.parquet as pq
import venncal
src, out = sys.argv[1], sys.argv[2]
t = pq.read_table(src) if src.endswith(".parquet") else pcsv.read_csv(src)
model = venncal.load("model.json")
s = t.column("score").to_numpy()
p = model.predict_proba(s)[:, 1]
pair = model.predict_interval(s)
t = t.append_column("p", pa.array(p)).append_column("p0", pa.array(pair[:, 0]))
t = t.append_column("p1", pa.array(pair[:, 1]))
pq.write_table(t, out) if out.endswith(".parquet") else pcsv.write_csv(t, out)
"""


def make_data(folder: Path, n: int, seed: int = 0) -> None:
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    for name in ("cal", "test"):
        s = rng.normal(size=n)
        y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(np.int64)
        table = pa.table({
            "id": np.arange(n),
            "score": s,
            "label": y,
            "tag": pa.array(np.where(y == 1, "yes", "no")),
        })
        pcsv.write_csv(table, folder / f"{name}.csv")
        if name == "test":
            pq.write_table(table, folder / "test.parquet")


def timed(argv: list[str], cwd: Path, repeats: int) -> Timing:
    """Run ``argv`` once (warm-up), then ``repeats`` timed times."""
    return measure(
        lambda: subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL),
        repeats=repeats,
    )


def venncal_cmd() -> list[str]:
    return [sys.executable, "-m", "venncal.cli"]


def fmt(t: Timing) -> str:
    return f"{t.best:.2f} s (median {t.median:.2f})"


def run(rows: int, repeats: int) -> str:
    folder = Path(tempfile.mkdtemp(prefix="venncal-bench-cli-"))
    try:
        make_data(folder, rows)
        size = (folder / "cal.csv").stat().st_size
        log(f"data: {rows:,} rows, cal.csv {size / 1e6:.1f} MB")
        py = [sys.executable, "-c"]
        cases = [
            (
                "fit CSV -> model (ivap)",
                [*venncal_cmd(), "fit", "cal.csv", "--score-col", "score", "--label-col",
                 "label", "--method", "ivap", "-o", "model.json", "--quiet"],
                [*py, textwrap.dedent(HAND_FIT)],
                True,
            ),
        ]
        for src, out in (("test.csv", "out.csv"), ("test.parquet", "out.parquet")):
            cases.append((
                f"predict {Path(src).suffix[1:]} -> {Path(out).suffix[1:]}",
                [*venncal_cmd(), "predict", "model.json", src, "--score-col", "score", "-o",
                 out, "--quiet"],
                [*py, textwrap.dedent(HAND_PREDICT), src, "hand-" + out],
                False,
            ))
        startup = timed([*venncal_cmd(), "--version"], folder, repeats)
        lines = [
            f"rows: {rows:,}; repeats: {repeats}; `venncal --version`: {fmt(startup)}",
            "",
            "| command | venncal | by hand | ratio (best) | targets |",
            "|---|---|---|---|---|",
        ]
        for name, cli, hand, is_fit in cases:
            log(f"timing {name} ...")
            t_cli = timed(cli, folder, repeats)
            t_hand = timed(hand, folder, repeats)
            ratio = t_cli.best / t_hand.best
            verdicts = [f"ratio <= {RATIO_TARGET:g}: {'PASS' if ratio <= RATIO_TARGET else 'FAIL'}"]
            if is_fit:
                ok = t_cli.best <= FIT_TARGET_SECONDS
                verdicts.append(f"<= {FIT_TARGET_SECONDS:g} s: {'PASS' if ok else 'FAIL'}")
            lines.append(
                f"| {name} | {fmt(t_cli)} | {fmt(t_hand)} | {ratio:.2f} | {'; '.join(verdicts)} |"
            )
        model_mb = (folder / "model.json").stat().st_size / 1e6
        lines += ["", f"model file: {model_mb:.1f} MB"]
        return "\n".join(lines)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_sizes(parser, 10**6, "--rows", "rows of each table", many=False)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--output", help="also write the Markdown report to this file")
    args = parser.parse_args(argv)
    head = "\n".join(machine_lines(argv, extra=("scipy", "pyarrow")))
    report = f"# venncal command line\n\n{head}\n\n{run(args.rows, args.repeats)}\n"
    print(report)
    if args.output:
        save_report(report, "cli", args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
