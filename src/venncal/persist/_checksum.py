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

import contextlib
import contextvars
import math
import struct
import zlib

import numpy as np

__all__ = ["array_crc32", "document_crc32", "document_crc32_sized", "nested_encodings"]

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
    """A running CRC-32 fed through a small buffer.

    ``memo``: id of a nested document -> its encoding, read instead of encoding it again
    (:func:`nested_encodings`).
    """

    __slots__ = ("buf", "crc", "memo", "size")

    def __init__(self, memo: dict | None = None):
        self.buf = bytearray()
        self.crc = 0
        self.size = 0  # the bytes fed so far
        self.memo = memo

    def flush(self) -> None:
        self.crc = zlib.crc32(self.buf, self.crc)
        self.size += len(self.buf)
        self.buf.clear()


class _Bytes(_Crc):
    """The encoding kept whole, as bytes in ``buf``."""

    __slots__ = ()

    def flush(self) -> None:
        pass


_MEMO: contextvars.ContextVar[dict | None] = contextvars.ContextVar("venncal_crc_memo",
                                                                      default=None)


@contextlib.contextmanager
def nested_encodings():
    """Within this block, a document's encoding is kept for the documents around it.

    ``save`` checksums each nested document, then the one around it, whose
    encoding holds the first whole: kept, it is read, not encoded again once
    per enclosing document (a one-vs-one CVAP: three times).  The documents
    must not change inside the block once checksummed (``save`` builds each
    from its members up).
    """
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


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


# The encodings of short strings and the sorted members of small objects, which a model
# repeats thousands of times ("type", "dtype", "ndarray", the members of an array): kept
# once each, up to these many (a loaded one-vs-one CVAP of 50 classes: 376,850 values).
_CACHED = 4096
_SHORT = 64
_STRINGS: dict[str, bytes] = {}
_MEMBERS: dict[tuple, tuple] = {}


def _string(s: str) -> bytes:
    """``s``, its UTF-8 length and bytes: the encoding of a string."""
    hit = _STRINGS.get(s)
    if hit is None:
        raw = _utf8(s)
        hit = b"s" + _COUNT(len(raw)) + raw
        if len(s) <= _SHORT and len(_STRINGS) < _CACHED:
            _STRINGS[s] = hit
    return hit


def _members(value: dict, skip: str | None) -> tuple:
    """The names of ``value`` but ``skip`` in increasing order of their UTF-8 bytes, each
    with its encoding: ``(encoding, name)`` pairs."""
    names = tuple(value)
    key = (names, skip)
    hit = _MEMBERS.get(key)
    if hit is None:
        hit = tuple((_string(k), k) for _, k in sorted((_utf8(k), k) for k in names if k != skip))
        if len(names) <= 16 and len(_MEMBERS) < _CACHED:
            _MEMBERS[key] = hit
    return hit


def _encode(value, out: _Crc, skip: str | None = None) -> None:
    buf = out.buf
    if value is None:
        buf += b"n"
    elif value is True:
        buf += b"t"
    elif value is False:
        buf += b"f"
    elif isinstance(value, str):
        buf += _string(value)
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
        if out.memo is not None:
            hit = out.memo.get(id(value))
            if hit is not None:
                buf += hit
                if len(buf) >= _FLUSH:
                    out.flush()
                return
        if value.get("type") == "ndarray":
            skip = "data"
        names = _members(value, skip)
        buf += b"o"
        buf += _COUNT(len(names))
        for encoded, name in names:
            buf += encoded
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
    memo = _MEMO.get()
    if memo is None:
        out = _Crc()
        _encode(document, out, skip="crc32")
        out.flush()
        return out.crc, out.size
    # each member apart, so that the encoding as a member of another document (with its
    # crc32 among the members, in order) is put together from them
    members = []
    for encoded, name in _members(document, "crc32"):
        part = _Bytes(memo)
        _encode(document[name], part)
        members.append((_utf8(name), encoded + part.buf))
    data = b"o" + _COUNT(len(members)) + b"".join(m for _, m in members)
    crc = zlib.crc32(data)
    members.append((b"crc32", _string("crc32") + b"d" + _DOUBLE(float(crc))))
    members.sort(key=lambda m: m[0])
    memo[id(document)] = b"o" + _COUNT(len(members)) + b"".join(m for _, m in members)
    return crc, len(data)
