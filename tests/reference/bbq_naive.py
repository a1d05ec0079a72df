"""Slow, literal reference for BBQ (Naeini, Cooper & Hauskrecht, AAAI 2015).

Plain loops over the raw rows, following the definitions stated in the
docstring of ``venncal.baselines.bbq.BBQCalibrator``:

* Sort the rows (score, label, weight) by score; rows of weight 0 are left
  out.  Rows with equal scores form one group, which is never split.
* Bin counts ``B``: ``round_half_up(cbrt(N) / C)`` to
  ``round_half_up(C * cbrt(N))`` (or the given range), clipped to
  ``[1, max(1, min(floor(N), number of groups))]``, ``N`` the total weight.
* For each ``B``: a group whose rows occupy the cumulative-weight interval
  ``(before, before + w]`` goes to bin ``#{b in 1..B-1 : b N / B <= before + w/2}``
  (computed with exact fractions).  Empty bins are dropped; a partition seen
  for a smaller ``B`` is skipped.
* Edge between adjacent bins: ``0.5*lo + 0.5*hi`` (``lo`` the last score of
  the lower bin, ``hi`` the first of the upper), or ``lo`` if that rounds
  to ``hi``.  A test score on an edge belongs to the lower bin.
* Prior rate ``p_b``: midpoint of the bin's interval, the outer bins
  extended to 0 and 1 (scores in [0, 1]), else the base rate; clipped to
  ``[1e-6, 1 - 1e-6]``.
* Log score: sum over bins of ``lgamma(l) - lgamma(N_b + l) + lgamma(m_b + a_b)
  - lgamma(a_b) + lgamma(n_b + b_b) - lgamma(b_b)`` with ``l = N'/B``
  (``B`` the number of non-empty bins), ``a_b = l p_b``, ``b_b = l (1 - p_b)``.
  Bin estimate ``(m_b + a_b) / (N_b + a_b + b_b)``, kept inside ``[5e-324,
  1 - 2**-53]`` (an estimate that would round to 0 or 1); uniform model prior.

With ``exact=True`` the bin estimates are exact rationals rounded once, and
the log scores and model weights are computed in decimal arithmetic with 50
digits beyond the total weight's (log-gamma by Stirling's series), so that
weights near ``2**53`` or ``1e300`` are compared with the truth rather than
with ``math.lgamma`` of rounded sums.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

__all__ = ["bbq_fit", "bbq_predict"]

PRIOR_EPS = 1e-6
P_LOW, P_HIGH = 5e-324, 1.0 - 2.0**-53
_DIGITS = 50
_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494")
# B_2k / (2k (2k - 1)) for Stirling's series of log-gamma.
_STIRLING = [Fraction(1, 12), Fraction(-1, 360), Fraction(1, 1260), Fraction(-1, 1680),
             Fraction(1, 1188), Fraction(-691, 360360), Fraction(1, 156)]


def _dec(x: Fraction) -> Decimal:
    return Decimal(x.numerator) / Decimal(x.denominator)


def log_gamma(x: Fraction, digits: int = _DIGITS) -> Decimal:
    """``log Gamma(x)`` for a rational ``x > 0``, to about ``digits - 5`` significant digits."""
    with localcontext() as ctx:
        ctx.prec = digits
        shift = Decimal(0)
        while x < 40:  # Gamma(x) = Gamma(x + 1) / x
            shift += _dec(x).ln()
            x += 1
        d = _dec(x)
        out = (d - Decimal("0.5")) * d.ln() - d + (2 * _PI).ln() / 2
        power = d
        for c in _STIRLING:
            out += _dec(c) / power
            power *= d * d
        return out - shift


def _round_half_up(x):
    return math.floor(x + 0.5)


def bbq_fit(
    scores,
    y,
    sample_weight=None,
    *,
    bin_range=None,
    range_factor=10.0,
    prior_strength=2.0,
    bin_prior="auto",
    exact=False,
):
    """Return the list of models: dicts with edges, values, log_score, weight."""
    scores = [float(v) for v in scores]
    labels = [bool(v) for v in y]
    weights = [1.0] * len(scores) if sample_weight is None else [float(v) for v in sample_weight]

    rows = []
    for s, label, w in zip(scores, labels, weights, strict=True):
        if w > 0:
            rows.append((s, label, w))
    rows.sort(key=lambda r: r[0])

    # Groups of rows with equal scores.
    groups = []  # each: [score, list of (label, weight)]
    for s, label, w in rows:
        if groups and groups[-1][0] == s:
            groups[-1][1].append((label, w))
        else:
            groups.append([s, [(label, w)]])

    total = Fraction(0)
    positive = Fraction(0)
    for _, label, w in rows:
        total += Fraction(w)
        if label:
            positive += Fraction(w)
    n_total = float(total)

    cap = max(1, min(len(groups), math.floor(n_total)))
    if bin_range is None:
        lo_b = _round_half_up(math.cbrt(n_total) / range_factor)
        hi_b = _round_half_up(math.cbrt(n_total) * range_factor)
    else:
        lo_b, hi_b = bin_range
    lo_b = min(max(lo_b, 1), cap)
    hi_b = min(max(hi_b, lo_b), cap)

    in_unit = all(0.0 <= g[0] <= 1.0 for g in groups)
    use_midpoint = bin_prior == "midpoint" or (bin_prior == "auto" and in_unit)
    if use_midpoint and not in_unit:
        raise ValueError("midpoint prior needs scores in [0, 1]")

    models = []
    seen = set()
    for n_bins in range(lo_b, hi_b + 1):
        # Bin of each group.
        nominal = []
        before = Fraction(0)
        for _, members in groups:
            w_group = sum((Fraction(w) for _, w in members), Fraction(0))
            middle = before + w_group / 2
            b = 0
            for level in range(1, n_bins):
                if Fraction(level) * total / n_bins <= middle:
                    b += 1
            nominal.append(b)
            before += w_group
        # Renumber the non-empty bins 0, 1, ...
        labels_in_use = sorted(set(nominal))
        assign = tuple(labels_in_use.index(b) for b in nominal)
        if assign in seen:
            continue
        seen.add(assign)
        n_eff = len(labels_in_use)

        # Counts per bin, over the raw rows.
        pos = [Fraction(0)] * n_eff
        neg = [Fraction(0)] * n_eff
        first_score = [None] * n_eff
        last_score = [None] * n_eff
        for (score, members), b in zip(groups, assign, strict=True):
            if first_score[b] is None:
                first_score[b] = score
            last_score[b] = score
            for label, w in members:
                if label:
                    pos[b] += Fraction(w)
                else:
                    neg[b] += Fraction(w)

        edges = []
        for b in range(n_eff - 1):
            lo, hi = last_score[b], first_score[b + 1]
            mid = 0.5 * lo + 0.5 * hi
            edges.append(mid if mid < hi else lo)

        strength = prior_strength / n_eff
        log_score = Decimal(0) if exact else 0.0
        values = []
        for b in range(n_eff):
            if use_midpoint:
                lower = 0.0 if b == 0 else edges[b - 1]
                upper = 1.0 if b == n_eff - 1 else edges[b]
                p = 0.5 * lower + 0.5 * upper
            else:
                p = float(positive / total)
            p = min(max(p, PRIOR_EPS), 1.0 - PRIOR_EPS)
            alpha = strength * p
            beta = strength * (1.0 - p)
            if exact:
                fa, fb = Fraction(alpha), Fraction(beta)
                digits = _DIGITS + len(str(int(total)))
                with localcontext() as ctx:
                    ctx.prec = digits
                    log_score += (
                        log_gamma(fa + fb, digits) - log_gamma(pos[b] + neg[b] + fa + fb, digits)
                        + log_gamma(pos[b] + fa, digits) - log_gamma(fa, digits)
                        + log_gamma(neg[b] + fb, digits) - log_gamma(fb, digits)
                    )
                value = float((pos[b] + fa) / (pos[b] + neg[b] + fa + fb))
                values.append(min(max(value, P_LOW), P_HIGH))
                continue
            m, n = float(pos[b]), float(neg[b])
            size = float(pos[b] + neg[b])
            log_score += (
                math.lgamma(strength)
                - math.lgamma(size + strength)
                + math.lgamma(m + alpha)
                - math.lgamma(alpha)
                + math.lgamma(n + beta)
                - math.lgamma(beta)
            )
            values.append(min(max((m + alpha) / (size + alpha + beta), P_LOW), P_HIGH))
        models.append(
            {
                "n_bins": n_eff,
                "edges": edges,
                "values": values,
                "log_score": log_score,
                "nominal_bins": n_bins,
            }
        )

    best = max(m["log_score"] for m in models)
    if exact:
        with localcontext() as ctx:
            ctx.prec = _DIGITS + len(str(int(total)))
            norm = sum((m["log_score"] - best).exp() for m in models)
            for m in models:
                m["weight"] = float((m["log_score"] - best).exp() / norm)
                m["log_score"] = float(m["log_score"])
        return models
    norm = sum(math.exp(m["log_score"] - best) for m in models)
    for m in models:
        m["weight"] = math.exp(m["log_score"] - best) / norm
    return models


def bbq_predict(models, test_scores):
    """Model-averaged probability for each test score (a list)."""
    out = []
    for q in test_scores:
        q = float(q)
        p = 0.0
        for m in models:
            b = 0
            for e in m["edges"]:
                if e < q:
                    b += 1
            p += m["weight"] * m["values"][b]
        out.append(p)
    return out


def step_average_literal(n_positions, bin_start, offsets, values, model_weights):
    """Twin of ``step_average``: at each position, find each model's bin by its definition.

    Model ``m``'s bin at position ``j`` is its last bin whose first position
    is ``<= j``; the value is the sum over models of weight times that bin's
    value, in exact rationals, rounded once.
    """
    from fractions import Fraction

    out = []
    for j in range(n_positions):
        total = Fraction(0)
        for m in range(len(offsets) - 1):
            bins = [b for b in range(offsets[m], offsets[m + 1]) if bin_start[b] <= j]
            total += Fraction(float(model_weights[m])) * Fraction(float(values[bins[-1]]))
        out.append(float(total))
    return out
