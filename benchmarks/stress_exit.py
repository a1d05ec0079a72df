"""Run venncal's commands many times and count the exit codes (issue 22: SIGABRT at exit).

Each command must exit with the code it means (0, or 2 for the bad-input cases) every
time; a 134 is an abort at interpreter exit.  Run it under CPU load (other work on the
machine, or ``--load N`` busy processes started here) to make races show:

    python benchmarks/stress_exit.py --runs 500 --load 2

Writes its data to a temporary folder; prints one line per command.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def _busy(stop):
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _data(folder: str) -> None:
    rng = np.random.default_rng(0)
    n = 20_000
    s = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-2 * s))).astype(int)
    with open(os.path.join(folder, "cal.csv"), "w") as f:
        f.write("score,label,p\n")
        for a, b in zip(s, y, strict=True):
            f.write(f"{a},{b},{1 / (1 + np.exp(-2 * a)):.6f}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--load", type=int, default=0, help="busy processes to start")
    parser.add_argument("--log", default=None, metavar="FILE",
                        help="append one line per run (command, run, exit code) to FILE, so that "
                             "a long run can be read while it goes")
    parser.add_argument("--commands", nargs="+", metavar="NAME",
                        help="run only these commands (fit, predict, predict-missing, "
                             "evaluate, monitor); default all")
    args = parser.parse_args()
    venncal = [sys.executable, "-m", "venncal"]
    folder = tempfile.mkdtemp(prefix="venncal-stress-")
    _data(folder)
    cal = os.path.join(folder, "cal.csv")
    model = os.path.join(folder, "platt.json")
    subprocess.run([*venncal, "fit", cal, "--score-col", "score", "--label-col", "label",
                    "--method", "platt", "-o", model, "-q"], check=True)
    out = os.path.join(folder, "out.csv")
    commands = {
        "fit": ([*venncal, "fit", cal, "--score-col", "score", "--label-col", "label",
                 "--method", "platt", "-o", os.path.join(folder, "m.json"), "-q", "--force"], 0),
        "predict": ([*venncal, "predict", model, cal, "--score-col", "score", "-o", out, "-q",
                     "--prefix", "c_"], 0),
        "predict-missing": ([*venncal, "predict", model, cal, "--score-col", "nope",
                                      "-o", out, "-q"], 2),
        "evaluate": ([*venncal, "evaluate", cal, "--prob-col", "p", "--label-col", "label",
                      "-q"], 0),
        "monitor": ([*venncal, "monitor", cal, "--prob-col", "p", "--label-col", "label",
                     "--clip", "0.01", "-q"], 0),
    }
    unknown = set(args.commands or ()) - set(commands)
    if unknown:
        parser.error(f"unknown command(s) {sorted(unknown)}; choose from {sorted(commands)}")
    if args.commands:
        commands = {name: commands[name] for name in args.commands}
    stop = multiprocessing.Event()
    busy = [multiprocessing.Process(target=_busy, args=(stop,)) for _ in range(args.load)]
    for p in busy:
        p.start()
    try:
        for name, (argv, expected) in commands.items():
            codes = collections.Counter()
            start = time.perf_counter()
            for run in range(args.runs):
                code = subprocess.run(argv, capture_output=True).returncode
                codes[code] += 1
                if args.log:
                    with open(args.log, "a") as f:
                        f.write(f"{name} {run + 1} {code}\n")
            good = codes[expected]
            print(f"{name}: {good}/{args.runs} exit {expected}; all codes {dict(codes)} "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
    finally:
        stop.set()
        for p in busy:
            p.join()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
