"""The dense tree packed into one float64 array, for single calls from Python.

A call from Python into a compiled kernel pays for every array it passes
(numba unboxes each: about 60 ns an array here), and the dense tree's single
calls (:func:`venncal._kernels.quantized_dense.dense_calls`) took fifteen
arguments.  Here the tree's arrays (``E, cnt, FS, D, NA, NB``), the queue of
inserts, the split fractions ``Q, P`` and the levels are *views* of one
preallocated array ``buf``: the batch kernels take the views as before (the
same arrays, the same arithmetic), and :func:`packed_calls` takes ``buf``
and five numbers, and takes the views out of it itself
(:func:`packed_level`, what ``predict_proba_one`` calls, takes ``buf`` and
two numbers).  Inside those two kernels the views are made by
``numba.carray`` on addresses within ``buf`` (:func:`_fast_unpack`, which
checks the header and the length first), not by
slicing and reshaping, which costs about 80 ns a call (numba checks each
reshape in a helper function); ``buf`` is alive for the whole call, and
the views do not leave it.

Layout of ``buf`` (float64): a header of :data:`HEADER` numbers, ``nb``
(buckets), ``B`` (scores per bucket), ``nt`` (split points), ``K``
(levels) and ``m`` (queue length), then ``E`` (``nb B`` rows of 3),
``cnt`` (``2 nb`` int64, the same 8 bytes viewed as integers), ``FS``
(``2 nb``), ``D`` (``nb`` rows of ``nt``), ``NA`` and ``NB`` (``nb`` each),
the queue (4 rows of ``m``), ``Q`` and ``P`` (``nt`` each) and the levels
(``K``).
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import types
from numba.core.extending import intrinsic

from ._jit import jit, jit_inline
from .quantized_dense import dense_calls

__all__ = ["HEADER", "packed_calls", "packed_level", "packed_size", "packed_views"]

#: Numbers before the first array: nb, B, nt, K, m (and room to spare).
HEADER = 8


def packed_size(nb: int, B: int, nt: int, K: int, m: int) -> int:
    """The length of ``buf`` for these sizes (see the module's documentation)."""
    return HEADER + nb * B * 3 + 2 * nb + 2 * nb + nb * nt + 2 * nb + 4 * m + 2 * nt + K


@jit_inline
def _unpack(buf):
    """The views of ``buf``: ``E, EK, EW, cnt, FS, D, NA, NB, queue, Q, P, levels``."""
    nb = int(buf[0])
    B = int(buf[1])
    nt = int(buf[2])
    K = int(buf[3])
    m = int(buf[4])
    o = HEADER
    E = buf[o:o + nb * B * 3].reshape((nb * B, 3))
    o += nb * B * 3
    cnt = buf[o:o + 2 * nb].view(np.int64)
    o += 2 * nb
    FS = buf[o:o + 2 * nb]
    o += 2 * nb
    D = buf[o:o + nb * nt].reshape((nb, nt))
    o += nb * nt
    NA = buf[o:o + nb]
    o += nb
    NB = buf[o:o + nb]
    o += nb
    queue = buf[o:o + 4 * m].reshape((4, m))
    o += 4 * m
    Q = buf[o:o + nt]
    o += nt
    P = buf[o:o + nt]
    o += nt
    levels = buf[o:o + K]
    EK = buf[0:0].view(np.int64)  # the dense tree keeps no EK, EW (empty, as in Python)
    EW = buf[0:0].reshape((0, 2))
    return E, EK, EW, cnt, FS, D, NA, NB, queue, Q, P, levels


@intrinsic
def _address(typingctx, arr, offset):
    """The address (``void *``) of element ``offset`` of the C-contiguous float64 array ``arr``."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.float64 and arr.ndim == 1
            and arr.layout == "C" and isinstance(offset, types.Integer)):
        return None
    sig = types.voidptr(arr, offset)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        return builder.bitcast(ptr, context.get_value_type(types.voidptr))

    return sig, codegen


@jit_inline
def _size(buf, i, low):
    """Header number ``i`` of ``buf``: a whole number in ``[low, len(buf)]`` (ValueError if not)."""
    x = buf[i]
    if not (low <= x <= buf.shape[0]) or x != math.floor(x):  # (NaN fails the first)
        raise ValueError("not a packed quantized tree: a size in its header is out of range")
    return x


@jit_inline
def _fast_unpack(buf, n):
    """:func:`_unpack` by ``numba.carray`` at offsets in ``buf``: the same views, made in a few ns.

    The views hold no reference to ``buf``: only for use inside a kernel
    that has ``buf`` (never returned to Python).  What places the views is
    checked (ValueError ``"not a packed quantized tree"`` if not so): each
    size in the header is a whole number no larger than ``len(buf)``, ``nb``
    a power of two, ``B >= 1``, ``K = nt + 1`` levels, a queue of ``m >= 2``,
    and ``len(buf)`` is exactly what they make, summed in float64 (exact
    below ``2**53``; a sum past it rounds to at least ``2**53``, more than
    any length, so nothing wraps); and the queue's ``n`` observations and
    its first one, ``queue[3, 0]``, are within the queue.  So no view
    reaches outside ``buf``.  The tree's counts inside it are not checked
    here (that would cost a pass over the tree each call): they are written
    only by these kernels, and a pickled stream's tree is checked when it is
    loaded (:meth:`venncal.online.QuantizedIsotonic.__setstate__`).
    """
    if buf.shape[0] < HEADER:
        raise ValueError("not a packed quantized tree: shorter than its header")
    nbf = _size(buf, 0, 1.0)
    Bf = _size(buf, 1, 1.0)
    ntf = _size(buf, 2, 0.0)
    Kf = _size(buf, 3, 1.0)
    mf = _size(buf, 4, 2.0)
    total = HEADER + nbf * Bf * 3.0 + 6.0 * nbf + nbf * ntf + 4.0 * mf + 2.0 * ntf + Kf
    nb, B, nt, K, m = int(nbf), int(Bf), int(ntf), int(Kf), int(mf)
    if total != buf.shape[0] or K != nt + 1 or nb & (nb - 1) != 0:
        raise ValueError("not a packed quantized tree: its length or sizes disagree with its header")
    first = buf[HEADER + nb * B * 3 + 6 * nb + nb * nt + 3 * m]  # queue[3, 0]
    if not (0 <= n <= m) or not (0.0 <= first <= n) or first != math.floor(first):
        raise ValueError("not a packed quantized tree: its queue's bounds are out of range")
    o = HEADER
    E = numba.carray(_address(buf, o), (nb * B, 3), np.float64)
    o += nb * B * 3
    cnt = numba.carray(_address(buf, o), 2 * nb, np.int64)
    o += 2 * nb
    FS = numba.carray(_address(buf, o), 2 * nb, np.float64)
    o += 2 * nb
    D = numba.carray(_address(buf, o), (nb, nt), np.float64)
    o += nb * nt
    NA = numba.carray(_address(buf, o), nb, np.float64)
    o += nb
    NB = numba.carray(_address(buf, o), nb, np.float64)
    o += nb
    queue = numba.carray(_address(buf, o), (4, m), np.float64)
    o += 4 * m
    Q = numba.carray(_address(buf, o), nt, np.float64)
    o += nt
    P = numba.carray(_address(buf, o), nt, np.float64)
    o += nt
    levels = numba.carray(_address(buf, o), K, np.float64)
    EK = numba.carray(_address(buf, 0), 0, np.int64)  # the dense tree keeps no EK, EW
    EW = numba.carray(_address(buf, 0), (0, 2), np.float64)
    return E, EK, EW, cnt, FS, D, NA, NB, queue, Q, P, levels


@jit
def packed_views(buf):
    """Return the views of ``buf`` (its header filled): ``E, EK, EW, cnt, FS, D, NA, NB, queue, Q, P, levels``.

    Called from Python once per allocation: the views it returns share
    ``buf``'s memory.
    """
    return _unpack(buf)


@jit
def packed_calls(buf, n, op, s, y, w):
    """:func:`venncal._kernels.quantized_dense.dense_calls` on the packed tree ``buf``.

    Inserts the queued observations ``i < n`` (from ``queue[3, 0]`` on),
    then does ``op`` (0: the level at ``s``; 1: delete weight ``w`` of
    ``(s, y)``, 1.0 if done and 0.0 if not there; 2: nothing, 0.0).  If the
    tree gets full at ``i``: ``queue[3, 0] = i``, ``queue[3, 1] = 1.0``,
    NaN returned (the caller grows the tree and calls again).  It is
    ``dense_calls`` on the views of ``buf``: the same results, bit for bit.
    """
    E, EK, EW, cnt, FS, D, NA, NB, queue, Q, P, levels = _fast_unpack(buf, n)
    return dense_calls(E, EK, EW, cnt, FS, D, NA, NB, queue, n, Q, P, levels, op, s, y, w)


@jit
def packed_level(buf, n, s):
    """``packed_calls(buf, n, 0, s, 0.0, 0.0)``: the queue inserted, then the level at ``s``.

    Three arguments instead of six (each argument passed from Python costs
    about 10 ns): what ``predict_proba_one`` calls.  It calls the compiled
    :func:`packed_calls` (a call between compiled functions costs a few ns)
    rather than inlining a second copy of ``dense_calls``, which doubled the
    cold compile of the single calls.
    """
    return packed_calls(buf, n, np.int64(0), s, 0.0, 0.0)  # (not a literal 0: one compile)
