"""Kernels of the multiclass parametric calibrators: vector, matrix and structured scaling.

Every calibrator maps a row's log-probabilities ``x`` (K finite values,
``x = z - logsumexp(z)``: see :func:`log_softmax_rows`) to ``softmax(u)``
with ``u = W x + b``.  The objective kernels add, over rows ``lo:hi`` of
positive weight ``w_i``, the weighted log loss ``w_i (logsumexp(u_i) -
u_{i,y_i})`` (natural log), its gradient and, when asked, its Hessian in
the parameters; the caller divides by the total weight and adds the
penalties.  Each row's ``u`` is shifted by its largest entry before ``exp``,
so nothing overflows.  The Hessian is accumulated in its upper triangle
only (the caller mirrors it); matrix scaling's in its distinct entries
(:func:`affine_terms`, :func:`expand_hessian`).
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import jit, jit_inline

__all__ = [
    "affine_hess_vec", "affine_softmax", "affine_terms", "expand_hessian", "log_softmax_rows",
    "vector_softmax", "vector_terms",
]


@jit
def log_softmax_rows(z, top, out):
    """``out[i] = z[i] - top[i] - log(sum_k exp(z[i, k] - top[i]))``; ``-inf`` stays ``-inf``.

    ``top[i]`` is the row's largest entry (finite), so the sum is in
    ``[1, K]``; ``z`` may be float32 (read as float64).
    """
    n, K = z.shape
    for i in range(n):
        t = top[i]
        rest = 0.0  # the sum less the top's term exp(0) = 1: log1p keeps the digits of a
        one = False  # near-certain row (log-probability -1e-12 of its top, not a rounded log(s))
        for k in range(K):
            v = np.float64(z[i, k]) - t
            if v == 0.0 and not one:
                one = True
            elif v != -np.inf:
                rest += math.exp(v)
        ls = math.log1p(rest) if one else math.log(rest)
        for k in range(K):
            out[i, k] = (np.float64(z[i, k]) - t) - ls


@jit_inline
def _softmax_loss(u, y, p):
    """Set ``p = softmax(u)`` and return ``logsumexp(u) - u[y]`` (``u`` shifted by its top)."""
    K = u.shape[0]
    top = -np.inf
    for k in range(K):
        top = max(top, u[k])
    s = 0.0
    rest = 0.0  # s less the top's term 1: log1p(rest) keeps a near-certain row's small loss
    one = False
    for k in range(K):
        e = math.exp(u[k] - top)
        p[k] = e
        s += e
        if one or e != 1.0:
            rest += e
        else:
            one = True
    for k in range(K):
        p[k] /= s
    return (math.log1p(rest) if one else math.log(s)) - (u[y] - top)


@jit
def affine_terms(x, Wt, b, codes, w, lo, hi, G, T, hess):
    """Log loss of ``softmax(W x_i + b)`` over rows ``lo:hi``; gradient into ``G``, Hessian into ``T``.

    ``Wt`` is ``W`` transposed (C-contiguous).

    Returns ``sum_i w_i (logsumexp(u_i) - u_{i,y_i})``.  ``G`` (K, K+1)
    receives ``sum_i w_i (p_i - e_{y_i}) [x_i, 1]^T`` (column K: the
    intercepts).  The Hessian in ``(W, b)`` is
    ``sum_i w_i (diag(p_i) - p_i p_i^T) (x) [x_i, 1][x_i, 1]^T``: its block
    ``(k, l)``, entry ``(a, c)`` depends only on the unordered pairs
    ``{k, l}`` and ``{a, c}``, so with ``hess`` the kernel accumulates
    ``T[kl, ac] = sum_i w_i (p_ik [k == l] - p_ik p_il) xt_ia xt_ic`` for
    ``k <= l``, ``a <= c`` (pairs numbered row by row through the upper
    triangle; ``xt = [x, 1]``): ``K (K+1)/2 x (K+1)(K+2)/2`` entries per row
    instead of ``(K (K+1))**2``.  ``G`` and ``T`` are overwritten.
    """
    K = x.shape[1]
    u = np.empty(K)
    p = np.empty(K)
    xt = np.empty(K + 1)
    sq = np.empty((K + 1) * (K + 2) // 2)
    G[:, :] = 0.0
    if hess:
        T[:, :] = 0.0
    f = 0.0
    for i in range(lo, hi):
        wi = w[i]
        if wi == 0.0:
            continue
        for a in range(K):
            xt[a] = x[i, a]
        xt[K] = 1.0
        # u = W x + b with the sum of u[k] in the order b, a = 0 .. K-1, the
        # loop over k innermost: independent sums that the compiler vectorises
        for k in range(K):
            u[k] = b[k]
        for a in range(K):
            xa = xt[a]
            for k in range(K):
                u[k] += Wt[a, k] * xa
        y = codes[i]
        f += wi * _softmax_loss(u, y, p)
        for k in range(K):
            r = wi * (p[k] - 1.0) if k == y else wi * p[k]
            for a in range(K + 1):
                G[k, a] += r * xt[a]
        if hess:
            j = 0
            for a in range(K + 1):
                for c in range(a, K + 1):
                    sq[j] = xt[a] * xt[c]
                    j += 1
            nsq = j
            j = 0
            for k in range(K):
                wp = wi * p[k]
                for l in range(k, K):
                    coef = wp * (1.0 - p[k]) if l == k else -wp * p[l]
                    for a in range(nsq):
                        T[j, a] += coef * sq[a]
                    j += 1
    return f


@jit
def affine_hess_vec(x, P, dWt, db, w, lo, hi, out):
    """The Hessian of :func:`affine_terms`'s sum times a direction, over rows ``lo:hi``.

    ``P`` holds the rows' probabilities ``p_i = softmax(W x_i + b)`` (from
    :func:`affine_softmax`), ``dWt`` the direction's ``dW`` transposed
    (C-contiguous), ``db`` its intercepts.  ``out`` (K, K+1) receives
    ``sum_i w_i (diag(p_i) - p_i p_i^T) du_i [x_i, 1]^T`` with ``du_i = dW
    x_i + db``: the Hessian-vector product in ``(W, b)`` without forming the
    Hessian (``2 K (K+1)`` multiplications per row).  ``out`` is
    overwritten; rows of weight 0 are skipped.
    """
    K = x.shape[1]
    du = np.empty(K)
    out[:, :] = 0.0
    for i in range(lo, hi):
        wi = w[i]
        if wi == 0.0:
            continue
        for k in range(K):
            du[k] = db[k]
        for a in range(K):
            xa = x[i, a]
            for k in range(K):
                du[k] += dWt[a, k] * xa
        mean = 0.0
        for k in range(K):
            mean += P[i, k] * du[k]
        for k in range(K):
            r = wi * (P[i, k] * (du[k] - mean))
            for a in range(K):
                out[k, a] += r * x[i, a]
            out[k, K] += r


def pair_index(K: int) -> np.ndarray:
    """``idx[k, l]``: the number of the unordered pair ``{k, l}`` of ``0..K-1`` in ``T``'s order."""
    idx = np.empty((K, K), dtype=np.intp)
    j = 0
    for k in range(K):
        for l in range(k, K):
            idx[k, l] = idx[l, k] = j
            j += 1
    return idx


def expand_hessian(T: np.ndarray, K: int) -> np.ndarray:
    """The full Hessian (K(K+1), K(K+1)), parameter ``(k, a)`` at ``k (K+1) + a``, from ``T``."""
    kl = pair_index(K)
    ac = pair_index(K + 1)
    k = np.repeat(np.arange(K), K + 1)
    a = np.tile(np.arange(K + 1), K)
    return T[kl[k[:, None], k[None, :]], ac[a[:, None], a[None, :]]]


@jit
def vector_terms(x, scale, b, codes, w, lo, hi, g, H, hess):
    """Log loss of ``softmax(scale * x_i + b)`` over rows ``lo:hi``; gradient, Hessian.

    Parameters are ordered ``(scale_0 .. scale_{K-1}, b_0 .. b_{K-1})``.
    Returns the weighted loss sum; ``g`` (2K) receives the gradient and,
    with ``hess``, ``H`` (2K, 2K) the upper triangle of the Hessian
    ``sum_i w_i J_i^T (diag(p_i) - p_i p_i^T) J_i`` with ``J_i = [diag(x_i), I]``.
    ``g`` and ``H`` are overwritten.
    """
    K = x.shape[1]
    m = 2 * K
    u = np.empty(K)
    p = np.empty(K)
    q = np.empty(m)
    g[:] = 0.0
    if hess:
        H[:, :] = 0.0
    f = 0.0
    for i in range(lo, hi):
        wi = w[i]
        if wi == 0.0:
            continue
        for k in range(K):
            u[k] = scale[k] * x[i, k] + b[k]
        y = codes[i]
        f += wi * _softmax_loss(u, y, p)
        for k in range(K):
            r = wi * (p[k] - 1.0) if k == y else wi * p[k]
            g[k] += r * x[i, k]
            g[K + k] += r
        if hess:
            for k in range(K):
                q[k] = p[k] * x[i, k]
                q[K + k] = p[k]
            for r in range(m):
                c = wi * q[r]
                for s2 in range(r, m):
                    H[r, s2] -= c * q[s2]
            for k in range(K):
                c = wi * p[k]
                xk = x[i, k]
                H[k, k] += c * xk * xk
                H[k, K + k] += c * xk
                H[K + k, K + k] += c
    return f


@jit
def affine_softmax(x, W, b, out):
    """``out[i] = softmax(W x[i] + b)``.

    A row whose ``W x + b`` leaves the float64 range (an entry or a partial
    sum past 1.8e308: inf, or inf - inf = NaN) is computed again divided by
    a power of two (:func:`_affine_scaled`; attack 17 of issue 22: NaN
    probabilities for accepted logits).
    """
    n, K = x.shape
    for i in range(n):
        for k in range(K):
            s = b[k]
            for a in range(K):
                s += W[k, a] * x[i, a]
            out[i, k] = s
        _softmax_row(out, i, 0 if _finite_row(out, i) else _affine_scaled(x, W, b, out, i))


@jit
def vector_softmax(x, scale, b, out):
    """``out[i] = softmax(scale * x[i] + b)`` (a row leaving the range as :func:`affine_softmax`)."""
    n, K = x.shape
    for i in range(n):
        for k in range(K):
            out[i, k] = scale[k] * x[i, k] + b[k]
        _softmax_row(out, i, 0 if _finite_row(out, i) else _vector_scaled(x, scale, b, out, i))


@jit_inline
def _finite_row(out, i):
    for k in range(out.shape[1]):
        if not abs(out[i, k]) < np.inf:
            return False
    return True


@jit_inline
def _softmax_row(out, i, e):
    """``out[i] := softmax(2**e out[i])``: each entry's difference to the largest, scaled, exponentiated."""
    K = out.shape[1]
    top = -np.inf
    for k in range(K):
        top = max(top, out[i, k])
    s = 0.0
    for k in range(K):
        d = out[i, k] - top
        t = math.exp(d if e == 0 else math.ldexp(d, e))
        out[i, k] = t
        s += t
    for k in range(K):
        out[i, k] /= s


@jit_inline
def _exponent(c, v):
    """An exponent ``E`` with ``|c v| < 2**E`` (-1100 where the product is 0)."""
    if c == 0.0 or v == 0.0:
        return -1100
    return math.frexp(c)[1] + math.frexp(v)[1]


@jit_inline
def _affine_scaled(x, W, b, out, i):
    """Write ``(W x[i] + b) / 2**e`` into ``out[i]``, nothing overflowing; return ``e``.

    ``e`` puts every product and intercept below ``2**1018`` (exponents from
    ``frexp``, exact) and their sums, of ``K + 1`` terms, inside the range.
    The scaled ``W`` and ``b`` are exact but where they fall below
    ``2**-1022``: terms negligible beside the largest, which lies near the
    range and is rounded more coarsely than they are.  So each class's
    difference to the top, scaled back, either ties it or is far below
    (a one-hot row, or shares among tied classes), as the rounding of
    entries near 1.8e308 allows.
    """
    K = out.shape[1]
    top = -1100
    for k in range(K):
        top = max(top, math.frexp(b[k])[1])
        for a in range(K):
            top = max(top, _exponent(W[k, a], x[i, a]))
    e = max(0, top + _bit_length(K + 1) - 1018)
    for k in range(K):
        s = math.ldexp(b[k], -e)
        for a in range(K):
            s += math.ldexp(W[k, a], -e) * x[i, a]
        out[i, k] = s
    return e


@jit_inline
def _vector_scaled(x, scale, b, out, i):
    """:func:`_affine_scaled` for a diagonal ``W`` (the vector ``scale``)."""
    K = out.shape[1]
    top = -1100
    for k in range(K):
        top = max(top, math.frexp(b[k])[1], _exponent(scale[k], x[i, k]))
    e = max(0, top + 2 - 1018)
    for k in range(K):
        out[i, k] = math.ldexp(scale[k], -e) * x[i, k] + math.ldexp(b[k], -e)
    return e


@jit_inline
def _bit_length(n):
    """The number of bits of the positive integer ``n``."""
    out = 0
    while n:
        n >>= 1
        out += 1
    return out
