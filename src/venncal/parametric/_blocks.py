"""The block driver of the parametric calibrators' objectives.

The rows are cut into fixed blocks of :data:`BLOCK_ROWS`; a kernel writes
each block's sums into that block's own slot, by one thread or several (the
kernels release the GIL), and the caller adds the slots in block order.  The
result is therefore the same, bit for bit, for any number of threads.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

__all__ = ["BLOCK_ROWS", "BlockPool"]

#: Rows per block of the objectives' sums.
BLOCK_ROWS = 4096


def usable_cores() -> int:
    """The cores this process may run on (``sched_getaffinity`` where it exists)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


class BlockPool:
    """Fixed row blocks ``bounds`` of ``n`` rows and the threads that compute them.

    A context manager owning the threads (``n_jobs``; None: every usable
    core; never more threads than blocks).  :meth:`run` calls
    ``block(b, lo, hi)`` once for every block ``b`` of rows ``lo:hi`` and
    returns when all are done; ``block`` must write only to block ``b``'s
    own output.

    Examples
    --------
    >>> import numpy as np
    >>> sums = np.zeros(3)
    >>> with BlockPool(2 * BLOCK_ROWS + 1, n_jobs=2, name="doc") as pool:
    ...     pool.run(lambda b, lo, hi: sums.__setitem__(b, hi - lo))
    >>> sums.tolist()
    [4096.0, 4096.0, 1.0]
    """

    def __init__(self, n: int, n_jobs: int | None, name: str):
        self.bounds = [(lo, min(lo + BLOCK_ROWS, n)) for lo in range(0, n, BLOCK_ROWS)]
        self.threads = min(n_jobs or usable_cores(), len(self.bounds))
        self.name = name
        self.pool = None

    def __len__(self) -> int:
        return len(self.bounds)

    def __enter__(self):
        if self.threads > 1:
            self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix=f"venncal-{self.name}")
        return self

    def __exit__(self, *exc):
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None
        return False

    def run(self, block: Callable[[int, int, int], None]) -> None:
        """Call ``block(b, lo, hi)`` for every block, on the pool's threads."""
        if self.pool is None:
            for b, (lo, hi) in enumerate(self.bounds):
                block(b, lo, hi)
        else:
            list(self.pool.map(lambda b: block(b, *self.bounds[b]), range(len(self.bounds))))
