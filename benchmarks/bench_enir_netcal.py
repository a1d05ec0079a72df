"""netcal's ENIR beside venncal's: error of its near-isotonic path, and fit time.

netcal (``pip install netcal``) is the only other packaged Python ENIR.  It
pulls in PyTorch, so this script runs in its own environment, not the
project's: for example, on the CPU,

    python -m venv /tmp/netcal-venv
    /tmp/netcal-venv/bin/pip install torch==2.13.0 netcal -e .   # CPU torch
    /tmp/netcal-venv/bin/python benchmarks/bench_enir_netcal.py

Two measurements:

* **Error of netcal's path.**  For random 0/1 data of ``--n-small`` scores,
  every model of netcal's ``NearIsotonicRegression`` path (its mPAVA, the
  models ENIR averages), as soon as it is made, is compared at its own
  ``lambda`` and at the training scores with venncal's
  path at the same ``lambda`` (``near_isotonic_path(...).solution(lam)``,
  which ``tests/test_enir.py`` checks against an exact convex solve at every
  knot to 1e-8).  Reported: the largest absolute difference over the
  models and scores, per seed.
* **Fit time** of ``netcal.binning.ENIR().fit`` and of
  ``venncal.enir.ENIRCalibrator().fit`` on the same data for ``--sizes``,
  netcal in a subprocess with a ``--timeout`` (it is quadratic).

This is a script, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing as mp

import numpy as np

from _harness import Clock, machine_lines, measure


def _data(n: int, seed: int):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    p = np.clip(s + 0.15 * np.sin(12 * s), 0.01, 0.99)
    return s, (rng.uniform(size=n) < p).astype(float)


def path_error(n: int, seed: int) -> tuple[float, int]:
    """Largest |netcal - exact| over netcal's path models; and how many models."""
    from netcal.binning import NearIsotonicRegression

    from venncal import near_isotonic_path

    s, y = _data(n, seed)
    order = np.argsort(s)
    s, y = s[order], y[order]
    exact = near_isotonic_path(s, y)
    worst, n_models = 0.0, 0
    with contextlib.redirect_stdout(io.StringIO()):
        model = NearIsotonicRegression()
        model.fit(s, y)
        # Each model is evaluated as soon as it is made: netcal's successive
        # models share arrays, so an earlier model changes when later ones
        # are computed (which the ENIR it fits suffers from, on top of this).
        while model is not None:
            theirs = np.asarray(model.transform(s), dtype=float)
            ours = np.clip(exact.solution(float(model._lambda)), 0.0, 1.0)
            worst = max(worst, float(np.max(np.abs(theirs - ours))))
            n_models += 1
            model = model.get_next_model()
    return worst, n_models


def _netcal_fit(n: int, seed: int, out) -> None:
    from netcal.binning import ENIR

    s, y = _data(n, seed)
    with contextlib.redirect_stdout(io.StringIO()), Clock() as clock:
        ENIR().fit(s, y)
    out.put(clock.wall)


def netcal_fit_time(n: int, seed: int, timeout: float) -> float | None:
    out = mp.Queue()
    proc = mp.Process(target=_netcal_fit, args=(n, seed, out))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return None
    return out.get() if not out.empty() else None


def venncal_fit_time(n: int, seed: int) -> float:
    from venncal.enir import ENIRCalibrator

    s, y = _data(n, seed)
    return measure(lambda: ENIRCalibrator().fit(s, y), repeats=1).best  # warm-up: compile


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-small", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--sizes", default="1e3,1e4,3e4,1e5")
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    print("# netcal's ENIR beside venncal's\n")
    print("\n".join(machine_lines(argv, extra=("scipy", "netcal", "torch"))))
    print(f"\nnetcal's near-isotonic path against the exact path, n = {args.n_small}:\n")
    print("| seed | models | max abs error |\n|---|---|---|")
    for seed in range(args.seeds):
        try:
            err, n_models = path_error(args.n_small, seed)
            print(f"| {seed} | {n_models} | {err:.3g} |")
        except Exception as exc:  # noqa: BLE001 - netcal crashes on some inputs: report it
            print(f"| {seed} | - | crash: {type(exc).__name__}: {exc} |")
    print("\nENIR fit time (wall clock, one fit after a warm-up of venncal):\n")
    print("| n | netcal ENIR | venncal ENIR |\n|---|---|---|")
    for n in (int(float(x)) for x in args.sizes.split(",")):
        theirs = netcal_fit_time(n, 0, args.timeout)
        ours = venncal_fit_time(n, 0)
        shown = f"{theirs:.2f} s" if theirs is not None else f"> {args.timeout:.0f} s (stopped)"
        print(f"| {n:.0e} | {shown} | {ours * 1e3:.1f} ms |")


if __name__ == "__main__":
    main()
