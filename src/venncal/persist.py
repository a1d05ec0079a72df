"""Save fitted calibrators to, and load them from, a documented JSON format.

A saved calibrator is one JSON document (UTF-8, optionally gzip-compressed)
that any language can read: its class, its parameters and its fitted state,
with every array stored so that it reloads bit for bit.  The format is
specified in ``docs/model-format.md``; in short::

    {"format": "venncal.calibrator", "format_version": 2,
     "venncal_version": "0.1.0",
     "class": "venncal.venn_abers.VennAbersCalibrator",
     "params": {"merge": "log", "classes": null},
     "state": {"classes_": {"type": "ndarray", "dtype": "<i8", "shape": [2],
                            "data": [0, 1]},
               "scores_": {"type": "ndarray", "dtype": "<f8", "shape": [1000],
                           "encoding": "base64", "compression": "zlib",
                           "data": "eAHt3..."}, ...}}

Numeric and bool arrays of more than :data:`LIST_MAX` elements hold their
little-endian bytes, zlib-compressed and base64-encoded; string arrays and
smaller ones are JSON lists.  Version 1 documents (every array a JSON list)
still load.

Loading never unpickles and never imports anything but the registered
calibrator classes, so a model file cannot run code.  It does trust the
numbers in the file: load only files written by :func:`save` (or by a
program following the specification).
"""

from __future__ import annotations

import base64
import binascii
import gzip
import io
import json
import math
import os
import sys
import zlib
from collections.abc import Mapping
from typing import IO, Any

import numpy as np

from ._registry import calibrator_class, class_path

__all__ = ["FORMAT", "FORMAT_VERSION", "LIST_MAX", "ModelFormatError", "load", "save"]

#: Value of the ``"format"`` member of every saved calibrator.
FORMAT = "venncal.calibrator"
#: The version written by :func:`save`; :func:`load` reads versions 1 to this.
FORMAT_VERSION = 2
#: In version 2, numeric and bool arrays of at most this many elements (and
#: every string array) are written as JSON lists; larger ones as base64 bytes.
LIST_MAX = 16

# zlib level of the arrays stored as bytes, and gzip level of a ``.gz`` file:
# level 1 is several times faster than 6 and barely larger on these data
# (benchmarks/bench_persist.py; docs/model-format.md).
_ZLIB_LEVEL = 1
# Bytes of an array zlib is tried on before the whole array is compressed.
_SAMPLE_BYTES = 65_536
_GZIP_LEVEL = 1
# The element types version 2 stores as bytes, by their canonical dtype string.
_BYTES_DTYPES = frozenset(
    ("<f8", "<f4", "<f2", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "|b1")
)

_GZIP_MAGIC = b"\x1f\x8b"
_NONFINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
# numpy dtype kinds stored in arrays: bool, signed and unsigned ints, floats, str.
_ARRAY_KINDS = "biufU"
_TOP_KEYS = {"format", "format_version", "venncal_version", "class", "params", "state"}


class ModelFormatError(ValueError):
    """A file or document that is not a valid venncal calibrator."""


# ------------------------------------------------------------------------------ encoding


def _float_json(x: float):
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def _array_dtype(arr: np.ndarray) -> np.dtype:
    """Return the dtype stored for ``arr`` (little-endian form), or raise TypeError."""
    if arr.dtype.kind not in _ARRAY_KINDS:
        raise TypeError(
            f"cannot save an array of dtype {arr.dtype}: only bool, integer, float "
            "and str arrays are supported"
        )
    return arr.dtype.newbyteorder("<")


def _list_array(arr: np.ndarray, dtype: np.dtype) -> dict:
    """Encode ``arr`` with its elements as a JSON list (version 1; small arrays in 2)."""
    flat = np.ascontiguousarray(arr, dtype=dtype).ravel()
    if dtype.kind == "f":
        # Python floats are exact for float16/32/64, and their repr (what json
        # writes) round-trips bit for bit.
        values = flat.astype(np.float64)
        data = values.tolist()
        for i in np.flatnonzero(~np.isfinite(values)).tolist():
            data[i] = _float_json(data[i])
    else:
        data = flat.tolist()
    return {"type": "ndarray", "dtype": dtype.str, "shape": list(arr.shape), "data": data}


def _encode_array(arr: np.ndarray, version: int) -> dict:
    dtype = _array_dtype(arr)
    if version == 1 or dtype.kind == "U" or arr.size <= LIST_MAX:
        return _list_array(arr, dtype)
    # The C-order little-endian bytes, as they are in memory: no Python objects
    # per element, so a million floats take milliseconds.
    raw = np.ascontiguousarray(arr, dtype=dtype).tobytes()
    encoded = {"type": "ndarray", "dtype": dtype.str, "shape": list(arr.shape),
               "encoding": "base64"}
    if _compresses(raw):
        encoded["compression"] = "zlib"
        raw = zlib.compress(raw, _ZLIB_LEVEL)
    encoded["data"] = base64.b64encode(raw).decode("ascii")
    return encoded


def _compresses(raw: bytes) -> bool:
    """Whether zlib is worth its time on ``raw``: it shrinks the first 64 KiB to 3/4 or less.

    Steps, counts and weights shrink a hundredfold; continuous scores by a
    quarter at most, for most of the time of a save, so they are stored plain.
    """
    sample = raw[:_SAMPLE_BYTES]
    return len(zlib.compress(sample, _ZLIB_LEVEL)) <= 0.75 * len(sample)


def _encode(value: Any, where: str, version: int):
    """Encode one parameter or state value (see docs/model-format.md)."""
    if isinstance(value, np.generic):  # before str and float: np.str_, np.float64 are both
        if value.dtype.kind not in _ARRAY_KINDS:
            raise TypeError(f"{where}: cannot save a numpy scalar of dtype {value.dtype}")
        encoded = _list_array(np.asarray(value), value.dtype.newbyteorder("<"))
        return {"type": "scalar", "dtype": encoded["dtype"], "value": encoded["data"][0]}
    if value is None or isinstance(value, (bool, str)):
        return str(value) if isinstance(value, str) else value
    if isinstance(value, np.ndarray):
        return _encode_array(value, version)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        x = float(value)
        return x if math.isfinite(x) else {"type": "float", "value": _float_json(x)}
    if isinstance(value, list):
        return [_encode(v, f"{where}[{i}]", version) for i, v in enumerate(value)]
    if isinstance(value, tuple):
        return {
            "type": "tuple",
            "items": [_encode(v, f"{where}[{i}]", version) for i, v in enumerate(value)],
        }
    if isinstance(value, Mapping):
        items = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: cannot save a dict with non-string key {k!r}")
            items[k] = _encode(v, f"{where}[{k!r}]", version)
        return {"type": "dict", "items": items}
    if _is_calibrator(value):
        return _document(value, version)
    raise TypeError(f"{where}: cannot save a value of type {type(value).__name__}")


def _is_calibrator(value) -> bool:
    return hasattr(value, "get_params") and hasattr(type(value), "_state")


def _document(calibrator, version: int, *, fitted: bool = True) -> dict:
    """Return the document of a calibrator; ``"state": null`` when not ``fitted`` (a parameter)."""
    from sklearn.utils.validation import check_is_fitted

    from ._version import __version__

    cls = type(calibrator)
    path = class_path(cls)
    state = None
    if fitted:
        check_is_fitted(calibrator, "classes_")
        state = {}
        for name in ("classes_", *getattr(cls, "_state", ())):
            if not hasattr(calibrator, name):
                raise ValueError(f"{cls.__name__} has no fitted attribute {name!r}")
            state[name] = _encode(getattr(calibrator, name), f"{cls.__name__}.{name}", version)
    params = {}
    for k, v in calibrator.get_params(deep=False).items():
        # A calibrator as a parameter (a wrapper's) is a setting: saved unfitted.
        params[k] = (
            _document(v, version, fitted=False)
            if _is_calibrator(v)
            else _encode(v, f"{cls.__name__}({k}=...)", version)
        )
    return {
        "format": FORMAT,
        "format_version": version,
        "venncal_version": __version__,
        "class": path,
        "params": params,
        "state": state,
    }


def _write_json(obj, out: IO[str], indent: int = 0) -> None:
    """Write ``obj`` as JSON: objects one member a line, arrays of scalars on one line."""
    if isinstance(obj, dict) and obj:
        pad = "  " * (indent + 1)
        out.write("{\n")
        for i, (k, v) in enumerate(obj.items()):
            out.write(f"{pad}{json.dumps(k)}: ")
            _write_json(v, out, indent + 1)
            out.write(",\n" if i + 1 < len(obj) else "\n")
        out.write("  " * indent + "}")
    elif isinstance(obj, list) and any(isinstance(v, (dict, list)) for v in obj):
        pad = "  " * (indent + 1)
        out.write("[\n")
        for i, v in enumerate(obj):
            out.write(pad)
            _write_json(v, out, indent + 1)
            out.write(",\n" if i + 1 < len(obj) else "\n")
        out.write("  " * indent + "]")
    else:
        out.write(json.dumps(obj, allow_nan=False, separators=(", ", ": ")))


def save(calibrator, path, *, format_version: int = FORMAT_VERSION) -> None:
    """Save a fitted calibrator as a venncal JSON document.

    Parameters
    ----------
    calibrator : fitted calibrator
        Any calibrator registered in venncal (IVAP, CVAP, Platt, isotonic,
        histogram binning, BBQ, ENIR, quantized isotonic).
    path : str, path-like or text file object
        Where to write.  A name ending in ``.gz`` is gzip-compressed (level 1).
    format_version : {2, 1}, default=2
        The version of the format to write.  Version 1 (every array a list of
        decimal numbers: about 8 times larger and 20 times slower to write for
        large models) is for readers that know only version 1, such as
        venncal 0.1.0.

    Raises
    ------
    TypeError
        For a calibrator class that is not registered, or a value of a type
        the format cannot hold.
    ValueError
        For a ``format_version`` other than 1 and 2.
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
      "format_version": 2,
    >>> copy = venncal.persist.load(io.StringIO(buffer.getvalue()))
    >>> copy.predict_interval([0.5])
    array([[0.33333333, 1.        ]])
    """
    if format_version not in (1, FORMAT_VERSION) or isinstance(format_version, bool):
        raise ValueError(f"format_version must be 1 or {FORMAT_VERSION}; got {format_version!r}")
    document = _document(calibrator, format_version)
    if hasattr(path, "write"):
        _write_json(document, path)
        path.write("\n")
        return
    name = os.fspath(path)
    text = io.StringIO()
    _write_json(document, text)
    text.write("\n")
    data = text.getvalue().encode("utf-8")
    if str(name).endswith(".gz"):
        data = gzip.compress(data, compresslevel=_GZIP_LEVEL, mtime=0)
    with open(name, "wb") as f:
        f.write(data)


# ------------------------------------------------------------------------------ decoding


def _fail(where: str, message: str) -> ModelFormatError:
    return ModelFormatError(f"{where}: {message}" if where else message)


def _decode_float(v, where: str) -> float:
    if isinstance(v, str) and v in _NONFINITE:
        return _NONFINITE[v]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    raise _fail(where, f"expected a number or one of 'inf', '-inf', 'nan', got {v!r}")


def _check_shape(shape, where: str) -> int:
    """Return the number of elements of a valid ``shape`` member, or raise."""
    if not (
        isinstance(shape, list)
        and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
    ):
        raise _fail(where, f"shape must be a list of non-negative integers, got {shape!r}")
    if len(shape) > 32:  # numpy's limit on dimensions
        raise _fail(where, f"shape has {len(shape)} dimensions; at most 32 are allowed")
    return math.prod(shape)


def _reshape(arr: np.ndarray, shape: list, where: str) -> np.ndarray:
    try:
        return arr.reshape(shape)
    except ValueError as exc:  # e.g. a dimension beyond numpy's index range
        raise _fail(where, f"invalid shape {shape}: {exc}") from None


def _decode_array(obj: dict, where: str, version: int) -> np.ndarray:
    if version >= 2 and "encoding" in obj:
        return _decode_bytes_array(obj, where)
    _check_keys(obj, {"type", "dtype", "shape", "data"}, where)
    try:
        dtype = np.dtype(obj["dtype"])
    except (TypeError, ValueError):
        raise _fail(where, f"unknown dtype {obj['dtype']!r}") from None
    if not isinstance(obj["dtype"], str) or dtype.kind not in _ARRAY_KINDS:
        raise _fail(where, f"unsupported dtype {obj['dtype']!r}")
    shape = obj["shape"]
    size = _check_shape(shape, where)
    data = obj["data"]
    if not isinstance(data, list) or len(data) != size:
        raise _fail(where, f"data must be a list of {size} values for shape {shape}")
    kind = dtype.kind
    if kind == "f":
        if all(type(v) is float for v in data):  # the common case, fast
            values = data
        else:
            values = [_decode_float(v, f"{where}.data[{i}]") for i, v in enumerate(data)]
        arr = np.array(values, dtype=np.float64)
        if dtype != arr.dtype:  # float32, float16: the value must be exact there
            with np.errstate(over="ignore"):
                narrow = arr.astype(dtype)
            if not np.array_equal(narrow.astype(np.float64), arr, equal_nan=True):
                raise _fail(where, f"a value does not fit in dtype {dtype.str}")
            arr = narrow
    else:
        expected = {"b": bool, "i": int, "u": int, "U": str}[kind]
        if not all(type(v) is expected for v in data):
            i, v = next((i, v) for i, v in enumerate(data) if type(v) is not expected)
            raise _fail(f"{where}.data[{i}]", f"expected {expected.__name__}, got {v!r}")
        if kind == "U" and any(len(v) > dtype.itemsize // 4 for v in data):
            raise _fail(where, f"a string is longer than dtype {dtype.str} allows")
        try:
            arr = np.array(data, dtype=dtype)
        except OverflowError:
            raise _fail(where, f"a value does not fit in dtype {dtype.str}") from None
    return _reshape(arr, shape, where)


def _bytes_dtype(name, where: str) -> np.dtype:
    """Return the dtype of an array stored as bytes (one of ``_BYTES_DTYPES``), or raise."""
    if isinstance(name, str) and name in _BYTES_DTYPES:
        return np.dtype(name)
    try:
        dtype = np.dtype(name)
    except (TypeError, ValueError):
        raise _fail(where, f"unknown dtype {name!r}") from None
    if dtype.kind == "U":
        raise _fail(where, f"dtype {name!r}: string arrays are stored as JSON lists, not bytes")
    if dtype.byteorder == ">":
        raise _fail(where, f"big-endian dtype {name!r}: bytes are stored little-endian")
    raise _fail(
        where,
        f"unsupported dtype {name!r} for an array stored as bytes "
        f"(one of {', '.join(sorted(_BYTES_DTYPES))})",
    )


def _b64decode(data: str) -> bytes:
    """Decode standard base64 (RFC 4648, with padding), refusing anything else."""
    if sys.version_info >= (3, 11):  # no stray characters, no data after padding
        raw = binascii.a2b_base64(data, strict_mode=True)
    else:  # pragma: no cover - Python 3.10
        raw = base64.b64decode(data, validate=True)
    if len(data) != 4 * -(-len(raw) // 3):  # both accept "QUJD====" for "QUJD"
        raise ValueError("excess padding")
    return raw


def _decode_bytes_array(obj: dict, where: str) -> np.ndarray:
    """Decode a version-2 array stored as base64 of (zlib-compressed) bytes."""
    _check_keys(
        obj, {"type", "dtype", "shape", "encoding", "data"} | ({"compression"} & obj.keys()), where
    )
    if obj["encoding"] != "base64":
        raise _fail(where, f"unknown encoding {obj['encoding']!r} (expected 'base64')")
    compression = obj.get("compression")
    if "compression" in obj and compression != "zlib":
        raise _fail(where, f"unknown compression {compression!r} (expected 'zlib')")
    dtype = _bytes_dtype(obj["dtype"], where)
    shape = obj["shape"]
    nbytes = _check_shape(shape, where) * dtype.itemsize
    data = obj["data"]
    if not isinstance(data, str):
        raise _fail(where, f"data must be a base64 string, got {type(data).__name__}")
    try:
        raw = _b64decode(data)
    except (binascii.Error, ValueError) as exc:
        raise _fail(where, f"data is not valid base64: {exc}") from None
    if compression == "zlib":
        inflate = zlib.decompressobj()
        try:
            # at most one byte more than needed: a wrong length is seen without
            # inflating a stream of any size
            raw = inflate.decompress(raw, nbytes + 1)
        except zlib.error as exc:
            raise _fail(where, f"data is not valid zlib data: {exc}") from None
        if len(raw) > nbytes:
            raise _fail(
                where,
                f"decompressed data is longer than the {nbytes} bytes that shape {shape} "
                f"of dtype {dtype.str} needs",
            )
        if not inflate.eof:
            raise _fail(where, "data is a truncated zlib stream")
        if inflate.unused_data:
            raise _fail(where, "data has bytes after the end of its zlib stream")
    if len(raw) != nbytes:
        what = "decompressed data" if compression else "data"
        raise _fail(
            where,
            f"{what} holds {len(raw)} bytes; shape {shape} of dtype {dtype.str} needs {nbytes}",
        )
    if dtype.kind == "b" and raw and max(raw) > 1:
        raise _fail(where, "a bool element is a byte other than 0 and 1")
    arr = np.frombuffer(raw, dtype=dtype).astype(dtype.newbyteorder("="))  # a writable copy
    return _reshape(arr, shape, where)


def _decode(value, where: str, version: int):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_decode(v, f"{where}[{i}]", version) for i, v in enumerate(value)]
    if not isinstance(value, dict):  # pragma: no cover - json gives nothing else
        raise _fail(where, f"unexpected value {value!r}")
    if "format" in value:
        return _from_document(value, where)
    kind = value.get("type")
    if kind == "ndarray":
        return _decode_array(value, where, version)
    if kind == "scalar":
        _check_keys(value, {"type", "dtype", "value"}, where)
        arr = _decode_array(
            {"type": "ndarray", "dtype": value["dtype"], "shape": [], "data": [value["value"]]},
            where,
            1,
        )
        return arr[()]
    if kind == "float":
        _check_keys(value, {"type", "value"}, where)
        return _decode_float(value["value"], where)
    if kind == "tuple":
        _check_keys(value, {"type", "items"}, where)
        if not isinstance(value["items"], list):
            raise _fail(where, "tuple items must be a list")
        return tuple(_decode(v, f"{where}[{i}]", version) for i, v in enumerate(value["items"]))
    if kind == "dict":
        _check_keys(value, {"type", "items"}, where)
        if not isinstance(value["items"], dict):
            raise _fail(where, "dict items must be an object")
        return {k: _decode(v, f"{where}[{k!r}]", version) for k, v in value["items"].items()}
    raise _fail(where, f"unknown value type {kind!r}")


def _check_keys(obj: dict, expected: set, where: str) -> None:
    missing = expected - obj.keys()
    extra = obj.keys() - expected
    if missing:
        raise _fail(where, "missing member(s) " + ", ".join(sorted(map(repr, missing))))
    if extra:
        raise _fail(where, "unknown member(s) " + ", ".join(sorted(map(repr, extra))))


def _from_document(doc, where: str = ""):
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise _fail(where, f'not a venncal calibrator (no "format": "{FORMAT}" member)')
    version = doc.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _fail(where, f"invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise _fail(
            where,
            f"format_version {version} is newer than this venncal can read "
            f"(versions 1 to {FORMAT_VERSION}); upgrade venncal",
        )
    _check_keys(doc, _TOP_KEYS, where)
    path = doc["class"]
    if not isinstance(path, str):
        raise _fail(where, f"class must be a string, got {path!r}")
    inner = f"{where}.{path.rpartition('.')[2]}" if where else path.rpartition(".")[2]
    try:
        cls = calibrator_class(path)
    except (ValueError, ImportError) as exc:
        raise _fail(where, str(exc)) from None
    params, state = doc["params"], doc["state"]
    # A calibrator that is a parameter (a wrapper's) is saved unfitted, with "state": null.
    unfitted = state is None and ".params." in where.rsplit(".state.", 1)[-1]
    if not isinstance(params, dict) or not (isinstance(state, dict) or unfitted):
        raise _fail(where, "params and state must be JSON objects")
    known = set(cls._get_param_names())
    unknown = params.keys() - known
    if unknown:
        raise _fail(
            where,
            f"unknown parameter(s) {', '.join(sorted(unknown))} for {cls.__name__} "
            f"(parameters: {', '.join(sorted(known))})",
        )
    calibrator = cls(**{k: _decode(v, f"{inner}.params.{k}", version) for k, v in params.items()})
    checks = [("_check_params", "invalid parameter")]
    if not unfitted:
        _check_keys(state, {"classes_", *getattr(cls, "_state", ())}, f"{inner}.state")
        for name, value in state.items():
            setattr(calibrator, name, _decode(value, f"{inner}.state.{name}", version))
        checks.append(("_check_state", "inconsistent state"))
    for check, what in checks:
        if hasattr(calibrator, check):
            try:
                getattr(calibrator, check)()
            except (TypeError, ValueError) as exc:
                raise _fail(inner, f"{what}: {exc}") from None
    return calibrator


def _reject_constant(name: str):
    raise ModelFormatError(f"{name} is not valid JSON (write non-finite numbers as strings)")


def load(path):
    """Load a calibrator saved by :func:`save`.

    Parameters
    ----------
    path : str, path-like or file object
        A venncal JSON document, plain or gzip-compressed (detected from the
        content, whatever the name).

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
        that is not registered or not installed, or malformed members.

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
    """
    if hasattr(path, "read"):
        data = path.read()
    else:
        with open(os.fspath(path), "rb") as f:
            data = f.read()
    if isinstance(data, bytes):
        if data[:2] == _GZIP_MAGIC:
            try:
                data = gzip.decompress(data)
            except (OSError, EOFError) as exc:
                raise ModelFormatError(f"corrupt gzip data: {exc}") from None
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ModelFormatError("not a venncal calibrator (not UTF-8 text)") from None
    try:
        document = json.loads(data, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise ModelFormatError(f"not a venncal calibrator (not JSON: {exc})") from None
    except RecursionError:
        raise ModelFormatError("not a venncal calibrator (nested too deeply)") from None
    try:
        return _from_document(document)
    except RecursionError:
        raise ModelFormatError("not a venncal calibrator (nested too deeply)") from None
