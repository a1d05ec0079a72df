"""Inductive Venn-Abers tables F0, F1 in O(k') (their O(log k') lookup: :mod:`.ivap_lookup`).

Notation (Vovk, Petej & Fedorova 2015, section 2): the calibration summary
has distinct scores ``s'_1 < ... < s'_k'`` with weights ``w_j > 0`` and
positive weights ``a_j``.  ``F1[i]`` is the value at ``s'_i`` of the isotonic
regression fitted to the calibration data plus one test observation
``(s'_i, 1)`` of weight 1, and ``F0[i]`` the same with ``(s'_i, 0)``.  A test
score strictly between ``s'_i`` and ``s'_{i+1}`` gets ``(p0, p1) = (F0[i],
F1[i+1])``; below every calibration score ``p0 = 0``, above every one ``p1 = 1``.

``F1`` is computed by the paper's Algorithms 1 and 2 (a Graham scan for the
greatest convex minorant, then a sweep that moves the test observation from
the far left to the right past one calibration score at a time).  ``F0``
follows from ``F1`` by the symmetry ``F0(s, w, a) = 1 - F1(-s, w, w - a)``.
Weights need not be integers; the test observation always weighs 1 (the
weights are frequency weights, in units of observations).

The negative weight of a score is ``w - a``, or, when the caller gives it,
``b``: each class's own sum, as a :class:`~venncal.ScoreSummary` keeps it
(``w`` is then the rounded ``a + b``, and ``w - a`` loses a light class
tied with a heavy one: ``4e20 + 1`` rounds to ``4e20``).

**Exactness.**  Every decision of the scan (does a corner stay on the
minorant?) is the sign of a cross product of coordinate differences, and it
is taken exactly, in one of three ways:

- *plain*: whole-number weights whose total (plus the test observation) is
  below ``2**52``.  Coordinates are exact doubles; a cross product is taken
  from the rounded products when they are far enough apart, else from the
  exact products (Dekker's ``two_prod``).  Each entry is the correctly
  rounded ratio of two exact integers.
- *double-double*: any other weights whose cumulative sums fit exactly in
  two doubles (certified as they are formed: a sum that does not is
  detected).  Cross products are decided by a floating-point filter with a
  rigorous error bound, and exactly (distillation of the 64 products of the
  coordinates' parts) when the filter cannot tell.  The corners are then
  exactly those of the definition; each entry is the ratio of two accurately
  rounded sums, within 3 ulps of the exact value, and the tables are then
  made monotone and ordered (``F0 <= F1``) by moving entries by those ulps,
  so the proven properties hold exactly.
- *exact*: otherwise (weights spanning more than about ``2**104``, such as
  1e-300 beside 1e300, whole numbers near ``2**1000``, totals beyond the
  float64 range).  The same algorithm runs in Python on exact integers (the
  weights scaled by a power of two) and each entry is the correctly rounded
  ratio.  This costs about a microsecond or more per score instead of a few
  nanoseconds, and is used only for such weights.
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline
from .dd import dd_add_jit, dd_div_jit, distill_jit, expansion_sign_jit, two_prod_jit
from .dd import two_sum_jit as _two_sum
from .ivap_exact import exact_ivap_tables, exact_ivap_tables_full
from .ivap_lookup import ivap_lookup, ivap_lookup_full

__all__ = [
    "exact_ivap_tables",
    "exact_ivap_tables_full",
    "ivap_lookup",
    "ivap_lookup_full",
    "ivap_tables",
    "ivap_tables_full",
]

# The arithmetic of a sweep (see _mode).  The double-double sweep _DD returns
# _UNDECIDED when its filter cannot decide a turn (rare: nearly collinear
# corners); then _DD_CAREFUL, which takes such turns exactly (out of line: a
# call in the hot loop slows it down even when never made) and also adds
# weights w - a that do not round to themselves, runs instead.
_SMALL, _PLAIN, _DD, _DD_CAREFUL, _EXACT = 0, 1, 2, 3, 4
_DONE, _UNDECIDED = 0, 1
# A filtered sign is trusted when the rounded result exceeds this multiple of
# the magnitudes it is computed from (four times a bound of the rounding error).
_FILTER = 2.0**-49


@jit_inline
def _sign_plain(ax, ay, bx, by):
    """A number with the exact sign of ``ax * by - ay * bx`` (doubles; no overflow or underflow)."""
    p1 = ax * by
    p2 = ay * bx
    d = p1 - p2
    if abs(d) > _FILTER * (abs(p1) + abs(p2)):
        return d
    if p1 == 0.0 and p2 == 0.0:
        return 0
    # Rounding is monotone: unequal rounded products order the exact ones;
    # equal ones are ordered by their exact errors.
    q1, e1 = two_prod_jit(ax, by)
    q2, e2 = two_prod_jit(ay, bx)
    if q1 != q2:
        return 1 if q1 > q2 else -1
    if e1 != e2:
        return 1 if e1 > e2 else -1
    return 0


@jit_inline
def _parts(ah, al, bh, bl):
    # (ah + al) - (bh + bl) as four doubles with that exact sum.
    s1, e1 = _two_sum(ah, -bh)
    s2, e2 = _two_sum(al, -bl)
    return s1, e1, s2, e2


@jit_inline
def _put_products(buf, at, x0, x1, x2, x3, y0, y1, y2, y3, sign):
    # buf[at:at + 32] = sign * (x0 + x1 + x2 + x3) * (y0 + y1 + y2 + y3), as 32 exact terms.
    n = at
    for xi in (x0, x1, x2, x3):
        for yj in (y0, y1, y2, y3):
            p, e = two_prod_jit(xi, yj)
            buf[n] = sign * p
            buf[n + 1] = sign * e
            n += 2


@jit_inline
def _approx(ah, al, bh, bl):
    # (ah + al) - (bh + bl) rounded, and a magnitude that bounds its rounding
    # error by 2 * 2**-53 times itself.
    dh = ah - bh
    dl = al - bl
    return dh + dl, abs(dh) + abs(dl)


@jit_inline
def _sign_dd(careful, ozh, ozl, oyh, oyl, azh, azl, ayh, ayl, bzh, bzl, byh, byl, buf):
    """A number with the exact sign of the cross product ``(A - O) x (B - O)`` (double-doubles).

    A floating-point filter decides unless the rounded cross product is
    within a rigorous bound of its rounding error; then the 64 exact
    products of the differences' parts are distilled.
    """
    uz, muz = _approx(azh, azl, ozh, ozl)
    uy, muy = _approx(ayh, ayl, oyh, oyl)
    vz, mvz = _approx(bzh, bzl, ozh, ozl)
    vy, mvy = _approx(byh, byl, oyh, oyl)
    d = uz * vy - uy * vz
    bound = _FILTER * (muz * mvy + muy * mvz)
    if abs(d) > bound:  # the common case, so a well predicted branch
        return d
    if bound == 0.0:
        return 0.0  # each product has an exactly zero factor
    if not careful:
        return np.nan  # undecided
    return _sign_exact(ozh, ozl, oyh, oyl, azh, azl, ayh, ayl, bzh, bzl, byh, byl, buf)


@jit
def _sign_exact(ozh, ozl, oyh, oyl, azh, azl, ayh, ayl, bzh, bzl, byh, byl, buf):
    # The filter's undecided case, out of line (it is rare): the 64 exact
    # products of the differences' parts, distilled.
    u0, u1, u2, u3 = _parts(azh, azl, ozh, ozl)
    v0, v1, v2, v3 = _parts(ayh, ayl, oyh, oyl)
    r0, r1, r2, r3 = _parts(bzh, bzl, ozh, ozl)
    t0, t1, t2, t3 = _parts(byh, byl, oyh, oyl)
    _put_products(buf, 0, u0, u1, u2, u3, t0, t1, t2, t3, 1.0)
    _put_products(buf, 32, v0, v1, v2, v3, r0, r1, r2, r3, -1.0)
    return expansion_sign_jit(buf, 64)


@jit_inline
def _sign(mode, ozh, ozl, oyh, oyl, azh, azl, ayh, ayl, bzh, bzl, byh, byl, buf):
    # > 0 iff O, A, B make a left turn.
    if mode == _SMALL:  # integers below 2**26: every product is exact
        return (azh - ozh) * (byh - oyh) - (ayh - oyh) * (bzh - ozh)
    if mode == _PLAIN:
        return _sign_plain(azh - ozh, ayh - oyh, bzh - ozh, byh - oyh)
    return _sign_dd(mode == _DD_CAREFUL, ozh, ozl, oyh, oyl, azh, azl, ayh, ayl, bzh, bzl, byh, byl,
                    buf)


@jit_inline
def _value(mode, flip, want, yah, yal, ybh, ybl, zah, zal, zbh, zbl, buf):
    """The slope from corner B to corner A and, when ``want``, 1 minus it.

    With ``dz`` and ``dy`` the negative and positive weight between the
    corners the slope is ``dy / (dz + dy)`` (a weighted mean of labels, in
    [0, 1]) and 1 minus it ``dz / (dz + dy)``.  Returns ``(v, c)``: unflipped
    ``v`` is the slope and ``c = dz / (dz + dy)`` 1 minus it; flipped, ``v``
    is 1 minus the slope and ``c = dy / (dz + dy)`` the slope itself (``c``
    is 0, not computed, unless ``want``).  Each is its own quotient, so that
    both keep full relative precision (``1 - v`` computed from a rounded
    ``v`` near 1 would not).  The plain modes divide two exact integers (one
    rounding); double-double mode divides the double-double values of the
    exact sums (to about 2**-100, then rounded once).
    """
    if mode < _DD:
        dz = zah - zbh
        dy = yah - ybh
        if flip:
            return dz / (dz + dy), dy / (dz + dy)
        if want:
            return dy / (dz + dy), dz / (dz + dy)
        return dy / (dz + dy), 0.0
    return _value_dd(flip, want, yah, yal, ybh, ybl, zah, zal, zbh, zbl, buf)


@jit
def _value_dd(flip, want, yah, yal, ybh, ybl, zah, zal, zbh, zbl, buf):
    # _value in the double-double modes: a compiled call, typed once rather
    # than once per inlined copy (its divisions and distillations dwarf a call).
    s1, e1 = _two_sum(zah, -zbh)
    s2, e2 = _two_sum(zal, -zbl)
    u1, f1 = _two_sum(yah, -ybh)
    u2, f2 = _two_sum(yal, -ybl)
    buf[0] = s1
    buf[1] = e1
    buf[2] = s2
    buf[3] = e2
    buf[4] = u1
    buf[5] = f1
    buf[6] = u2
    buf[7] = f2
    distill_jit(buf, 8)
    dh = buf[7]
    dl = buf[6]
    buf[0] = u1
    buf[1] = f1
    buf[2] = u2
    buf[3] = f2
    distill_jit(buf, 4)
    slope = min(max(dd_div_jit(buf[3], buf[2], dh, dl), 0.0), 1.0)
    if not (flip or want):
        return slope, 0.0
    buf[0] = s1
    buf[1] = e1
    buf[2] = s2
    buf[3] = e2
    distill_jit(buf, 4)
    other = min(max(dd_div_jit(buf[3], buf[2], dh, dl), 0.0), 1.0)
    if flip:
        return other, slope
    return slope, other


@jit_inline
def _step(mode, flip, w, a, b, own, zh, zl, yh, yl):
    """Add block ``(w, a)`` to the cumulative negative and positive weights ``(z, y)``.

    With ``own``, the block's negative weight is ``b`` (its class's own sum),
    not ``w - a`` (which loses a light class tied with a heavy one: ``w``
    is then the rounded sum of the two).  Flipped, the roles of the labels
    swap.  Exact in every mode (see :func:`_mode`).
    """
    if own:
        if mode < _DD:
            if flip:
                return zh + a, 0.0, yh + b, 0.0
            return zh + b, 0.0, yh + a, 0.0
        if flip:
            zh, zl = dd_add_jit(zh, zl, a)
            yh, yl = dd_add_jit(yh, yl, b)
        else:
            yh, yl = dd_add_jit(yh, yl, a)
            zh, zl = dd_add_jit(zh, zl, b)
        return zh, zl, yh, yl
    if mode < _DD:
        if flip:
            return zh + a, 0.0, yh + (w - a), 0.0
        return zh + (w - a), 0.0, yh + a, 0.0
    if mode == _DD:
        return _step_dd(flip, w, a, zh, zl, yh, yl)
    return _step_dd_careful(flip, w, a, zh, zl, yh, yl)


@jit
def _step_dd(flip, w, a, zh, zl, yh, yl):
    # _step without ``own`` in double-double mode, where w - a is exact (a
    # compiled call: typed once, not once per inlined copy).
    if flip:
        zh, zl = dd_add_jit(zh, zl, a)
        yh, yl = dd_add_jit(yh, yl, w - a)
    else:
        yh, yl = dd_add_jit(yh, yl, a)
        zh, zl = dd_add_jit(zh, zl, w - a)
    return zh, zl, yh, yl


@jit
def _step_dd_careful(flip, w, a, zh, zl, yh, yl):
    # _step without ``own`` in careful double-double mode: w, then -a (w - a may round).
    if flip:
        zh, zl = dd_add_jit(zh, zl, a)
        yh, yl = dd_add_jit(yh, yl, w)
        yh, yl = dd_add_jit(yh, yl, -a)
    else:
        yh, yl = dd_add_jit(yh, yl, a)
        zh, zl = dd_add_jit(zh, zl, w)
        zh, zl = dd_add_jit(zh, zl, -a)
    return zh, zl, yh, yl


@jit_inline
def _sweep(w, a, b, flip, mode, out, comp, zh, zl, yh, yl, buf):
    """Vovk, Petej & Fedorova 2015, Algorithms 1-2, on the blocks taken in order or flipped.

    ``b`` holds each block's negative weight (length k), or has length 0:
    then the negative weight is ``w - a``.

    With ``flip=False`` this writes ``F1`` into ``out`` and, if ``comp``
    has length k (not 0), ``1 - F1`` with its own rounding into ``comp``.
    With ``flip=True`` it runs on the mirrored data (blocks in reverse order,
    labels swapped) and writes ``1 - value`` back in the original order,
    which is ``F0`` by the symmetry ``F0(s, w, a) = 1 - F1(-s, w, w - a)``,
    and ``value`` itself, ``1 - F0`` with its own rounding, into ``comp``
    (which must then have length k).

    The paper's cumulative sum diagram has points ``(X, Y)``: cumulative
    weight and positive weight.  Here the points are ``(Z, Y) = (X - Y, Y)``,
    cumulative negative and positive weight: a shear of determinant 1, so
    every cross product, hence every turn, is the same, and a run of blocks
    of one label has an exactly zero coordinate difference (so its turns are
    decided without rounding).  ``zh, zl, yh, yl`` are scratch arrays of
    length k + 2 holding a stack of points (high and low parts), ``buf`` 64
    doubles for the exact predicates.  Outside double-double mode the low
    parts are all zero.  Returns False if (double-double mode) some
    coordinate did not fit exactly in two doubles: ``out`` is then
    meaningless.
    """
    k = w.shape[0]
    want = flip or comp.shape[0] == k
    own = b.shape[0] == k and k > 0
    # Algorithm 1: corners of the greatest convex minorant of the cumulative
    # sum diagram with the test observation (1, 1) in front, i.e. of the
    # points (X, Y) = (-1, -1), P_0 = (0, 0), P_1, ..., P_k, the cumulative
    # weight and positive weight of the first j blocks; in (Z, Y), (0, -1),
    # (0, 0), ...
    zh[0] = 0.0
    yh[0] = -1.0
    zh[1] = 0.0
    yh[1] = 0.0
    zl[0] = zl[1] = yl[0] = yl[1] = 0.0
    h = 2
    Zh = Zl = Yh = Yl = 0.0
    for j in range(k):
        jj = k - 1 - j if flip else j
        Zh, Zl, Yh, Yl = _step(mode, flip, w[jj], a[jj], b[jj] if own else 0.0, own,
                               Zh, Zl, Yh, Yl)
        while h > 1:
            turn = _sign(
                mode,
                zh[h - 2], zl[h - 2], yh[h - 2], yl[h - 2],
                zh[h - 1], zl[h - 1], yh[h - 1], yl[h - 1],
                Zh, Zl, Yh, Yl, buf,
            )
            if turn > 0:
                break
            if turn != turn:
                return _UNDECIDED
            h -= 1
        zh[h] = Zh
        yh[h] = Yh
        zl[h] = Zl
        yl[h] = Yl
        h += 1

    # Algorithm 2.  Reverse the corners into a stack whose top (index t - 1)
    # is the active corner; below it lie the corners of the current minorant
    # to the right of the active interval.  Before iteration i the test block
    # sits just before block i: the points to its left are shifted by the
    # test observation, (Z_j, Y_j - 1), j < i, those to its right are (Z_j,
    # Y_j), j >= i.
    for j in range(h // 2):
        r = h - 1 - j
        zh[j], zh[r] = zh[r], zh[j]
        yh[j], yh[r] = yh[r], yh[j]
        zl[j], zl[r] = zl[r], zl[j]
        yl[j], yl[r] = yl[r], yl[j]
    t = h
    val, cval = _value(mode, flip, want, yh[t - 2], yl[t - 2], yh[t - 1], yl[t - 1],
                       zh[t - 2], zl[t - 2], zh[t - 1], zl[t - 1], buf)
    Zh = Zl = Yh = Yl = 0.0
    for i in range(k):
        ii = k - 1 - i if flip else i
        # The minorant's slope over the active (test) interval.
        out[ii] = val
        if want:
            comp[ii] = cval
        # Swap the test block and block i; the new corner candidate q is the
        # left end of the test block, (Z_{i+1}, Y_{i+1} - 1).
        Zh, Zl, Yh, Yl = _step(mode, flip, w[ii], a[ii], b[ii] if own else 0.0, own,
                               Zh, Zl, Yh, Yl)
        qzh = Zh
        qzl = Zl
        if mode >= _DD:
            qyh, qyl = dd_add_jit(Yh, Yl, -1.0)
        else:
            qyh = Yh - 1.0
            qyl = 0.0
        turn = _sign(
            mode,
            zh[t - 1], zl[t - 1], yh[t - 1], yl[t - 1],
            zh[t - 2], zl[t - 2], yh[t - 2], yl[t - 2],
            qzh, qzl, qyh, qyl, buf,
        )
        if turn != turn:
            return _UNDECIDED
        if turn >= 0:
            continue  # q is on or above the minorant, which is unchanged
        t -= 1  # q is strictly below: it replaces the active corner
        while t > 1:
            turn = _sign(
                mode,
                qzh, qzl, qyh, qyl,
                zh[t - 1], zl[t - 1], yh[t - 1], yl[t - 1],
                zh[t - 2], zl[t - 2], yh[t - 2], yl[t - 2], buf,
            )
            if turn > 0:
                break
            if turn != turn:
                return _UNDECIDED
            t -= 1
        zh[t] = qzh
        yh[t] = qyh
        zl[t] = qzl
        yl[t] = qyl
        t += 1
        val, cval = _value(mode, flip, want, yh[t - 2], yl[t - 2], qyh, qyl, zh[t - 2], zl[t - 2],
                           qzh, qzl, buf)
    return _DONE


# One compiled sweep per arithmetic, so that each is optimised for its own
# (the mode is a constant once the sweep is inlined).
@jit
def _sweep_small(w, a, b, flip, out, comp, zh, zl, yh, yl, buf):
    return _sweep(w, a, b, flip, _SMALL, out, comp, zh, zl, yh, yl, buf)


@jit
def _sweep_plain(w, a, b, flip, out, comp, zh, zl, yh, yl, buf):
    return _sweep(w, a, b, flip, _PLAIN, out, comp, zh, zl, yh, yl, buf)


@jit
def _sweep_dd(w, a, b, flip, out, comp, zh, zl, yh, yl, buf):
    return _sweep(w, a, b, flip, _DD, out, comp, zh, zl, yh, yl, buf)


@jit
def _sweep_dd_careful(w, a, b, flip, out, comp, zh, zl, yh, yl, buf):
    return _sweep(w, a, b, flip, _DD_CAREFUL, out, comp, zh, zl, yh, yl, buf)


def upper_sweep_into(w, a, b, flip, mode, out, comp, zh, zl, yh, yl, buf):
    """Run :func:`_sweep` in ``mode`` (one of the compiled variants)."""
    if mode == _DD and _sweep_dd(w, a, b, flip, out, comp, zh, zl, yh, yl, buf) == _DONE:
        return
    sweep = (_sweep_small, _sweep_plain, _sweep_dd_careful, _sweep_dd_careful)[mode]
    sweep(w, a, b, flip, out, comp, zh, zl, yh, yl, buf)


@jit
def _mode(w, a, b):
    """The arithmetic that is exact for these weights: small, plain, double-double or exact.

    The sweeps add the positive weights ``a`` and the negative weights: ``b``
    when it has length k, else ``w - a``.  Plain double sums are exact when
    every weight added is an integer and the total (plus the test
    observation) stays below 2**52 (below 2**26, the cross products are
    exact as well).  Double-double sums are exact when every weight added
    (and the test observation's 1) is a multiple of ``2**q`` with ``2**(q +
    105)`` above twice the total: every partial sum then has at most 106
    significant bits.  Coordinates then lie between ``2**-104`` and
    ``2**104`` apart from 0, so no product in the predicates overflows or
    underflows.  The total is the sum of the rounded ``a + b`` (of ``w``
    without ``b``), so that ``b == w - a`` chooses as no ``b`` does; it is
    within a relative ``k * 2**-53`` of the exact total, far inside the
    margin of 2 above.
    """
    k = w.shape[0]
    own = b.shape[0] == k and k > 0
    total = 0.0
    integral = True
    for j in range(k):
        other = b[j] if own else w[j]
        if integral and (other != np.floor(other) or a[j] != np.floor(a[j])):
            integral = False
        total += a[j] + b[j] if own else w[j]
    if integral and total < 2.0**26:
        return _SMALL
    if integral and total < 2.0**52:
        return _PLAIN
    if not total < 2.0**103:  # also for an infinite or NaN total
        return _EXACT
    _, e = math.frexp(total + 1.0)  # total + 1 < 2**e
    q = e + 1 - 105
    if q > 0:
        return _EXACT
    scale = 2.0**-q
    difference_exact = True  # w - a rounds to itself (so one addition adds it)
    for j in range(k):
        os_ = (b[j] if own else w[j]) * scale
        as_ = a[j] * scale
        if os_ != np.floor(os_) or as_ != np.floor(as_):
            return _EXACT
        if difference_exact and not own:
            _, e = _two_sum(w[j], -a[j])
            difference_exact = e == 0.0
    return _DD if difference_exact else _DD_CAREFUL


@jit
def _make_ordered(F0, F1, Q0, Q1):
    """Make ``F1``, ``F0`` non-decreasing with ``F0 <= F1``, ``Q0``, ``Q1`` non-increasing (ulp moves).

    The exact tables have these properties (Vovk, Petej & Fedorova 2015, section 2); the
    double-double mode's entries are within an ulp of them, so this
    restores them exactly without moving any entry further than that.
    ``Q0 = 1 - F0`` and ``Q1 = 1 - F1`` are non-increasing because ``F0``
    and ``F1`` are non-decreasing; ``Q1 <= Q0`` because ``F0 <= F1``.
    ``Q1`` may have length 0 (not computed).
    """
    top = -np.inf
    for i in range(F1.shape[0]):
        top = max(top, F1[i])
        F1[i] = top
    top = -np.inf
    for i in range(F0.shape[0]):
        top = max(top, min(F0[i], F1[i]))
        F0[i] = top
    low = np.inf
    for i in range(Q0.shape[0]):
        low = min(low, Q0[i])
        Q0[i] = low
    low = np.inf
    for i in range(Q1.shape[0]):
        low = min(low, min(Q1[i], Q0[i]))
        Q1[i] = low


_NO_B = np.zeros(0)


def _negatives(w, b):
    """``b`` as a float64 array of ``w``'s shape, or a length-0 array for None."""
    if b is None:
        return _NO_B
    b = np.ascontiguousarray(b, dtype=np.float64)
    if b.shape != w.shape:
        raise ValueError(f"b must have the shape of w {w.shape}, not {b.shape}")
    return b


def _tables(w, a, complements, b=None, mode=None):
    """``(F0, F1, Q0, Q1)``; ``Q1`` has length 0 unless ``complements``.

    ``mode``: the arithmetic, by default :func:`_mode`'s choice (the tests
    force each one at least as careful as that to compare them).
    """
    k = w.shape[0]
    b = _negatives(w, b)
    if mode is None:
        mode = _mode(w, a, b)
    if mode == _EXACT:
        return exact_ivap_tables_full(w, a, b if b.shape[0] else None)
    F0, F1, Q0, Q1 = np.empty(k), np.empty(k), np.empty(k), np.empty(k if complements else 0)
    scratch = (np.empty(k + 2), np.empty(k + 2), np.empty(k + 2), np.empty(k + 2), np.empty(64))
    upper_sweep_into(w, a, b, True, mode, F0, Q0, *scratch)
    upper_sweep_into(w, a, b, False, mode, F1, Q1, *scratch)
    if mode >= _DD:
        _make_ordered(F0, F1, Q0, Q1)
    return F0, F1, Q0, Q1


def ivap_tables_full(w, a, b=None):
    """Return ``(F0, F1, Q0, Q1)``: the tables and ``Q0 = 1 - F0``, ``Q1 = 1 - F1``, each its own quotient.

    ``Q0[i]`` is the negative weight over the total of the active interval,
    the same quotient as ``F0[i]`` with the other numerator, and ``Q1[i]``
    likewise for ``F1[i]``: correctly rounded where the table is (within 2
    ulps in double-double mode), so they keep full relative precision where
    ``F0`` or ``F1`` rounds to 1.

    ``b``, when given, is each score's negative weight (its class's own sum):
    the tables are then those of positive weights ``a`` and negative weights
    ``b``, and ``w`` is not used beyond its shape.  Without it the negative
    weight is ``w - a``, the same bit for bit where ``b == w - a`` exactly.
    """
    return _tables(w, a, True, b)


def ivap_tables(w, a, b=None):
    """Return ``(F0, F1)`` for a calibration summary (see :func:`ivap_tables_full`)."""
    return _tables(w, a, False, b)[:2]

