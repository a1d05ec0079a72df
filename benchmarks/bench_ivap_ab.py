"""IVAP fit and predict_interval CPU time of two source trees, alternating, under the same load.

    git worktree add --detach /tmp/before <commit>
    python benchmarks/bench_ivap_ab.py /tmp/before/src src [--rounds 3]

Each round runs each tree in a fresh interpreter (``PYTHONPATH=<tree>``): a warm-up fit
(compilation or cache load), then the best of 5 CPU times (``time.process_time``) of an
unweighted fit, a weighted fit (weights in [0.5, 1.5)) and ``predict_interval`` at
n = 1e4 and 1e6 (scores N(0, 1), labels Bernoulli(expit(2 s))).  Prints the best over the
rounds, and the load average.
"""
import argparse
import json
import os
import subprocess
import sys
code = r'''
import time, numpy as np, json
from venncal import VennAbersCalibrator
rng = np.random.default_rng(0)
out = {}
for n in (10_000, 1_000_000):
    s = rng.normal(size=n); y = (rng.random(n) < 1/(1+np.exp(-2*s))).astype(int)
    t = rng.normal(size=n); w = rng.random(n) + 0.5
    VennAbersCalibrator().fit(s[:100], y[:100]).predict_interval(t[:100])
    best = {}
    for name, f in (("fit", lambda: VennAbersCalibrator().fit(s, y)),
                    ("fit_weighted", lambda: VennAbersCalibrator().fit(s, y, sample_weight=w))):
        b = 1e9
        for _ in range(5):
            c = time.process_time(); f(); b = min(b, time.process_time() - c)
        best[name] = b
    cal = VennAbersCalibrator().fit(s, y)
    b = 1e9
    for _ in range(5):
        c = time.process_time(); cal.predict_interval(t); b = min(b, time.process_time() - c)
    best["predict_interval"] = b
    out[n] = best
print(json.dumps(out))
'''
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("before")
parser.add_argument("after")
parser.add_argument("--rounds", type=int, default=3)
args = parser.parse_args()
trees = {f"before ({args.before})": args.before, f"after ({args.after})": args.after}
res = {k: [] for k in trees}
for r in range(args.rounds):
    for k, src in trees.items():
        env = dict(os.environ, PYTHONPATH=src)
        o = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        res[k].append(json.loads(o.stdout))
print(os.getloadavg())
for k, runs in res.items():
    for n in runs[0]:
        line = {m: min(run[n][m] for run in runs) for m in runs[0][n]}
        print(k, n, {m: f"{v*1e3:.2f} ms" for m, v in line.items()})
