"""How every experiment runs: its common options, its clock and the record of the run.

Every experiment's ``run`` takes the same keyword-only options (``quick``, ``seed``,
``jobs``, ``data_dir``, ``echo``) before its own, times itself and returns a result
whose ``info`` is a :class:`RunInfo`. :func:`experiment_run` writes that once: an
experiment defines its computation on a :class:`RunOptions` and its own options, and
the decorator makes it the ``run`` the command line (``venncal reproduce``) calls.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["RunInfo", "RunOptions", "experiment_run"]


@dataclass(frozen=True)
class RunInfo:
    """How one experiment run was made (stated in its report's header)."""

    #: Registry name of the experiment, e.g. ``"vovk2015-adult-small"``.
    experiment: str
    quick: bool
    seed: int
    jobs: int
    #: Wall-clock seconds of the computation (``run``), report writing excluded.
    seconds: float

    @property
    def mode(self) -> str:
        """``"quick"`` or ``"full"``."""
        return "quick" if self.quick else "full"

    def command(self) -> str:
        """Return the ``venncal`` command that repeats this run."""
        quick = " --quick" if self.quick else ""
        return f"venncal reproduce {self.experiment}{quick} --seed {self.seed} --jobs {self.jobs}"


def _silent(_line: str) -> None:
    """Print nothing (the default ``echo``)."""


@dataclass(frozen=True)
class RunOptions:
    """The options every experiment's ``run`` takes, and the moment the run started.

    :func:`experiment_run` makes one per call and hands it to the experiment's
    computation, which ends with :meth:`info`.
    """

    #: Registry name of the experiment.
    experiment: str
    quick: bool
    seed: int
    jobs: int
    #: The data folder as given (None: the ``VENNCAL_DATA`` variable, or shipped files).
    data_dir: Any
    #: Receives the progress lines.
    echo: Callable[[str], None]
    #: :func:`time.perf_counter` when ``run`` was called.
    start: float

    def size(self, given: int | None, quick: int) -> int | None:
        """Return ``given`` if it is not None, else ``quick`` in quick mode, else None (all).

        For the sizes an experiment shrinks in quick mode (test rows, ...), which a
        caller may also set.
        """
        if given is not None:
            return given
        return quick if self.quick else None

    def info(self) -> RunInfo:
        """Return the run's :class:`RunInfo`, its seconds counted from the start to now."""
        seconds = time.perf_counter() - self.start
        return RunInfo(self.experiment, self.quick, self.seed, self.jobs, seconds)


#: The keyword-only options every experiment's ``run`` starts with; ``echo`` ends it.
_COMMON = tuple(
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=kind)
    for name, default, kind in (
        ("quick", False, "bool"),
        ("seed", 0, "int"),
        ("jobs", 1, "int"),
        ("data_dir", None, inspect.Parameter.empty),
    )
)
_ECHO = inspect.Parameter(
    "echo", inspect.Parameter.KEYWORD_ONLY, default=_silent, annotation="Callable[[str], None]"
)


def experiment_run(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Make ``compute(options, *, ...)`` the ``run`` of experiment ``name`` (a decorator).

    Every experiment's ``run`` takes the same keyword-only options, ``quick=False``,
    ``seed=0``, ``jobs=1``, ``data_dir=None`` and ``echo`` (receives progress lines;
    by default nothing is printed), and then its own. The decorated ``compute`` gets
    those five as one :class:`RunOptions`, whose clock starts when ``run`` is called,
    followed by its own keyword-only options, and builds its result's ``info`` with
    :meth:`RunOptions.info`. The ``run`` returned has ``compute``'s name and
    docstring (which documents every option) and the signature
    ``run(*, quick, seed, jobs, data_dir, <its own options>, echo)``.

    Examples
    --------
    >>> @experiment_run("demo-experiment")
    ... def run(options, *, size: int = 3):
    ...     "Count to ``size``."
    ...     options.echo(f"counting to {size}")
    ...     return options.info(), list(range(size))
    >>> info, numbers = run(quick=True, size=2, echo=print)
    counting to 2
    >>> info.command(), numbers
    ('venncal reproduce demo-experiment --quick --seed 0 --jobs 1', [0, 1])
    >>> list(inspect.signature(run).parameters)
    ['quick', 'seed', 'jobs', 'data_dir', 'size', 'echo']
    """

    def decorate(compute: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(compute)
        def run(*, quick=False, seed=0, jobs=1, data_dir=None, echo=_silent, **own):
            options = RunOptions(name, quick, seed, jobs, data_dir, echo, time.perf_counter())
            return compute(options, **own)

        signature = inspect.signature(compute)
        own = list(signature.parameters.values())[1:]
        run.__signature__ = signature.replace(parameters=[*_COMMON, *own, _ECHO])
        return run

    return decorate
