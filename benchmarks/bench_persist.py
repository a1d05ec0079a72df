"""Size and speed of saved models: model format version 1 against version 2.

Fits a ``VennAbersCalibrator`` (IVAP) on n distinct scores ``s ~ U[0, 1]``
with labels ``y ~ Bernoulli(s)`` (so its five float64 state arrays have n
elements each), then times :func:`venncal.persist.save` and
:func:`venncal.persist.load` of it to a file in a temporary directory, for

* ``v1``: format version 1 (every array a JSON list of decimal numbers),
* ``v2``: format version 2 (arrays as base64 of zlib-compressed bytes, zlib
  level 1, venncal's default), and ``v2 zlib-6`` with zlib level 6,
* ``... + gzip-1`` / ``+ gzip-6``: the same written to a ``.gz`` file, with
  gzip level 1 (venncal's default) or 6.

Each save and load is timed ``--repeats`` times (after one untimed warm-up
save and load); the table shows the fastest.  Every load is checked to give
back the fitted arrays bit for bit.  The levels other than venncal's default
are measured by setting ``venncal.persist._ZLIB_LEVEL`` / ``_GZIP_LEVEL``
for the run.  See ``benchmarks/README.md``.

This is a script, not a test: run it with ``python benchmarks/bench_persist.py``.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

import venncal
from venncal import persist

from _harness import add_sizes, machine_lines, measure

# (label, format_version, zlib level of arrays, gzip level or None for a plain file)
FORMATS = {
    "v1": (1, None, None),
    "v1 + gzip-1": (1, None, 1),
    "v2": (2, 1, None),
    "v2 zlib-6": (2, 6, None),
    "v2 + gzip-1": (2, 1, 1),
    "v2 + gzip-6": (2, 1, 6),
}
STATE = ("scores_", "weights_", "positive_weights_", "p0_", "p1_")


def fitted_ivap(n: int, seed: int = 0) -> venncal.VennAbersCalibrator:
    rng = np.random.default_rng(seed)
    scores = rng.random(n)
    return venncal.VennAbersCalibrator().fit(scores, rng.random(n) < scores)


def size_and_times(model, path: Path, version: int, zlib_level, gzip_level, repeats: int):
    """Return (size in bytes, best save seconds, best load seconds)."""
    saved = (persist._ZLIB_LEVEL, persist._GZIP_LEVEL)
    persist._ZLIB_LEVEL = zlib_level or saved[0]
    persist._GZIP_LEVEL = gzip_level or saved[1]
    try:
        save = measure(lambda: persist.save(model, path, format_version=version), repeats=repeats)
        load = measure(lambda: persist.load(path), repeats=repeats)
        copy = persist.load(path)
        for name in STATE:
            if getattr(copy, name).tobytes() != getattr(model, name).tobytes():
                raise AssertionError(f"{path.name}: {name} did not reload bit for bit")
        return path.stat().st_size, save.best, load.best
    finally:
        persist._ZLIB_LEVEL, persist._GZIP_LEVEL = saved


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_sizes(parser, (10**4, 10**5, 10**6), help="numbers of distinct calibration scores")
    parser.add_argument(
        "--formats",
        nargs="+",
        choices=list(FORMATS),
        default=list(FORMATS),
        metavar="FORMAT",
        help=f"formats to measure (default: all: {', '.join(FORMATS)})",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed rounds (default: 3)")
    args = parser.parse_args(argv)

    print("# Saved models: size and save/load time\n")
    print("\n".join(machine_lines(argv)))
    print(f"- best of {args.repeats} after a warm-up save and load\n")
    print("| n | format | size MB | bytes/score | save s | load s |")
    print("|---:|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            model = fitted_ivap(n)
            for label in args.formats:
                version, zlib_level, gzip_level = FORMATS[label]
                path = Path(tmp) / ("model.json.gz" if gzip_level else "model.json")
                size, save_s, load_s = size_and_times(
                    model, path, version, zlib_level, gzip_level, args.repeats
                )
                print(
                    f"| {n:_} | {label} | {size / 1e6:.2f} | {size / n:.1f} | "
                    f"{save_s:.3f} | {load_s:.3f} |",
                    flush=True,
                )
                path.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
