"""``--engine dask`` of ``venncal fit`` and ``predict``: its options and its cluster.

The work is :func:`venncal.dask.fit_files` and
:func:`venncal.dask.transform_files`; this module adds the options, checks
them, and runs the command on the scheduler at ``--scheduler ADDRESS`` or on
a local cluster started for it (``--workers`` processes of one thread).  It
imports dask only when it runs, so ``venncal --help`` stays fast.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator

from ._common import CLIError, positive_int

__all__ = ["add_engine_options", "check_engine_options", "cluster"]

_DASK_ONLY = ("--scheduler", "--workers", "--blocksize", "--round-scores", "--max-distinct")


def _decimals(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of decimals, got {text!r}") from None


def add_engine_options(parser: argparse.ArgumentParser, *, fit: bool) -> None:
    """Add ``--engine`` and the options of the dask engine to ``fit`` or ``predict``."""
    group = parser.add_argument_group(
        "engine",
        "--engine dask reads DATA as a file, a directory or a quoted glob of Parquet or CSV "
        "files (format by name), larger than memory, on a Dask cluster",
    )
    group.add_argument(
        "--engine",
        choices=("local", "dask"),
        default="local",
        help="local: one process, pyarrow (default); dask: dask.dataframe on a cluster",
    )
    group.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="address of a running Dask scheduler (e.g. tcp://host:8786); default: a local "
        "cluster started for the command and closed after it",
    )
    group.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="worker processes of the local cluster, one thread each (default: the CPU count)",
    )
    group.add_argument(
        "--blocksize",
        metavar="BYTES",
        help="bytes per partition of a plain CSV file (e.g. 64MB, dask's default; "
        "a compressed file is one partition)",
    )
    if fit:
        group.add_argument(
            "--round-scores",
            type=_decimals,
            metavar="D",
            help="round the scores to D decimals first (numpy.round), to bound the distinct "
            "scores brought to the client; with K classes, each one-vs-rest or pair "
            "problem's binary score (docs/multiclass.md), not the --score-cols",
        )
        group.add_argument(
            "--max-distinct",
            type=positive_int,
            metavar="N",
            help="the most distinct scores (per label and fold) brought to the client "
            "(default: 10,000,000, about 240 MB)",
        )


def check_engine_options(args: argparse.Namespace) -> None:
    """Refuse the dask engine's options with the local engine, contradictory ones, and stdin."""
    given = [f for f in _DASK_ONLY if getattr(args, f[2:].replace("-", "_"), None) is not None]
    if args.engine == "local" and given:
        raise CLIError(f"{given[0]} is an option of --engine dask")
    if args.scheduler is not None and args.workers is not None:
        raise CLIError("--workers sizes the local cluster; it does not go with --scheduler")
    if args.engine == "dask" and args.data == "-":
        raise CLIError(
            "--engine dask reads files (a file, a directory or a glob), not stdin (-); "
            "use --engine local"
        )


@contextlib.contextmanager
def cluster(args: argparse.Namespace) -> Iterator[object]:
    """Run the block on ``--scheduler``, or on a local cluster started for it; yield the client."""
    import logging

    from distributed import Client, LocalCluster

    from ..dask._files import connect

    with contextlib.ExitStack() as stack:
        if args.scheduler:
            try:
                client = stack.enter_context(connect(args.scheduler))
            except ValueError as exc:
                raise CLIError(f"--scheduler {exc}") from None
        else:
            local = stack.enter_context(
                LocalCluster(
                    n_workers=args.workers or os.cpu_count() or 1,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",  # any free port: 8787 may be taken
                    worker_dashboard_address=None,
                    # a failed task is the error venncal reports; the worker need not print it
                    silence_logs=logging.CRITICAL,
                )
            )
            client = stack.enter_context(Client(local, set_as_default=False))
        yield client
