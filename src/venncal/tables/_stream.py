"""Input bytes: a file or stdin, its first bytes looked at before reading, decompressed."""

from __future__ import annotations

import io
import os
import sys

from ._errors import TableError
from ._formats import PARQUET_SUFFIXES, arrow

__all__ = ["Stream", "open_bytes"]

_PARQUET_MAGIC = b"PAR1"
_COMPRESSION_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\x28\xb5\x2f\xfd", "zstd"))


class Stream(io.RawIOBase):
    """A binary stream whose first bytes can be looked at before reading; counts bytes read."""

    def __init__(self, f, *, owned: bool = True):
        self._f = f
        self._owned = owned
        self._head = b""
        self._pos = 0
        self.eof = False
        self.count = 0

    def readable(self) -> bool:
        return True

    def _more(self, n: int) -> bool:
        data = self._f.read(n)
        if not data:
            self.eof = True
            return False
        self.count += len(data)
        self._head += bytes(data)
        return True

    def peek_head(self, n: int) -> bytes:
        """Return (at least, unless the stream is shorter) the first ``n`` bytes, kept for reading."""
        while len(self._head) < n and not self.eof:
            self._more(n - len(self._head))
        return self._head

    def readinto(self, b) -> int:
        if self._pos < len(self._head):
            n = min(len(b), len(self._head) - self._pos)
            b[:n] = self._head[self._pos : self._pos + n]
            self._pos += n
            return n
        data = self._f.read(len(b))
        n = len(data)
        b[:n] = data
        self.count += n
        return n

    def close(self) -> None:
        if self._owned and not self.closed:
            self._f.close()
        super().close()


def _stdin_bytes():
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return buffer
    # a text stream with no bytes below it (embedding, tests)
    return io.BytesIO(sys.stdin.read().encode("utf-8"))


def open_bytes(path: str) -> tuple[Stream, Stream | None, int | None]:
    """Open ``path`` (``-``: stdin); return ``(raw, csv, size)``.

    ``csv`` is the decompressed stream of a CSV file (compression by
    content), or None for Parquet (by name or content); ``size`` is the
    file's size in bytes (None for stdin).
    """
    pa = arrow()
    if path == "-":
        raw, size = Stream(_stdin_bytes(), owned=False), None
    else:
        if not os.path.exists(path):
            raise TableError(f"{path}: no such file", source=path)
        if os.path.isdir(path):
            raise TableError(f"{path}: is a directory, not a file", source=path)
        try:
            f = open(path, "rb")  # noqa: SIM115 - closed by the table
        except OSError as exc:
            raise TableError(f"{path}: cannot open: {exc.strerror or exc}", source=path) from None
        raw, size = Stream(f), os.fstat(f.fileno()).st_size
    magic = raw.peek_head(4)
    if magic[:4] == _PARQUET_MAGIC or path.lower().endswith(PARQUET_SUFFIXES):
        return raw, None, size
    stream = raw
    for prefix, codec in _COMPRESSION_MAGIC:
        if magic.startswith(prefix):
            stream = Stream(pa.CompressedInputStream(pa.PythonFile(raw, mode="r"), codec))
    return raw, stream, size
