"""Input bytes: a file or stdin, its first bytes looked at before reading, decompressed.

Arrow's CSV readers read ahead on Arrow's own I/O threads.  A reader given a
Python file object keeps it alive from those threads; when the last
reference drops there after the interpreter has begun to exit, Arrow needs
the GIL to release it, the thread is ended inside a C++ destructor and the
process aborts ("terminate called without an active exception", exit 134).
So a file is handed to the readers as a native Arrow stream, opened again
by Arrow (:func:`native_input`), bytes in memory are copied into Arrow's
memory first (:func:`native_buffer`: ``pa.BufferReader(bytes)`` keeps the
bytes object), and the Python :class:`Stream` serves only to look at a
file's first bytes (the format, the compression, the header line).
Stdin cannot be opened again (and Arrow's files need to seek), so its
readers get a Python stream whose release :meth:`NativeInput.close` waits
for before the table is closed: no Arrow thread holds it afterwards.
"""

from __future__ import annotations

import io
import os
import sys
import threading
import weakref

from ._errors import TableError
from ._formats import PARQUET_SUFFIXES, arrow

__all__ = ["NativeInput", "Stream", "native_buffer", "native_input", "open_bytes"]

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
        self.codec: str | None = None  # the compression this stream undoes, if any

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


class _Handoff(io.RawIOBase):
    """The Python stream an Arrow reader of stdin gets; reads nothing once ``stop`` is set."""

    def __init__(self, source: Stream):
        self._source = source
        self.stop = False

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        return 0 if self.stop else self._source.readinto(b)


class NativeInput:
    """A table's (decompressed) content as a stream for Arrow's CSV readers.

    ``stream`` is read from the start of the content: a native Arrow stream
    of a file, or for stdin a Python stream whose release by Arrow's threads
    :meth:`close` waits for.  :meth:`bytes_read` counts the file's
    (compressed) bytes read so far, for progress.
    """

    #: Seconds :meth:`close` waits for Arrow's threads to let stdin's stream go.
    RELEASE_WAIT = 10.0

    def __init__(self, stream, raw=None, handoff: _Handoff | None = None):
        self.stream = stream
        self._raw = raw
        self._handoff = handoff
        self._released = threading.Event()
        if handoff is not None:
            weakref.finalize(handoff, self._released.set)

    def bytes_read(self) -> int | None:
        """Return the bytes of the file read so far (None for stdin)."""
        if self._raw is None or self._raw.closed:
            return None
        return self._raw.tell()

    def close(self) -> None:
        """Close the stream (and the file below it); for stdin, wait until Arrow let it go.

        The readers made from :attr:`stream` must be closed and dropped first.
        """
        if self._handoff is None:
            self.stream.close()
            if self._raw is not None:
                self._raw.close()
            return
        self._handoff.stop = True  # a read still in flight ends at once
        self.stream = self._handoff = None
        self._released.wait(self.RELEASE_WAIT)  # releases the GIL for Arrow's threads


def native_buffer(data: bytes):
    """Return ``data`` copied into memory of Arrow's own (no Python object behind it).

    ``pa.BufferReader(bytes)`` and ``pa.py_buffer`` keep the Python object,
    which Arrow's threads must not hold (see the module notes).
    """
    buffer = arrow().allocate_buffer(len(data))
    view = memoryview(buffer).cast("B")
    view[:] = data
    view.release()
    return buffer


def native_input(path: str, codec: str | None, source: Stream) -> NativeInput:
    """Return the content of ``path`` (``-``: ``source``, stdin) for Arrow's CSV readers.

    A file is opened again by Arrow, natively (``codec`` decompresses it);
    stdin, whose first bytes ``source`` has already read and kept, is read
    through ``source``.
    """
    pa = arrow()
    if path != "-":
        raw = pa.OSFile(path, mode="r")
        stream = pa.CompressedInputStream(raw, codec) if codec else raw
        return NativeInput(stream, raw)
    handoff = _Handoff(source)
    return NativeInput(pa.PythonFile(handoff, mode="r"), handoff=handoff)


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
    codec = compression_of(magic)
    if codec is not None:  # read in this thread only, to find the header line
        stream = Stream(pa.CompressedInputStream(pa.PythonFile(raw, mode="r"), codec))
        stream.codec = codec
    return raw, stream, size


def compression_of(magic: bytes) -> str | None:
    """Return the codec whose magic bytes start ``magic`` (gzip, bz2, zstd), or None."""
    return next((codec for prefix, codec in _COMPRESSION_MAGIC if magic.startswith(prefix)), None)
