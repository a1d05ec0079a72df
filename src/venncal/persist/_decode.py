"""Document -> calibrator: every value decoded and checked (docs/model-format.md)."""

from __future__ import annotations

import base64
import binascii
import math
import re
import sys
import zlib

import numpy as np

from .. import _score_names as score_names
from .._base import checked, checking_once
from .._registry import calibrator_class
from ._checksum import array_crc32, document_crc32_sized
from ._limits import CHUNK, Budget
from ._spec import (
    ARRAY_KINDS,
    BYTES_DTYPES,
    FORMAT,
    FORMAT_VERSION,
    NONFINITE,
    TOP_KEYS,
    ModelFormatError,
    fail,
)

__all__ = ["from_document"]

_LIST_KEYS = frozenset({"type", "dtype", "shape", "data"})
_BYTES_KEYS = frozenset({"type", "dtype", "shape", "encoding", "data"})
_B64_CHUNK = 4 * (CHUNK // 3)  # base64 characters decoded per step (a multiple of 4)
_ARRAY_CORRUPT = "the array's data is corrupt (crc32 differs)"
_DOCUMENT_CORRUPT = (
    "the document is corrupt (the crc32 of its members differs from its crc32 member)"
)
_OVERFLOW = 'a number beyond the range of a double (infinities are written "inf", "-inf")'


#: The JSON values that decode to themselves.
_PLAIN = frozenset({type(None), bool, int, float, str})


class _Context:
    """What decoding one document needs besides the value: its version, the budget.

    ``corrupt`` (shared by the nested documents of one file) collects the
    checksums that do not match, as ``(where, what)``: refused once every
    other rule has been checked, since a rule says more about an edited file
    than a checksum does.  ``work`` (shared too) holds how many bytes of
    canonical encoding the nested documents' checksums may still encode once
    an enclosing one did not match (:func:`_document_verified`).
    """

    __slots__ = ("budget", "corrupt", "version", "work")

    def __init__(self, version: int, budget: Budget, corrupt: list, work: list):
        self.version = version
        self.budget = budget
        self.corrupt = corrupt
        self.work = work


def _takes_class_scores(calibrator) -> bool:
    from .._engine import takes_class_scores

    return takes_class_scores(calibrator)


def _check_keys(obj: dict, expected, where: str) -> None:
    missing = expected - obj.keys()
    extra = obj.keys() - expected
    if missing:
        raise fail(where, "missing member(s) " + ", ".join(sorted(map(repr, missing))))
    if extra:
        raise fail(where, "unknown member(s) " + ", ".join(sorted(map(repr, extra))))


def _check_crc(obj: dict, where: str) -> int:
    crc = obj["crc32"]
    if not (isinstance(crc, int) and not isinstance(crc, bool) and 0 <= crc < 2**32):
        raise fail(where, f"crc32 must be an integer from 0 to 2**32 - 1, got {crc!r}")
    return crc


def _decode_float(v, where: str) -> float:
    if isinstance(v, str) and v in NONFINITE:
        return NONFINITE[v]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            x = float(v)
        except OverflowError:  # an integer beyond the range of doubles
            x = math.inf
        if not math.isfinite(x):
            raise fail(where, _OVERFLOW)
        return x
    raise fail(where, f"expected a number or one of 'inf', '-inf', 'nan', got {v!r}")


def _check_no_overflow(data: list, where: str) -> None:
    """Refuse a JSON number that reads as an infinity (non-finite values are strings)."""
    for i, v in enumerate(data):
        if type(v) is float and not math.isfinite(v):
            raise fail(f"{where}.data[{i}]", _OVERFLOW)


def _check_shape(shape, where: str) -> int:
    """Return the number of elements of a valid ``shape`` member, or raise."""
    if not (
        isinstance(shape, list)
        and all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
    ):
        raise fail(where, f"shape must be a list of non-negative integers, got {shape!r}")
    if len(shape) > 32:  # numpy's limit on dimensions
        raise fail(where, f"shape has {len(shape)} dimensions; at most 32 are allowed")
    return math.prod(shape)


def _reshape(arr: np.ndarray, shape: list, where: str) -> np.ndarray:
    try:
        return arr.reshape(shape)
    except ValueError as exc:  # e.g. a dimension beyond numpy's index range
        raise fail(where, f"invalid shape {shape}: {exc}") from None


def _verify(arr: np.ndarray, obj: dict, where: str, ctx: _Context) -> np.ndarray:
    """Note a version-3 array whose checksum (of its little-endian bytes) does not match."""
    if ctx.version >= 3 and array_crc32(arr) != obj["crc32"]:
        ctx.corrupt.append((where, _ARRAY_CORRUPT))
    return arr


def _decode_array(obj: dict, where: str, ctx: _Context) -> np.ndarray:
    crc = {"crc32"} if ctx.version >= 3 else set()
    if ctx.version >= 2 and "encoding" in obj:
        return _decode_bytes_array(obj, where, ctx)
    _check_keys(obj, _LIST_KEYS | crc, where)
    if crc:
        _check_crc(obj, where)
    dtype = _dtype(obj["dtype"], where)
    if not isinstance(obj["dtype"], str) or dtype.kind not in ARRAY_KINDS:
        raise fail(where, f"unsupported dtype {obj['dtype']!r}")
    shape = obj["shape"]
    size = _check_shape(shape, where)
    data = obj["data"]
    if not isinstance(data, list) or len(data) != size:
        raise fail(where, f"data must be a list of {size} values for shape {shape}")
    # the array, and a float64 copy on the way to a narrower float
    ctx.budget.charge_array(size * max(dtype.itemsize, 8 if dtype.kind == "f" else 0),
                            shape, dtype.str, where)
    kind = dtype.kind
    if kind == "f":
        if all(type(v) is float for v in data):  # the common case, fast
            values = data
        else:
            values = [_decode_float(v, f"{where}.data[{i}]") for i, v in enumerate(data)]
        arr = np.array(values, dtype=np.float64)
        if not np.isfinite(arr).all():
            _check_no_overflow(data, where)
        if dtype != arr.dtype:  # float32, float16: the value must be exact there
            with np.errstate(over="ignore"):
                narrow = arr.astype(dtype)
            if not np.array_equal(narrow.astype(np.float64), arr, equal_nan=True):
                raise fail(where, f"a value does not fit in dtype {dtype.str}")
            arr = narrow
    else:
        expected = {"b": bool, "i": int, "u": int, "U": str}[kind]
        if not all(type(v) is expected for v in data):
            i, v = next((i, v) for i, v in enumerate(data) if type(v) is not expected)
            raise fail(f"{where}.data[{i}]", f"expected {expected.__name__}, got {v!r}")
        if kind == "U" and any(len(v) > dtype.itemsize // 4 for v in data):
            raise fail(where, f"a string is longer than dtype {dtype.str} allows")
        try:
            arr = np.array(data, dtype=dtype)
        except OverflowError:
            raise fail(where, f"a value does not fit in dtype {dtype.str}") from None
    return _verify(_reshape(arr, shape, where), obj, where, ctx)


#: The dtype texts numpy is asked about (a byte order, then a name starting with a letter,
#: an optional unit): repeat counts, tuples and records are refused before numpy parses them
#: (its parser of repeat counts raised a SyntaxError on "<08": attack 53 F2).
_DTYPE_TEXT = re.compile(r"[<>|=]?[A-Za-z][A-Za-z0-9]*(?:\[[A-Za-z0-9]+\])?")


def _dtype(name, where: str) -> np.dtype:
    """``np.dtype(name)`` for a plain dtype text, or :func:`fail` ("unknown dtype")."""
    if not (isinstance(name, str) and _DTYPE_TEXT.fullmatch(name)):
        raise fail(where, f"unknown dtype {name!r}")
    try:
        return np.dtype(name)
    except (TypeError, ValueError, SyntaxError):
        raise fail(where, f"unknown dtype {name!r}") from None


def _bytes_dtype(name, where: str) -> np.dtype:
    """Return the dtype of an array stored as bytes (one of ``BYTES_DTYPES``), or raise."""
    if isinstance(name, str) and name in BYTES_DTYPES:
        return np.dtype(name)
    dtype = _dtype(name, where)
    if dtype.kind == "U":
        raise fail(where, f"dtype {name!r}: string arrays are stored as JSON lists, not bytes")
    if dtype.byteorder == ">":
        raise fail(where, f"big-endian dtype {name!r}: bytes are stored little-endian")
    raise fail(
        where,
        f"unsupported dtype {name!r} for an array stored as bytes "
        f"(one of {', '.join(sorted(BYTES_DTYPES))})",
    )


def _b64_length(data: str, where: str) -> int:
    """Return the number of bytes standard padded base64 ``data`` holds, from its length."""
    pad = 0
    while pad < min(3, len(data)) and data[-1 - pad] == "=":
        pad += 1
    if len(data) % 4 or pad > 2:
        reason = "excess padding" if pad > 2 else f"{len(data)} characters, not a multiple of 4"
        raise fail(where, f"data is not valid base64: {reason}")
    return 3 * (len(data) // 4) - pad


def _b64_chunks(data: str, where: str):
    """Yield the bytes of standard base64 (RFC 4648, padded) in pieces, refusing anything else."""
    expected = _b64_length(data, where)
    total = 0
    try:
        for start in range(0, len(data), _B64_CHUNK):
            piece = data[start : start + _B64_CHUNK]
            if sys.version_info >= (3, 11):  # no stray characters, no data after padding
                raw = binascii.a2b_base64(piece, strict_mode=True)
            else:  # pragma: no cover - Python 3.10
                raw = base64.b64decode(piece, validate=True)
            total += len(raw)
            if total > expected:
                break
            yield raw
    except (binascii.Error, ValueError) as exc:
        raise fail(where, f"data is not valid base64: {exc}") from None
    if total != expected:  # padding between two pieces
        raise fail(where, "data is not valid base64: padding inside the data")


def _inflate_into(out: np.ndarray, data: str, where: str, needs: str) -> None:
    """Decompress the zlib stream in base64 ``data`` into ``out``, exactly filling it."""
    nbytes = out.shape[0]
    inflate = zlib.decompressobj()
    filled = 0
    longer = f"decompressed data is longer than the {nbytes} bytes that {needs}"
    try:
        for piece in _b64_chunks(data, where):
            if inflate.eof:
                raise fail(where, "data has bytes after the end of its zlib stream")
            while piece:
                # at most one byte more than needed: a wrong length is seen
                # without inflating a stream of any size
                chunk = inflate.decompress(piece, min(CHUNK, nbytes + 1 - filled))
                piece = inflate.unconsumed_tail
                if filled + len(chunk) > nbytes:
                    raise fail(where, longer)
                out[filled : filled + len(chunk)] = np.frombuffer(chunk, np.uint8)
                filled += len(chunk)
                if inflate.eof:
                    if piece or inflate.unused_data:
                        raise fail(where, "data has bytes after the end of its zlib stream")
                    break
        while not inflate.eof:  # output still held back by the limit
            chunk = inflate.decompress(b"", min(CHUNK, nbytes + 1 - filled))
            if not chunk:
                raise fail(where, "data is a truncated zlib stream")
            if filled + len(chunk) > nbytes:
                raise fail(where, longer)
            out[filled : filled + len(chunk)] = np.frombuffer(chunk, np.uint8)
            filled += len(chunk)
    except zlib.error as exc:
        raise fail(where, f"data is not valid zlib data: {exc}") from None
    if filled != nbytes:
        raise fail(where, f"decompressed data holds {filled} bytes; {needs} {nbytes}")


def _decode_bytes_array(obj: dict, where: str, ctx: _Context) -> np.ndarray:
    """Decode an array stored as base64 of (zlib-compressed) bytes (version 2 and later)."""
    crc = {"crc32"} if ctx.version >= 3 else set()
    _check_keys(obj, _BYTES_KEYS | crc | ({"compression"} & obj.keys()), where)
    if obj["encoding"] != "base64":
        raise fail(where, f"unknown encoding {obj['encoding']!r} (expected 'base64')")
    compression = obj.get("compression")
    if "compression" in obj and compression != "zlib":
        raise fail(where, f"unknown compression {compression!r} (expected 'zlib')")
    if crc:
        _check_crc(obj, where)
    dtype = _bytes_dtype(obj["dtype"], where)
    shape = obj["shape"]
    nbytes = _check_shape(shape, where) * dtype.itemsize
    data = obj["data"]
    if not isinstance(data, str):
        raise fail(where, f"data must be a base64 string, got {type(data).__name__}")
    length = _b64_length(data, where)
    needs = f"shape {shape} of dtype {dtype.str} needs"
    if compression is None and length != nbytes:
        raise fail(where, f"data holds {length} bytes; {needs} {nbytes}")
    ctx.budget.charge_array(nbytes, shape, dtype.str, where)
    out = np.empty(nbytes, np.uint8)
    if compression == "zlib":
        _inflate_into(out, data, where, needs)
    else:
        filled = 0
        for piece in _b64_chunks(data, where):
            out[filled : filled + len(piece)] = np.frombuffer(piece, np.uint8)
            filled += len(piece)
    if dtype.kind == "b" and nbytes and out.max() > 1:
        raise fail(where, "a bool element is a byte other than 0 and 1")
    if ctx.version >= 3 and zlib.crc32(out) != obj["crc32"]:
        ctx.corrupt.append((where, _ARRAY_CORRUPT))
    arr = out.view(dtype)
    if dtype.byteorder == "<" and sys.byteorder != "little":  # pragma: no cover - big-endian
        arr = arr.astype(dtype.newbyteorder("="))
    return _reshape(arr, shape, where)
def _decode(value, where: str, ctx: _Context, verified: bool):
    if type(value) is float and not math.isfinite(value):
        raise fail(where, _OVERFLOW)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        types = set(map(type, value))
        if types <= _PLAIN:  # what _decode returns as it is
            for i, v in enumerate(value if float in types else ()):
                if type(v) is float and not -math.inf < v < math.inf:
                    raise fail(f"{where}[{i}]", _OVERFLOW)
            return list(value)
        return [_decode(v, f"{where}[{i}]", ctx, verified) for i, v in enumerate(value)]
    if not isinstance(value, dict):  # pragma: no cover - json gives nothing else
        raise fail(where, f"unexpected value {value!r}")
    if "format" in value:
        return _from_document(value, ctx, where, verified)
    kind = value.get("type")
    if kind == "ndarray":
        return _decode_array(value, where, ctx)
    if kind == "scalar":
        _check_keys(value, {"type", "dtype", "value"}, where)
        member = {"type": "ndarray", "dtype": value["dtype"], "shape": [], "data": [value["value"]]}
        return _decode_array(member, where, _Context(1, ctx.budget, ctx.corrupt, ctx.work))[()]
    if kind == "float":
        _check_keys(value, {"type", "value"}, where)
        return _decode_float(value["value"], where)
    if kind == "tuple":
        _check_keys(value, {"type", "items"}, where)
        if not isinstance(value["items"], list):
            raise fail(where, "tuple items must be a list")
        return tuple(
            _decode(v, f"{where}[{i}]", ctx, verified) for i, v in enumerate(value["items"])
        )
    if kind == "dict":
        _check_keys(value, {"type", "items"}, where)
        if not isinstance(value["items"], dict):
            raise fail(where, "dict items must be an object")
        return {
            k: _decode(v, f"{where}[{k!r}]", ctx, verified) for k, v in value["items"].items()
        }
    raise fail(where, f"unknown value type {kind!r}")


def _version_of(doc, where: str) -> int:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise fail(where, f'not a venncal calibrator (no "format": "{FORMAT}" member)')
    version = doc.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise fail(where, f"invalid format_version {version!r}")
    if version > FORMAT_VERSION:
        raise fail(
            where,
            f"format_version {version} is newer than this venncal can read "
            f"(versions 1 to {FORMAT_VERSION}); upgrade venncal",
        )
    return version


def from_document(doc, budget: Budget):
    """Return the calibrator a parsed document describes, or raise ModelFormatError.

    The checksums (version 3) are compared as the document is decoded but
    refused last, after every other rule: a file edited by hand is told
    which rule it breaks, one corrupted otherwise that it is corrupt.
    Memory is bounded by ``budget`` either way.
    """
    corrupt: list[tuple[str, str]] = []
    try:
        with checking_once():  # each member's state is checked once, not again by its owner
            calibrator = _from_document(doc, _Context(0, budget, corrupt, [None]), "", False)
    except ModelFormatError as exc:
        if corrupt:  # say so too: the file was edited, or is corrupt
            raise ModelFormatError(
                f"{exc} (and a checksum does not match: the file is corrupt or was edited)"
            ) from None
        raise
    if corrupt:
        where, what = corrupt[0]
        raise fail(where, f"checksum mismatch: {what}")
    return calibrator


def _document_verified(doc: dict, where: str, outer: _Context) -> bool:
    """Whether the document's checksum matches (a mismatch is noted in ``outer.corrupt``).

    Below a mismatch, each nested document's checksum is computed to say
    which one is corrupt; that re-encodes its members, so the nested checks
    may encode at most twice the outermost document's bytes in all (a
    crafted file of 100 nested documents around 1e6 numbers took 127 s to
    refuse, attack 36 F1).  Past that, a nested document counts as
    unverified, its mismatch told by the enclosing one.
    """
    crc = _check_crc(doc, where)
    left = outer.work[0]
    if left is not None and left <= 0:
        return False
    actual, size = document_crc32_sized(doc)
    outer.work[0] = 2 * size if left is None else left - size
    if actual != crc:
        outer.corrupt.append((where, _DOCUMENT_CORRUPT))
        return False
    return True


def _from_document(doc, outer: _Context, where: str, verified: bool):
    """Decode one (possibly nested) document; ``verified``: an enclosing checksum matched."""
    version = _version_of(doc, where)
    _check_keys(doc, TOP_KEYS | ({"crc32"} if version >= 3 else set()), where)
    if version >= 3 and not verified:
        verified = _document_verified(doc, where, outer)
    ctx = _Context(version, outer.budget, outer.corrupt, outer.work)
    path = doc["class"]
    if not isinstance(path, str):
        raise fail(where, f"class must be a string, got {path!r}")
    inner = f"{where}.{path.rpartition('.')[2]}" if where else path.rpartition(".")[2]
    try:
        cls = calibrator_class(path)
    except (ValueError, ImportError) as exc:
        raise fail(where, str(exc)) from None
    params, state = doc["params"], doc["state"]
    # A calibrator that is a parameter (a wrapper's) is saved unfitted, with "state": null.
    unfitted = state is None and ".params." in where.rsplit(".state.", 1)[-1]
    if not isinstance(params, dict) or not (isinstance(state, dict) or unfitted):
        raise fail(where, "params and state must be JSON objects")
    known = set(cls._get_param_names())
    unknown = params.keys() - known
    if unknown:
        raise fail(
            where,
            f"unknown parameter(s) {', '.join(sorted(unknown))} for {cls.__name__} "
            f"(parameters: {', '.join(sorted(known))})",
        )
    calibrator = cls(
        **{k: _decode(v, f"{inner}.params.{k}", ctx, verified) for k, v in params.items()}
    )
    checks = [("_check_params", "invalid parameter")]
    if not unfitted:
        # Members newer than the class's first saved models (``_state_added``) may be
        # absent: ``_derive_state`` fills them from what those models were fitted with.
        expected = {"classes_", *getattr(cls, "_state", ())}
        if score_names.NAME in state and _takes_class_scores(calibrator):
            expected.add(score_names.NAME)  # optional: the table fits' score columns
        _check_keys(state, expected - (set(getattr(cls, "_state_added", {})) - state.keys()),
                    f"{inner}.state")
        unchecked = ctx.budget.unchecked
        for name, value in state.items():
            setattr(calibrator, name, _decode(value, f"{inner}.state.{name}", ctx, verified))
        # the checks' temporaries, of this calibrator's own arrays (its members' were checked
        # with theirs and taken off): an IVAP's peak at 1.26 times its arrays beyond them and
        # the state derived from them (tracemalloc, 1e6 and 8e6 scores)
        ctx.budget.reserve(3 * (ctx.budget.unchecked - unchecked) // 2, inner)
        ctx.budget.unchecked = unchecked
        # attributes computed from the saved ones (not saved: IVAP's q0_), then the checks
        checks += [("_derive_state", "inconsistent state"), ("_check_state", "inconsistent state")]
        try:
            score_names.check_state(calibrator)
        except ValueError as exc:
            raise fail(inner, f"inconsistent state: {exc}") from None
    for check, what in checks:
        if hasattr(calibrator, check):
            try:
                with np.errstate(all="ignore"):  # a check refuses; it does not warn
                    getattr(calibrator, check)()
            except (TypeError, ValueError) as exc:
                raise fail(inner, f"{what}: {exc}") from None
    if not unfitted:
        checked(calibrator)
    return calibrator
