"""Tables in and out of the command line, read and written with pyarrow.

Inputs are CSV or Parquet.  A Parquet file is recognised by its name
(``.parquet``, ``.pq``) or its content; anything else is CSV, plain or
compressed with gzip, bzip2 or zstd (recognised by content, whatever the
name).  ``-`` reads stdin.  CSV is UTF-8 (a leading byte-order mark is
skipped) with one header line; fields are separated by ``--sep`` (default
``,``, or a tab for a ``.tsv`` name) and may be quoted, with newlines inside
quotes.

Outputs take their format from the name: ``.csv`` or ``.tsv`` (either
optionally followed by ``.gz``, ``.bz2`` or ``.zst``), ``.parquet`` or
``.pq``, or ``-`` for CSV on stdout; any other name is refused.  Every output
is written to a temporary file beside its target and renamed into place only
when complete, so a failure never leaves a partial file.

Whole columns (``fit``, ``evaluate``, ``monitor``) are read with pyarrow's
multithreaded reader; ``predict`` streams blocks of rows, so files larger
than memory pass through.  Labels keep the types pyarrow infers (``1`` is the
integer 1 in CSV as in Parquet); numeric columns are parsed here so that a
bad cell is reported with its text.  Rows are numbered from 1, the header not
counted, in every error message.  Errors in the user's input raise
:class:`CLIError`, which the subcommands turn into a message on stderr and
exit code 2.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import functools
import io
import os
import secrets
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from .._validation import check_probabilities, check_sample_weight

__all__ = [
    "BATCH_ROWS",
    "Batch",
    "CLIError",
    "CellError",
    "Retype",
    "Table",
    "add_force_option",
    "add_sep_option",
    "atomic_output",
    "check_distinct_columns",
    "check_outputs",
    "column_labels",
    "column_numbers",
    "command",
    "open_table",
    "open_writer",
    "output_format",
    "positive_int",
    "probability_column",
    "read_columns",
    "weight_column",
    "write_table",
]

#: Rows per batch of a Parquet file streamed through ``predict`` (and per block of ``monitor``).
BATCH_ROWS = 65_536
#: Bytes per block of a CSV file streamed through ``predict``; when the output is
#: Parquet, the types of the passed-through columns are inferred from the first block.
BLOCK_BYTES = 1 << 22

_COMPRESSION_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd"}
_PARQUET_SUFFIXES = (".parquet", ".pq")
_CSV_SUFFIXES = {".csv": ",", ".tsv": "\t"}
_MODEL_SUFFIXES = (".json", ".json.gz")


class CLIError(Exception):
    """A problem with the user's input: reported on stderr, exit code 2."""


def command(name: str) -> Callable:
    """Decorate a subcommand's ``run(args)``: turn :class:`CLIError` into exit code 2."""

    def decorate(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        @functools.wraps(run)
        def wrapper(args: argparse.Namespace) -> int:
            try:
                return run(args)
            except CLIError as exc:
                print(f"venncal {name}: error: {exc}", file=sys.stderr)
                return 2
            except KeyboardInterrupt:
                print(f"venncal {name}: interrupted", file=sys.stderr)
                return 130
            except BrokenPipeError:  # e.g. `venncal predict ... -o - | head`
                # Python flushes stdout at exit: point it at devnull so that the
                # flush cannot fail again (the recipe of the signal module docs).
                try:
                    devnull = os.open(os.devnull, os.O_WRONLY)
                    os.dup2(devnull, sys.stdout.fileno())
                except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
                    pass
                return 1

        return wrapper

    return decorate


def _arrow():
    """Import pyarrow and its CSV, Parquet and compute modules (lazily: not at start-up)."""
    import pyarrow
    import pyarrow.compute
    import pyarrow.csv
    import pyarrow.parquet

    return pyarrow


# ----------------------------------------------------------------------------- options


def _separator(text: str) -> str:
    sep = {"\\t": "\t", "tab": "\t", "TAB": "\t"}.get(text, text)
    if len(sep) != 1 or sep in '\r\n"':
        raise argparse.ArgumentTypeError(
            f"the separator must be one character (or \\t or tab); got {text!r}"
        )
    return sep


def positive_int(text: str) -> int:
    """Parse an option's positive integer (an ``argparse`` type).

    Examples
    --------
    >>> positive_int("15")
    15
    """
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def add_sep_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--sep`` (the CSV field separator) to a subcommand parser."""
    parser.add_argument(
        "--sep",
        type=_separator,
        default=None,
        metavar="CHAR",
        help="field separator of CSV files, read and written (default: a tab for .tsv "
        "names, else ','; '\\t' or 'tab' for tab)",
    )


def add_force_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--force``: allow an output to replace one of the command's input files."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="allow an output to replace an input file (refused by default)",
    )


# ------------------------------------------------------------------------------ formats


class TableFormat(NamedTuple):
    """The format of an output table: ``kind`` (csv, parquet), ``sep``, ``compression``."""

    kind: str
    sep: str | None
    compression: str | None


def output_format(path: str, option: str = "-o") -> TableFormat:
    r"""Return the format of an output table from its name, or raise CLIError.

    Examples
    --------
    >>> output_format("out.tsv.gz")
    TableFormat(kind='csv', sep='\t', compression='gzip')
    >>> output_format("out.parquet").kind, output_format("-").kind
    ('parquet', 'csv')
    """
    if path == "-":
        return TableFormat("csv", ",", None)
    name = os.path.basename(path).lower()
    if name.endswith(_PARQUET_SUFFIXES):
        return TableFormat("parquet", None, None)
    compression = None
    for suffix, codec in _COMPRESSION_SUFFIXES.items():
        if name.endswith(suffix):
            name, compression = name[: -len(suffix)], codec
    for suffix, sep in _CSV_SUFFIXES.items():
        if name.endswith(suffix):
            return TableFormat("csv", sep, compression)
    raise CLIError(
        f"{option} {path}: unknown table format; name the file .csv or .tsv (optionally "
        "followed by .gz, .bz2 or .zst), .parquet, or - for CSV on stdout"
    )


# ------------------------------------------------------------------------------ outputs


def _check_extension(option: str, path: str, kind: str) -> None:
    if kind == "table":
        output_format(path, option)
    elif kind == "model":
        if not path.lower().endswith(_MODEL_SUFFIXES):
            raise CLIError(
                f"{option} {path}: a model is written as .json or .json.gz (or - for stdout)"
            )
    elif kind == "plot":
        try:
            from ..plotting import image_formats

            formats = image_formats()
        except ImportError:
            raise CLIError(f'{option} needs matplotlib: pip install "venncal[plot]"') from None
        known = ", ".join(f".{e}" for e in sorted(formats))
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        if not ext:
            raise CLIError(
                f"{option} {path}: no file extension to choose the image format; name it "
                f"{path}.png, for instance (formats: {known})"
            )
        if ext not in formats:
            raise CLIError(
                f"{option} {path}: the image format follows the extension; use one of {known}"
            )
    else:  # pragma: no cover - a programming error
        raise ValueError(f"unknown output kind {kind!r}")


def check_outputs(
    inputs: Mapping[str, str | None],
    outputs: Mapping[str, tuple[str | None, str]],
    force: bool = False,
) -> None:
    """Check every output of a command before anything is read or written.

    Parameters
    ----------
    inputs : mapping
        What names each input (an argument or option, e.g. ``"DATA"``) to its
        path (``"-"`` and ``None`` are skipped).
    outputs : mapping
        Option -> ``(path, kind)``, kind ``"table"``, ``"model"`` or ``"plot"``;
        a ``None`` path is an output not asked for.
    force : bool
        Allow an output to be one of the inputs.

    Raises
    ------
    CLIError
        For an unknown extension, a missing folder, a directory, two outputs
        on one file or on stdout, or (unless ``force``) an output that is an input.
    """
    seen: dict[str, str] = {}
    for option, (path, kind) in outputs.items():
        if path is None:
            continue
        if path == "-":
            if kind == "plot":
                raise CLIError(f"{option}: give a file name, not -")
            if "-" in seen:
                raise CLIError(f"{seen['-']} and {option} cannot both write to stdout")
            seen["-"] = option
            continue
        if os.path.isdir(path):
            raise CLIError(f"{option} {path}: is a directory; give a file name")
        _check_extension(option, path, kind)
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise CLIError(f"{option} {path}: the folder {folder} does not exist")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise CLIError(f"{option} {path}: the folder {folder} is not writable")
        if os.path.exists(path) and not os.access(path, os.W_OK):
            raise CLIError(f"{option} {path}: the file exists and is not writable")
        real = os.path.realpath(path)
        if real in seen:
            raise CLIError(f"{seen[real]} and {option} name the same file {path}")
        seen[real] = option
        if force or not os.path.exists(path):
            continue
        for name, source in inputs.items():
            if source not in (None, "-") and os.path.exists(source) and os.path.samefile(
                path, source
            ):
                raise CLIError(
                    f"{option} {path} is the input {name} ({source}); refusing to overwrite "
                    "it (--force allows it)"
                )


def check_distinct_columns(columns: Mapping[str, str | Sequence[str] | None]) -> None:
    """Refuse one column named in two roles (``{option: column or columns}``).

    Examples
    --------
    >>> check_distinct_columns({"--score-col": "s", "--label-col": "s"})
    Traceback (most recent call last):
    ...
    venncal.cli._io.CLIError: --score-col and --label-col both name the column 's'; a column can play one role
    """
    seen: dict[str, str] = {}
    for option, names in columns.items():
        if names is None:
            continue
        for name in [names] if isinstance(names, str) else names:
            if name in seen:
                if seen[name] == option:
                    raise CLIError(f"{option} names the column {name!r} twice")
                raise CLIError(
                    f"{seen[name]} and {option} both name the column {name!r}; a column can "
                    "play one role"
                )
            seen[name] = option


def _create_temporary(path: str) -> str:
    """Create an empty file beside ``path``, named after it; unlike mkstemp, with the umask's mode.

    The name ends with the target's, so that writers choosing a format by
    extension (pyarrow, matplotlib, :func:`venncal.persist.save`) see the same one.
    """
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        tmp = os.path.join(folder, f".{secrets.token_hex(4)}.part.{os.path.basename(path)}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:  # pragma: no cover - 1 in 4 billion
            continue
        except OSError as exc:
            raise CLIError(f"cannot write in {folder}: {exc.strerror or exc}") from None
        os.close(fd)
        return tmp


@contextlib.contextmanager
def atomic_output(path: str) -> Iterator[str]:
    """Yield a temporary file name beside ``path``; rename it to ``path`` if the block succeeds."""
    tmp = _create_temporary(path)
    ok = False
    try:
        yield tmp
        ok = True
    finally:
        if ok:
            os.replace(tmp, path)
        else:
            with contextlib.suppress(OSError):
                os.remove(tmp)


def weight_column(values: np.ndarray, source: str, column: str) -> np.ndarray:
    """Check a column of frequency weights as every venncal entry point does."""
    try:
        return check_sample_weight(values, values.shape[0], name=f"column {column!r}", row_base=1)
    except (TypeError, ValueError) as exc:
        raise CLIError(f"{source}: {exc}") from None


def probability_column(values: np.ndarray, source: str, column: str) -> np.ndarray:
    """Check a column of probabilities as every venncal entry point does."""
    try:
        return check_probabilities(values, name=f"column {column!r}", row_base=1)
    except (TypeError, ValueError) as exc:
        raise CLIError(f"{source}: {exc}") from None


# -------------------------------------------------------------------------------- write


class Writer:
    """An output table written batch by batch.

    Nothing is written before the first batch arrives (so a command that
    fails on its first rows leaves stdout empty); a file is written to a
    temporary file beside the target and renamed into place by
    ``close(ok=True)``.
    """

    def __init__(self, path: str, sep: str | None = None):
        self.path = path
        self.format = output_format(path)
        self.sep = sep or self.format.sep
        self._tmp = None if path == "-" else _create_temporary(path)
        self._sink = None
        self._parquet = None
        self.typed = self.format.kind == "parquet"

    def write(self, names: Sequence[str], arrays: Sequence) -> None:
        """Append rows: one Arrow array per column."""
        pa = _arrow()
        batch = pa.RecordBatch.from_arrays(list(arrays), names=list(names))
        try:
            if self.typed:
                if self._parquet is None:
                    self._parquet = pa.parquet.ParquetWriter(self._tmp, batch.schema)
                self._parquet.write_batch(batch)
            else:
                self._write_csv(batch)
        except (pa.ArrowException, OSError) as exc:
            kind = "Parquet" if self.typed else "CSV"
            raise CLIError(f"{self.path}: cannot write {kind}: {exc}") from None

    def _write_csv(self, batch) -> None:
        pa = _arrow()
        # Cells are written as they are (text passes through unchanged); a batch
        # with a cell holding the separator, a quote or a newline is quoted.
        for quoting in ("none", "needed"):
            body = pa.BufferOutputStream()
            try:
                pa.csv.write_csv(
                    batch,
                    body,
                    write_options=pa.csv.WriteOptions(
                        include_header=False, delimiter=self.sep, quoting_style=quoting
                    ),
                )
                break
            except pa.ArrowInvalid:
                if quoting == "needed":
                    raise
        if self._sink is None:
            if self._tmp is None:
                sys.stdout.flush()
                self._sink = getattr(sys.stdout, "buffer", None) or _TextSink(sys.stdout)
            else:
                self._sink = pa.output_stream(self._tmp, compression=self.format.compression)
            header = io.StringIO()
            csv.writer(header, delimiter=self.sep, lineterminator="\n").writerow(
                batch.schema.names
            )
            self._sink.write(header.getvalue().encode("utf-8"))
        self._sink.write(memoryview(body.getvalue()))

    def close(self, ok: bool) -> None:
        """Finish the file (``ok``) or discard it."""
        try:
            if self._parquet is not None:
                self._parquet.close()
            elif self._sink is not None:
                if self._tmp is None:
                    self._sink.flush()
                else:
                    self._sink.close()
        finally:
            if self._tmp is not None:
                if ok:
                    os.replace(self._tmp, self.path)
                else:
                    with contextlib.suppress(OSError):
                        os.remove(self._tmp)
                self._tmp = None


class _TextSink:
    """Bytes to a text stream that has no binary buffer below it."""

    def __init__(self, text):
        self._text = text

    def write(self, data) -> None:
        self._text.write(bytes(data).decode("utf-8"))

    def flush(self) -> None:
        self._text.flush()


def open_writer(path: str, input_table: Table, new_columns: Sequence[str], *, sep=None) -> Writer:
    """Open an output table for the input's columns plus ``new_columns``."""
    clash = [c for c in new_columns if c in input_table.columns]
    if clash:
        raise CLIError(
            f"{input_table.source} already has column(s) {', '.join(map(repr, clash))}; "
            "choose other output names with --prefix"
        )
    return Writer(path, sep)


def write_table(path: str, columns: Mapping[str, np.ndarray], *, sep: str | None = None) -> None:
    """Write whole columns as a table (format by name, atomically)."""
    pa = _arrow()
    writer = Writer(path, sep)
    ok = False
    try:
        writer.write(list(columns), [pa.array(v) for v in columns.values()])
        ok = True
    finally:
        writer.close(ok)


# The input side lives in ._read and ._cells (which import this module's
# CLIError); the subcommands import both sides from here, so this module is
# always loaded first.
from ._cells import CellError, column_labels, column_numbers
from ._read import Batch, Retype, Table, open_table, read_columns
