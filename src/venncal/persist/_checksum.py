"""The CRC-32 checksums of format version 3 (docs/model-format.md, "Checksums").

Two kinds, both CRC-32 as in zlib, gzip and PNG (ISO 3309; ``zlib.crc32``):

- every array member holds the CRC-32 of the array's raw bytes: C order,
  little-endian, what ``np.ascontiguousarray(a, dtype=D).tobytes()`` gives
  for its ``dtype`` D;
- every document holds the CRC-32 of the *canonical encoding* of its other
  members, in which the ``data`` of each array member is left out (its
  ``crc32`` stands for it).

The canonical encoding is defined on the parsed JSON value, so that a reader
in any language can compute it from its own JSON parser's output:
``null``, ``true``, ``false`` are the bytes ``n``, ``t``, ``f``; a number is
``d`` and the 8 little-endian bytes of its value as an IEEE 754 double (an
integer too, rounded to the nearest double, beyond the range of doubles to
an infinity); a string is ``s``, the number of bytes of its UTF-8 encoding
as a 4-byte little-endian unsigned integer, and those bytes; an array is
``l``, its number of elements (4 bytes, as before) and their encodings; an
object is ``o``, its number of members and, for each member in increasing
order of the UTF-8 bytes of its name, the encoding of the name (a string)
and of its value.
"""

from __future__ import annotations

import math
import struct
import zlib

import numpy as np

__all__ = ["array_crc32", "document_crc32", "document_crc32_sized"]

_DOUBLE = struct.Struct("<d").pack
_COUNT = struct.Struct("<I").pack
_NUMBERS = frozenset({int, float})  # not bool: true and false are encoded as t and f
# The canonical encoding is fed to zlib.crc32 in pieces of about this size.
_FLUSH = 1 << 20
# A list of numbers is encoded this many at a time.
_PIECE = 1 << 14


def array_crc32(arr: np.ndarray) -> int:
    """Return the CRC-32 of the C-order little-endian bytes of ``arr``.

    Examples
    --------
    >>> array_crc32(np.array([1.0, 2.0])) == zlib.crc32(np.array([1.0, 2.0], "<f8").tobytes())
    True
    """
    little = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))
    return zlib.crc32(little.reshape(-1).view(np.uint8))


class _Crc:
    """A running CRC-32 fed through a small buffer."""

    __slots__ = ("buf", "crc", "size")

    def __init__(self):
        self.buf = bytearray()
        self.crc = 0
        self.size = 0  # the bytes fed so far

    def flush(self) -> None:
        self.crc = zlib.crc32(self.buf, self.crc)
        self.size += len(self.buf)
        self.buf.clear()


def _doubles(values: list) -> bytes:
    """The encodings of numbers (ints and floats), ``d`` and the 8 little-endian bytes of
    each as a double (numpy converts an integer as ``float`` does: OverflowError beyond)."""
    out = np.empty((len(values), 9), dtype=np.uint8)
    out[:, 0] = ord("d")
    out[:, 1:] = np.array(values, dtype="<f8").view(np.uint8).reshape(-1, 8)
    return out.tobytes()


def _double(x) -> float:
    if isinstance(x, float):
        return x
    try:
        return float(x)
    except OverflowError:  # an integer beyond the range of doubles (copysign would convert it)
        return math.inf if x > 0 else -math.inf


def _utf8(s: str) -> bytes:
    # A lone surrogate (possible in a Python str, written by json as \udXXX)
    # is encoded as its three bytes, as JSON parsers that keep it do.
    return s.encode("utf-8", "surrogatepass")


def _encode(value, out: _Crc, skip: str | None = None) -> None:
    buf = out.buf
    if value is None:
        buf += b"n"
    elif value is True:
        buf += b"t"
    elif value is False:
        buf += b"f"
    elif isinstance(value, str):
        raw = _utf8(value)
        buf += b"s"
        buf += _COUNT(len(raw))
        buf += raw
    elif isinstance(value, (int, float)):
        buf += b"d"
        buf += _DOUBLE(_double(value))
    elif isinstance(value, list):
        buf += b"l"
        buf += _COUNT(len(value))
        if len(value) > 1 and set(map(type, value)) <= _NUMBERS:
            for start in range(0, len(value), _PIECE):  # 'd' and each double, as below
                piece = value[start:start + _PIECE]
                try:
                    buf += _doubles(piece)
                except OverflowError:  # an integer beyond doubles
                    for item in piece:
                        _encode(item, out)
                if len(buf) >= _FLUSH:
                    out.flush()
        else:
            for item in value:
                _encode(item, out)
    elif isinstance(value, dict):
        if value.get("type") == "ndarray":
            skip = "data"
        names = sorted((_utf8(k), k) for k in value if k != skip)
        buf += b"o"
        buf += _COUNT(len(names))
        for raw, name in names:
            buf += b"s"
            buf += _COUNT(len(raw))
            buf += raw
            _encode(value[name], out)
    else:  # pragma: no cover - JSON values are only the above
        raise TypeError(f"not a JSON value: {type(value).__name__}")
    if len(buf) >= _FLUSH:
        out.flush()


def document_crc32(document: dict) -> int:
    """Return the CRC-32 of the canonical encoding of a document without its ``crc32`` member.

    Examples
    --------
    >>> document_crc32({"format": "x", "crc32": 5}) == document_crc32({"format": "x"})
    True
    >>> document_crc32({"a": {"type": "ndarray", "data": [1]}}) == document_crc32(
    ...     {"a": {"type": "ndarray", "data": [2]}})
    True
    """
    return document_crc32_sized(document)[0]


def document_crc32_sized(document: dict) -> tuple[int, int]:
    """Return :func:`document_crc32` and the length in bytes of the canonical encoding."""
    out = _Crc()
    _encode(document, out, skip="crc32")
    out.flush()
    return out.crc, out.size
