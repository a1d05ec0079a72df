"""What every subcommand shares: its errors, options, output checks and its command wrapper.

Errors in the user's input raise :class:`CLIError` (or a library
:class:`~venncal.tables.TableError`), which :func:`command` turns into one
line on stderr, ``venncal NAME: error: ...``, and exit code 2.  Python
warnings (``UserWarning``) raised during a command are printed once each as
``warning: ...`` lines, also under ``--quiet``.  SIGTERM, like Ctrl-C, ends
a command by an exception, so that its temporary files are removed, with
exit code 143.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os
import signal
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence

from ..tables import ParameterError
from . import _flags
from ._progress import add_output_options

__all__ = [
    "CLIError",
    "Terminated",
    "add_force_option",
    "add_sep_option",
    "check_distinct_columns",
    "check_outputs",
    "command",
    "positive_int",
    "save_figure",
    "sigterm_raises",
]


class CLIError(Exception):
    """A problem with the user's input: reported on stderr, exit code 2."""


class Terminated(BaseException):  # noqa: N818 - as KeyboardInterrupt, not an Exception
    """SIGTERM arrived: the command unwinds (removing its temporary files) and exits 143."""


def _raise_terminated(signum, frame):
    raise Terminated


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` (main thread only; else nothing)."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except (ValueError, AttributeError):  # not the main thread, or no SIGTERM
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _warnings_as_lines(stream) -> Iterator[None]:
    """Print each distinct UserWarning raised in the block once, as ``warning: ...``."""
    shown: set = set()
    with warnings.catch_warnings():
        warnings.simplefilter("always", UserWarning)
        original = warnings.showwarning

        def show(message, category, filename, lineno, file=None, line=None):
            if not issubclass(category, UserWarning):
                original(message, category, filename, lineno, file, line)
            elif (category, str(message)) not in shown:
                shown.add((category, str(message)))
                print(f"warning: {message}", file=stream)

        warnings.showwarning = show
        yield


def command(name: str) -> Callable:
    """Decorate a subcommand's ``run(args)``: errors, interruptions and warnings as messages."""

    def decorate(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        @functools.wraps(run)
        def wrapper(args: argparse.Namespace) -> int:
            try:
                with _warnings_as_lines(sys.stderr):
                    return run(args)
            except CLIError as exc:
                print(f"venncal {name}: error: {exc}", file=sys.stderr)
                return 2
            except ParameterError as exc:  # the library's, TableError included
                spelling = {"positive_label": getattr(args, "pos_label_option", None),
                            **getattr(args, "spelling", {})}
                print(f"venncal {name}: error: {_flags.message(exc, **spelling)}", file=sys.stderr)
                return 2
            except KeyboardInterrupt:
                print(f"venncal {name}: interrupted", file=sys.stderr)
                return 130
            except Terminated:
                print(f"venncal {name}: terminated", file=sys.stderr)
                return 143
            except BrokenPipeError:  # e.g. `venncal predict ... -o - | head`
                # Python flushes stdout at exit: point it at devnull so that the
                # flush cannot fail again (the recipe of the signal module docs).
                try:
                    devnull = os.open(os.devnull, os.O_WRONLY)
                    os.dup2(devnull, sys.stdout.fileno())
                except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
                    pass
                return 1

        return wrapper

    return decorate


# ----------------------------------------------------------------------------- options


def _separator(text: str) -> str:
    sep = {"\\t": "\t", "tab": "\t", "TAB": "\t"}.get(text, text)
    if len(sep) != 1 or sep in '\r\n"':
        raise argparse.ArgumentTypeError(
            f"the separator must be one character (or \\t or tab); got {text!r}"
        )
    return sep


def positive_int(text: str) -> int:
    """Parse an option's positive integer (an ``argparse`` type).

    Examples
    --------
    >>> positive_int("15")
    15
    """
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def add_sep_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--sep`` (the CSV field separator) to a subcommand parser."""
    parser.add_argument(
        "--sep",
        type=_separator,
        default=None,
        metavar="CHAR",
        help="field separator of CSV files, read and written (default: a tab for .tsv "
        "names, else ','; '\\t' or 'tab' for tab)",
    )


def add_force_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--force``: allow an output to replace one of the command's input files."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="allow an output to replace an input file (refused by default)",
    )


def finish_table_parser(
    parser: argparse.ArgumentParser,
    run: Callable[[argparse.Namespace], int],
    *more: Callable[[argparse.ArgumentParser], None],
) -> argparse.ArgumentParser:
    """End a table command's parser: ``--sep``, ``--force``, the ``more`` adders, then
    ``--quiet`` and ``--progress``; the command runs ``run``.  Returns ``parser``."""
    add_sep_option(parser)
    add_force_option(parser)
    for add in more:
        add(parser)
    add_output_options(parser)
    parser.set_defaults(func=run)
    return parser


# ------------------------------------------------------------------------------ outputs


def _check_plot(option: str, path: str) -> None:
    try:
        from ..plotting import image_formats

        formats = image_formats()
    except ImportError:
        raise CLIError(f'{option} needs matplotlib: pip install "venncal[plot]"') from None
    known = ", ".join(f".{e}" for e in sorted(formats))
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if not ext:
        raise CLIError(
            f"{option} {path}: no file extension to choose the image format; name it "
            f"{path}.png, for instance (formats: {known})"
        )
    if ext not in formats:
        raise CLIError(
            f"{option} {path}: the image format follows the extension; use one of {known}"
        )


def check_outputs(
    inputs: Mapping[str, str | None],
    outputs: Mapping[str, tuple[str | None, str]],
    force: bool = False,
) -> None:
    """Check every output (option -> ``(path, kind)``, kind ``"table"``, ``"model"`` or
    ``"plot"``) before anything is read or written: :func:`venncal.tables._outputs.check_outputs`,
    and a plot's image format by its extension."""
    from ..tables._outputs import check_outputs as check

    for option, (path, kind) in outputs.items():
        if kind == "plot" and path not in (None, "-") and not os.path.isdir(path):
            _check_plot(option, path)
    check(inputs, {o: (p, "file" if k == "plot" else k) for o, (p, k) in outputs.items()}, force)


def check_distinct_columns(columns: Mapping[str, str | Sequence[str] | None]) -> None:
    """Refuse one column named in two roles (``{option: column or columns}``).

    Examples
    --------
    >>> check_distinct_columns({"--score-col": "s", "--label-col": "s"})
    Traceback (most recent call last):
    ...
    venncal.cli._common.CLIError: --score-col and --label-col both name the column 's'; a column can play one role
    """
    seen: dict[str, str] = {}
    for option, names in columns.items():
        if names is None:
            continue
        for name in [names] if isinstance(names, str) else names:
            if name in seen:
                if seen[name] == option:
                    raise CLIError(f"{option} names the column {name!r} twice")
                raise CLIError(
                    f"{seen[name]} and {option} both name the column {name!r}; a column can "
                    "play one role"
                )
            seen[name] = option


def save_figure(fig, path: str, dpi: int = 150) -> None:
    """Write a matplotlib figure to ``path`` atomically, or raise CLIError saying why not."""
    from ..tables import atomic_output

    try:
        with atomic_output(path) as tmp:
            fig.savefig(tmp, dpi=dpi)
    except (ValueError, OSError) as exc:
        raise CLIError(f"{path}: cannot write the plot: {exc}") from None
