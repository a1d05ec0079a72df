"""Compile the numba kernels once, shared out between processes, before the xdist workers start.

On a cold numba cache (a fresh install, as in CI) every kernel compiles on its
first call, and under ``pytest -n 2 --dist loadfile`` both workers call most
kernels early on: each compiles them, and the on-disk cache one writes comes too
late for the other.  Here ``n`` new processes first run a list of small
workloads (the package's docstring examples, which call every kernel family with
the types the library passes, and the streams of the online contract test), each
process taking the next workload when it is done with one, the heaviest first;
the kernels compile once in all, and the workers, started afterwards, load them
from the cache.  The workloads check nothing: the tests do.  ``tests/conftest.py``
calls :func:`warm_in_processes` in the xdist controller, on a cold cache, under
``-n 2`` or more, before the workers start, unless ``VENNCAL_KERNEL_WARMUP=0``.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import io
import os
import pkgutil
import warnings
from contextlib import redirect_stdout

import numpy as np

#: Modules whose examples are not a kernel warm-up (an engine, files, plots, long runs).
SKIP = ("venncal.spark", "venncal._spark_ml", "venncal.dask", "venncal.experiments",
        "venncal.cli", "venncal.plotting", "venncal.datasets", "venncal.__main__")

#: The heaviest compilations first, so that the processes finish at about the same time
#: (CPU seconds of compilation on a cold cache, measured one workload at a time).
HEAVY = ("venncal.online.quantized", "venncal.baselines.quantized", "venncal._kernels.quantized",
         "online-contract:QuantizedIsotonic", "online-contract:OrderedQuantizedIsotonic",
         "venncal.enir", "venncal.venn_abers")


def kernel_cache_is_cold() -> bool:
    """True when no compiled kernel of the imported venncal is cached on disk yet."""
    spec = importlib.util.find_spec("venncal._kernels")
    if spec is None or not spec.submodule_search_locations:
        return False
    cache = os.path.join(next(iter(spec.submodule_search_locations)), "__pycache__")
    return not (os.path.isdir(cache) and any(n.endswith(".nbi") for n in os.listdir(cache)))


def _modules() -> list[str]:
    import venncal

    names = [info.name for info in pkgutil.walk_packages(venncal.__path__, prefix="venncal.")]
    return [n for n in names if not n.startswith(SKIP)]


def _run_doctests(name: str) -> None:
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(module, name):
        runner.run(test, out=lambda _text: None)


def _run_online(class_name: str) -> None:
    import venncal.online

    cls = getattr(venncal.online, class_name)
    for params in cls._unit_test_params():
        x, y = cls._unit_test_stream(60, 0)
        if params.get("classes") is not None:  # the labels in the object's coding
            y = np.asarray(params["classes"])[y]
        obj = cls(**params)
        for xi, yi in zip(x[:10].tolist(), y[:10].tolist(), strict=True):
            obj.learn_one(xi, yi)
        obj.learn_many(x[10:], y[10:])
        obj.predict_proba_many(x[:5])
        for method in ("insert", "delete"):  # the quantized streams' updates out of order
            if hasattr(obj, method):
                try:
                    getattr(obj, method)(float(x[-1]), y[-1].item())
                except ValueError:
                    pass


def workloads() -> list[str]:
    """The workloads in the order they are shared out: the heavy ones first."""
    online = [f"online-contract:{c}" for c in ("QuantizedIsotonic", "OrderedQuantizedIsotonic",
                                               "JumperMartingale", "JumperPredictor", "MeanJumper")]
    rest = [w for w in _modules() + online if w not in HEAVY]
    return [w for w in HEAVY if w in _modules() or w in online] + rest


def warm_share(index: int, count: int, names: list[str] | None = None) -> None:
    """Run workloads ``index``, ``index + count``, ... of ``names`` (default: :func:`workloads`);
    errors are ignored: the tests report them."""
    for name in (workloads() if names is None else names)[index::count]:
        with warnings.catch_warnings(), redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            try:
                if name.startswith("online-contract:"):
                    _run_online(name.partition(":")[2])
                else:
                    _run_doctests(name)
            except Exception:  # noqa: BLE001 - a warm-up only; the tests check
                pass


def _warm_one(name: str) -> None:
    warm_share(0, 1, [name])


def warm_in_processes(count: int) -> None:
    """Run the workloads in ``count`` new processes at once, each taking the next workload
    when it is done with one (the heaviest first), and wait for all of them.

    The processes are spawned with the caller's ``sys.path``, so they import the same venncal
    and write the compiled kernels to that package's cache.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, wait

    with ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_warm_one, name) for name in workloads()]
        wait(futures)  # a failed workload only means that a test compiles it later
