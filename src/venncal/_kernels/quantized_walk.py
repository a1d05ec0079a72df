"""Finding the groups of a node of the tree of groups (see :mod:`.quantized_nodes`).

An upper node keeps only how its children's lists join (``JL``, ``JR`` and
a junction group), so its ``i``-th group is found by walking down
(:func:`_row_at`), and consecutive groups by a walk with a stack of frames
(:func:`_walk_next`).
"""

from __future__ import annotations

from ._jit import jit, jit_inline


@jit_inline
def _row_at(JL, JR, KB, v, i):
    """Return the row of ``G`` that holds group ``i`` of internal node ``v``.

    An upper node's list is ``L[:jl] ++ [J] ++ R[jr:]`` (no junction group
    when ``jr = 0``), so the group is found by walking down to a bottom node
    or to the junction row of an upper node: O(height of v).  (One exit and
    a plain integer result: numba then counts no references in the loops
    that call it.)
    """
    half = JL.shape[0] // 2
    r = -1
    while v < half and r < 0:
        jl, jr = JL[v], JR[v]
        if i < jl:
            v = 2 * v
        elif jr > 0 and i == jl:
            r = half * KB + v
        else:
            i += jr - jl - (1 if jr > 0 else 0)
            v = 2 * v + 1
    if r < 0:
        r = (v - half) * KB + i
    return r


# A walk over an upper node's list, group by group, keeps a stack of frames
# ``(node, lo, hi, stage)`` in a slice of an int64 array (its first cell is
# the stack's size): the frame walks the node's groups ``lo .. hi-1`` part by
# part (left child, junction, right child), pushing a frame for a child's
# part.  Each frame is pushed and popped once, so walking m consecutive
# groups costs O(m + height), not the O(m height) of finding each anew.
_WALK = 300  # cells per walk: 1 + 4 frames per level, for trees up to 2**70 buckets
CHANGE_CELLS = 4 + 2 * _WALK  # CH: an update's change (4 cells), then two walks
_DIRECT = 4  # groups of each side of a junction found directly before walking


@jit
def _walk_start(IT, base, v, lo, hi):
    """Start a walk over groups ``lo .. hi-1`` of internal node ``v``."""
    IT[base] = 1
    IT[base + 1], IT[base + 2], IT[base + 3], IT[base + 4] = v, lo, hi, 0


@jit
def _walk_next(JL, JR, KB, IT, base, forward):
    """Return the row of ``G`` of the walk's next group (ascending if ``forward``), -1 at its end."""
    half = JL.shape[0] // 2
    row = -1
    sp = IT[base]
    while sp > 0 and row < 0:
        f = base + 1 + 4 * (sp - 1)
        w, lo, hi, stage = IT[f], IT[f + 1], IT[f + 2], IT[f + 3]
        if w >= half:  # a bottom node: its rows
            if hi <= lo:
                sp -= 1
            elif forward:
                row = (w - half) * KB + lo
                IT[f + 1] = lo + 1
            else:
                row = (w - half) * KB + hi - 1
                IT[f + 2] = hi - 1
        elif stage == 3:
            sp -= 1
        else:
            IT[f + 3] = stage + 1
            jl, jr = JL[w], JR[w]
            hj = 1 if jr > 0 else 0
            part = stage if forward else 2 - stage  # 0: left child, 1: junction, 2: right
            g = base + 1 + 4 * sp
            if part == 0 and min(hi, jl) > lo:
                IT[g], IT[g + 1], IT[g + 2], IT[g + 3] = 2 * w, lo, min(hi, jl), 0
                sp += 1
            elif part == 1 and hj == 1 and lo <= jl < hi:
                row = half * KB + w
            elif part == 2 and hi > max(lo, jl + hj):
                shift = jr - jl - hj  # right child's index of the node's group
                IT[g], IT[g + 1] = 2 * w + 1, max(lo, jl + hj) + shift
                IT[g + 2], IT[g + 3] = hi + shift, 0
                sp += 1
    IT[base] = sp
    return row
