"""Fingerprints of the online objects' single calls on random streams: run before and after a change.

A change meant to make the single calls faster must leave every value the
same, bit for bit.  This script drives each object through River's loop
(``predict_proba_one`` then ``learn_one``) on random streams (uniform, near
0 and 1, tied and subnormal forecasts), with ``learn_many`` blocks, pickling
and the state's reads in between, and prints one SHA-256 per case of every
number it saw (the forecasts of both classes, ``log10 S``, the weights, the
alarms; the quantized stream's levels).  Run it on both trees and compare::

    PYTHONPATH=/path/to/main/src python benchmarks/online_bits.py > before.txt
    PYTHONPATH=src python benchmarks/online_bits.py > after.txt
    diff before.txt after.txt
"""

from __future__ import annotations

import hashlib
import pickle
import struct

import numpy as np

from venncal.online import (
    JumperMartingale,
    JumperPredictor,
    MeanJumper,
    QuantizedIsotonic,
    cubic,
    named,
    quadratic,
)

JUMPERS = (
    ("JumperMartingale", lambda: JumperMartingale()),
    ("JumperPredictor(cubic)", lambda: JumperPredictor(cubic())),
    ("MeanJumper", lambda: MeanJumper()),
    ("JumperMartingale(shift+confidence)", lambda: JumperMartingale(named("shift+confidence"))),
    ("MeanJumper(shift+confidence)", lambda: MeanJumper(named("shift+confidence"))),
    ("JumperPredictor(quadratic+cox2)", lambda: JumperPredictor(named("quadratic+cox2"))),
    ("JumperPredictor(quadratic+cubic)", lambda: JumperPredictor(quadratic() + cubic())),
    ("JumperMartingale(cox)", lambda: JumperMartingale(named("cox"))),
    ("JumperMartingale(s+c, half_life)",
     lambda: JumperMartingale(named("shift+confidence"), half_life=100.0)),
    ("MeanJumper(s+c, half_life=7, clip)",
     lambda: MeanJumper(named("shift+confidence"), half_life=7.0, clip=(1e-300, 1.0 - 2**-53))),
    ("JumperPredictor(quadratic+cox2, labels)",
     lambda: JumperPredictor(named("quadratic+cox2"), classes=("no", "yes"))),
)


def streams(seed: int, n: int) -> dict:
    """Random base forecasts and labels: ``name -> (p, y)``, ``y`` drawn from ``p`` (or a drift)."""
    rng = np.random.default_rng(seed)
    u = rng.uniform(0.02, 0.98, n)
    edges = np.concatenate([rng.uniform(0, 1e-6, n // 4), 1.0 - rng.uniform(0, 1e-6, n // 4),
                            rng.uniform(0, 1, n - 2 * (n // 4))])
    rng.shuffle(edges)
    edges = np.clip(edges, 5e-324, 1.0 - 2**-53)
    tied = rng.choice([0.1, 0.25, 0.5, 0.75, 0.9], n)
    drift = u.copy()
    out = {}
    for name, p in (("uniform", u), ("edges", edges), ("tied", tied), ("drift", drift)):
        truth = p if name != "drift" else 0.5 + 0.5 * (p - 0.5) * (np.arange(n) < n // 2)
        out[name] = (p, rng.random(n) < truth)
    return out


class Digest:
    """A SHA-256 of the floats (exact bits) and other values it is fed."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def floats(self, *values) -> None:
        for v in values:
            self.h.update(struct.pack("<d", float(v)))

    def array(self, a) -> None:
        self.h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())

    def other(self, v) -> None:
        self.h.update(repr(v).encode())


def drive_jumper(make, p: np.ndarray, y: np.ndarray, d: Digest, labels=None) -> None:
    """River's loop with blocks, reads and pickles in between; every value into ``d``."""
    model = make()
    ys = [labels[int(v)] for v in y] if labels else [bool(v) for v in y]
    model.learn_many(p[:50], ys[:50])
    ps = [float(v) for v in p]
    for i in range(50, len(ps)):
        if i % 997 == 0:
            model.learn_many(p[i:i + 20], ys[i:i + 20])
        if i % 1499 == 0:
            model = pickle.loads(pickle.dumps(model))
        if i % 613 == 0:
            d.floats(model.log10_value)
            d.array(model.weights_)
            d.other(model.alarm(0.01))
        proba = model.predict_proba_one(ps[i])
        d.other(sorted(proba))
        d.floats(*(proba[k] for k in sorted(proba)))
        model.learn_one(ps[i], ys[i])
    d.floats(model.log10_value)
    d.array(model.weights_)
    d.array(model.rate_log10_values)
    d.other((model.n_seen_, model.alarm(0.01), model.alarm(0.5)))
    d.array(model.predict_proba_many(np.linspace(0, 1, 33)))


def drive_quantized(p: np.ndarray, y: np.ndarray, d: Digest, n0: int) -> None:
    """The quantized stream's River loop, deletes and reads, after ``n0`` scores by ``learn_many``."""
    rng = np.random.default_rng(n0)
    q = QuantizedIsotonic()
    s0 = rng.random(n0)
    q.learn_many(s0, (rng.random(n0) < s0).astype(float))
    ps, ys = [float(v) for v in p], [float(v) for v in y]
    for i in range(len(ps)):
        proba = q.predict_proba_one(ps[i])
        d.floats(proba[0], proba[1])
        q.learn_one(ps[i], ys[i])
        if i % 7 == 3:
            q.delete(ps[i - 2], ys[i - 2])
        if i % 911 == 0:
            d.floats(q.predict_one(ps[i] / 2))
    d.array(q.predict(np.linspace(0, 1, 101)))


def main() -> None:
    for seed in (0, 1):
        for sname, (p, y) in streams(seed, 4000).items():
            for name, make in JUMPERS:
                d = Digest()
                drive_jumper(make, p, y, d, ("no", "yes") if "labels" in name else None)
                print(f"seed {seed} {sname:8s} {name:40s} {d.h.hexdigest()}", flush=True)
            if sname in ("uniform", "tied"):
                for n0 in (1000, 100_000):
                    d = Digest()
                    drive_quantized(p, y, d, n0)
                    print(f"seed {seed} {sname:8s} QuantizedIsotonic(n={n0}){'':17s} "
                          f"{d.h.hexdigest()}", flush=True)


if __name__ == "__main__":
    main()
