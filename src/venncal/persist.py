"""Save fitted calibrators to, and load them from, a documented JSON format.

A saved calibrator is one JSON document (UTF-8, optionally gzip-compressed)
that any language can read: its class, its parameters and its fitted state,
with every array stored so that it reloads bit for bit.  The format is
specified in ``docs/model-format.md``; in short::

    {"format": "venncal.calibrator", "format_version": 1,
     "venncal_version": "0.1.0",
     "class": "venncal.venn_abers.VennAbersCalibrator",
     "params": {"merge": "log", "classes": null},
     "state": {"classes_": {"type": "ndarray", "dtype": "<i8", "shape": [2],
                            "data": [0, 1]}, ...}}

Loading never unpickles and never imports anything but the registered
calibrator classes, so a model file cannot run code.  It does trust the
numbers in the file: load only files written by :func:`save` (or by a
program following the specification).
"""

from __future__ import annotations

import gzip
import io
import json
import math
import os
from collections.abc import Mapping
from typing import IO, Any

import numpy as np

from ._registry import calibrator_class, class_path

__all__ = ["FORMAT", "FORMAT_VERSION", "ModelFormatError", "load", "save"]

#: Value of the ``"format"`` member of every saved calibrator.
FORMAT = "venncal.calibrator"
#: The version written by :func:`save`; :func:`load` reads versions 1 to this.
FORMAT_VERSION = 1

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


def _encode_array(arr: np.ndarray) -> dict:
    dtype = _array_dtype(arr)
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


def _encode(value: Any, where: str):
    """Encode one parameter or state value (see docs/model-format.md)."""
    if isinstance(value, np.generic):  # before str and float: np.str_, np.float64 are both
        if value.dtype.kind not in _ARRAY_KINDS:
            raise TypeError(f"{where}: cannot save a numpy scalar of dtype {value.dtype}")
        encoded = _encode_array(np.asarray(value))
        return {"type": "scalar", "dtype": encoded["dtype"], "value": encoded["data"][0]}
    if value is None or isinstance(value, (bool, str)):
        return str(value) if isinstance(value, str) else value
    if isinstance(value, np.ndarray):
        return _encode_array(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        x = float(value)
        return x if math.isfinite(x) else {"type": "float", "value": _float_json(x)}
    if isinstance(value, list):
        return [_encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, tuple):
        return {
            "type": "tuple",
            "items": [_encode(v, f"{where}[{i}]") for i, v in enumerate(value)],
        }
    if isinstance(value, Mapping):
        items = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: cannot save a dict with non-string key {k!r}")
            items[k] = _encode(v, f"{where}[{k!r}]")
        return {"type": "dict", "items": items}
    if _is_calibrator(value):
        return _document(value)
    raise TypeError(f"{where}: cannot save a value of type {type(value).__name__}")


def _is_calibrator(value) -> bool:
    return hasattr(value, "get_params") and hasattr(type(value), "_state")


def _document(calibrator, *, fitted: bool = True) -> dict:
    """Return the document of a calibrator; ``"state": null`` when not ``fitted`` (a parameter)."""
    from sklearn.utils.validation import check_is_fitted

    from . import __version__

    cls = type(calibrator)
    path = class_path(cls)
    state = None
    if fitted:
        check_is_fitted(calibrator, "classes_")
        state = {}
        for name in ("classes_", *getattr(cls, "_state", ())):
            if not hasattr(calibrator, name):
                raise ValueError(f"{cls.__name__} has no fitted attribute {name!r}")
            state[name] = _encode(getattr(calibrator, name), f"{cls.__name__}.{name}")
    params = {}
    for k, v in calibrator.get_params(deep=False).items():
        # A calibrator as a parameter (a wrapper's) is a setting: saved unfitted.
        params[k] = _document(v, fitted=False) if _is_calibrator(v) else _encode(
            v, f"{cls.__name__}({k}=...)"
        )
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
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


def save(calibrator, path) -> None:
    """Save a fitted calibrator as a venncal JSON document.

    Parameters
    ----------
    calibrator : fitted calibrator
        Any calibrator registered in venncal (IVAP, CVAP, Platt, isotonic,
        histogram binning, BBQ).
    path : str, path-like or text file object
        Where to write.  A name ending in ``.gz`` is gzip-compressed.

    Raises
    ------
    TypeError
        For a calibrator class that is not registered, or a value of a type
        the format cannot hold.
    sklearn.exceptions.NotFittedError
        If the calibrator is not fitted.

    See Also
    --------
    load : the inverse.

    Notes
    -----
    The format is specified in ``docs/model-format.md``.  Float arrays and
    numbers reload bit for bit (NaN reloads as the standard quiet NaN).

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
      "format_version": 1,
    >>> copy = venncal.persist.load(io.StringIO(buffer.getvalue()))
    >>> copy.predict_interval([0.5])
    array([[0.33333333, 1.        ]])
    """
    document = _document(calibrator)
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
        data = gzip.compress(data, mtime=0)
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


def _decode_array(obj: dict, where: str) -> np.ndarray:
    _check_keys(obj, {"type", "dtype", "shape", "data"}, where)
    try:
        dtype = np.dtype(obj["dtype"])
    except (TypeError, ValueError):
        raise _fail(where, f"unknown dtype {obj['dtype']!r}") from None
    if not isinstance(obj["dtype"], str) or dtype.kind not in _ARRAY_KINDS:
        raise _fail(where, f"unsupported dtype {obj['dtype']!r}")
    shape = obj["shape"]
    if not (
        isinstance(shape, list)
        and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
    ):
        raise _fail(where, f"shape must be a list of non-negative integers, got {shape!r}")
    data = obj["data"]
    if not isinstance(data, list) or len(data) != math.prod(shape):
        raise _fail(where, f"data must be a list of {math.prod(shape)} values for shape {shape}")
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
    return arr.reshape(shape)


def _decode(value, where: str):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_decode(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if not isinstance(value, dict):  # pragma: no cover - json gives nothing else
        raise _fail(where, f"unexpected value {value!r}")
    if "format" in value:
        return _from_document(value, where)
    kind = value.get("type")
    if kind == "ndarray":
        return _decode_array(value, where)
    if kind == "scalar":
        _check_keys(value, {"type", "dtype", "value"}, where)
        arr = _decode_array(
            {"type": "ndarray", "dtype": value["dtype"], "shape": [], "data": [value["value"]]},
            where,
        )
        return arr[()]
    if kind == "float":
        _check_keys(value, {"type", "value"}, where)
        return _decode_float(value["value"], where)
    if kind == "tuple":
        _check_keys(value, {"type", "items"}, where)
        if not isinstance(value["items"], list):
            raise _fail(where, "tuple items must be a list")
        return tuple(_decode(v, f"{where}[{i}]") for i, v in enumerate(value["items"]))
    if kind == "dict":
        _check_keys(value, {"type", "items"}, where)
        if not isinstance(value["items"], dict):
            raise _fail(where, "dict items must be an object")
        return {k: _decode(v, f"{where}[{k!r}]") for k, v in value["items"].items()}
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
    calibrator = cls(**{k: _decode(v, f"{inner}.params.{k}") for k, v in params.items()})
    checks = [("_check_params", "invalid parameter")]
    if not unfitted:
        _check_keys(state, {"classes_", *getattr(cls, "_state", ())}, f"{inner}.state")
        for name, value in state.items():
            setattr(calibrator, name, _decode(value, f"{inner}.state.{name}"))
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
