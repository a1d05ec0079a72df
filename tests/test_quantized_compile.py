"""The quantized kernels compile once per real signature (no ``Literal`` argument types).

numba types a Python constant (``0``, ``-1``, ``False``, a module-level
``_XN = 1``) passed from one compiled kernel to another, not inlined, as
``Literal[int]`` or ``Literal[bool]``, and compiles the callee once per value:
``_ordered_slow`` was compiled six times.  The kernels pass such constants as
``np.int64`` / ``np.bool_`` values; this test runs every quantized object once
and checks that no compiled signature of a quantized kernel (or of the exact
accumulators they call) holds a literal type.
"""

from __future__ import annotations

import sys

import numpy as np
from numba.core.registry import CPUDispatcher

from venncal.baselines import QuantizedIsotonicCalibrator
from venncal.online import QuantizedIsotonic
from venncal.online.quantized import OrderedQuantizedIsotonic


def _exercise() -> None:
    """Fit, update, read and delete with each quantized object and each of its trees."""
    rng = np.random.default_rng(0)
    s = rng.random(200)
    y = (rng.random(200) < s).astype(float)
    w = rng.random(200)
    QuantizedIsotonicCalibrator(levels=11).fit(s, y, sample_weight=w).predict_proba(s)
    ordered = OrderedQuantizedIsotonic(levels=11)
    ordered.learn_many(np.sort(s), y, w)
    ordered.predict(s)
    ordered.groups()
    for kw in ({}, {"window": 40}, {"half_life": 30.0}):
        q = QuantizedIsotonic(levels=11, **kw)
        q.learn_many(s, y)
        q.insert(0.3, 1.0)
        q.predict_proba_one(0.4)
        q.learn_one(0.2, 0.0)
        if not kw:
            q.delete(0.3, 1.0)
        q.learn_many(s, y, w)  # the tree of groups from here on
        q.learn_many(rng.random(3000), (rng.random(3000) < 0.5).astype(float))  # long junctions
        q.predict(s)
        q.groups()
        if not kw:
            q.delete(float(s[0]), float(y[0]), float(w[0]))
    q = QuantizedIsotonic(levels=11)
    q.learn_many(s, 0.7 * s)  # targets other than 0 and 1
    q.predict_one(0.4)


def _literal_signatures(exact: bool) -> dict:
    """Signatures with a literal type: of the quantized kernels, or of ``_kernels.exact``."""
    found = {}
    for name, module in list(sys.modules.items()):
        if not (name == "venncal._kernels.exact" if exact
                else name.startswith("venncal._kernels.quantized")):
            continue
        for attr, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.__module__ == name:
                sigs = {sig for sig in obj.signatures if any("Literal" in str(a) for a in sig)}
                if sigs:
                    found[f"{name}.{attr}"] = sigs
    return found


def test_no_literal_signatures():
    # Only the signatures this workload adds are checked: other tests run first in the same
    # worker may have compiled the shared accumulators (and, through paths this workload does
    # not take, quantized kernels) with their own argument types.
    before = {**_literal_signatures(exact=True), **_literal_signatures(exact=False)}
    _exercise()
    after = {**_literal_signatures(exact=True), **_literal_signatures(exact=False)}
    added = {k: v - before.get(k, set()) for k, v in after.items()}
    assert {k: v for k, v in added.items() if v} == {}
