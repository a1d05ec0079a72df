"""List the compiled kernels that numba specialised on a literal argument (run on a cold cache).

numba types a Python constant passed from one compiled kernel to another (not
inlined) as ``Literal[int](0)`` or ``Literal[bool](True)`` and compiles the
callee once per value, besides its ordinary signature: the IVAP sweeps were
compiled twice over from ``ivap_tables_many`` that way (102 s of CPU for
48).  This script runs the kernel warm-up's workloads (``tests/_kernel_warmup.py``:
the docstring examples and the online streams) in this process, then prints,
for every dispatcher of ``venncal._kernels``, the overloads with a literal
argument type (position and type).  Run it with an empty numba cache, or the
callees load from the cache and their overloads are not seen::

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/literal_overloads.py

Expect a few minutes of CPU; the output should list nothing (a kernel whose
only signature is literal, called with one constant, is harmless and listed
with ``only``).
"""

from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))


def main() -> int:
    import _kernel_warmup
    from numba.core.registry import CPUDispatcher

    start = time.process_time()
    _kernel_warmup.warm_share(0, 1)
    print(f"workloads: {time.process_time() - start:.1f} s of CPU", flush=True)
    found = 0
    for name, module in sorted(sys.modules.items()):
        if not name.startswith("venncal._kernels"):
            continue
        for attr, obj in vars(module).items():
            if not (isinstance(obj, CPUDispatcher) and obj.__module__ == name):
                continue
            keys = list(obj.overloads.keys())
            for key in keys:
                literal = [(i, str(a)) for i, a in enumerate(key) if "Literal" in str(a)]
                if literal:
                    found += len(keys) > 1
                    tag = "" if len(keys) > 1 else " (only)"
                    print(f"{name}.{attr}: {len(keys)} overloads{tag}; literal {literal}")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
