"""Speed benchmark of the score-level inductive Venn-Abers predictor (IVAP).

Measures, side by side in one run and on the same synthetic data,

* ``np.sort`` / ``np.argsort`` of the calibration scores (floors for fit),
* ``VennAbersCalibrator().fit`` (unweighted and weighted),
* ``np.searchsorted`` of the test scores into the sorted calibration scores
  (floor for predict) and ``predict_interval`` / ``predict_proba``,
* scikit-learn ``IsotonicRegression(out_of_bounds="clip")`` fit and predict,
* the ``venn-abers`` PyPI package and MAPIE's Venn-Abers, when installed,
  only up to ``--reference-max`` (they are roughly quadratic),

checks that venncal and the reference packages give the same ``(p0, p1)``,
and measures the first-call cost (numba compilation with a cold and a warm
on-disk cache) in subprocesses.  See ``benchmarks/README.md``.

This is a script, not a test: run it with ``python benchmarks/bench_ivap.py``.
"""

from __future__ import annotations

# Only the standard library at module level: the first-call child process
# times the imports of numpy, numba, scikit-learn and venncal itself.
import argparse
import datetime as _dt
import gc
import importlib.metadata
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SIZES = (10**3, 10**4, 10**5, 10**6, 10**7)
AGREEMENT_TOL = 1e-12
# Peak resident memory per calibration score, measured at k = 1e7 (about
# 190 bytes: scores, labels, weights, test scores, sorted copies, the venncal
# tables and scikit-learn's internal copies), rounded up for safety.
BYTES_PER_SCORE = 300
TARGET_K = 10**6
FIT_TARGET = 10.0  # venncal fit <= 10x np.sort
PREDICT_TARGET = 2.0  # venncal predict_interval <= 2x np.searchsorted


# --------------------------------------------------------------------------
# Small helpers


def parse_size(text: str) -> int:
    """Parse ``1e6``, ``1000000`` or ``1_000_000`` into a positive int."""
    try:
        value = float(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1 or value != int(value):
        raise argparse.ArgumentTypeError(f"a size must be a positive integer, got {text!r}")
    return int(value)


def parse_sizes(items: list[str]) -> list[int]:
    out: list[int] = []
    for item in items:
        out.extend(parse_size(part) for part in item.split(",") if part.strip())
    return sorted(set(out))


def fmt_k(k: int) -> str:
    exp = len(str(k)) - 1
    return f"1e{exp}" if k == 10**exp else f"{k:,}"


def fmt_time(t: float) -> str:
    if t < 1e-3:
        return f"{t * 1e6:.3g} µs"
    if t < 1.0:
        return f"{t * 1e3:.3g} ms"
    return f"{t:.3g} s"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def mem_available() -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


# --------------------------------------------------------------------------
# Timing


@dataclass
class Timing:
    best: float  # seconds per call, minimum over samples
    median: float
    samples: int  # number of timed samples
    number: int  # calls per sample


def measure(fn, min_time: float, min_repeats: int, max_samples: int = 100_000) -> Timing:
    """Best of N: a warm-up call, then samples until ``min_time`` and ``min_repeats``.

    Calls faster than 2 ms are looped inside one sample (as ``timeit`` does)
    so that the timer resolution does not matter; times are per call.
    """
    gc.collect()
    fn()  # warm-up: JIT compilation, page faults, caches
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    number = 1 if once >= 2e-3 else max(1, min(10_000, int(2e-3 / max(once, 1e-8))))
    samples: list[float] = [once] if number == 1 else []
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter() - (once if number == 1 else 0.0)
        while len(samples) < min_repeats or (
            time.perf_counter() - start < min_time and len(samples) < max_samples
        ):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            samples.append((time.perf_counter() - t0) / number)
    finally:
        if enabled:
            gc.enable()
    return Timing(min(samples), statistics.median(samples), len(samples), number)


# --------------------------------------------------------------------------
# Reference implementations (optional packages)


@dataclass
class Reference:
    """An optional other implementation of the score-level IVAP."""

    name: str
    status: str  # "ok", or why it cannot run
    entry: str = ""  # the API used
    version: str = ""
    cls: object = None
    notes: list[str] = field(default_factory=list)

    def fit_predict(self, p_cal, y, p_test):
        """Fit on (n, 2) class probabilities and predict; return (p0, p1, p)."""
        import numpy as np

        # Both packages divide by zero on purpose (0/0 slopes are skipped by
        # nanmin/nanmax); silence that locally instead of globally.
        with np.errstate(divide="ignore", invalid="ignore"):
            va = self.cls()
            va.fit(p_cal, y)
            p_prime, p0_p1 = va.predict_proba(p_test)
        return p0_p1[:, 0], p0_p1[:, 1], p_prime[:, 1]


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _probe(ref: Reference) -> Reference:
    """Check on a tiny problem that the API is the one the adapter expects."""
    import numpy as np

    s = np.array([0.1, 0.4, 0.35, 0.8])
    y = np.array([0, 0, 1, 1])
    q = np.array([0.0, 0.1, 0.5, 0.9])
    try:
        p0, p1, p = ref.fit_predict(np.column_stack((1 - s, s)), y, np.column_stack((1 - q, q)))
        if not (p0.shape == p1.shape == p.shape == (4,)):
            raise TypeError("unexpected output shapes")
    except Exception as exc:  # noqa: BLE001 - any failure means "API does not fit"
        ref.status = f"API does not fit ({type(exc).__name__}: {exc})"
    return ref


def load_venn_abers() -> Reference:
    ref = Reference("venn-abers", "ok", version=_version("venn-abers"))
    import numpy as np

    saved = np.geterr()
    try:
        import venn_abers
    except ImportError:
        ref.status = "not installed (pip install venn-abers)"
        return ref
    finally:
        # venn_abers/venn_abers.py calls np.seterr(divide="ignore",
        # invalid="ignore") at import, for the whole process: undo it.
        np.seterr(**saved)
    cls = getattr(venn_abers, "VennAbers", None)
    ref.entry = "venn_abers.VennAbers"
    if cls is None:  # not re-exported by the package: try its module
        try:
            from venn_abers.venn_abers import VennAbers as cls
        except ImportError as exc:
            ref.status = f"API does not fit (no VennAbers class: {exc})"
            return ref
        finally:
            np.seterr(**saved)
        ref.entry = "venn_abers.venn_abers.VennAbers"
    ref.cls = cls
    ref.notes.append(
        f"venn-abers {ref.version}: `{ref.entry}().fit(p_cal, y_cal)` with p_cal = "
        "[1 - s, s] of shape (n, 2), then `predict_proba(p_test)` -> (p_prime, p0_p1); "
        "timed: fit + predict_proba (building the (n, 2) inputs is not timed)."
    )
    return _probe(ref)


def load_mapie() -> Reference:
    ref = Reference("MAPIE", "ok", version=_version("mapie"))
    try:
        import mapie  # noqa: F401
    except ImportError:
        ref.status = "not installed (pip install mapie)"
        return ref
    try:
        from mapie._venn_abers import VennAbers as cls
    except ImportError as exc:
        ref.status = (
            "API does not fit (no score-level Venn-Abers found: mapie._venn_abers.VennAbers "
            f"is missing in this version: {exc})"
        )
        return ref
    ref.entry = "mapie._venn_abers.VennAbers"
    ref.cls = cls
    ref.notes.append(
        f"MAPIE {ref.version}: the public `mapie.calibration.VennAbersCalibrator` wraps an "
        "estimator; the score-level entry point is the private `mapie._venn_abers.VennAbers` "
        "(same fit(p_cal, y_cal) / predict_proba(p_test) -> (p_prime, p0_p1) API as venn-abers, "
        "whose code it adapts)."
    )
    return _probe(ref)


# --------------------------------------------------------------------------
# The benchmark proper

COLUMNS = [
    "k",
    "np.sort",
    "venncal fit",
    "fit / sort",
    "np.argsort",
    "venncal fit (weighted)",
    "weighted fit / argsort",
    "np.searchsorted",
    "venncal predict_interval",
    "predict / searchsorted",
    "venncal predict_proba",
    "sklearn isotonic fit",
    "sklearn isotonic predict",
    "venn-abers fit+predict",
    "MAPIE fit+predict",
    "venn-abers / venncal",
]
RATIOS = {
    "fit / sort": ("venncal fit", "np.sort"),
    "weighted fit / argsort": ("venncal fit (weighted)", "np.argsort"),
    "predict / searchsorted": ("venncal predict_interval", "np.searchsorted"),
    "venn-abers / venncal": ("venn-abers fit+predict", "venncal fit+predict_proba"),
}


def make_data(k: int, seed: int, ties: bool):
    import numpy as np

    rng = np.random.default_rng([seed, k, int(ties)])
    s = rng.random(k)
    y = (rng.random(k) < s).astype(np.int64)  # Bernoulli(score)
    q = rng.random(k)  # m = k fresh test scores
    w = rng.uniform(0.5, 2.0, k)
    if ties:
        s = np.round(s, 3)
        q = np.round(q, 3)
    return s, y, q, w


def bench_size(k, args, refs, ties):
    """Time every operation at one size; return (row, agreement rows, k')."""
    import numpy as np
    from sklearn.isotonic import IsotonicRegression

    from venncal import VennAbersCalibrator

    s, y, q, w = make_data(k, args.seed, ties)
    s_sorted = np.sort(s)
    row: dict[str, object] = {}

    def run(name, fn):
        log(f"  k={fmt_k(k)}: {name} ...")
        row[name] = measure(fn, args.min_time, args.min_repeats)

    run("np.sort", lambda: np.sort(s))
    run("venncal fit", lambda: VennAbersCalibrator().fit(s, y))
    run("np.argsort", lambda: np.argsort(s))
    run("venncal fit (weighted)", lambda: VennAbersCalibrator().fit(s, y, sample_weight=w))
    cal = VennAbersCalibrator().fit(s, y)
    run("np.searchsorted", lambda: np.searchsorted(s_sorted, q))
    run("venncal predict_interval", lambda: cal.predict_interval(q))
    run("venncal predict_proba", lambda: cal.predict_proba(q))
    run("sklearn isotonic fit", lambda: IsotonicRegression(out_of_bounds="clip").fit(s, y))
    iso = IsotonicRegression(out_of_bounds="clip").fit(s, y)
    run("sklearn isotonic predict", lambda: iso.predict(q))
    fit_t, prob_t = row["venncal fit"], row["venncal predict_proba"]
    row["venncal fit+predict_proba"] = Timing(
        fit_t.best + prob_t.best, fit_t.median + prob_t.median, 0, 0
    )

    agreement = []
    p_cal = np.column_stack((1.0 - s, s))
    p_test = np.column_stack((1.0 - q, q))
    for ref in refs:
        col = f"{ref.name} fit+predict"
        if ref.status != "ok":
            row[col] = "not installed" if ref.status.startswith("not installed") else "n/a"
            continue
        if k > args.reference_max:
            row[col] = "skipped (too slow)"
            continue
        try:
            run(col, lambda ref=ref: ref.fit_predict(p_cal, y, p_test))
            agreement.extend(check_agreement(ref, cal, s, y, q, k))
        except Exception as exc:  # noqa: BLE001 - report, do not fail the benchmark
            row[col] = "error (see notes)"
            ref.notes.append(f"{ref.name} failed at k={fmt_k(k)}: {type(exc).__name__}: {exc}")
    return row, agreement, int(cal.scores_.shape[0])


def check_agreement(ref, cal, s, y, q, k):
    """Compare (p0, p1) and the log-minimax p of venncal and ``ref``."""
    import numpy as np

    uniq = np.unique(s)
    edge = np.concatenate(
        (
            uniq,  # test score equal to a calibration score
            (uniq[:-1] + uniq[1:]) / 2,  # strictly between two calibration scores
            [uniq[0] - 0.5, np.nextafter(uniq[0], -np.inf)],  # below the range
            [uniq[-1] + 0.5, np.nextafter(uniq[-1], np.inf)],  # above the range
        )
    )
    p_cal = np.column_stack((1.0 - s, s))
    rows = []
    for label, qq in (("fresh test scores", q), ("edge queries", edge)):
        r0, r1, rp = ref.fit_predict(p_cal, y, np.column_stack((1.0 - qq, qq)))
        pair = cal.predict_interval(qq)
        p = cal.predict_proba(qq)[:, 1]
        d0 = np.abs(pair[:, 0] - r0)
        d1 = np.abs(pair[:, 1] - r1)
        dp = np.abs(p - rp)
        worst = max(float(np.nanmax(d0)), float(np.nanmax(d1)))
        bad = ~((d0 <= AGREEMENT_TOL) & (d1 <= AGREEMENT_TOL))  # NaN counts as bad
        rows.append(
            {
                "k": k,
                "ref": ref.name,
                "queries": f"{label} (m={qq.shape[0]:,})",
                "d0": float(np.nanmax(d0)),
                "d1": float(np.nanmax(d1)),
                "dp": float(np.nanmax(dp)),
                "agree": bool(worst <= AGREEMENT_TOL and not bad.any()),
                "diagnosis": diagnose(uniq, qq, bad, pair, r0, r1) if bad.any() else "",
            }
        )
    return rows


def diagnose(uniq, qq, bad, pair, r0, r1) -> str:
    """Say where the disagreeing queries lie relative to the calibration scores."""
    import numpy as np

    pos = np.searchsorted(uniq, qq)
    equal = (pos < uniq.shape[0]) & (uniq[np.minimum(pos, uniq.shape[0] - 1)] == qq)
    cats = {
        "below the calibration range": qq < uniq[0],
        "above the calibration range": qq > uniq[-1],
        "equal to a calibration score": equal,
        "strictly between calibration scores": (qq > uniq[0]) & (qq < uniq[-1]) & ~equal,
    }
    parts = [f"{int((bad & m).sum())} {name}" for name, m in cats.items() if (bad & m).any()]
    i = int(np.flatnonzero(bad)[0])
    return (
        f"{int(bad.sum())} queries disagree: "
        + ", ".join(parts)
        + f"; e.g. q={float(qq[i])!r}: venncal ({float(pair[i, 0])!r}, "
        f"{float(pair[i, 1])!r}) vs reference ({float(r0[i])!r}, {float(r1[i])!r})"
    )


# --------------------------------------------------------------------------
# First-call cost (subprocesses)


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
    s, y, q, w = make_data(k, seed, False)

    def clock(fn):
        t0 = time.perf_counter()
        out = fn()
        return time.perf_counter() - t0, out

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
        sys.executable, str(Path(__file__).resolve()), "--first-call-child",
        "--first-call-k", str(args.first_call_k), "--seed", str(args.seed),
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


# --------------------------------------------------------------------------
# Report


def cell(row: dict, col: str, stat: str) -> str:
    if col in RATIOS:
        num, den = (row.get(c) for c in RATIOS[col])
        if isinstance(num, Timing) and isinstance(den, Timing):
            return f"{getattr(num, stat) / getattr(den, stat):.2f}x"
        return "-"
    value = row.get(col, "-")
    if isinstance(value, Timing):
        text = fmt_time(getattr(value, stat))
        if stat == "median" and value.samples:
            text += f" (n={value.samples})"
        return text
    return str(value)


def results_table(rows: dict[int, dict], stat: str) -> str:
    lines = [
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join("---:" for _ in COLUMNS) + "|",
    ]
    for k, row in rows.items():
        if isinstance(row, str):
            cells = [fmt_k(k), row] + ["-"] * (len(COLUMNS) - 2)
        else:
            cells = [fmt_k(k)] + [cell(row, c, stat) for c in COLUMNS[1:]]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def agreement_table(rows: list[dict]) -> str:
    if not rows:
        return "No reference package ran, so no agreement check."
    lines = [
        (
            "| k | reference | queries | max abs(p0 - p0_ref) | max abs(p1 - p1_ref) "
            "| max abs(p - p_ref) (log-minimax) | agree to 1e-12 |"
        ),
        "|---:|---|---|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {fmt_k(r['k'])} | {r['ref']} | {r['queries']} | {r['d0']:.3g} | {r['d1']:.3g} "
            f"| {r['dp']:.3g} | {'yes' if r['agree'] else 'NO'} |"
        )
    for r in rows:
        if r["diagnosis"]:
            lines.append(f"\n- k={fmt_k(r['k'])}, {r['ref']}, {r['queries']}: {r['diagnosis']}")
    return "\n".join(lines)


def targets(rows: dict[int, dict]) -> list[str]:
    row = rows.get(TARGET_K)
    if not isinstance(row, dict):
        return [f"Targets not measured: k={fmt_k(TARGET_K)} is not among the sizes run."]
    out = []
    for what, num, den, limit in (
        ("venncal fit", "venncal fit", "np.sort", FIT_TARGET),
        ("venncal predict_interval", "venncal predict_interval", "np.searchsorted", PREDICT_TARGET),
    ):
        a, b = row[num], row[den]
        ratio, ratio_med = a.best / b.best, a.median / b.median
        verdict = "PASS" if ratio <= limit else "FAIL"
        out.append(
            f"- **{verdict}** {what} at k={fmt_k(TARGET_K)} <= {limit:g}x {den}: "
            f"{fmt_time(a.best)} vs {fmt_time(b.best)} = {ratio:.2f}x (best of N; "
            f"median-based {ratio_med:.2f}x)"
        )
    return out


def machine_info() -> list[str]:
    import numba
    import numpy as np
    import sklearn

    import venncal

    cpu = ""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        fields = {
            a.strip(): b.strip() for a, _, b in (ln.partition(":") for ln in out.splitlines())
        }
        cpu = fields.get("Model name", "")
        extra = [
            f"family {fields['CPU family']}" if "CPU family" in fields else "",
            f"model {fields['Model']}" if "Model" in fields else "",
            fields.get("Hypervisor vendor", "") and f"{fields['Hypervisor vendor']} guest",
            fields.get("L2 cache", "") and f"L2 {fields['L2 cache']}",
            fields.get("L3 cache", "") and f"L3 {fields['L3 cache']}",
        ]
        extra = [e for e in extra if e]
        if cpu and extra:
            cpu += " (" + ", ".join(extra) + ")"
    except OSError:
        pass
    if not cpu:
        try:
            with open("/proc/cpuinfo") as fh:
                cpu = next(
                    (ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), "?"
                )
        except OSError:
            cpu = platform.processor() or "?"
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as feats

        simd = "AVX512_SKX" if feats.get("AVX512_SKX") else "AVX2" if feats.get("AVX2") else "-"
    except ImportError:
        simd = "?"
    mem = mem_available()
    try:
        with open("/proc/meminfo") as fh:
            total = int(next(ln for ln in fh if ln.startswith("MemTotal:")).split()[1]) * 1024
    except (OSError, StopIteration):
        total = None
    commit = "?"
    try:
        root = HERE.parent
        rev = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "--no-optional-locks", "-C", str(root), "status", "--porcelain", "--", "src"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if rev:
            commit = rev + (" + uncommitted changes in src/" if dirty else "")
    except OSError:
        pass
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = os.cpu_count()
    gib = 1024**3
    return [
        f"- date: {_dt.datetime.now().astimezone().isoformat(timespec='seconds')}",
        (f"- CPU: {cpu}; {os.cpu_count()} logical cores ({affinity} usable); numpy SIMD: {simd}"),
        f"- memory: {total / gib:.1f} GiB total, {mem / gib:.1f} GiB available at start"
        if total and mem
        else "- memory: ?",
        f"- load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"- OS: {platform.platform()}",
        (
            f"- Python {platform.python_version()} ({platform.python_implementation()}), "
            f"numpy {np.__version__}, numba {numba.__version__}, scikit-learn {sklearn.__version__}, "
            f"venncal {venncal.__version__} (git {commit})"
        ),
        f"- venn-abers {_version('venn-abers')}, MAPIE {_version('mapie')}",
    ]


# --------------------------------------------------------------------------
# Main


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Speed benchmark of venncal's score-level IVAP (VennAbersCalibrator).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument(
        "--sizes",
        nargs="+",
        default=[",".join(map(str, DEFAULT_SIZES))],
        help="calibration sizes k (m = k test scores), e.g. --sizes 1e3 1e4 or 1e3,1e6",
    )
    p.add_argument(
        "--ties", action="store_true", help="also run on tied data: scores rounded to 3 decimals"
    )
    p.add_argument(
        "--reference-max",
        type=parse_size,
        default=10**5,
        help="largest k at which venn-abers and MAPIE are run (they are slow)",
    )
    p.add_argument(
        "--no-reference", action="store_true", help="do not run venn-abers and MAPIE at all"
    )
    p.add_argument(
        "--min-time",
        type=float,
        default=1.0,
        help="seconds of samples per measurement (at least --min-repeats samples)",
    )
    p.add_argument("--min-repeats", type=int, default=3, help="minimum samples per measurement")
    p.add_argument("--seed", type=int, default=20240601)
    p.add_argument(
        "--first-call-k",
        type=parse_size,
        default=1000,
        help="data size of the first-call measurement",
    )
    p.add_argument(
        "--first-call-repeats",
        type=int,
        default=3,
        help="cold/warm subprocess pairs for the first-call cost (0 to skip)",
    )
    p.add_argument(
        "--save", action="store_true", help="write the report to benchmarks/results/ivap-<date>.md"
    )
    p.add_argument(
        "--output",
        type=Path,
        default=None,
        help="write the report to this file instead (implies --save)",
    )
    p.add_argument("--first-call-child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--probe-first", action="store_true", help=argparse.SUPPRESS)
    return p


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.first_call_child:
        first_call_child(args.first_call_k, args.seed, args.probe_first)
        return 0
    sizes = parse_sizes(args.sizes)
    argv_used = sys.argv[1:] if argv is None else list(argv)
    command = "python benchmarks/bench_ivap.py " + " ".join(argv_used)

    info = machine_info()
    log("\n".join(info))
    refs: list[Reference] = []
    if not args.no_reference:
        refs = [load_venn_abers(), load_mapie()]
        for ref in refs:
            log(f"{ref.name}: {ref.status}" + (f" via {ref.entry}" if ref.entry else ""))

    datasets = [("continuous", False)] + ([("ties", True)] if args.ties else [])
    results: dict[str, dict] = {}
    agreement: dict[str, list] = {}
    distinct: dict[str, dict[int, int]] = {}
    skipped: list[str] = []
    for name, ties in datasets:
        rows: dict[int, object] = {}
        agreement[name] = []
        distinct[name] = {}
        for k in sizes:
            avail = mem_available()
            need = BYTES_PER_SCORE * k
            if avail is not None and need > 0.8 * avail:
                msg = (
                    f"skipped (needs ~{need / 1024**3:.1f} GiB, "
                    f"{avail / 1024**3:.1f} GiB available)"
                )
                rows[k] = msg
                skipped.append(f"{name} k={fmt_k(k)}: {msg}")
                log(f"{name} k={fmt_k(k)}: {msg}")
                continue
            log(f"{name} data, k={fmt_k(k)}")
            row, agr, kd = bench_size(k, args, refs, ties)
            rows[k] = row
            agreement[name].extend(agr)
            distinct[name][k] = kd
            gc.collect()
        results[name] = rows

    first = None
    if args.first_call_repeats > 0:
        first = first_call_cost(args)

    out = [
        "# venncal IVAP speed benchmark",
        "",
        *info,
        f"- load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"- command: `{command.strip()}`",
        (
            f"- timing: warm-up call, then samples until {args.min_time:g} s and at least "
            f"{args.min_repeats} samples (calls under 2 ms looped inside a sample); "
            "time.perf_counter; per-call times; m = k fresh test scores"
        ),
        "",
    ]
    for name, _ in datasets:
        rows = results[name]
        title = (
            "Continuous scores: s ~ U[0, 1] (distinct), y ~ Bernoulli(s)"
            if name == "continuous"
            else "Tied scores: s ~ U[0, 1] rounded to 3 decimals, y ~ Bernoulli(s)"
        )
        out += [
            f"## {title}",
            "",
            "Distinct calibration scores k': "
            + ", ".join(f"{fmt_k(k)}: {v:,}" for k, v in distinct[name].items()),
            "",
            "### Best of N (minimum per call)",
            "",
            results_table(rows, "best"),
            "",
            "### Median per call (n = number of samples)",
            "",
            results_table(rows, "median"),
            "",
        ]
        if name == "continuous":
            out += [
                "### Targets (goals of the project, measured, not tests)",
                "",
                *targets(rows),
                "",
            ]
        out += [
            f"### Agreement with the reference packages ({name} data)",
            "",
            agreement_table(agreement[name]),
            "",
        ]
    if first is not None:
        out += [
            (
                "## First-call cost (fresh interpreters; NUMBA_CACHE_DIR = a new temporary "
                "directory for the cold run, the same one for the warm run)"
            ),
            "",
            first_call_table(first, args.first_call_k),
            "",
        ]
    notes = [n for ref in refs for n in ref.notes]
    notes += [f"{ref.name}: {ref.status}" for ref in refs if ref.status != "ok"]
    if refs:
        notes.append(
            f"venn-abers and MAPIE are run only for k <= {fmt_k(args.reference_max)} "
            "(--reference-max): their fit is roughly quadratic in the number of "
            "distinct scores (a minute at 1e6)."
        )
    notes.append(
        "'venn-abers / venncal' compares the reference's fit + predict_proba with "
        "venncal fit + predict_proba (sum of the two measurements)."
    )
    notes += skipped
    out += ["## Notes", "", *[f"- {n}" for n in notes], ""]
    report = "\n".join(out)
    print(report)

    if args.save or args.output:
        path = args.output or HERE / "results" / f"ivap-{_dt.date.today().isoformat()}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(report)
        tmp.replace(path)
        log(f"saved {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
