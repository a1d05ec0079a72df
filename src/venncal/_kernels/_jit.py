"""The single place that sets the JIT options of every kernel.

Kernels compile lazily on first call (nothing is compiled at import) and are
cached on disk (``cache=True``), so the compilation cost is paid once per
installation.  ``fastmath`` is never enabled: it licenses the compiler to
assume that no NaN or infinity occurs and to reassociate sums, and the kernels
rely on exact IEEE semantics.
"""

from __future__ import annotations

import numba

__all__ = ["jit", "jit_inline"]


def jit(func):
    """Compile ``func`` with the project's numba options."""
    return numba.njit(cache=True, nogil=True, error_model="numpy")(func)


def jit_inline(func):
    """:func:`jit`, inlined into its callers by numba (a small helper of a hot loop)."""
    return numba.njit(cache=True, nogil=True, error_model="numpy", inline="always")(func)
