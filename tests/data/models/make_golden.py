"""Write the golden model files of tests/data/models/ (see README.md there).

Run once, from the worktree root, with the code whose output they pin:

    PYTHONPATH=src:tests python tests/data/models/make_golden.py

Do not rerun it to make a failing test pass: the files stand for what format
versions 1 and 2 are, and ``save(..., format_version=2)`` (and ``1``) must keep
writing exactly these bytes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def data(seed: int = 20240611, n: int = 150):
    """Scores with ties, 0/1 hits, weights and folds, as in tests/data/model-v1."""
    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=n), 3)
    scores[::5] = np.round(scores[::5], 1)
    hit = rng.random(n) < 1 / (1 + np.exp(-2 * scores))
    weights = rng.integers(1, 4, n) + 0.5
    folds = np.arange(n) % 3
    return scores, hit, weights, folds


def models() -> dict:
    """Every registered class (and the test-only Dummy), fitted, by file stem."""
    import venncal
    from venncal import (
        BBQCalibrator,
        CrossVennAbersCalibrator,
        ENIRCalibrator,
        HistogramBinningCalibrator,
        IsotonicCalibrator,
        NegatedScoreCalibrator,
        PlattCalibrator,
        QuantizedIsotonicCalibrator,
        VennAbersCalibrator,
    )

    s, hit, w, folds = data()
    # a second, larger set: isotonic fits with more than LIST_MAX blocks, CVAP
    # folds of more than LIST_MAX scores
    big_s, big_hit, big_w, big_folds = data(7, 600)
    y01 = hit.astype(int)
    ystr = np.where(hit, "yes", "no")
    yfloat = np.where(hit, 2.5, -0.5)
    unit = 1 / (1 + np.exp(-s))  # scores in (0, 1): BBQ and ENIR take their midpoint priors
    out = {
        "ivap": VennAbersCalibrator().fit(s, y01),
        "ivap-small": VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]),
        "ivap-weighted-str": VennAbersCalibrator(merge="brier").fit(s, ystr, w),
        "cvap": CrossVennAbersCalibrator().fit(s, ystr, w, folds=folds),
        "platt": PlattCalibrator().fit(s, yfloat),
        "platt-labels": PlattCalibrator(targets="labels").fit(s, hit, w),
        "isotonic": IsotonicCalibrator().fit(s, y01),
        "isotonic-big": IsotonicCalibrator().fit(big_s, big_hit, big_w),
        "isotonic-linear-weighted": IsotonicCalibrator(interpolation="linear").fit(s, ystr, w),
        "histogram": HistogramBinningCalibrator(n_bins=5).fit(s, y01, w),
        "histogram-big": HistogramBinningCalibrator(n_bins=40).fit(big_s, big_hit),
        "histogram-uniform": HistogramBinningCalibrator(n_bins=25, strategy="uniform").fit(
            s, y01
        ),
        "bbq": BBQCalibrator().fit(unit, y01, w),
        "bbq-base-rate": BBQCalibrator(bin_range=(1, 30)).fit(s, ystr),
        "enir": ENIRCalibrator().fit(unit, y01, w),
        "enir-big": ENIRCalibrator().fit(big_s, big_hit, big_w),
        "enir-best": ENIRCalibrator(model="best", bin_prior="base_rate").fit(s, ystr),
        "quantized-isotonic": QuantizedIsotonicCalibrator(levels=11).fit(s, y01, w),
        "quantized-isotonic-big": QuantizedIsotonicCalibrator().fit(big_s, big_hit),
        "quantized-isotonic-array": QuantizedIsotonicCalibrator(
            levels=[0.0, 0.2, 0.5, 0.9, 1.0], classes=["yes", "no"]
        ).fit(s, ystr),
        "negated-ivap": NegatedScoreCalibrator(VennAbersCalibrator()).fit(s, ystr, w),
        "negated-cvap": NegatedScoreCalibrator(CrossVennAbersCalibrator(merge="brier")).fit(
            s, y01, folds=folds
        ),
    }
    assert venncal.__version__ == "0.1.0"
    return out


def dummy():
    """The test-only Dummy of tests/test_persist.py: every kind of value the format holds."""
    import test_persist
    from venncal import _registry

    _registry.CALIBRATORS["dummy"] = "test_persist.Dummy"
    return test_persist._dummy()


def dummy_bytes():
    """A Dummy whose arrays are in the bytes form of version 2: every dtype, NaN payloads."""
    d = dummy()
    n = 40
    rng = np.random.default_rng(5)
    payload = np.full(n, np.nan).view(np.uint64) | np.uint64(7)
    d.arrays_ = [
        rng.normal(size=n),  # plain bytes (does not compress)
        np.repeat([0.25, -0.0, np.inf], [n, 3, 1]),  # zlib
        payload.view(np.float64),
        rng.normal(size=(3, n)).astype(np.float32),
        np.arange(n, dtype=np.float16),
        np.arange(-n, n, dtype=np.int8),
        np.arange(n, dtype="<i2") * 301,
        rng.integers(-(2**31), 2**31, n, dtype=np.int32),
        rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64),
        np.arange(n, dtype=np.uint8),
        np.arange(n, dtype=np.uint16) * 1000,
        rng.integers(0, 2**32, n, dtype=np.uint32),
        rng.integers(0, 2**64 - 1, n, dtype=np.uint64),
        rng.random(n) < 0.5,
        np.arange(2.0 * n).reshape(2, n).astype(">f8"),  # big-endian in: little-endian out
        np.asfortranarray(np.arange(3.0 * n).reshape(n, 3)),
    ]
    return d


def main() -> None:
    from venncal import persist

    todo = {**models(), "dummy": dummy(), "dummy-bytes": dummy_bytes()}
    for stem, model in todo.items():
        for version in (1, 2):
            persist.save(model, HERE / f"{stem}.v{version}.json", format_version=version)
    print(f"wrote {2 * len(todo)} files to {HERE}", file=sys.stderr)


if __name__ == "__main__":
    main()
