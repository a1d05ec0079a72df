"""Error-free transformations: the one double-double helper of venncal.

``two_sum(a, b)`` returns ``(s, e)`` with ``s = fl(a + b)`` and ``s + e == a + b``
exactly (Knuth's TwoSum: six flops, no branch, valid in round-to-nearest
whatever the order of magnitude of ``a`` and ``b``, barring overflow).  A
difference ``a - b`` is ``two_sum(a, -b)``: negation is exact and rounding is
symmetric, so this is also the exact error-free difference.

``two_prod_jit(a, b)`` returns ``(p, e)`` with ``p = fl(a * b)`` and
``p + e == a * b`` exactly (Dekker's product with Veltkamp's split: valid
while ``|a|, |b| < 2**995`` and the error term does not underflow, i.e.
``|a * b| >= 2**-969``; the callers stay far inside both limits).

``dd_add_jit(hi, lo, x)`` adds a double to a normalised double-double number
``hi + lo`` (``|lo| <= ulp(hi) / 2``), exactly while the numbers fit in 105 bits;
``distill_jit`` and ``expansion_sign_jit`` sum a vector of doubles to double-
double accuracy and decide the sign of its exact sum; ``dd_div_jit`` divides
double-double numbers.  Together they give exact geometric predicates on
double-double coordinates (the inductive Venn-Abers kernel,
:mod:`venncal._kernels.ivap`).

The functions are plain arithmetic, so the same source serves two callers:
``two_sum`` itself works elementwise on numpy arrays (the vectorised code of
:mod:`venncal.baselines.isotonic` and :mod:`venncal.summary`), and the
``*_jit`` versions are compiled for the kernels.
"""

from __future__ import annotations

from ._jit import jit, jit_inline

__all__ = [
    "dd_add_jit",
    "dd_div_jit",
    "distill_jit",
    "expansion_sign_jit",
    "two_prod_jit",
    "two_sum",
    "two_sum_jit",
]

_SPLITTER = 134217729.0  # 2**27 + 1 (Veltkamp)


def two_sum(a, b):
    """Return ``(s, e)``: ``s = fl(a + b)`` and ``s + e == a + b`` exactly.

    Works on floats and, elementwise, on float64 arrays.

    Examples
    --------
    >>> two_sum(1.0, 2.0**-60)
    (1.0, 8.673617379884035e-19)
    """
    s = a + b
    bb = s - a  # the part of b that made it into s
    return s, (a - (s - bb)) + (b - bb)


two_sum_jit = jit(two_sum)
_two_sum = jit_inline(two_sum)  # the same, inlined into the helpers below


@jit_inline
def _split(a):
    # a == hi + lo exactly, each half with at most 26 significant bits.
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


@jit_inline
def two_prod_jit(a, b):
    """Return ``(p, e)``: ``p = fl(a * b)`` and ``p + e == a * b`` exactly (Dekker)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@jit_inline
def dd_add_jit(hi, lo, x):
    """Return the normalised double-double ``(hi', lo')`` of ``hi + lo + x``.

    ``hi + lo`` must be normalised (``|lo| <= ulp(hi) / 2``).  The sum is
    exact when ``hi``, ``lo`` and ``x`` are multiples of some ``2**q`` and
    ``|hi + lo|``, ``|x|`` and the sum are below ``2**(q + 105)``: a number
    of at most 106 significant bits always fits in two doubles, and each
    step below is then an error-free transformation.
    """
    s, e = _two_sum(hi, x)
    e += lo  # exact under the condition above
    h = s + e  # |e| is at most about ulp(s): a fast two-sum
    return h, e - (h - s)


@jit_inline
def distill_jit(buf, n):
    """Rewrite ``buf[:n]`` so that each entry is at most half an ulp of the next (same sum).

    Distillation: sweeps of ``two_sum`` over neighbours, each an error-free
    transformation of the vector, until a sweep changes nothing.  Then
    ``buf[n - 1] + buf[n - 2]`` is the exact sum to a relative ``2**-105``,
    and ``buf[n - 1]`` carries its sign and is 0 only when the sum is.
    """
    for _ in range(2 * n + 8):
        changed = False
        # Invariant: the exact sum of buf[:n] never changes.
        for i in range(1, n):
            s, e = _two_sum(buf[i - 1], buf[i])
            if s != buf[i] or e != buf[i - 1]:
                changed = True
            buf[i] = s
            buf[i - 1] = e
        if not changed:
            break


@jit
def expansion_sign_jit(buf, n):
    """Return the sign (-1, 0 or 1) of the exact sum of ``buf[:n]`` (which is overwritten)."""
    distill_jit(buf, n)
    top = buf[n - 1]
    if top > 0.0:
        return 1
    if top < 0.0:
        return -1
    return 0


@jit_inline
def dd_div_jit(nh, nl, dh, dl):
    """Return ``(nh + nl) / (dh + dl)`` to a relative ``2**-100`` or so, then rounded."""
    q = nh / dh
    p, e = two_prod_jit(q, dh)
    r = (((nh - p) - e) + nl) - q * dl
    return q + r / dh
