"""Literal twins of the vector, matrix and structured scaling kernels (slow, obviously correct).

Row by row, by the definitions: the log-probabilities ``x = z - log sum exp z``
(sums with ``math.fsum``), ``u = W x + b``, ``p = softmax(u)``, the loss
``log sum exp u - u_y``, its gradient ``(p - e_y) [x, 1]^T`` and its Hessian
``(diag p - p p^T) kron [x, 1][x, 1]^T`` (numpy's ``kron``), each weighted and
added over the rows.  Also plain numpy objectives (value, gradient, Hessian,
vectorised) of the three calibrators, for fits by scipy's own solvers.
"""

from __future__ import annotations

import math

import numpy as np


def log_probabilities(z):
    """``x[i] = z[i] - log sum_k exp(z[i, k])``, row by row."""
    out = []
    for row in np.asarray(z, dtype=np.float64):
        top = max(row)
        ls = math.log(math.fsum(math.exp(v - top) for v in row))
        out.append([(v - top) - ls for v in row])
    return np.array(out)


def _softmax(u):
    top = max(u)
    e = [math.exp(v - top) for v in u]
    s = math.fsum(e)
    return np.array([v / s for v in e]), math.log(s) + top


def affine_terms(x, W, b, y, w):
    """``(sum_i w_i loss_i, G (K, K+1), H (K(K+1), K(K+1)))`` of ``softmax(W x + b)``."""
    n, K = x.shape
    losses, G, H = [], np.zeros((K, K + 1)), np.zeros((K * (K + 1), K * (K + 1)))
    for i in range(n):
        if w[i] == 0:
            continue
        xt = np.append(x[i], 1.0)
        u = [math.fsum([b[k], *(W[k, a] * x[i, a] for a in range(K))]) for k in range(K)]
        p, lse = _softmax(u)
        losses.append(w[i] * (lse - u[y[i]]))
        e = np.zeros(K)
        e[y[i]] = 1.0
        G += w[i] * np.outer(p - e, xt)
        H += w[i] * np.kron(np.diag(p) - np.outer(p, p), np.outer(xt, xt))
    return math.fsum(losses), G, H


def affine_hess_vec(x, W, b, w, dW, db):
    """The Hessian of :func:`affine_terms`'s sum times ``(dW, db)`` (K, K+1), row by row.

    Each row's Hessian ``(diag p - p p^T) kron [x, 1][x, 1]^T`` is formed
    (numpy's ``kron``) and multiplied by the direction, row-major ``vec``.
    """
    n, K = x.shape
    v = np.hstack([dW, np.asarray(db, dtype=float)[:, None]]).ravel()
    out = np.zeros(K * (K + 1))
    for i in range(n):
        if w[i] == 0:
            continue
        xt = np.append(x[i], 1.0)
        u = [math.fsum([b[k], *(W[k, a] * x[i, a] for a in range(K))]) for k in range(K)]
        p, _ = _softmax(u)
        out += w[i] * (np.kron(np.diag(p) - np.outer(p, p), np.outer(xt, xt)) @ v)
    return out.reshape(K, K + 1)


def vector_terms(x, a, b, y, w):
    """``(sum, g (2K,), H (2K, 2K))`` of ``softmax(a * x + b)``, parameters ``(a, b)``."""
    n, K = x.shape
    losses, g, H = [], np.zeros(2 * K), np.zeros((2 * K, 2 * K))
    for i in range(n):
        if w[i] == 0:
            continue
        u = [a[k] * x[i, k] + b[k] for k in range(K)]
        p, lse = _softmax(u)
        losses.append(w[i] * (lse - u[y[i]]))
        e = np.zeros(K)
        e[y[i]] = 1.0
        J = np.hstack([np.diag(x[i]), np.eye(K)])
        g += w[i] * J.T @ (p - e)
        H += w[i] * J.T @ (np.diag(p) - np.outer(p, p)) @ J
    return math.fsum(losses), g, H


def mean_log_loss(x, y, w, W, b):
    """Vectorised: the weighted mean log loss of ``softmax(W x + b)``, its gradient and Hessian."""
    n, K = x.shape
    xt = np.hstack([x, np.ones((n, 1))])
    u = xt @ np.hstack([W, b[:, None]]).T
    top = u.max(axis=1, keepdims=True)
    lse = top[:, 0] + np.log(np.exp(u - top).sum(axis=1))
    p = np.exp(u - lse[:, None])
    wn = w / w.sum()
    f = float(wn @ (lse - u[np.arange(n), y]))
    r = p.copy()
    r[np.arange(n), y] -= 1.0
    G = (wn[:, None] * r).T @ xt
    A = np.einsum("i,ik,kl->ikl", wn, p, np.eye(K)) - np.einsum("i,ik,il->ikl", wn, p, p)
    H = np.einsum("ikl,ia,ic->kalc", A, xt, xt).reshape(K * (K + 1), K * (K + 1))
    return f, G.ravel(), H


def matrix_objective(x, y, w, l2_off, l2_b, free):
    """``theta -> (f, g, H)`` of matrix scaling (ODIR) over the free entries of ``[W | b]``."""
    K = x.shape[1]
    off = np.ones((K, K + 1))
    off[np.arange(K), np.arange(K)] = 0.0
    off[:, K] = 0.0
    pen = 2.0 * l2_off / (K * (K - 1)) * off.ravel()
    pen += 2.0 * l2_b / K * np.tile(np.eye(K + 1)[K], K)

    def fun(theta):
        full = np.zeros(K * (K + 1))
        full[free] = theta
        M = full.reshape(K, K + 1)
        f, g, H = mean_log_loss(x, y, w, M[:, :K], M[:, K])
        f += 0.5 * float(pen @ (full * full))
        return f, (g + pen * full)[free], (H + np.diag(pen))[np.ix_(free, free)]

    return fun


def structured_objective(x, y, w, l2_d, l2_off, l2_b):
    """``theta = (t, D, b) -> (f, g, H)`` of structured scaling, ``W = t I + D``."""
    K = x.shape[1]
    # M maps theta to [W | b] row-major: a plain linear map.
    M = np.zeros((K * (K + 1), 1 + K * K + K))
    for k in range(K):
        M[k * (K + 1) + k, 0] = 1.0
        for a in range(K):
            M[k * (K + 1) + a, 1 + k * K + a] = 1.0
        M[k * (K + 1) + K, 1 + K * K + k] = 1.0
    dpen = np.full((K, K), 2.0 * l2_off / (K * (K - 1)))
    dpen[np.arange(K), np.arange(K)] = 2.0 * l2_d / K
    pen = np.concatenate([[0.0], dpen.ravel(), np.full(K, 2.0 * l2_b / K)])

    def fun(theta):
        full = (M @ theta).reshape(K, K + 1)
        f, g, H = mean_log_loss(x, y, w, full[:, :K], full[:, K])
        return (f + 0.5 * float(pen @ (theta * theta)), M.T @ g + pen * theta,
                M.T @ H @ M + np.diag(pen))

    return fun


def vector_objective(x, y, w):
    """``theta = (a, b_0 .. b_{K-2}) -> (f, g, H)`` of vector scaling (``b_{K-1} = 0``)."""
    K = x.shape[1]
    M = np.zeros((K * (K + 1), 2 * K - 1))
    for k in range(K):
        M[k * (K + 1) + k, k] = 1.0
        if k < K - 1:
            M[k * (K + 1) + K, K + k] = 1.0

    def fun(theta):
        full = (M @ theta).reshape(K, K + 1)
        f, g, H = mean_log_loss(x, y, w, full[:, :K], full[:, K])
        return f, M.T @ g, M.T @ H @ M

    return fun
