"""Save fitted calibrators to, and load them from, a documented JSON format.

A saved calibrator is one JSON document (UTF-8, optionally gzip-compressed)
that any language can read: its class, its parameters and its fitted state,
with every array stored so that it reloads bit for bit.  The format is
specified in ``docs/model-format.md``; in short::

    {"format": "venncal.calibrator", "format_version": 3,
     "venncal_version": "0.1.0",
     "class": "venncal.venn_abers.VennAbersCalibrator",
     "params": {"merge": "log", "classes": null},
     "state": {"classes_": {"type": "ndarray", "dtype": "<i8", "shape": [2],
                            "crc32": 3370928166, "data": [0, 1]},
               "scores_": {"type": "ndarray", "dtype": "<f8", "shape": [1000],
                           "encoding": "base64", "compression": "zlib",
                           "crc32": 1795460917, "data": "eAHt3..."}, ...},
     "crc32": 2914542006}

Numeric and bool arrays of more than :data:`LIST_MAX` elements hold their
little-endian bytes, zlib-compressed and base64-encoded; string arrays and
smaller ones are JSON lists.  Version 3 adds CRC-32 checksums, of every
array's bytes and of each document's other members, so that a corrupted file
is refused.  Version 1 documents (every array a JSON list) and version 2
documents (no checksums) still load, and :func:`save` still writes them on
request.

Loading never unpickles and never imports anything but the registered
calibrator classes, so a model file cannot run code, and it bounds the memory
it spends (``max_bytes``), so a hostile file cannot exhaust memory.  It does
trust the numbers in a file that passes its checks: load only files written
by :func:`save` (or by a program following the specification).
"""

from __future__ import annotations

import gzip
import io
import json
import os

from ._checksum import nested_encodings
from ._decode import from_document
from ._encode import ZLIB_LEVEL, document, write_json
from ._limits import Budget, read_document_text
from ._spec import FORMAT, FORMAT_VERSION, LIST_MAX, MAX_BYTES, ModelFormatError

__all__ = ["FORMAT", "FORMAT_VERSION", "LIST_MAX", "MAX_BYTES", "ModelFormatError", "load", "save"]

# gzip level of a ``.gz`` file, and zlib level of the arrays stored compressed:
# level 1 is several times faster than 6 and barely larger on these data
# (benchmarks/bench_persist.py sets them to compare).
_GZIP_LEVEL = 1
_ZLIB_LEVEL = ZLIB_LEVEL
_VERSIONS = (1, 2, 3)


def save(calibrator, path, *, format_version: int = FORMAT_VERSION) -> None:
    """Save a fitted calibrator as a venncal JSON document.

    Parameters
    ----------
    calibrator : fitted calibrator
        Any calibrator registered in venncal (IVAP, CVAP, Platt, isotonic,
        histogram binning, BBQ, ENIR, quantized isotonic, and the
        :class:`~venncal.NegatedScoreCalibrator` wrapper).
    path : str, path-like or text file object
        Where to write.  A name ending in ``.gz`` is gzip-compressed (level 1).
    format_version : {3, 2, 1}, default=3
        The version of the format to write.  Version 3 carries checksums;
        version 2 (no checksums) is for readers that know only versions 1
        and 2, such as venncal 0.1.x after 0.1.0; version 1 (every array a
        list of decimal numbers: about 8 times larger and 20 times slower to
        write for large models) for readers that know only version 1, such
        as venncal 0.1.0.  Versions 1 and 2 are written exactly as before.

    Raises
    ------
    TypeError
        For a calibrator class that is not registered, or a value of a type
        the format cannot hold.
    ValueError
        For a ``format_version`` other than 1, 2 and 3.
    sklearn.exceptions.NotFittedError
        If the calibrator is not fitted.

    See Also
    --------
    load : the inverse.

    Notes
    -----
    The format is specified in ``docs/model-format.md``.  Arrays and numbers
    reload bit for bit (NaN written in decimal, as in the lists of small
    arrays and in version 1, reloads as the standard quiet NaN).

    Examples
    --------
    >>> import io
    >>> import venncal
    >>> cal = venncal.VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    >>> buffer = io.StringIO()
    >>> venncal.persist.save(cal, buffer)
    >>> print(buffer.getvalue()[:60])
    {
      "format": "venncal.calibrator",
      "format_version": 3,
    >>> copy = venncal.persist.load(io.StringIO(buffer.getvalue()))
    >>> copy.predict_interval([0.5])
    array([[0.33333333, 1.        ]])
    """
    if type(format_version) is not int or format_version not in _VERSIONS:
        raise ValueError(f"format_version must be 1, 2 or 3; got {format_version!r}")
    with nested_encodings():  # each nested document encoded once for the checksums
        doc = document(calibrator, format_version, zlib_level=_ZLIB_LEVEL)
    if hasattr(path, "write"):
        write_json(doc, path)
        path.write("\n")
        return
    name = os.fspath(path)
    text = io.StringIO()
    write_json(doc, text)
    text.write("\n")
    data = text.getvalue().encode("utf-8")
    if str(name).endswith(".gz"):
        data = gzip.compress(data, compresslevel=_GZIP_LEVEL, mtime=0)
    with open(name, "wb") as f:
        f.write(data)


def _reject_constant(name: str):
    raise ModelFormatError(f"{name} is not valid JSON (write non-finite numbers as strings)")


def _check_max_bytes(max_bytes) -> None:
    if max_bytes is None:
        return
    if not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 1:
        raise TypeError(
            f"max_bytes must be a positive integer (bytes) or None (no limit); got {max_bytes!r}"
        )


def load(path, *, max_bytes: int | None = MAX_BYTES):
    """Load a calibrator saved by :func:`save`.

    Parameters
    ----------
    path : str, path-like or file object
        A venncal JSON document, plain or gzip-compressed (detected from the
        content, whatever the name).
    max_bytes : int or None, default=MAX_BYTES (512 MiB)
        The most memory loading may take, counted before it is spent: the
        document's text (at most a quarter of ``max_bytes`` after gzip, held
        twice while it is decoded and parsed), a bound on the Python objects
        of its JSON values (about 40 bytes a number), and every array (which
        must leave room for a copy of itself).  A model beyond it is refused
        with a :class:`ModelFormatError`; ``None`` sets no limit (for a file
        you trust).  An IVAP fitted on a million distinct scores counts about
        70 MB (version 3; version 1: about 400 MB).

    Returns
    -------
    calibrator
        A fitted calibrator of the saved class, with the saved parameters and
        fitted state; it predicts exactly as the saved one did.

    Raises
    ------
    FileNotFoundError, OSError
        If the file cannot be read.
    ModelFormatError
        (a ``ValueError``) if the content is not a venncal calibrator: not
        JSON, another kind of document, a newer ``format_version``, a class
        that is not registered or not installed, malformed members, a
        checksum that does not match (version 3), a state the class finds
        inconsistent, or more than ``max_bytes`` to load.
    TypeError
        For a ``max_bytes`` that is not a positive integer or None.

    See Also
    --------
    save : the inverse.

    Examples
    --------
    >>> import io
    >>> import venncal
    >>> cal = venncal.VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], ["a", "a", "b", "b"])
    >>> buffer = io.StringIO()
    >>> venncal.persist.save(cal, buffer)
    >>> copy = venncal.persist.load(io.StringIO(buffer.getvalue()))
    >>> copy.classes_
    array(['a', 'b'], dtype='<U1')
    >>> venncal.persist.load(io.StringIO('{"format": "something else"}'))
    Traceback (most recent call last):
    ...
    venncal.persist.ModelFormatError: not a venncal calibrator (no "format": "venncal.calibrator" member)
    >>> venncal.persist.load(io.StringIO(buffer.getvalue()), max_bytes=1000)
    Traceback (most recent call last):
    ...
    venncal.persist.ModelFormatError: the stream holds more than 250 bytes of text ...
    """
    _check_max_bytes(max_bytes)
    budget = Budget(max_bytes)
    text = read_document_text(path if hasattr(path, "read") else os.fspath(path), budget)
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ModelFormatError(f"not a venncal calibrator (not JSON: {exc})") from None
    except RecursionError:
        raise ModelFormatError("not a venncal calibrator (nested too deeply)") from None
    except ModelFormatError:
        raise
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise ModelFormatError(f"not a venncal calibrator (invalid number: {exc})") from None
    del text  # the parsed strings hold what is still needed
    try:
        return from_document(doc, budget)
    except RecursionError:
        raise ModelFormatError("not a venncal calibrator (nested too deeply)") from None

