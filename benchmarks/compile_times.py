"""Cold compile times of the quantized kernels: run from a fresh copy with no __pycache__.

    rm -rf /tmp/cc && mkdir /tmp/cc && git archive HEAD src | tar -x -C /tmp/cc
    PYTHONPATH=/tmp/cc/src python benchmarks/compile_times.py

Prints wall and CPU seconds of each first call (CPU time is steadier on a shared machine).
"""
import time, sys
import numpy as np
t0 = time.perf_counter(); c0 = time.process_time()
from venncal.online import QuantizedIsotonic
from venncal._kernels.quantized_dense import dense_calls
from venncal._kernels.quantized_packed import packed_calls, packed_level
def lap(name, f):
    t, c = time.perf_counter(), time.process_time(); f()
    print(f"{name:40s} {time.perf_counter()-t:7.1f} s wall {time.process_time()-c:7.1f} s cpu", flush=True)
m = QuantizedIsotonic()
lap("learn_many", lambda: m.learn_many([0.5], [1.0]))
lap("insert (queued)", lambda: [m.insert(0.3, 1.0, 1.0) for _ in range(300)])
lap("predict_proba_one", lambda: m.predict_proba_one(0.4))
lap("learn_one", lambda: m.learn_one(0.2, 0.0))
E, EK, EW, cnt, FS, D, NA, NB = (a.copy() for a in m._tree)
Q, P = m._fractions
lap("dense_calls", lambda: dense_calls(E, EK, EW, cnt, FS, D, NA, NB, m._queue.copy(), 0, Q, P, m.levels_, 0, 0.3, 0.0, 0.0))
lap("packed_level", lambda: packed_level(m._packed, 0, 0.3))
lap("delete", lambda: m.delete(0.3, 1.0, 1.0))
m2 = QuantizedIsotonic(window=7)
lap("window learn_many", lambda: m2.learn_many(np.random.rand(20), np.ones(20)))
m3 = QuantizedIsotonic(half_life=3.5)
lap("half_life learn_many", lambda: m3.learn_many(np.random.rand(20), np.ones(20)))
lap("half_life learn_one", lambda: m3.learn_one(0.4, 1.0))
print(f"total {time.perf_counter()-t0:.1f} s wall {time.process_time()-c0:.1f} s cpu")
