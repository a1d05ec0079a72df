"""Calibrator -> document: the encoding of every value (docs/model-format.md, "Values")."""

from __future__ import annotations

import base64
import contextlib
import json
import math
import zlib
from collections.abc import Mapping
from typing import IO, Any

import numpy as np

from .. import _score_names as score_names
from .._registry import class_path
from .._version import __version__
from ._checksum import array_crc32, document_crc32
from ._spec import ARRAY_KINDS, FORMAT, LIST_MAX

__all__ = ["document", "list_array", "write_json"]

# zlib level of the arrays stored as bytes: level 1 is several times faster
# than 6 and barely larger on these data (benchmarks/bench_persist.py;
# docs/model-format.md).  ``save`` passes ``venncal.persist._ZLIB_LEVEL``.
ZLIB_LEVEL = 1
# Bytes of an array zlib is tried on before the whole array is compressed.
_SAMPLE_BYTES = 65_536


def _float_json(x: float):
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def _array_dtype(arr: np.ndarray) -> np.dtype:
    """Return the dtype stored for ``arr`` (little-endian form), or raise TypeError."""
    if arr.dtype.kind not in ARRAY_KINDS:
        raise TypeError(
            f"cannot save an array of dtype {arr.dtype}: only bool, integer, float "
            "and str arrays are supported"
        )
    return arr.dtype.newbyteorder("<")


def list_array(arr: np.ndarray, dtype: np.dtype, version: int = 1) -> dict:
    """Encode ``arr`` with its elements as a JSON list (version 1; small arrays from 2)."""
    flat = np.ascontiguousarray(arr, dtype=dtype).ravel()
    if dtype.kind == "f":
        # Python floats are exact for float16/32/64, and their repr (what json
        # writes) round-trips bit for bit.
        values = flat.astype(np.float64)
        data = values.tolist()
        nan = np.isnan(values)
        for i in np.flatnonzero(~np.isfinite(values)).tolist():
            data[i] = _float_json(data[i])
        if nan.any():  # "nan" reloads as the standard quiet NaN: so does the checksum
            values[nan] = np.nan
            flat = values.astype(dtype)
    else:
        data = flat.tolist()
    encoded = {"type": "ndarray", "dtype": dtype.str, "shape": list(arr.shape)}
    if version >= 3:
        encoded["crc32"] = array_crc32(flat)
    encoded["data"] = data
    return encoded


def _encode_array(arr: np.ndarray, version: int, level: int) -> dict:
    dtype = _array_dtype(arr)
    if version == 1 or dtype.kind == "U" or arr.size <= LIST_MAX:
        return list_array(arr, dtype, version)
    # The C-order little-endian bytes, as they are in memory: no Python objects
    # per element, so a million floats take milliseconds.
    raw = np.ascontiguousarray(arr, dtype=dtype).tobytes()
    encoded = {"type": "ndarray", "dtype": dtype.str, "shape": list(arr.shape),
               "encoding": "base64"}
    crc = zlib.crc32(raw) if version >= 3 else None
    if _compresses(raw, level):
        encoded["compression"] = "zlib"
        raw = zlib.compress(raw, level)
    if version >= 3:
        encoded["crc32"] = crc
    encoded["data"] = base64.b64encode(raw).decode("ascii")
    return encoded


def _compresses(raw: bytes, level: int) -> bool:
    """Whether zlib is worth its time on ``raw``: it shrinks the first 64 KiB to 3/4 or less.

    Steps, counts and weights shrink a hundredfold; continuous scores by a
    quarter at most, for most of the time of a save, so they are stored plain.
    """
    sample = raw[:_SAMPLE_BYTES]
    return len(zlib.compress(sample, level)) <= 0.75 * len(sample)


def _encode(value: Any, where: str, version: int, level: int):
    """Encode one parameter or state value (see docs/model-format.md)."""
    if isinstance(value, np.generic):  # before str and float: np.str_, np.float64 are both
        if value.dtype.kind not in ARRAY_KINDS:
            raise TypeError(f"{where}: cannot save a numpy scalar of dtype {value.dtype}")
        encoded = list_array(np.asarray(value), value.dtype.newbyteorder("<"))
        return {"type": "scalar", "dtype": encoded["dtype"], "value": encoded["data"][0]}
    if value is None or isinstance(value, (bool, str)):
        return str(value) if isinstance(value, str) else value
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "O" and value.ndim == 1:  # labels from pandas: text, numbers
            from .._validation import label_values

            with contextlib.suppress(TypeError):  # else refused below, with its dtype
                value = label_values(value)
        return _encode_array(value, version, level)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        x = float(value)
        return x if math.isfinite(x) else {"type": "float", "value": _float_json(x)}
    if isinstance(value, list):
        return [_encode(v, f"{where}[{i}]", version, level) for i, v in enumerate(value)]
    if isinstance(value, tuple):
        return {
            "type": "tuple",
            "items": [_encode(v, f"{where}[{i}]", version, level) for i, v in enumerate(value)],
        }
    if isinstance(value, Mapping):
        items = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: cannot save a dict with non-string key {k!r}")
            items[k] = _encode(v, f"{where}[{k!r}]", version, level)
        return {"type": "dict", "items": items}
    if _is_calibrator(value):
        return document(value, version, zlib_level=level)
    raise TypeError(f"{where}: cannot save a value of type {type(value).__name__}")


def _is_calibrator(value) -> bool:
    return hasattr(value, "get_params") and hasattr(type(value), "_state")


def _derivable(calibrator, name: str) -> bool:
    """Whether state member ``name`` is left out of the file.

    It is when the member is newer than the class's first files (``_state_added``) and,
    bit for bit, what loading a file without it derives (``_state_default``): a model
    saved before it existed is then saved again byte for byte.
    """
    if name not in getattr(type(calibrator), "_state_added", {}) or not hasattr(
        calibrator, "_state_default"
    ):
        return False
    value, default = np.asarray(getattr(calibrator, name)), np.asarray(
        calibrator._state_default(name))
    return (value.dtype == default.dtype and value.shape == default.shape
            and value.tobytes() == default.tobytes())


def document(calibrator, version: int, *, fitted: bool = True, zlib_level: int = ZLIB_LEVEL):
    """Return the document of a calibrator; ``"state": null`` when not ``fitted`` (a parameter).

    ``zlib_level``: the zlib level of the arrays stored compressed.
    """
    from sklearn.utils.validation import check_is_fitted

    cls = type(calibrator)
    path = class_path(cls)
    state = None
    if fitted:
        check_is_fitted(calibrator, "classes_")
        state = {}
        for name in ("classes_", *getattr(cls, "_state", ())):
            if not hasattr(calibrator, name):
                raise ValueError(f"{cls.__name__} has no fitted attribute {name!r}")
            if _derivable(calibrator, name):
                continue
            state[name] = _encode(
                getattr(calibrator, name), f"{cls.__name__}.{name}", version, zlib_level
            )
        names = getattr(calibrator, score_names.NAME, None)
        if names is not None:  # the table fits' class-score columns (optional)
            state[score_names.NAME] = _encode(
                names, f"{cls.__name__}.{score_names.NAME}", version, zlib_level
            )
    params = {}
    # Parameters added after a class's first format: left out at their default, so that
    # a model saved before they existed is saved again byte for byte.
    added = getattr(cls, "_params_added", {})
    for k, v in calibrator.get_params(deep=False).items():
        if k in added and type(v) is type(added[k]) and v == added[k]:
            continue
        # A calibrator as a parameter (a wrapper's) is a setting: saved unfitted.
        params[k] = (
            document(v, version, fitted=False, zlib_level=zlib_level)
            if _is_calibrator(v)
            else _encode(v, f"{cls.__name__}({k}=...)", version, zlib_level)
        )
    doc = {
        "format": FORMAT,
        "format_version": version,
        "venncal_version": __version__,
        "class": path,
        "params": params,
        "state": state,
    }
    if version >= 3:
        doc["crc32"] = document_crc32(doc)
    return doc


# json.dumps(value, allow_nan=False, separators=(", ", ": ")) and json.dumps(name), with
# the encoder made once (json.dumps makes one a call: a third of the time of writing a
# model of thousands of documents)
_VALUE = json.JSONEncoder(allow_nan=False, separators=(", ", ": ")).encode
_NAME = json.encoder.encode_basestring_ascii


def write_json(obj, out: IO[str], indent: int = 0) -> None:
    """Write ``obj`` as JSON: objects one member a line, arrays of scalars on one line."""
    if isinstance(obj, dict) and obj:
        pad = "  " * (indent + 1)
        out.write("{\n")
        for i, (k, v) in enumerate(obj.items()):
            out.write(f"{pad}{_NAME(k)}: ")
            write_json(v, out, indent + 1)
            out.write(",\n" if i + 1 < len(obj) else "\n")
        out.write("  " * indent + "}")
    elif isinstance(obj, list) and any(isinstance(v, (dict, list)) for v in obj):
        pad = "  " * (indent + 1)
        out.write("[\n")
        for i, v in enumerate(obj):
            out.write(pad)
            write_json(v, out, indent + 1)
            out.write(",\n" if i + 1 < len(obj) else "\n")
        out.write("  " * indent + "]")
    else:
        out.write(_VALUE(obj))
