"""What loading a model may spend: the ``max_bytes`` budget of ``load`` (docs/model-format.md).

Memory is counted *before* it is spent, so that a hostile or corrupt file (a
gzip bomb, a list of millions of numbers, a small file declaring a huge
array) is refused with a :class:`ModelFormatError` instead of exhausting
memory:

- the file is read, and gzip data decompressed in pieces, up to a quarter of
  the budget (the text is then held twice, as bytes and as a ``str``, and its
  values and arrays need the rest; inflating a gzip bomb to 128 MiB, the
  default's quarter, takes about a second);
- before the text is parsed, the Python objects its JSON values will take
  are bounded from its punctuation (:func:`json_cost`) and charged;
- every array is charged 1.5 times its bytes (itself and the state derived
  from it) before it is allocated, with room for a copy of it besides, and
  a calibrator's checks must find room for 1.5 times its arrays (their
  temporaries, freed after): a load that succeeds peaks below the budget.
"""

from __future__ import annotations

import sys
import zlib

import numpy as np

from ._spec import ModelFormatError, fail

__all__ = ["Budget", "json_cost", "read_document_text"]

_GZIP_MAGIC = b"\x1f\x8b"
# Bytes decompressed (or base64-decoded) per step.
CHUNK = 1 << 20
# Upper bounds on the Python objects that parsing JSON text builds (CPython
# 3.10-3.13, 64-bit; measured by tests/test_persist_limits.py): a value (one
# per comma, plus the first in each container) takes a list slot and at most
# a float object; a string object has a header besides its characters; each
# array, object and member adds its own.
_PER_VALUE = 40
_PER_QUOTE = 30  # a string (two quotes): a 60-byte header beyond its characters
_PER_ARRAY = 64
_PER_OBJECT = 160
_PER_MEMBER = 48  # per colon: a member's slot in its object, key included
_NOT_PUNCTUATION = bytes(sorted(set(range(256)) - set(b',:"[{')))
_TEXT_COST = "the document's text ({}) and the JSON values parsed from it"
# Charged per decoded array besides its bytes (the ndarray object, its shape).
ARRAY_OVERHEAD = 128


def _punctuation_cost(text) -> int:
    """:func:`json_cost` of a piece of text, without the first value (additive over pieces)."""
    if isinstance(text, (bytes, bytearray)):
        comma, colon, quote, bracket, brace = b",", b":", b'"', b"[", b"{"
        text = text.translate(None, _NOT_PUNCTUATION)  # one fast pass, then a short one
    else:
        comma, colon, quote, bracket, brace = ",", ":", '"', "[", "{"
    n_array, n_object = text.count(bracket), text.count(brace)
    return (
        _PER_VALUE * (text.count(comma) + n_array + n_object)
        + _PER_QUOTE * text.count(quote)
        + _PER_ARRAY * n_array
        + _PER_OBJECT * n_object
        + _PER_MEMBER * text.count(colon)
    )


def json_cost(text) -> int:
    """Return an upper bound of the bytes of Python objects ``json.loads(text)`` builds.

    ``text`` is ``bytes``, ``bytearray`` or ``str``; the characters of strings
    are not counted here (see :func:`read_document_text`).

    Examples
    --------
    >>> json_cost(b"[1.5, 2.5]")  # 3 values at most (2 numbers), 1 array
    184
    """
    return _PER_VALUE + _punctuation_cost(text)


class Budget:
    """The bytes a load may still allocate; ``limit=None`` for no limit."""

    def __init__(self, limit: int | None):
        self.limit = limit
        self.used = 0
        #: the bytes of the arrays decoded and not yet checked (a document's checks take
        #: its own: its members' were checked, and taken off, before)
        self.unchecked = 0

    @property
    def text_cap(self) -> int | None:
        """The most bytes of text (after gzip) a document may have: a quarter of the budget."""
        return None if self.limit is None else self.limit // 4

    def _refuse(self, where: str, what: str) -> ModelFormatError:
        return fail(
            where,
            f"{what}: more than max_bytes={self.limit} allows (venncal.persist.load's memory "
            "limit; pass a larger max_bytes, or None, to load a model you trust that is this "
            "large)",
        )

    def charge(self, nbytes: int, where: str, what: str) -> None:
        """Count ``nbytes`` more, or raise :class:`ModelFormatError` beyond the limit."""
        if self.limit is not None and self.used + nbytes > self.limit:
            raise self._refuse(where, f"{what} ({nbytes} bytes, {self.used} already counted)")
        self.used += nbytes

    def charge_array(self, nbytes: int, shape, dtype: str, where: str) -> None:
        """Count an array of ``nbytes`` bytes and half as much for the state derived from it,
        with room for a temporary copy of it besides.

        A loaded IVAP derives 0.4 times its saved arrays (tracemalloc, 1e6
        scores); the checks' temporaries are reserved per calibrator
        (:meth:`reserve`).  Counted once, a 17.9 MB file that ``save`` could
        write took 827 MiB under the 512 MiB default (attack 33 F2).
        """
        nbytes += ARRAY_OVERHEAD
        kept = nbytes + nbytes // 2
        if self.limit is not None and self.used + kept + nbytes > self.limit:
            raise self._refuse(
                where,
                f"an array of shape {shape} and dtype {dtype} ({nbytes} bytes, half as much "
                f"for the state derived from it and as much for checking it; {self.used} bytes "
                "already counted)",
            )
        self.used += kept
        self.unchecked += nbytes

    def reserve(self, nbytes: int, where: str) -> None:
        """Refuse unless ``nbytes`` more fit now (a calibrator's checks: freed when they end)."""
        if self.limit is not None and self.used + nbytes > self.limit:
            raise self._refuse(where, f"checking the loaded state ({nbytes} bytes of "
                                      f"temporaries, {self.used} bytes already counted)")


def _gunzip(raw: bytes, budget: Budget) -> bytearray:
    """Decompress gzip data (one or more members) in pieces, within ``budget``.

    Refused as soon as the text passes the budget's ``text_cap``, or the text
    and its values (:func:`json_cost`) the whole budget.
    """
    cap = budget.text_cap
    cost = _PER_VALUE
    out = bytearray()
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending = raw
    try:
        while True:
            chunk = inflate.decompress(pending, CHUNK)
            pending = inflate.unconsumed_tail
            out += chunk
            cost += 2 * len(chunk) + _punctuation_cost(chunk)
            if budget.limit is not None and budget.used + cost > budget.limit:
                budget.charge(cost, "", _TEXT_COST.format(f"more than {len(out)} bytes"))
            if cap is not None and len(out) > cap:
                raise ModelFormatError(
                    f"gzip data decompresses to more than {cap} bytes of text (a quarter of "
                    f"the limit): more than max_bytes={4 * cap} allows (venncal.persist.load's "
                    "memory limit; pass a larger max_bytes, or None, to load a model you trust "
                    "that is this large)"
                )
            if inflate.eof:
                rest = inflate.unused_data
                if not rest:
                    return out
                if rest[:2] != _GZIP_MAGIC:
                    raise ModelFormatError(
                        "corrupt gzip data: bytes after the end of the gzip data"
                    )
                inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)  # the next member
                pending = rest
            elif not chunk and not pending:
                raise ModelFormatError("corrupt gzip data: the gzip data is truncated")
    except zlib.error as exc:
        raise ModelFormatError(f"corrupt gzip data: {exc}") from None


def _str_kind(data: bytearray | bytes) -> int:
    """Bytes per character of the ``str`` UTF-8 ``data`` decodes to (at most; CPython, PEP 393)."""
    if not data:
        return 1
    top = int(np.frombuffer(data, np.uint8).max())
    # lead bytes: < 0xC4 up to U+00FF (1 byte), < 0xF0 up to U+FFFF (2), else 4
    return 1 if top < 0xC4 else 2 if top < 0xF0 else 4


def _read_capped(f, cap: int | None):
    """The stream's content, or its first ``cap + 1`` bytes (characters), read in pieces.

    ``f.read(cap + 1)`` allocated the whole ``cap + 1`` (128 MiB by default)
    for a model of 2 KB (attack 35).
    """
    if cap is None:
        return f.read()
    piece = f.read(min(CHUNK, cap + 1))
    data = [piece] if isinstance(piece, str) else bytearray(piece)  # bytes: grown in place
    total = len(piece)
    while piece and total <= cap:
        piece = f.read(min(CHUNK, cap + 1 - total))
        data += [piece] if isinstance(data, list) else piece
        total += len(piece)
    return "".join(data) if isinstance(data, list) else data


def read_document_text(path, budget: Budget) -> str:
    """Read a document's JSON text from a path or file object, within ``budget``.

    Gzip data (recognised from its first two bytes) is decompressed.  The text
    and the Python objects parsing it will build are charged to ``budget``
    before the text is decoded and parsed.
    """
    cap = budget.text_cap
    if hasattr(path, "read"):
        data = _read_capped(path, cap)
    else:
        with open(path, "rb") as f:
            data = _read_capped(f, cap)
    if cap is not None and len(data) > cap:
        what = "stream" if hasattr(path, "read") else "file"
        raise budget._refuse(
            "", f"the {what} holds more than {cap} bytes of text (a quarter of the limit)"
        )
    if isinstance(data, str):
        # Already text: held once more by the strings parsed from it.
        kind = max(1, (sys.getsizeof(data) - sys.getsizeof("")) // max(len(data), 1))
        cost = 2 * kind * len(data) + json_cost(data)
        budget.charge(cost, "", _TEXT_COST.format(f"{len(data)} characters"))
        return data
    if data[:2] == _GZIP_MAGIC:
        data = _gunzip(data, budget)
    # The text as bytes and as a str while it is decoded, then as a str and the
    # strings parsed from it while it is parsed.
    cost = 2 * _str_kind(data) * len(data) + json_cost(data)
    budget.charge(cost, "", _TEXT_COST.format(f"{len(data)} bytes"))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ModelFormatError("not a venncal calibrator (not UTF-8 text)") from None
