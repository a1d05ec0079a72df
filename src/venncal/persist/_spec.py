"""The constants of the model format (docs/model-format.md) and its error."""

from __future__ import annotations

import math

__all__ = [
    "ARRAY_KINDS",
    "BYTES_DTYPES",
    "FORMAT",
    "FORMAT_VERSION",
    "LIST_MAX",
    "MAX_BYTES",
    "NONFINITE",
    "TOP_KEYS",
    "ModelFormatError",
    "fail",
]

#: Value of the ``"format"`` member of every saved calibrator.
FORMAT = "venncal.calibrator"
#: The version written by ``save`` by default; ``load`` reads versions 1 to this.
FORMAT_VERSION = 3
#: From version 2, numeric and bool arrays of at most this many elements (and
#: every string array) are written as JSON lists; larger ones as base64 bytes.
LIST_MAX = 16
#: Default ``max_bytes`` of ``load``: the memory (in bytes) that loading one
#: model may take, counted before it is spent (512 MiB).
MAX_BYTES = 512 * 2**20

# The element types stored as bytes, by their canonical dtype string.
BYTES_DTYPES = frozenset(
    ("<f8", "<f4", "<f2", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "|b1")
)
# numpy dtype kinds stored in arrays: bool, signed and unsigned ints, floats, str.
ARRAY_KINDS = "biufU"
NONFINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
# The members of a document, by format version (version 3 adds its checksum).
TOP_KEYS = frozenset({"format", "format_version", "venncal_version", "class", "params", "state"})


class ModelFormatError(ValueError):
    """A file or document that is not a valid venncal calibrator."""

    __module__ = "venncal.persist"  # where users import it from (and pickle finds it)


def fail(where: str, message: str) -> ModelFormatError:
    """Return a :class:`ModelFormatError` saying ``where: message``."""
    return ModelFormatError(f"{where}: {message}" if where else message)
