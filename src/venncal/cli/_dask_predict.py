"""``venncal predict --engine dask``: score each partition, write one file per partition.

The output is a new directory (``-o out/``: Parquet, or
``-o 'out/part-*.csv'``), built beside its target and renamed into place when
complete.  Reading, parsing and the cluster are :mod:`venncal.cli._dask_engine`'s.
"""

from __future__ import annotations

import os
import secrets
import shutil
from typing import NamedTuple

from ._dask_engine import (
    _GLOB_CHARS,
    _NUM,
    InputFiles,
    _check_headers,
    _compute_errors,
    _first_line,
    _in_file,
    _numeric_frame,
    _PartitionCellError,
    _read,
)
from ._io import CLIError

__all__ = ["OutputTarget", "predict", "prepare_output"]


class OutputTarget(NamedTuple):
    """Where ``predict`` writes: a new ``directory`` of files named ``pattern`` (one ``*``)."""

    directory: str
    pattern: str
    kind: str
    sep: str | None
    compression: str | None


def prepare_output(
    path: str, inputs: InputFiles, sep: str | None, force: bool, *, model: str | None = None
) -> OutputTarget:
    """Check ``-o`` of ``predict --engine dask`` before any work, or raise CLIError."""
    from ._io import output_format

    usage = (
        "with --engine dask, -o names a new directory: 'DIR/' (Parquet part files) or "
        "'DIR/NAME-*.csv' (one file per partition, * its number; .tsv, .parquet and "
        "compressed CSV too)"
    )
    if path == "-":
        raise CLIError(f"-o -: {usage}, not stdout")
    folder, name = os.path.split(path)
    if not name or (os.path.isdir(path) and "*" not in name):
        folder, name = path.rstrip("/" + os.sep) or path, "part-*.parquet"
    if name.count("*") != 1 or any(c in folder for c in _GLOB_CHARS):
        raise CLIError(f"-o {path}: {usage}")
    fmt = output_format(name.replace("*", "0"), "-o")
    directory = os.path.abspath(folder or ".")
    parent = os.path.dirname(directory)
    if not os.path.isdir(parent):
        raise CLIError(f"-o {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CLIError(f"-o {path}: the folder {parent} is not writable")
    if os.path.exists(directory):
        if not os.path.isdir(directory):
            raise CLIError(f"-o {path}: {folder} is a file; the output is a directory")
        named = [("DATA", f) for f in inputs.files] + ([("MODEL", model)] if model else [])
        inside = [(r, f) for r, f in named if os.path.exists(f) and _within(f, directory)]
        if inside and not force:
            role, f = inside[0]
            raise CLIError(
                f"-o {path}: the directory {folder} holds the input {role} ({f}); refusing to "
                "replace it (--force allows it)"
            )
        if os.listdir(directory) and not force:
            raise CLIError(
                f"-o {path}: the directory {folder} exists and is not empty; --force replaces it"
            )
    if directory == os.path.abspath(os.getcwd()) or _within(os.getcwd(), directory):
        raise CLIError(f"-o {path}: the output directory {folder} holds the working directory")
    return OutputTarget(directory, name, fmt.kind, sep or fmt.sep, fmt.compression)


def _within(path: str, directory: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(directory)
    return os.path.commonpath([real, top]) == top


def _score(pdf, model, score_cols, names, interval, keep_text, partition_info=None):
    """Add ``names`` (p, p0, p1) to a partition whose score columns were parsed to ``_NUM + col``."""
    import numpy as np

    from ._predict import _predict

    columns = [pdf[_NUM + c].to_numpy(dtype=np.float64) for c in score_cols]
    missing = np.zeros(len(pdf), dtype=bool)
    for col in columns:
        missing |= np.isnan(col)
    keep = ~missing
    values = [np.full(len(pdf), np.nan) for _ in names]
    if keep.any():
        try:
            found = _predict(model, [col[keep] for col in columns], interval)
        except (ValueError, TypeError) as exc:
            number = partition_info["number"] if partition_info else "?"
            raise CLIError(f"cannot predict partition {number}: {exc}") from None
        for out, got in zip(values, found, strict=True):
            out[keep] = got
    hidden = [_NUM + c for c in score_cols]
    out = pdf.drop(columns=hidden)
    if not keep_text:  # typed output from text: the scores as numbers, as the local engine
        out = out.assign(**{c: pdf[_NUM + c] for c in score_cols})
    return out.assign(**dict(zip(names, values, strict=True)))


def predict(args, report, model, score_cols, names, interval, inputs, target) -> int:
    """Score DATA on the cluster and write the partitions into ``target``; return the rows."""
    import dask
    import pandas as pd

    header = _check_headers(inputs, {"--score-col": score_cols})
    clash = [c for c in names if c in header]
    if clash:
        raise CLIError(
            f"{inputs.source} already has column(s) {', '.join(map(repr, clash))}; "
            "choose other output names with --prefix"
        )
    typed_out = target.kind == "parquet"
    # CSV to CSV passes every cell's text through; to Parquet, types are inferred
    text = header if (inputs.kind == "csv" and not typed_out) else score_cols
    raw = _read(inputs, args, None, text if inputs.kind == "csv" else (), header)
    hint = " (--nan-scores propagate gives such rows empty predictions)"
    df = _numeric_frame(
        raw, score_cols, missing=args.nan_scores, hint=hint, source=inputs.source, replace=False
    )
    keep_text = inputs.kind == "parquet" or not typed_out
    meta = df._meta.drop(columns=[_NUM + c for c in score_cols])
    if not keep_text:
        meta = meta.assign(**{c: pd.Series(dtype="float64") for c in score_cols})
    meta = meta.assign(**{n: pd.Series(dtype="float64") for n in names})
    scored = df.map_partitions(
        _score, dask.delayed(model, pure=True), list(score_cols), list(names), interval,
        keep_text, meta=meta, align_dataframes=False,
    )
    tmp = os.path.join(
        os.path.dirname(target.directory),
        f".{secrets.token_hex(4)}.part.{os.path.basename(target.directory)}",
    )
    os.mkdir(tmp)
    ok = False
    try:
        with report.stage(f"predicting {inputs.source} on the cluster"):
            try:
                n = _write(scored, tmp, target)
            except _PartitionCellError as exc:
                raise _in_file(exc, raw, inputs.source) from None
            except CLIError:
                raise
            except _compute_errors() as exc:
                raise CLIError(f"{inputs.source}: {_first_line(exc)}") from None
        _replace_directory(tmp, target.directory)
        ok = True
    finally:
        if not ok:
            shutil.rmtree(tmp, ignore_errors=True)
    return n


def _write(scored, folder: str, target: OutputTarget) -> int:
    """Write one file per partition of ``scored`` into ``folder``; return the rows written."""
    pattern = target.pattern
    if target.kind == "parquet":
        import pyarrow.parquet as pq

        scored.to_parquet(
            folder, write_index=False, name_function=lambda i: pattern.replace("*", str(i))
        )
        return sum(
            pq.read_metadata(os.path.join(folder, f)).num_rows
            for f in os.listdir(folder)
            if not f.startswith(("_", "."))
        )
    counts = scored.map_partitions(
        _write_csv, os.path.join(folder, pattern), target.sep,
        meta=("rows", "int64"), align_dataframes=False,
    )
    return int(counts.sum().compute())


def _write_csv(pdf, pattern: str, sep: str, partition_info=None):
    """Write a partition as the local engine writes CSV (pyarrow); return its number of rows."""
    import pandas as pd
    import pyarrow as pa

    from ._io import Writer

    path = pattern.replace("*", str(partition_info["number"] if partition_info else 0))
    writer = Writer(path, sep)
    ok = False
    try:
        writer.write(list(pdf.columns), [pa.Array.from_pandas(pdf[c]) for c in pdf.columns])
        ok = True
    finally:
        writer.close(ok)
    return pd.Series([len(pdf)], dtype="int64")


def _replace_directory(new: str, directory: str) -> None:
    """Move the finished directory ``new`` to ``directory``, replacing what was there."""
    if not os.path.exists(directory):
        os.rename(new, directory)
        return
    old = f"{new}.old"
    os.rename(directory, old)
    os.rename(new, directory)
    shutil.rmtree(old, ignore_errors=True)
