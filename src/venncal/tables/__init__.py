"""Tables in and out of venncal: CSV, TSV and Parquet, read exactly, written atomically.

This is the table layer of the command line and of the engines that read
files (:func:`venncal.dask.fit_files`), public so that Python code reads a
table as ``venncal fit`` does.

**Inputs** (:func:`open_table`).  A Parquet file is recognised by its name
(``.parquet``, ``.pq``) or its content; anything else is CSV, plain or
compressed with gzip, bzip2 or zstd (recognised by content, whatever the
name).  ``-`` reads stdin.  CSV is UTF-8 (a leading byte-order mark is
skipped) with one header line; fields are separated by ``sep`` (default
``,``, or a tab for a ``.tsv`` name) and may be quoted, with newlines inside
quotes.  Whole columns (:func:`read_columns`) are read with pyarrow's
multithreaded reader; :meth:`Table.batches` streams blocks of rows, so files
larger than memory pass through.

**Cells.**  Numeric columns of CSV are read as text and parsed here
(:func:`column_numbers`), so that a bad cell is reported with its text and
row.  Rows are numbered from 1, the header not counted.

**Labels** follow one rule (:func:`label_value`, :func:`typed_labels`): a
label is a number, a boolean or text, other types (dates, decimals, ...)
become text, and labels read as text (CSV) are typed from all their
distinct values at once.  The engines that fit from summaries apply the
same rule, so a table gives the same model whatever read it.

**Outputs** take their format from the name (:func:`output_format`):
``.csv`` or ``.tsv`` (optionally followed by ``.gz``, ``.bz2`` or ``.zst``),
``.parquet`` or ``.pq``, or ``-`` for CSV on stdout.  Every output is written
to a temporary file beside its target (``.XXXXXXXX.part.NAME``) and renamed
into place only when complete (:func:`atomic_output`, :class:`Writer`), so a
failure never leaves a partial file.

**Errors** in the input raise :class:`TableError`, a ``ValueError`` with
``source``, ``column`` and ``row`` attributes (``None`` where unknown).

Examples
--------
>>> import os, tempfile
>>> from venncal.tables import open_table, read_columns
>>> path = os.path.join(tempfile.mkdtemp(), "cal.csv")
>>> with open(path, "w") as f:
...     _ = f.write("score,label\\n0.2,no\\n0.9,yes\\n0.4,no\\n")
>>> with open_table(path) as table:
...     read_columns(table, numeric=["score"], labels=["label"])
{'score': array([0.2, 0.9, 0.4]), 'label': array(['no', 'yes', 'no'], dtype='<U3')}
"""

from ._cells import column_labels, column_numbers
from ._cells import missing_texts as na_markers
from ._csv import CsvTable
from ._errors import Param, ParameterError, TableError
from ._formats import TableFormat, csv_separator, file_format, output_format
from ._labels import classes_for, label_value, matches_label, typed_labels
from ._read import ParquetTable, open_table, read_columns
from ._table import Batch, Retype, Table
from ._write import Writer, atomic_output, open_writer, write_table

__all__ = [
    "Batch",
    "CsvTable",
    "Param",
    "ParameterError",
    "ParquetTable",
    "Retype",
    "Table",
    "TableError",
    "TableFormat",
    "Writer",
    "atomic_output",
    "classes_for",
    "column_labels",
    "column_numbers",
    "csv_separator",
    "file_format",
    "label_value",
    "matches_label",
    "na_markers",
    "open_table",
    "open_writer",
    "output_format",
    "read_columns",
    "typed_labels",
    "write_table",
]
