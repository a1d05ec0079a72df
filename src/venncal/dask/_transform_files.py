"""Score tables given as files with Dask: one output file per partition, in a new directory."""

from __future__ import annotations

import functools
import os
import secrets
import shutil
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from .. import _engine
from .. import _score_names as score_names
from .._rows import RowError
from ..tables import Param, TableError, Writer, output_format
from . import _files
from ._files import DASK, NUM
from ._frames import shipped

__all__ = ["transform_files"]

_OVERWRITE = Param("overwrite", python="overwrite=True")


class OutputTarget(NamedTuple):
    """Where scores go: a new ``directory`` of files named ``pattern`` (one ``*``)."""

    directory: str
    pattern: str
    kind: str
    sep: str | None
    compression: str | None


def _within(path: str, directory: str) -> bool:
    real, top = os.path.realpath(path), os.path.realpath(directory)
    return os.path.commonpath([real, top]) == top


def _table_name(name: str) -> bool:
    """Whether ``name`` ends as a table file does (``.csv``, ``.parquet``, ...)."""
    try:
        output_format(name)
    except TableError:
        return False
    return True


def output_target(output, inputs: _files.InputFiles, sep, overwrite: bool) -> OutputTarget:
    """Check the output of :func:`transform_files` before any work; return where it goes."""
    path = os.fsdecode(os.fspath(output))  # bytes as str, as os.path takes them
    where = Param("output", path, python=path)

    def fail(*parts):
        return TableError(where, ": ", *parts, source=path)

    usage = (
        "with ", DASK, ", ", Param("output"), " names a new directory: 'DIR/' (Parquet part "
        "files) or 'DIR/NAME-*.csv' (one file per partition, * its number; .tsv, .parquet "
        "and compressed CSV too)",
    )
    if path == "-":
        raise fail(*usage, ", not stdout")
    folder, name = os.path.split(path)
    if not name or (os.path.isdir(path) and "*" not in name) or (
            not isinstance(output, (str, bytes)) and "*" not in name
            and not _table_name(name)):
        # (a Path cannot end in "/": Path("DIR/") is Path("DIR"), so a Path names DIR itself)
        folder, name = path.rstrip("/" + os.sep) or path, "part-*.parquet"
    if name.count("*") != 1:
        raise fail(*usage)
    if any(c in folder for c in _files.GLOB_CHARS):
        raise fail(f"the directory name {folder} has a glob character ({', '.join(_files.GLOB_CHARS)}"
                   "), which the name of an output directory cannot have")
    try:
        fmt = output_format(name.replace("*", "0"))
    except TableError:
        raise fail(
            f"unknown table format of {name}; name the files .csv or .tsv (optionally followed "
            "by .gz, .bz2 or .zst), or .parquet"
        ) from None
    folder = folder or "."  # 'NAME-*.csv': the working directory
    directory = os.path.abspath(folder)
    parent = os.path.dirname(directory)
    if not os.path.isdir(parent):
        raise fail(f"the folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise fail(f"the folder {parent} is not writable")
    if os.path.exists(directory):
        if not os.path.isdir(directory):
            raise fail(f"{folder} is a file; the output is a directory")
        inside = [f for f in inputs.files if os.path.exists(f) and _within(f, directory)]
        if inside and not overwrite:
            raise fail(
                f"the directory {folder} holds the input ", Param("data", python="data"),
                f" ({inside[0]}); refusing to replace it (", _OVERWRITE, " allows it)",
            )
        if os.listdir(directory) and not overwrite:
            raise fail(f"the directory {folder} exists and is not empty; ", _OVERWRITE,
                       " replaces it")
    if directory == os.path.abspath(os.getcwd()) or _within(os.getcwd(), directory):
        raise fail(f"the output directory {folder} holds the working directory")
    return OutputTarget(directory, name, fmt.kind, sep or fmt.sep, fmt.compression)


def _score(pdf, model, score_cols, names, nan_scores, keep_text, partition_info=None):
    """Add ``names`` (p, p0, p1) to a partition whose scores were parsed to ``NUM + col``."""
    scores = np.column_stack([pdf[NUM + c].to_numpy(dtype=np.float64) for c in score_cols])
    number = partition_info["number"] if partition_info else "?"
    try:
        values, _ = _engine.score_rows(model, scores, len(names), nan_scores)
    except RowError as exc:  # located at its row of its file, as a bad cell (_files.located)
        raise _files.row_error(exc, number) from None
    except (ValueError, TypeError) as exc:
        raise ValueError(f"cannot predict partition {number}: {exc}") from None
    out = pdf.drop(columns=[NUM + c for c in score_cols])
    if not keep_text:  # typed output from text: the scores as numbers, as the local engine
        out = out.assign(**{c: pdf[NUM + c] for c in score_cols})
    return out.assign(**dict(zip(names, values, strict=True)))


def _rescore(parse: dict, model, score_cols, names, nan_scores, keep_text, pdf, number):
    """Parse and score raw partition ``number`` again (the error pass of :func:`_files.located`)."""
    info = {"number": number}
    _score(_files._parse(pdf, score_cols, [], **parse, partition_info=info), model, score_cols,
           names, nan_scores, keep_text, partition_info=info)


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
    import pyarrow as pa

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


def transform_files(
    data,
    calibrator,
    output,
    *,
    score_col: str | Sequence[str],
    output_cols: str | Sequence[str] = ("p", "p0", "p1"),
    nan_scores: str = "error",
    blocksize=None,
    sep: str | None = None,
    overwrite: bool = False,
    client=None,
) -> int:
    """Add calibrated probabilities to tables given as files; write one file per partition.

    Every column passes through (CSV to CSV, each cell's text unchanged;
    to Parquet, the types pandas infers, the score columns as float64), and
    the new columns hold the values :func:`transform` gives.  The files go
    into a new directory, built beside its target and renamed into place
    when complete, in the order of the input's partitions.

    Parameters
    ----------
    data : str or path-like
        As for :func:`fit_files`.
    calibrator : fitted score-level calibrator
    output : str or path-like
        ``"DIR/"`` (Parquet files ``part-0.parquet``, ...) or
        ``"DIR/NAME-*.EXT"``: ``*`` becomes the partition number, the format
        follows ``EXT`` (``.csv``, ``.tsv``, compressed, or ``.parquet``).
        A path-like ``Path("DIR")`` is ``"DIR/"`` (a Path drops a final
        ``/``), unless its name ends as a table file's.
    score_col, output_cols, nan_scores
        As for :func:`transform`.  Score cells are read as
        :mod:`venncal.tables` reads them; a bad one is reported at its row
        of its file.
    blocksize, sep, client
        As for :func:`fit_files`.
    overwrite : bool, default=False
        Replace an existing directory that is not empty (or holds the input).

    Returns
    -------
    int
        The number of rows written.

    Raises
    ------
    TableError
        For an output that cannot be written, files that cannot be read, a
        missing column, an output column the input already has, or a bad cell.
    sklearn.exceptions.NotFittedError
        For a calibrator that is not fitted (before anything is read).

    Examples
    --------
    >>> import os, tempfile, dask
    >>> from venncal import IsotonicCalibrator
    >>> from venncal.dask import transform_files
    >>> iso = IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "in.csv"), "w") as f:
    ...     _ = f.write("id,s\\n1,0.15\\n2,0.35\\n")
    >>> out = os.path.join(folder, "out", "part-*.csv")
    >>> with dask.config.set(scheduler="synchronous"):
    ...     transform_files(os.path.join(folder, "in.csv"), iso, out, score_col="s")
    2
    >>> from pathlib import Path
    >>> print(Path(folder, "out", "part-0.csv").read_text(), end="")
    id,s,p
    1,0.15,0
    2,0.35,0.5
    """
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(calibrator)
    _engine.check_nan_scores(nan_scores)
    names = list(_engine.output_names(calibrator, output_cols))
    score_cols = list(_engine.names(score_col))
    score_names.check(calibrator, score_cols)
    inputs = _files.input_files(data, sep)
    target = output_target(output, inputs, sep, overwrite)
    typed_out = target.kind == "parquet"
    header = _files.check_headers(inputs, {"score_col": score_cols}, one_schema=typed_out)
    clash = [c for c in names if c in header]
    if clash:
        raise TableError(
            f"{inputs.source} already has column(s) {', '.join(map(repr, clash))}; "
            "choose other output names with ", Param("output_cols"),
            source=inputs.source, column=clash[0],
        )
    # CSV to CSV passes every cell's text through; to Parquet, types are inferred
    text = header if (inputs.kind == "csv" and not typed_out) else score_cols
    raw = _files.read_frame(inputs, None, text if inputs.kind == "csv" else (), header, blocksize)
    # how the score cells are parsed: here, and again by the error pass (_rescore)
    parse = {"missing": nan_scores, "hint": _engine.NAN_SCORES_HINT, "source": inputs.source,
             "replace": False}
    df = _files.parsed(raw, score_cols, **parse)
    keep_text = inputs.kind == "parquet" or not typed_out
    meta = df._meta.drop(columns=[NUM + c for c in score_cols])
    if not keep_text:
        meta = meta.assign(**{c: pd.Series(dtype="float64") for c in score_cols})
    meta = meta.assign(**{n: pd.Series(dtype="float64") for n in names})
    tmp = os.path.join(
        os.path.dirname(target.directory),
        f".{secrets.token_hex(4)}.part.{os.path.basename(target.directory)}",
    )
    os.mkdir(tmp)
    ok = False
    try:
        with _files.on_client(client):
            scored = df.map_partitions(
                _score, shipped(calibrator, client), score_cols, names, nan_scores, keep_text,
                meta=meta, align_dataframes=False,
            )
        # on error, every partition is scored again, to name the first bad row and count them all
        check = functools.partial(_rescore, parse, calibrator, score_cols, names, nan_scores,
                                  keep_text)
        with _files.computing(raw, inputs.source, client, check):
            n = _write(scored, tmp, target)
        _replace_directory(tmp, target.directory)
        ok = True
    finally:
        if not ok:
            shutil.rmtree(tmp, ignore_errors=True)
    return n
