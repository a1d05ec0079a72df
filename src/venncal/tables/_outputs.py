"""Where a command's outputs go: every output path checked before anything is read or written.

:func:`check_outputs` refuses what would fail late or destroy data: an
unknown format, a missing or read-only folder, a directory, two outputs on
one file (or both on stdout), and an output that is one of the inputs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ._errors import Param, TableError
from ._formats import output_format

__all__ = ["MODEL_SUFFIXES", "check_outputs"]

#: The names of a saved model (:func:`venncal.save`'s JSON, plain or gzip-compressed).
MODEL_SUFFIXES = (".json", ".json.gz")


def _fail(*parts) -> TableError:
    return TableError(*parts)


def check_outputs(
    inputs: Mapping[str, str | None],
    outputs: Mapping[str, tuple[str | None, str]],
    overwrite: bool = False,
) -> None:
    """Check every output of a command before anything is read or written.

    Parameters
    ----------
    inputs : mapping
        What names each input (e.g. ``"DATA"``) -> its path (``"-"`` and
        ``None`` are skipped).
    outputs : mapping
        What names each output (e.g. ``"-o"``) -> ``(path, kind)``: kind
        ``"table"`` (:func:`~venncal.tables.output_format` by name),
        ``"model"`` (``.json`` or ``.json.gz``) or ``"file"`` (any name, not
        stdout; its format is the caller's to check); a ``None`` path is an
        output not asked for, ``"-"`` is stdout.
    overwrite : bool, default=False
        Allow an output to be one of the inputs.

    Raises
    ------
    TableError
        For an unknown extension, a missing or read-only folder, a
        directory, two outputs on one file or on stdout, or (unless
        ``overwrite``) an output that is an input.

    Examples
    --------
    >>> from venncal.tables._outputs import check_outputs
    >>> check_outputs({"DATA": None}, {"-o": ("-", "table"), "--plot": (None, "file")})
    >>> check_outputs({}, {"-o": ("model.txt", "model")})
    Traceback (most recent call last):
    ...
    venncal.tables._errors.TableError: -o model.txt: a model is written as .json or .json.gz (or - for stdout)
    """
    seen: dict[str, str] = {}
    for option, (path, kind) in outputs.items():
        if path is None:
            continue
        if path == "-":
            if kind == "file":
                raise _fail(f"{option}: give a file name, not -")
            if "-" in seen:
                raise _fail(f"{seen['-']} and {option} cannot both write to stdout")
            seen["-"] = option
            continue
        if os.path.isdir(path):
            raise _fail(f"{option} {path}: is a directory; give a file name")
        if kind == "table":
            try:
                output_format(path)
            except TableError as exc:
                raise _fail(f"{option} {exc}") from None
        elif kind == "model" and not path.lower().endswith(MODEL_SUFFIXES):
            raise _fail(f"{option} {path}: a model is written as .json or .json.gz (or - for stdout)")
        _check_place(option, path)
        real = os.path.realpath(path)
        if real in seen:
            raise _fail(f"{seen[real]} and {option} name the same file {path}")
        seen[real] = option
        if not overwrite and os.path.exists(path):
            _check_not_input(option, path, inputs)


def _check_place(option: str, path: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise _fail(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _fail(f"{option} {path}: the folder {folder} is not writable")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise _fail(f"{option} {path}: the file exists and is not writable")


def _check_not_input(option: str, path: str, inputs: Mapping[str, str | None]) -> None:
    for name, source in inputs.items():
        if source not in (None, "-") and os.path.exists(source) and os.path.samefile(path, source):
            raise _fail(
                f"{option} {path} is the input {name} ({source}); refusing to overwrite it (",
                Param("overwrite", python="overwrite=True"), " allows it)",
            )
