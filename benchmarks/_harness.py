"""What every ``benchmarks/bench_*.py`` script shares: sizes, timing, the machine, the report.

- **Sizes** from the command line: :func:`add_sizes` adds an option that takes ``1e6``,
  ``1000000``, ``1_000_000`` or ``1e3,1e4`` (several after one flag, or the flag
  repeated); :func:`parse_size` is the same rule for a single number.
- **Timing**: :func:`measure` calls the function once as a warm-up, *not counted*
  (numba compiles a kernel on its first call, or loads it from its on-disk cache, and
  the first call also pays page faults and cold caches), then samples it until it has
  ``repeats`` samples and ``min_time`` seconds; :class:`Timing` gives the minimum
  (best of N), median and maximum, of wall-clock time (:func:`time.perf_counter`) and
  of this process's CPU time (:func:`time.process_time`: the fairer number on a shared
  machine), and the warm-up's own time. :class:`Clock` times one block once (wall and
  CPU), for what cannot be repeated (a stream that grows a tree, a fresh interpreter).
- **The machine**: :func:`machine_lines` describes the run (date, command line, CPU
  model from ``/proc/cpuinfo``, cores, memory, load average, Python, numpy, numba,
  scikit-learn and venncal versions, git commit), one Markdown bullet per line, for the
  head of every report; :func:`load_average` for its end.
- **The report**: :func:`save_report` writes it (``benchmarks/results/<name>-<date>.md``
  by default), atomically.

Only the standard library is imported here; numpy, numba, scikit-learn and venncal are
read through :mod:`importlib.metadata` (so a script can time their imports, and one run
in another environment, as ``bench_enir_netcal.py``, still gets its description).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import gc
import importlib.metadata
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "RESULTS",
    "Clock",
    "Timing",
    "add_sizes",
    "command_line",
    "cpu_model",
    "fmt_fixed",
    "fmt_k",
    "fmt_time",
    "load_average",
    "log",
    "machine_lines",
    "measure",
    "mem_available",
    "parse_size",
    "save_report",
    "time_once",
    "version",
]

HERE = Path(__file__).resolve().parent
#: Where the reports go by default.
RESULTS = HERE / "results"


# ------------------------------------------------------------------------------------ sizes


def parse_size(text: str) -> int:
    """Parse ``1e6``, ``1000000`` or ``1_000_000`` into a positive int (argparse ``type``)."""
    try:
        value = float(str(text).replace("_", "").strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and value >= 1 and value == int(value)):
        raise argparse.ArgumentTypeError(f"a size must be a positive integer, got {text!r}")
    return int(value)


class _Sizes(argparse.Action):
    """Collect sizes given as ``1e3 1e4``, ``1e3,1e4`` or a repeated flag, in order, once each."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = getattr(namespace, self.dest, None)
        out = [] if given is None or given is self.default else list(given)
        for item in values if isinstance(values, list) else [values]:
            for part in str(item).split(","):
                if not part.strip():
                    continue
                try:
                    k = parse_size(part)
                except argparse.ArgumentTypeError as exc:
                    parser.error(f"{option_string}: {exc}")
                if k not in out:
                    out.append(k)
        if not out:
            parser.error(f"{option_string}: give at least one size")
        setattr(namespace, self.dest, out)


def add_sizes(
    parser: argparse.ArgumentParser,
    default: Sequence[int],
    flag: str = "--sizes",
    help: str = "sizes",  # noqa: A002 - argparse's own word
    *,
    many: bool = True,
) -> None:
    """Add an option taking sizes (``1e6``, ``1_000_000``, ``1e3,1e4``) to ``parser``.

    With ``many`` (default) the option holds a list of ints (several values after the
    flag, commas, or the flag repeated); otherwise one int.
    """
    if many:
        parser.add_argument(
            flag, nargs="+", action=_Sizes, default=list(default), metavar="N",
            help=f"{help} (e.g. 1e4 1e5 or 1e4,1e5; default: "
            f"{' '.join(fmt_k(k) for k in default)})",
        )  # fmt: skip
    else:
        parser.add_argument(
            flag, type=parse_size, default=default, metavar="N",
            help=f"{help} (e.g. 1e6 or 1_000_000; default: {fmt_k(int(default))})",
        )  # fmt: skip


def fmt_k(k: int) -> str:
    """``1e6`` for a power of ten, ``25,000`` otherwise."""
    k = int(k)
    exp = len(str(k)) - 1
    return f"1e{exp}" if k == 10**exp else f"{k:,}"


# ----------------------------------------------------------------------------------- timing


@dataclass(frozen=True)
class Timing:
    """Samples of one measurement, in seconds per call (the warm-up call excluded)."""

    #: Wall-clock seconds per call, one per sample.
    walls: tuple[float, ...]
    #: This process's CPU seconds per call, one per sample.
    cpus: tuple[float, ...]
    #: Wall-clock seconds of the warm-up call (not in the samples).
    first: float
    #: Calls per sample (calls faster than ``loop_below`` are looped inside a sample).
    number: int = 1

    @property
    def samples(self) -> int:
        """Number of samples."""
        return len(self.walls)

    @property
    def best(self) -> float:
        """Minimum wall-clock time per call (best of N)."""
        return min(self.walls)

    @property
    def median(self) -> float:
        """Median wall-clock time per call."""
        return statistics.median(self.walls)

    @property
    def max(self) -> float:
        """Maximum wall-clock time per call."""
        return max(self.walls)

    @property
    def cpu_best(self) -> float:
        """Minimum CPU time per call."""
        return min(self.cpus)

    @property
    def cpu_median(self) -> float:
        """Median CPU time per call."""
        return statistics.median(self.cpus)

    @property
    def cpu_max(self) -> float:
        """Maximum CPU time per call."""
        return max(self.cpus)


def measure(
    fn: Callable[[], object],
    *,
    repeats: int = 3,
    min_time: float = 0.0,
    loop_below: float = 0.0,
    max_samples: int = 100_000,
) -> Timing:
    """Time ``fn()``: one warm-up call (not counted), then samples.

    The warm-up call is excluded because the first call of a numba kernel in a process
    compiles it (or loads it from numba's on-disk cache) and the first call of anything
    pays page faults and cold caches; its time is kept in :attr:`Timing.first`.
    Samples are taken until there are at least ``repeats`` of them and they took at
    least ``min_time`` seconds (and at most ``max_samples``). A call faster than
    ``loop_below`` seconds is looped inside one sample, as :mod:`timeit` does, so that
    the clock's resolution does not matter; times are per call. The garbage collector is
    off while sampling.

    Parameters
    ----------
    fn : callable
        Called with no argument.
    repeats : int, default=3
        Least number of samples.
    min_time : float, default=0
        Least total seconds of sampling.
    loop_below : float, default=0
        Loop calls shorter than this inside a sample (0: one call per sample).
    max_samples : int, default=100_000
        Most samples.

    Returns
    -------
    Timing
    """
    gc.collect()
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    number = 1
    if loop_below > 0:
        t0 = time.perf_counter()
        fn()
        once = time.perf_counter() - t0
        if once < loop_below:
            number = max(1, min(10_000, int(loop_below / max(once, 1e-8))))
    walls: list[float] = []
    cpus: list[float] = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        while len(walls) < max(1, repeats) or (
            time.perf_counter() - start < min_time and len(walls) < max_samples
        ):
            w0, c0 = time.perf_counter(), time.process_time()
            for _ in range(number):
                fn()
            c1, w1 = time.process_time(), time.perf_counter()
            walls.append((w1 - w0) / number)
            cpus.append((c1 - c0) / number)
    finally:
        if enabled:
            gc.enable()
    return Timing(tuple(walls), tuple(cpus), first, number)


class Clock:
    """Wall-clock and CPU seconds of one block, timed once (``with Clock() as c: ...``).

    For what cannot be repeated the same way (a growing stream, a fresh interpreter):
    no warm-up is made; say so where it matters. ``children=True`` also counts the CPU
    time of child processes that ended inside the block.
    """

    def __init__(self, children: bool = False):
        self.children = children
        self.wall = self.cpu = 0.0

    def _cpu(self) -> float:
        if not self.children:
            return time.process_time()
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    def __enter__(self) -> Clock:
        self._w0, self._c0 = time.perf_counter(), self._cpu()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self._w0
        self.cpu = self._cpu() - self._c0

    def rates(self, count: float) -> tuple[float, float]:
        """``count`` per wall-clock second and per CPU second."""
        return count / self.wall, count / self.cpu


def time_once(fn: Callable[[], object]) -> tuple[float, object]:
    """Wall-clock seconds of one call of ``fn()`` (no warm-up), and what it returned."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def fmt_time(t: float | None, digits: int = 3) -> str:
    """``12.3 µs``, ``4.56 ms``, ``7.89 s`` (``digits`` significant digits), ``-`` for None."""
    if t is None:
        return "-"
    if t < 1e-3:
        return f"{t * 1e6:.{digits}g} µs"
    if t < 1.0:
        return f"{t * 1e3:.{digits}g} ms"
    return f"{t:.{digits}g} s"


def fmt_fixed(t: float | None) -> str:
    """``123 us``, ``4.5 ms``, ``1.23 s`` (fixed decimals), ``-`` for None."""
    if t is None:
        return "-"
    if t < 1e-3:
        return f"{t * 1e6:.0f} us"
    if t < 1.0:
        return f"{t * 1e3:.1f} ms"
    return f"{t:.2f} s"


def log(message: str) -> None:
    """Progress to stderr (the report goes to stdout)."""
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------- machine


def version(dist: str) -> str:
    """The installed version of a distribution, or ``-`` when it is not installed."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def cpu_model() -> str:
    """The CPU's model name from ``/proc/cpuinfo`` (``platform.processor()`` elsewhere)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "?"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, ``"1.02 / 0.85 / 0.60"``."""
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def _meminfo() -> dict[str, int]:
    """``/proc/meminfo`` in bytes (empty where there is none)."""
    try:
        with open("/proc/meminfo", encoding="utf-8") as fh:
            return {k: int(v.split()[0]) * 1024 for k, _, v in (ln.partition(":") for ln in fh)}
    except (OSError, ValueError, IndexError):
        return {}


def mem_available() -> int | None:
    """Bytes of memory available now (``MemAvailable``), or None where unknown."""
    return _meminfo().get("MemAvailable")


def _memory() -> str:
    info, gib = _meminfo(), 1024**3
    if "MemTotal" not in info or "MemAvailable" not in info:
        return "?"
    return f"{info['MemTotal'] / gib:.1f} GiB, {info['MemAvailable'] / gib:.1f} GiB available"


def _commit() -> str:
    def git(*args: str) -> str:
        try:
            return subprocess.run(
                ["git", "--no-optional-locks", "-C", str(HERE.parent), *args],
                capture_output=True, text=True, check=False,
            ).stdout.strip()  # fmt: skip
        except OSError:
            return ""

    rev = git("rev-parse", "--short", "HEAD")
    if not rev:
        return "?"
    return rev + (" + uncommitted changes in src/" if git("status", "--porcelain", "--", "src")
                  else "")


def _venncal_version() -> str:
    module = sys.modules.get("venncal")  # the one imported (a checkout's src/ may come first)
    return getattr(module, "__version__", None) or version("venncal")


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command that ran the script: ``python benchmarks/bench_x.py ARGS``."""
    script = Path(sys.argv[0])
    try:
        script = script.resolve().relative_to(HERE.parent)
    except ValueError:
        pass
    args = sys.argv[1:] if argv is None else list(argv)
    return f"python {shlex.join([str(script), *map(str, args)])}"


def machine_lines(
    argv: Sequence[str] | None = None, extra: Sequence[str] = ("scipy",)
) -> list[str]:
    """Describe the run, one Markdown bullet per line.

    Date (UTC), the command line, CPU model and cores (logical, and usable by this
    process), memory, load average now, OS, Python and the versions of numpy, numba,
    scikit-learn, venncal and of the distributions in ``extra``, and the git commit of
    the checkout.
    """
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    libs = ", ".join(
        f"{name} {version(name)}" for name in ("numpy", "numba", "scikit-learn", *extra)
    )
    return [
        f"- date: {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- command: `{command_line(argv)}`",
        f"- CPU: {cpu_model()}; {os.cpu_count()} logical cores ({usable} usable); memory "
        f"{_memory()}",
        f"- load average (1 / 5 / 15 min) at start: {load_average()}",
        f"- {platform.platform()}; Python {platform.python_version()}; {libs}",
        f"- venncal {_venncal_version()} (git {_commit()})",
    ]


# ----------------------------------------------------------------------------------- report


def save_report(text: str, name: str, output: str | os.PathLike[str] | None = None) -> Path:
    """Write ``text`` to ``output`` or ``benchmarks/results/<name>-<date>.md``; return the path.

    The file is written beside its final name and renamed, so a run stopped halfway
    leaves no half report.
    """
    path = Path(output) if output else RESULTS / f"{name}-{_dt.date.today().isoformat()}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    tmp.replace(path)
    log(f"saved {path}")
    return path
