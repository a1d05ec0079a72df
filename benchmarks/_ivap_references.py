"""The other score-level IVAPs that ``bench_ivap.py`` times and checks venncal against.

The ``venn-abers`` PyPI package and MAPIE's score-level Venn-Abers (optional packages):
how to load and call them (:class:`Reference`), the agreement of their ``(p0, p1)``
with venncal's on fresh and on edge queries (:func:`check_agreement`), and the table
of it (:func:`agreement_table`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from _harness import fmt_k, version

AGREEMENT_TOL = 1e-12


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
    ref = Reference("venn-abers", "ok", version=version("venn-abers"))
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
    ref = Reference("MAPIE", "ok", version=version("mapie"))
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
