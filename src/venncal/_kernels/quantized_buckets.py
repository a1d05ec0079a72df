"""The buckets of sorted scores under both trees of the unordered quantized stream.

Both trees (:mod:`.quantized_nodes`, :mod:`.quantized_dense`) keep the
distinct scores in sorted order in ``C`` buckets (a power of two) of at most
``B`` slots each: bucket ``b`` holds rows ``b * B ..`` of ``E``, ``cnt[C + b]``
of them, and ``FS[v]`` is the first score below node ``v`` of the complete
binary tree over the buckets (root 1, bucket ``b`` is leaf ``C + b``).
Buckets with room take new scores; a full bucket is spread over the
smallest enclosing window of buckets whose fill is below a density bound
(1 at the buckets, 1/2 at the root: a packed-memory array), and a tree too
full for that makes the caller double ``C``.  The window of the last ``W``
observations is a ring (:func:`ring_push`).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core.extending import intrinsic

from ._jit import jit, jit_inline


@jit_inline
def _copy_entry(dstE, dstK, dstW, d, srcE, srcK, srcW, s):
    """Copy slot ``s`` to slot ``d``: its row of ``E``, and of ``EK`` and ``EW`` unless those are empty.

    (The dense tree, :mod:`venncal._kernels.quantized_dense`, keeps 3
    columns of ``E`` and no ``EK``, ``EW``; the tree of groups 4 and both.)
    """
    for c in range(dstE.shape[1]):
        dstE[d, c] = srcE[s, c]
    for _ in range(min(dstK.shape[0], 1)):  # a loop, not a branch: see _row_at
        dstK[d] = srcK[s]
        dstW[d, 0] = srcW[s, 0]
        dstW[d, 1] = srcW[s, 1]



@intrinsic
def _prefetch(typingctx, arr, i):
    """Ask the CPU for the cache line of flat element ``i`` of the C-contiguous ``arr``.

    (``llvm.prefetch``.)

    A hint only: it reads nothing, changes nothing and cannot fault (any
    address is allowed), so results are the same with or without it.
    """
    if not (isinstance(arr, types.Array) and arr.layout == "C" and isinstance(i, types.Integer)):
        return None
    sig = types.void(arr, i)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = builder.module.declare_intrinsic(
            "llvm.prefetch", fnty=ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]))
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), i8p)
        # read, keep in all cache levels, data cache
        builder.call(fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@jit_inline
def prefetch_pair(E, cnt, b):
    """Prefetch the filled slots of bucket ``b`` and of the other bucket of its pair (``b ^ 1``).

    The dense tree reads a bucket by a binary search (each read waiting for
    the last) and then, to recompute the bottom node over the pair, both
    buckets from their last score: at n = 10^5 these are misses of the
    caches, and asking for all their lines at once lets the memory serve
    them together instead of one after another (about 0.9 µs an event
    from Python).  ``E`` has 3 columns (a line every 8 numbers).
    """
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    left = b & ~1
    for bb in (left, left + 1):
        for k in range(bb * B * 3, (bb * B + cnt[C + bb]) * 3, 8):
            _prefetch(E, k)


@jit_inline
def _find_bucket(FS, s):
    """Return the bucket where score ``s`` is or belongs.

    The last non-empty bucket starting at or before ``s`` (bucket 0 if
    none), found by the first scores of the subtrees in ``FS``.
    """
    C = FS.shape[0] // 2
    v = 1
    while v < C:
        r = 2 * v + 1
        v = r if s >= FS[r] else 2 * v
    return v - C


@jit
def _distribute(E, EK, EW, cnt, FS, b0, size, tmpE, tmpK, tmpW):
    """Spread sorted entries evenly over buckets ``b0 .. b0+size-1`` (no node built)."""
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    m = tmpE.shape[0]
    for j in range(size):
        start, stop = j * m // size, (j + 1) * m // size
        b = b0 + j
        for k in range(stop - start):
            _copy_entry(E, EK, EW, b * B + k, tmpE, tmpK, tmpW, start + k)
        cnt[C + b] = stop - start
        FS[C + b] = E[b * B, 0] if stop > start else np.inf



@jit
def _gather(E, EK, EW, cnt, b0, size, m):
    """Copy the ``m`` stored scores of buckets ``b0 .. b0+size-1``, in order (rows of E, EK, EW)."""
    C = cnt.shape[0] // 2
    B = E.shape[0] // C
    outE = np.empty((m, E.shape[1]))
    outK = np.empty(m if EK.shape[0] > 0 else 0, dtype=np.int64)
    outW = np.empty((m if EK.shape[0] > 0 else 0, 2))
    k = 0
    for b in range(b0, b0 + size):
        for i in range(b * B, b * B + cnt[C + b]):
            _copy_entry(outE, outK, outW, k, E, EK, EW, i)
            k += 1
    return outE, outK, outW


@jit
def _rebalance_window(cnt, B, b):
    """Return the subtree over which to spread full bucket ``b``: ``v << 8 | h``, or -1.

    ``v`` is its root and ``h`` its height: the lowest ancestor whose
    buckets are below a density bound that falls from 1 at the buckets to
    1/2 at the root (a packed-memory array).  -1 when the whole tree is too
    full, and must grow.
    """
    C = cnt.shape[0] // 2
    H = 0
    while (1 << H) < C:
        H += 1
    v, h = C + b, 0
    while v > 1:
        v >>= 1
        h += 1
        size = 1 << h
        limit = size * B * (1.0 - 0.5 * h / H)
        if cnt[v] + 1 <= limit and (cnt[v] + size) // size < B:
            return (v << 8) | h
    return -1


@jit
def spread_around(E, EK, EW, cnt, FS, b):
    """Spread the scores of the window around full bucket ``b`` evenly (no node built).

    Returns the window as ``v << 8 | h`` (its node and height; the caller
    builds its nodes), or -1, with nothing done, when the tree must grow.
    """
    C = cnt.shape[0] // 2
    found = _rebalance_window(cnt, E.shape[0] // C, b)
    if found >= 0:
        v, h = found >> 8, found & 0xFF
        b0 = (v << h) - C
        tmpE, tmpK, tmpW = _gather(E, EK, EW, cnt, b0, 1 << h, cnt[v])
        _distribute(E, EK, EW, cnt, FS, b0, 1 << h, tmpE, tmpK, tmpW)
    return found



@jit
def tree_entries(E, EK, EW, cnt):
    """Every stored score in order, as copies of its rows of ``E``, ``EK`` and ``EW``."""
    return _gather(E, EK, EW, cnt, np.int64(0), cnt.shape[0] // 2, cnt[1])



@jit_inline
def ring_oldest(ring, state):
    """Return the slot of the window's oldest observation if the window is full, else -1.

    ``ring`` holds the window's observations ``(score, y, weight)``;
    ``state = [head, count]``: the oldest's slot and how many there are.
    """
    return state[0] if state[1] == ring.shape[0] else -1


@jit_inline
def ring_push(ring, state, s, y, w):
    """Add an observation to the window, in place of the oldest if it is full."""
    head, count = state[0], state[1]
    if count == ring.shape[0]:
        slot = head
        state[0] = (head + 1) % ring.shape[0]
    else:
        slot = (head + count) % ring.shape[0]
        state[1] = count + 1
    ring[slot, 0], ring[slot, 1], ring[slot, 2] = s, y, w

