"""Cost of one call of the online objects from Python, beside ``river.stats.Mean().update``.

Issue 26's targets, as ratios to River's one-line update measured in the same
run: one ``learn_one``/``insert`` at most 5x, one prequential event
(``predict_proba_one`` then ``learn_one``, River's loop) at most 20x, for the
Jumper objects and for ``QuantizedIsotonic`` holding n = 10^5 scores.  Each
case is timed over ``--calls`` calls, in ``--rounds`` rounds interleaved with
the River reference; the best round of each is kept (the machine is shared),
and the load average is printed with the results.

``--breakdown`` splits the cost of each event that misses its target (the
union families, forgetting, the quantized stream) into what Python does
around the kernel (the event with the kernel replaced by a stub), the fixed
cost of one kernel call from Python (no step, no forecast), and the compiled
step and forecast alone (the same kernel called from a compiled loop over the
stream); for the quantized stream also that loop on one repeated score, all
in cache (so the difference is the memory's), and the compiled loop split into
its inserts alone and its level reads alone, in cache and not, timed by the
thread's CPU time (``time.thread_time``: the time spent waiting for a core on
a loaded machine is not counted, so these figures vary less from run to run).

This is a script, not a test::

    python benchmarks/bench_online_calls.py
    python benchmarks/bench_online_calls.py --calls 20000 --rounds 7
    python benchmarks/bench_online_calls.py --breakdown
"""

from __future__ import annotations

import argparse
import os
import time

import numba
import numpy as np
from river import stats

from venncal._kernels.jumper_calls import jumper_calls
from venncal._kernels.jumper_union import union_calls
from venncal._kernels.quantized_packed import packed_calls, packed_views

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


@numba.njit
def _union_loop(mem, K, R, M, Q, xs, ys):
    """River's loop in compiled code: forecast at ``xs[i]``, then queue step ``i`` (applied next)."""
    s = 0.0
    for i in range(xs.shape[0]):
        s += union_calls(mem, K, R, M, Q, 1 if i else 0, xs[i])
        mem[0] = xs[i]
        mem[Q] = ys[i]
    return s


@numba.njit
def _calls_loop(mem, kind, K, R, m, Q, xs, ys):
    """:func:`_union_loop` for the quadratic and cubic families."""
    s = 0.0
    for i in range(xs.shape[0]):
        s += jumper_calls(mem, kind, K, R, m, Q, 1 if i else 0, xs[i])
        mem[0] = xs[i]
        mem[Q] = ys[i]
    return s


@numba.njit
def _quantized_loop(buf, queue, xs, ys, op=0):
    """The quantized stream's event in compiled code: the level at ``xs[i]``, then insert it.

    ``op = 2``: the inserts alone (no level read); ``op = -1``: the level reads
    alone (nothing inserted).
    """
    s = 0.0
    for i in range(xs.shape[0]):
        if op >= 0:
            s += packed_calls(buf, 1 if i else 0, op, xs[i], 0.0, 0.0)
        else:
            s += packed_calls(buf, 0, 0, xs[i], 0.0, 0.0)
        queue[0, 0] = xs[i]
        queue[1, 0] = ys[i]
    return s


class _Lean:
    """The least Python around a Jumper's kernel call: a bound, not the API.

    Its ``learn_one`` writes the step into the queue and its
    ``predict_proba_one`` calls the kernel and forms the dict, with none of
    the checks (types, ranges, labels, clip) or bookkeeping (counts,
    ``log10 S``, records) of the real methods: what an event would cost if
    Python did nothing else.
    """

    def __init__(self, model) -> None:
        model.predict_proba_one(0.5)
        self.call, self.mv, self.Q, self.n = model._fast[0], model._mv, model._queue, 0

    def predict_proba_one(self, p):
        proba = self.call(self.n, p)
        self.n = 0
        return {False: 1.0 - proba, True: proba}

    def learn_one(self, p, y):
        n = self.n
        self.mv[n] = p
        self.mv[self.Q + n] = 1.0 if y else 0.0
        self.n = n + 1


#: The events split by ``--breakdown``: the four that miss the target, and one that meets it.
BREAKDOWN = ("JumperMartingale(shift+confidence)", "MeanJumper(shift+confidence)",
             "JumperPredictor(quadratic+cox2)", "JumperMartingale(s+c, half_life)")


def _best(run, rounds: int) -> float:
    """The fastest of ``rounds`` calls of ``run()`` (each returns seconds per event)."""
    return min(run() for _ in range(rounds))


def breakdown(xs: list, ys: list, n_quantized: int, rounds: int, only: str = "") -> None:
    """Print where the time of the events that miss their target goes (see the module)."""
    m = len(xs)
    xa, ya = np.array(xs), np.array(ys, dtype=float)
    mean = stats.Mean()

    def river(a, k):
        update = mean.update
        for i in range(a, a + k):
            update(xs[i])

    ref = _best(lambda: per_call(river, m), rounds)
    print(f"river.stats.Mean().update: {ref * 1e9:.0f} ns a call")
    print(f"{'event':34s} {'whole':>7s} {'python':>7s} {'call':>7s} {'compiled':>9s} "
          f"{'lean':>7s}  (ns; x River)")
    for name, make in UNIONS:
        if name not in BREAKDOWN or only not in f"{name} event":
            continue
        model = make()
        model.learn_many(xa[:1000], ya[:1000] > 0.5)
        model.predict_proba_one(0.5)
        loops = jumper_cases(xs, ys, ((name, lambda model=model: model),))
        event = loops[f"{name} event"]
        whole = _best(lambda: per_call(event, m), rounds)
        real = model._fast
        model._fast = (lambda n, x: 0.25,) + real[1:]  # the kernel replaced by a stub
        python = _best(lambda: per_call(event, m), rounds)
        model._fast = real
        call = real[0]

        def empty(a, k, call=call):
            for _ in range(k):
                call(0, -1.0)

        fixed = _best(lambda: per_call(empty, m), rounds)
        args = model._args
        loop = _union_loop if len(args) == 5 else _calls_loop

        def compiled(args=args, loop=loop):
            mem = args[0].copy()
            t = time.perf_counter()
            loop(mem, *args[1:], xa, ya)
            return (time.perf_counter() - t) / m

        inner = _best(compiled, 5 * rounds)  # 5 ms a run: cheap to repeat
        fresh = make()
        fresh.learn_many(xa[:1000], ya[:1000] > 0.5)
        bare = _Lean(fresh)

        def lean_event(a, k, bare=bare):
            learn_one, predict = bare.learn_one, bare.predict_proba_one
            for i in range(a, a + k):
                predict(xs[i])
                learn_one(xs[i], ys[i])

        lean = _best(lambda: per_call(lean_event, m), rounds)
        print(f"{name + ' event':34s} {whole * 1e9:7.0f} {python * 1e9:7.0f} {fixed * 1e9:7.0f} "
              f"{inner * 1e9:9.0f} {lean * 1e9:7.0f}  ({whole / ref:.1f}x = {python / ref:.1f} + "
              f"{fixed / ref:.1f} + {inner / ref:.1f} + rest; lean {lean / ref:.1f}x)")
    if only not in "QuantizedIsotonic event":
        return
    quantized = QuantizedIsotonic()
    rng = np.random.default_rng(1)
    s = rng.random(n_quantized)
    quantized.learn_many(s, (rng.random(n_quantized) < s).astype(float))
    quantized.predict_proba_one(0.5)
    yq = [float(v) for v in ys]

    def q_event(a, k):
        learn_one, predict = quantized.learn_one, quantized.predict_proba_one
        for i in range(a, a + k):
            predict(xs[i])
            learn_one(xs[i], yq[i])

    whole = _best(lambda: per_call(q_event, m), rounds)
    real, real_level = quantized._call, getattr(quantized, "_level", None)
    quantized._call = quantized._level = lambda *a: 0.25  # (_level: predict's, if there)
    python = _best(lambda: per_call(q_event, m), rounds)
    quantized._call, quantized._level = real, real_level
    quantized._flush()
    buf = quantized._packed

    def empty_q(a, k):
        for _ in range(k):
            real(buf, 0, 2, 0.0, 0.0, 0.0)

    fixed = _best(lambda: per_call(empty_q, m), rounds)

    def compiled_q(scores, op=0, clock=time.perf_counter):
        copy = buf.copy()  # a fresh tree of n scores each time
        queue = packed_views(copy)[8]
        t = clock()
        _quantized_loop(copy, queue, scores, ya, op)
        return (clock() - t) / m

    inner = _best(lambda: compiled_q(xa), 5 * rounds)
    hot = _best(lambda: compiled_q(np.full(m, 0.5)), 5 * rounds)
    print(f"{'QuantizedIsotonic event':34s} {whole * 1e9:7.0f} {python * 1e9:7.0f} {fixed * 1e9:7.0f} "
          f"{inner * 1e9:9.0f}  ({whole / ref:.1f}x = {python / ref:.1f} + {fixed / ref:.1f} + "
          f"{inner / ref:.1f} + rest; compiled on one score, in cache: {hot * 1e9:.0f} ns)")
    # The compiled event split, timed by the thread's CPU time (not counting the time the
    # thread waits for a core: steadier on a loaded machine), in cache and not.
    cpu = time.thread_time
    parts = {f"{what}{' in cache' if cached else ''}": _best(
        lambda: compiled_q(np.full(m, 0.5) if cached else xa, op, cpu), 5 * rounds)
        for cached in (False, True) for what, op in (("event", 0), ("insert", 2), ("level", -1))}
    print("  compiled, CPU time: " + ", ".join(f"{k} {v * 1e9:.0f}" for k, v in parts.items())
          + " ns")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--n", type=int, default=100_000, help="scores held by QuantizedIsotonic")
    parser.add_argument("--burst", type=int, default=BURST,
                        help="calls timed together (0: the whole loop, flushes amortised)")
    parser.add_argument("--only", default="",
                        help="time only the cases whose name contains this text (and River's)")
    parser.add_argument("--breakdown", action="store_true",
                        help="split the events that miss their target into python, call, compiled")
    args = parser.parse_args()
    globals()["BURST"] = args.burst
    rng = np.random.default_rng(0)
    m = args.calls
    xs = rng.uniform(0.02, 0.98, m).tolist()
    ys = (rng.random(m) < np.array(xs)).tolist()
    print(f"load average before: {os.getloadavg()}")
    if args.breakdown:
        breakdown(xs, ys, args.n, args.rounds, args.only)
        print(f"load average after: {os.getloadavg()}")
        return
    best: dict[str, float] = {}
    for r in range(args.rounds + 1):  # round 0 warms up (numba's cache, allocation)
        loops = cases(xs, ys, args.n)  # fresh objects: the quantized stream holds n scores
        for name, loop in loops.items():
            if args.only not in name and name != "river.stats.Mean().update":
                continue
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
