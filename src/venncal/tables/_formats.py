"""Table formats by file name, and pyarrow, imported when first needed."""

from __future__ import annotations

import os
from typing import NamedTuple

from ._errors import TableError

__all__ = ["TableFormat", "arrow", "csv_separator", "file_format", "output_format"]

#: Names of Parquet files.
PARQUET_SUFFIXES = (".parquet", ".pq")
#: Names of CSV files -> their default field separator.
CSV_SUFFIXES = {".csv": ",", ".tsv": "\t"}
#: Compression suffixes of output names -> pyarrow's codec.
COMPRESSION_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd"}
#: Compression suffixes of input files read by name (dask reads xz too).
INPUT_COMPRESSION_SUFFIXES = {**COMPRESSION_SUFFIXES, ".xz": "xz"}


def arrow():
    """Import pyarrow and its CSV, Parquet and compute modules (lazily: not at start-up)."""
    import pyarrow
    import pyarrow.compute
    import pyarrow.csv
    import pyarrow.parquet

    return pyarrow


class TableFormat(NamedTuple):
    """The format of a table: ``kind`` (csv, parquet), ``sep`` and ``compression`` (CSV)."""

    kind: str
    sep: str | None
    compression: str | None


def _by_name(path: str, compressions: dict) -> TableFormat | None:
    name = os.path.basename(path).lower()
    if name.endswith(PARQUET_SUFFIXES):
        return TableFormat("parquet", None, None)
    compression = None
    for suffix, codec in compressions.items():
        if name.endswith(suffix):
            name, compression = name[: -len(suffix)], codec
    for suffix, sep in CSV_SUFFIXES.items():
        if name.endswith(suffix):
            return TableFormat("csv", sep, compression)
    return None


def output_format(path: str) -> TableFormat:
    r"""Return the format of an output table from its name, or raise :class:`TableError`.

    ``.csv`` or ``.tsv`` (either optionally followed by ``.gz``, ``.bz2`` or
    ``.zst``), ``.parquet`` or ``.pq``; ``-`` is CSV on stdout.

    Examples
    --------
    >>> from venncal.tables import output_format
    >>> output_format("out.tsv.gz")
    TableFormat(kind='csv', sep='\t', compression='gzip')
    >>> output_format("out.parquet").kind, output_format("-").kind
    ('parquet', 'csv')
    """
    if path == "-":
        return TableFormat("csv", ",", None)
    found = _by_name(path, COMPRESSION_SUFFIXES)
    if found is None:
        raise TableError(
            f"{path}: unknown table format; name the file .csv or .tsv (optionally followed "
            "by .gz, .bz2 or .zst), .parquet, or - for CSV on stdout",
            source=path,
        )
    return found


def file_format(path: str) -> TableFormat | None:
    """Return the format of an input file from its name (xz too), or None if unknown.

    Examples
    --------
    >>> from venncal.tables import file_format
    >>> file_format("part-0.csv.xz"), file_format("notes.txt")
    (TableFormat(kind='csv', sep=',', compression='xz'), None)
    """
    return _by_name(path, INPUT_COMPRESSION_SUFFIXES)


def csv_separator(path: str) -> str:
    r"""Return the default field separator of a CSV file by name: a tab for ``.tsv``, else ``,``.

    Examples
    --------
    >>> from venncal.tables import csv_separator
    >>> csv_separator("scores.tsv.gz"), csv_separator("scores.csv")
    ('\t', ',')
    """
    name = path.lower()
    for suffix in INPUT_COMPRESSION_SUFFIXES:
        name = name.removesuffix(suffix)
    return "\t" if name.endswith(".tsv") else ","
