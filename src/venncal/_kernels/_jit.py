"""The single place that sets the JIT options of every kernel.

Kernels compile lazily on first call (nothing is compiled at import) and are
cached on disk (``cache=True``), so the compilation cost is paid once per
installation.  ``fastmath`` is never enabled: it licenses the compiler to
assume that no NaN or infinity occurs and to reassociate sums, and the kernels
rely on exact IEEE semantics.
"""

from __future__ import annotations

import numba

__all__ = ["jit"]


def jit(func):
    """Compile ``func`` with the project's numba options."""
    return numba.njit(cache=True, nogil=True, error_model="numpy")(func)
