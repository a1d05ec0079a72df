"""Cost of one call of the online objects from Python, beside ``river.stats.Mean().update``.

Issue 26's targets, as ratios to River's one-line update measured in the same
run: one ``learn_one``/``insert`` at most 5x, one prequential event
(``predict_proba_one`` then ``learn_one``, River's loop) at most 20x, for the
Jumper objects and for ``QuantizedIsotonic`` holding n = 10^5 scores.  Each
case is timed over ``--calls`` calls, in ``--rounds`` rounds interleaved with
the River reference; the best round of each is kept (the machine is shared),
and the load average is printed with the results.

This is a script, not a test::

    python benchmarks/bench_online_calls.py
    python benchmarks/bench_online_calls.py --calls 20000 --rounds 7
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from river import stats

from venncal.online import (
    JumperMartingale,
    JumperPredictor,
    MeanJumper,
    QuantizedIsotonic,
    cubic,
    named,
    quadratic,
)


BURST = 250


def per_call(loop, calls: int) -> float:
    """Seconds per call: the fastest of ``calls / BURST`` bursts of ``BURST`` calls.

    On a shared machine a long loop is preempted; the fastest burst is the
    cost of the calls themselves (the queues flush every 256 steps, so a
    burst of 250 calls may or may not hold a flush: the fastest holds none,
    and the flush's own cost, amortised, is shown by ``--burst 0``).
    """
    if not BURST:
        t = time.perf_counter()
        loop(0, calls)
        return (time.perf_counter() - t) / calls
    best = np.inf
    for start in range(0, calls - BURST + 1, BURST):
        t = time.perf_counter()
        loop(start, BURST)
        best = min(best, time.perf_counter() - t)
    return best / BURST


def jumper_cases(xs: list, ys: list, makers) -> dict:
    """``learn_one`` and prequential-event loops for Jumper objects: name -> loop."""
    out = {}
    for name, make in makers:
        model = make()
        model.learn_many(np.array(xs[:1000]), np.array(ys[:1000], dtype=bool))

        def learn(a, k, model=model):
            learn_one = model.learn_one
            for i in range(a, a + k):
                learn_one(xs[i], ys[i])

        def event(a, k, model=model):
            learn_one, predict = model.learn_one, model.predict_proba_one
            for i in range(a, a + k):
                predict(xs[i])
                learn_one(xs[i], ys[i])

        out[f"{name}.learn_one"] = learn
        out[f"{name} event"] = event
    return out


#: The Jumper objects of one family.
SINGLES = (("JumperMartingale", JumperMartingale),
           ("JumperPredictor(cubic)", lambda: JumperPredictor(cubic())),
           ("MeanJumper", MeanJumper))
#: Union families and Cox's: one compiled call an event (``union_calls``), like single families.
UNIONS = (("JumperMartingale(shift+confidence)", lambda: JumperMartingale(named("shift+confidence"))),
          ("JumperPredictor(quadratic+cubic)", lambda: JumperPredictor(quadratic() + cubic())),
          ("MeanJumper(shift+confidence)", lambda: MeanJumper(named("shift+confidence"))),
          ("JumperPredictor(quadratic+cox2)", lambda: JumperPredictor(named("quadratic+cox2"))),
          ("JumperMartingale(cox)", lambda: JumperMartingale(named("cox"))),
          ("JumperMartingale(s+c, half_life)",
           lambda: JumperMartingale(named("shift+confidence"), half_life=100.0)))

def cases(xs: list, ys: list, n_quantized: int) -> dict:
    """The loops to time: name -> a function of the number of calls."""
    mean = stats.Mean()

    def river(a, k):
        update = mean.update
        for i in range(a, a + k):
            update(xs[i])

    out = {"river.stats.Mean().update": river}
    out.update(jumper_cases(xs, ys, SINGLES))
    quantized = QuantizedIsotonic()
    rng = np.random.default_rng(1)
    s = rng.random(n_quantized)
    quantized.learn_many(s, (rng.random(n_quantized) < s).astype(float))
    yq = [float(v) for v in ys]

    def insert(a, k):
        ins = quantized.insert
        for i in range(a, a + k):
            ins(xs[i], yq[i])

    def q_event(a, k):
        learn_one, predict = quantized.learn_one, quantized.predict_proba_one
        for i in range(a, a + k):
            predict(xs[i])
            learn_one(xs[i], yq[i])

    def delete(a, k):
        dele = quantized.delete
        for i in range(a, a + k):
            dele(xs[i], yq[i])

    out["QuantizedIsotonic.insert"] = insert
    out["QuantizedIsotonic event"] = q_event
    out["QuantizedIsotonic.delete"] = delete  # deletes what the loops above inserted
    out.update(jumper_cases(xs, ys, UNIONS))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--n", type=int, default=100_000, help="scores held by QuantizedIsotonic")
    parser.add_argument("--burst", type=int, default=BURST,
                        help="calls timed together (0: the whole loop, flushes amortised)")
    args = parser.parse_args()
    globals()["BURST"] = args.burst
    rng = np.random.default_rng(0)
    m = args.calls
    xs = rng.uniform(0.02, 0.98, m).tolist()
    ys = (rng.random(m) < np.array(xs)).tolist()
    print(f"load average before: {os.getloadavg()}")
    best: dict[str, float] = {}
    for r in range(args.rounds + 1):  # round 0 warms up (numba's cache, allocation)
        loops = cases(xs, ys, args.n)  # fresh objects: the quantized stream holds n scores
        for name, loop in loops.items():
            t = per_call(loop, m)
            if r:
                best[name] = min(best.get(name, np.inf), t)
    print(f"load average after: {os.getloadavg()}")
    ref = best.pop("river.stats.Mean().update")
    print(f"river.stats.Mean().update: {ref * 1e9:.0f} ns a call (best of {args.rounds} rounds "
          f"of {m} calls)")
    targets = {"learn_one": 5, "insert": 5, "event": 20}
    for name, t in best.items():
        kind = name.rsplit(".", 1)[-1] if "." in name else name.rsplit(" ", 1)[-1]
        target = targets.get(kind)
        mark = "" if target is None else f"  (target <= {target}x: {'met' if t / ref <= target else 'NOT met'})"
        print(f"{name:34s} {t * 1e9:7.0f} ns  {t / ref:6.1f}x River{mark}")


if __name__ == "__main__":
    main()
