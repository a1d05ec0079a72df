"""Values made ready for strict JSON, which has no NaN or infinity (one rule for every output)."""

from __future__ import annotations

import math

__all__ = ["strict_json"]


def strict_json(value, *, nonfinite: str = "string"):
    """Return ``value`` as plain JSON values: no NaN or infinity, no arrays, no tuples.

    Dicts (keys as strings), lists, tuples and arrays (``tolist``) are converted
    member by member; a non-finite float becomes ``"inf"``, ``"-inf"`` or
    ``"nan"`` (``nonfinite="string"``, as ``venncal evaluate --json`` and
    ``compare --json`` write them) or ``None`` (``nonfinite="null"``, as
    ``venncal monitor --json`` does).

    Examples
    --------
    >>> import numpy as np
    >>> strict_json({"a": np.array([1.0, np.inf]), 2: (float("nan"),)})
    {'a': [1.0, 'inf'], '2': ['nan']}
    >>> strict_json([-np.inf], nonfinite="null")
    [None]
    """
    if isinstance(value, dict):
        return {str(k): strict_json(v, nonfinite=nonfinite) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json(v, nonfinite=nonfinite) for v in value]
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return strict_json(value.tolist(), nonfinite=nonfinite)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value) if nonfinite == "string" else None
    return value
