"""First-call cost of venncal's IVAP, in fresh interpreters (part of ``bench_ivap.py``).

Each repeat uses a new empty ``NUMBA_CACHE_DIR``: one interpreter times the imports
and the first ``fit`` + ``predict_interval`` with a cold numba cache (numba compiles
every kernel), a second one the same with the warm cache (numba loads them), and two
more call a trivial cached ``@njit`` function first, which splits the warm first call
into numba's own start-up and venncal's part. The child interpreters run this file.
"""

from __future__ import annotations

# Only the standard library at module level: the child times the imports of numpy,
# numba, scikit-learn and venncal itself.
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _harness import fmt_k, fmt_time, log, time_once


def _numba_probe(x):
    return x + 1.0


def first_call_child(k: int, seed: int, probe_first: bool) -> None:
    """Run in a fresh interpreter: time the imports and the first calls.

    With ``probe_first``, a trivial cached ``@njit`` function is called before
    venncal: with a warm cache its first call is numba's own start-up
    (compiler and runtime initialization, paid by the first jitted call of any
    package), and what venncal's first calls cost on top of it is left.
    """
    cache = os.environ.get("NUMBA_CACHE_DIR", "")

    def n_index_files():
        return sum(1 for _ in Path(cache).rglob("*.nbi")) if cache else -1

    n_before = n_index_files()
    t = [time.perf_counter()]
    import numpy as np

    t.append(time.perf_counter())
    import numba

    t.append(time.perf_counter())
    import sklearn.base
    import sklearn.utils.validation  # noqa: F401

    t.append(time.perf_counter())
    from venncal import VennAbersCalibrator

    t.append(time.perf_counter())
    from bench_ivap import make_data

    s, y, q, w = make_data(k, seed, False)
    clock = time_once

    extra = {}
    if probe_first:
        probe = numba.njit(cache=True)(_numba_probe)
        extra["numba_probe"], _ = clock(lambda: probe(1.0))

    fit1, cal = clock(lambda: VennAbersCalibrator().fit(s, y))
    pred1, _ = clock(lambda: cal.predict_interval(q))
    fit2, cal = clock(lambda: VennAbersCalibrator().fit(s, y))
    pred2, _ = clock(lambda: cal.predict_interval(q))
    wfit1, _ = clock(lambda: VennAbersCalibrator().fit(s, y, sample_weight=w))
    n_new = n_index_files() - n_before
    print(
        json.dumps(
            {
                "import_numpy": t[1] - t[0],
                "import_numba": t[2] - t[1],
                "import_sklearn": t[3] - t[2],
                "import_venncal_rest": t[4] - t[3],
                "import_total": t[4] - t[0],
                "first_fit": fit1,
                "first_predict": pred1,
                "first_total": fit1 + pred1,
                "steady_fit": fit2,
                "steady_predict": pred2,
                "first_weighted_fit": wfit1,
                "new_cache_index_files": n_new,
                "numpy": np.__version__,
                **extra,
            }
        )
    )


def _child(env: dict, args, probe_first: bool = False) -> dict:
    cmd = [
        sys.executable, str(Path(__file__).resolve()),
        "--k", str(args.first_call_k), "--seed", str(args.seed),
    ]  # fmt: skip
    if probe_first:
        cmd.append("--probe-first")
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"first-call child failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def first_call_cost(args) -> dict:
    """Cold then warm numba cache, ``--first-call-repeats`` times; min and median.

    Each repeat uses a new empty NUMBA_CACHE_DIR and four fresh interpreters:
    venncal (cold cache), venncal again (warm), then twice with the numba
    probe called first (the first of the two only compiles the probe; the
    second, all warm, splits the warm first call into numba's start-up and
    venncal's own part).
    """
    runs: dict[str, list[dict]] = {"cold": [], "warm": [], "probe": []}
    n = args.first_call_repeats
    for r in range(n):
        cache = tempfile.mkdtemp(prefix="venncal-bench-numba-")
        try:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            log(f"first-call cost: cold numba cache, run {r + 1}/{n}")
            runs["cold"].append(_child(env, args))
            log(f"first-call cost: warm numba cache, run {r + 1}/{n}")
            runs["warm"].append(_child(env, args))
            log(f"first-call cost: numba start-up probe, run {r + 1}/{n}")
            _child(env, args, probe_first=True)
            runs["probe"].append(_child(env, args, probe_first=True))
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    return runs


def first_call_table(runs: dict, k: int) -> str:
    keys = [
        ("import_total", "`import venncal` (fresh interpreter, total)"),
        ("import_numpy", "  of which numpy"),
        ("import_numba", "  of which numba"),
        ("import_sklearn", "  of which sklearn.base + sklearn.utils.validation"),
        ("import_venncal_rest", "  of which venncal and the rest of its imports"),
        ("first_fit", f"first `VennAbersCalibrator().fit` (k={fmt_k(k)})"),
        ("first_predict", f"first `predict_interval` (m={fmt_k(k)})"),
        ("first_total", "**first fit + predict_interval**"),
        ("first_weighted_fit", "first weighted fit (after the above)"),
        ("steady_fit", "second fit (steady state, one call)"),
        ("steady_predict", "second predict_interval (steady state, one call)"),
    ]
    n = len(runs["cold"])
    lines = [
        (
            f"| step (min / median of {n} fresh interpreter{'s' if n > 1 else ''}) "
            "| cold numba cache | warm numba cache |"
        ),
        "|---|---|---|",
    ]
    for key, label in keys:
        cells = []
        for mode in ("cold", "warm"):
            vals = [run[key] for run in runs[mode]]
            cells.append(f"{fmt_time(min(vals))} / {fmt_time(statistics.median(vals))}")
        lines.append(f"| {label} | {cells[0]} | {cells[1]} |")
    probe = runs["probe"]

    def stat(key):
        vals = [run[key] for run in probe]
        return f"{fmt_time(min(vals))} / {fmt_time(statistics.median(vals))}"

    lines.append(
        "| warm first call, split: numba's own start-up (first call of a trivial cached "
        f"`@njit` function) | - | {stat('numba_probe')} |"
    )
    lines.append(
        "| warm first call, split: then venncal's first fit + predict_interval "
        f"| - | {stat('first_total')} |"
    )
    files = {m: sorted({run["new_cache_index_files"] for run in runs[m]}) for m in runs}
    lines.append(
        "\nNumba cache index files (*.nbi) written by the venncal interpreter: "
        f"cold run {files['cold']}, warm run {files['warm']} (0 = everything loaded from cache)."
    )
    return "\n".join(lines)


def main(argv=None) -> None:
    """The child: ``python _ivap_first_call.py --k K --seed S [--probe-first]``."""
    parser = argparse.ArgumentParser(description="one first-call measurement (a child)")
    parser.add_argument("--k", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--probe-first", action="store_true")
    args = parser.parse_args(argv)
    first_call_child(args.k, args.seed, args.probe_first)


if __name__ == "__main__":
    main()
