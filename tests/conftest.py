import os
import resource
import sys
import time

import pytest
from hypothesis import settings

# Make ``from reference.naive import ...`` work from every test module.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# numba compiles each kernel on its first call, so no per-example deadline.
settings.register_profile("venncal", deadline=None, max_examples=40)
settings.register_profile("thorough", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "venncal"))

# pytest.approx refuses a comparison its hidden abs=1e-12 would loosen (tests/_approx_guard.py).
import _approx_guard  # noqa: E402

_approx_guard.install()

#: ``VENNCAL_TEST_LOG=path`` appends one line per test phase to ``path`` as it ends
#: (worker, phase, wall s, CPU s of this process, CPU s of numba compilation, node id), so
#: that a profile of a long run survives an interrupted run and shows what the
#: cold numba cache costs; the durations of ``--durations`` come only at the end.
_TEST_LOG = os.environ.get("VENNCAL_TEST_LOG")


if _TEST_LOG:
    from numba.core import event as _numba_event

    class _CompileTimer(_numba_event.Listener):
        """CPU seconds of this process spent compiling numba kernels (outermost compilations)."""

        def __init__(self):
            self.depth = 0
            self.start = 0.0
            self.total = 0.0

        def on_start(self, event):
            if self.depth == 0:
                self.start = time.process_time()
            self.depth += 1

        def on_end(self, event):
            self.depth -= 1
            if self.depth == 0:
                self.total += time.process_time() - self.start

    _compile_timer = _CompileTimer()
    _numba_event.register("numba:compile", _compile_timer)
    _worker = os.environ.get("PYTEST_XDIST_WORKER", "main")

    def _phase(item, when):
        wall, cpu, compiled = time.perf_counter(), time.process_time(), _compile_timer.total
        yield
        with open(_TEST_LOG, "a", encoding="utf-8") as f:
            f.write(f"{_worker}\t{when}\t{time.perf_counter() - wall:.3f}\t"
                    f"{time.process_time() - cpu:.3f}\t{_compile_timer.total - compiled:.3f}\t"
                    f"{item.nodeid}\n")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(item):
        yield from _phase(item, "setup")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(item):
        yield from _phase(item, "call")

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(item):
        yield from _phase(item, "teardown")


def _xdist_workers(config) -> int:
    """The number of xdist workers this controller will start (0 without xdist or ``-n``)."""
    if getattr(config, "workerinput", None) is not None:
        return 0  # a worker, not the controller
    n = getattr(config.option, "numprocesses", None)
    if not isinstance(n, int) or getattr(config.option, "dist", "no") == "no":
        return 0
    return n


def pytest_sessionstart(session):
    """On a cold numba cache (a fresh install, as in CI), under ``pytest -n N`` with N >= 2, the
    xdist controller compiles every kernel once before it starts the workers: N processes take
    tests/_kernel_warmup.py's workloads one at a time, the heaviest first, and numba's
    ``cache=True`` writes the kernels to disk, from where the workers then load them instead of
    each compiling most of them.  ``VENNCAL_KERNEL_WARMUP=0`` turns it off; on a warm cache
    (any kernel already cached) it does nothing.

    Runs before xdist's own ``pytest_sessionstart`` (``trylast``), which starts the workers.
    On by default since the cold profile (benchmarks/results/suite-profile-2026-11-26.md)
    found both workers compiling the same kernels (the quantized streams, IVAP, Jumper).
    """
    count = _xdist_workers(session.config)
    if count < 2 or os.environ.get("VENNCAL_KERNEL_WARMUP", "1") == "0":
        return
    import _kernel_warmup

    if not _kernel_warmup.kernel_cache_is_cold():
        return
    wall, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    _kernel_warmup.warm_in_processes(count)
    if _TEST_LOG:
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_s = used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime
        with open(_TEST_LOG, "a", encoding="utf-8") as f:
            f.write(f"controller\twarm-up\t{time.perf_counter() - wall:.3f}\t"
                    f"{cpu_s:.3f}\t{cpu_s:.3f}\t"
                    f"kernel warm-up in {count} processes (tests/_kernel_warmup.py)\n")


@pytest.fixture(scope="session")
def dask_cluster():
    """One LocalCluster of two worker processes per test process, shared by the Dask test files
    (each used to start its own: a few seconds and two interpreters importing venncal each)."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
        worker_dashboard_address=None,
    ) as cluster:
        yield cluster
