"""Save and load of a model of many nested documents: a one-vs-one cross Venn-Abers model.

Fits ``OneVsOneCalibrator(CrossVennAbersCalibrator())`` on ``--rows-per-class`` rows a
class of ``K`` classes (softmax of normal logits, the true class's raised by 1.5),
``--folds`` folds: ``K (K - 1) / 2`` pairs, each a CVAP document holding one IVAP document
per fold (``K = 50``, 5 folds: 7,351 documents).  Times :func:`venncal.save` and
:func:`venncal.load` of it to a ``.json.gz`` file (one warm-up each, then the best and
median of ``--repeats``) and checks that the loaded model predicts bit for bit as the
fitted one.  A script, not a test::

    python benchmarks/bench_persist_nested.py [--classes 50] [--repeats 3]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from _harness import fmt_time, machine_lines, measure

import venncal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--classes", type=int, default=50)
    parser.add_argument("--rows-per-class", type=int, default=40)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    k = args.classes
    n = args.rows_per_class * k
    rng = np.random.default_rng(0)
    z = rng.normal(size=(n, k))
    y = rng.integers(0, k, n)
    z[np.arange(n), y] += 1.5
    proba = np.exp(z - z.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    model = venncal.OneVsOneCalibrator(venncal.CrossVennAbersCalibrator()).fit(
        proba, y, folds=np.arange(n) % args.folds)
    documents = 1 + len(model.calibrators_) * (1 + args.folds)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ovo-cvap.json.gz"
        saved = measure(lambda: venncal.save(model, path), repeats=args.repeats)
        size = path.stat().st_size
        loaded = measure(lambda: venncal.load(path), repeats=args.repeats)
        copy = venncal.load(path)
    same = np.array_equal(copy.predict_proba(proba), model.predict_proba(proba))
    print("\n".join(machine_lines()))
    print(f"one-vs-one CVAP: K = {k}, {n} rows, {args.folds} folds, {documents} documents, "
          f"{size:,} bytes (.json.gz)")
    print(f"save: best {fmt_time(saved.best)}, median {fmt_time(saved.median)}")
    print(f"load: best {fmt_time(loaded.best)}, median {fmt_time(loaded.median)}")
    print(f"loaded model predicts bit for bit: {same}")


if __name__ == "__main__":
    main()
