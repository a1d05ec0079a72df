"""Command-line interface: ``venncal <command> [options]``.

Every subcommand lives in its own private module exposing ``add_parser(subparsers)``,
which registers the subcommand and sets ``func`` (a callable taking the parsed
``argparse.Namespace`` and returning an exit code) as its default. Heavy imports
(scikit-learn models, data) happen inside ``func``, so ``venncal --help`` and
``venncal --version`` stay fast. To add a command, write the module and list it in
``_COMMANDS``.

The library does the work (tables: :mod:`venncal.tables`; Dask: :mod:`venncal.dask`);
the command line parses options, calls it, prints, and names the library's
parameters by its options through one table (``_flags.FLAGS``).  While a command runs,
SIGTERM ends it as Ctrl-C does (its temporary files removed; exit code 143).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .._version import __version__
from . import _compare, _demo, _evaluate, _fit, _monitor, _predict, _reproduce
from ._common import sigterm_raises

__all__ = ["build_parser", "main"]

# Modules providing ``add_parser(subparsers)``, in the order shown by ``--help``.
_COMMANDS = (_fit, _predict, _evaluate, _compare, _monitor, _demo, _reproduce)


def build_parser() -> argparse.ArgumentParser:
    """Build the ``venncal`` argument parser with all subcommands.

    Returns
    -------
    argparse.ArgumentParser
        The top-level parser; each subcommand sets the ``func`` default.
    """
    parser = argparse.ArgumentParser(
        prog="venncal",
        description="Exact, fast probability calibration for classifiers of two or more classes.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(title="commands", dest="command", metavar="<command>")
    for command in _COMMANDS:
        command.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``venncal`` command line.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments without the program name; ``None`` means ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit code: 0 on success, 2 on a usage error, 130 when interrupted,
        143 when terminated (SIGTERM).
    """
    parser = build_parser()
    try:
        args = parser.parse_args(None if argv is None else list(argv))
    except SystemExit as exc:  # --help, --version, or a usage error
        return _exit_code(exc.code)
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return 2
    with sigterm_raises():
        return int(args.func(args))


def _exit_code(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    return 1
