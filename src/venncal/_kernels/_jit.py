"""The single place that sets the JIT options of every kernel.

Kernels compile lazily on first call (nothing is compiled at import) and are
cached on disk (``cache=True``), so the compilation cost is paid once per
installation.  ``fastmath`` is never enabled: it licenses the compiler to
assume that no NaN or infinity occurs and to reassociate sums, and the kernels
rely on exact IEEE semantics.

When developing: numba's cache checks a kernel's own source file only, so a
kernel that inlines a helper from another module keeps its stale compiled
code after that helper changes.  Delete the ``*.nbi`` and ``*.nbc`` files
under ``src/venncal/**/__pycache__`` after editing a helper that other
modules inline (an install rewrites every file, so users are not affected).
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
