"""Replay recommendation rules on a calibration-arena run's comparisons (its ``tasks.json``).

The arena stores, per task, the inputs of the comparison's rule
(``Comparison.rule_inputs``) and every fixed method's test losses, so a rule
(other defaults, another switching multiple) can be scored on the same
comparisons without running them again: the rule is a function of those
inputs, and the replayed "venncal recommends" takes its pick's test result.
The first row is the run's own picks; "as shipped" is the rule of the installed
venncal (the same as the run's when no default changed since: the script says
how many recorded picks it replays).

This is a script, not a test::

    venncal reproduce calibration-arena --jobs 2 --data-dir DATA --out RUN
    python benchmarks/arena_rules.py RUN/tasks.json
    python benchmarks/arena_rules.py benchmarks/results/arena-2026-11-27-tasks.json.gz
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
from types import SimpleNamespace

import numpy as np

from venncal.comparison import _ranking, recommend
from venncal.experiments._arena_methods import RECOMMENDS
from venncal.experiments._arena_summary import GROUPS, paired_ranks, recommend_target


def _tasks(path: str) -> list[SimpleNamespace]:
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        rows = json.load(f)
    out = []
    for r in rows:
        scores = {m: SimpleNamespace(**{k: float(v) for k, v in s.items()})
                  for m, s in r["scores"].items()}
        inputs = r["rule_inputs"]
        if inputs is not None:
            inputs["losses"] = {m: np.array([float(x) for x in v])
                                for m, v in inputs["losses"].items()}
        out.append(SimpleNamespace(
            spec=SimpleNamespace(group=r["group"], data=r["data"], model=r["model"]),
            scores=scores, failures=dict(r["failures"]), recommended=r["recommended"],
            recommended_old=None, rule_inputs=inputs, rows=r["sizes"][1]))
    return out


@contextlib.contextmanager
def _patched(changes: dict):
    """Set ``venncal.comparison._ranking``'s constants (and table entries) for a while."""
    saved = {}
    for name, value in changes.items():
        table, _, key = name.partition(":")
        current = getattr(_ranking, table)
        if key:
            key = tuple(x if x not in ("True", "False") else x == "True"
                        for x in key.split(","))
            saved[name] = current[key]
            current[key] = value
        else:
            saved[name] = current
            setattr(_ranking, table, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            table, _, key = name.partition(":")
            if key:
                key = tuple(x if x not in ("True", "False") else x == "True"
                            for x in key.split(","))
                getattr(_ranking, table)[key] = value
            else:
                setattr(_ranking, table, value)


def replay(tasks, changes: dict) -> list[SimpleNamespace]:
    """The tasks with "venncal recommends" replaced by the rule's pick under ``changes``."""
    out = []
    with _patched(changes):
        for t in tasks:
            scores = {m: s for m, s in t.scores.items() if m != RECOMMENDS}
            failures = {m: f for m, f in t.failures.items() if m != RECOMMENDS}
            pick = None
            if t.rule_inputs is not None:
                pick = recommend(**t.rule_inputs, intervals=False).method
            if pick in scores:
                scores[RECOMMENDS] = scores[pick]
            else:
                failures[RECOMMENDS] = f"picked {pick!r}"
            out.append(SimpleNamespace(spec=t.spec, scores=scores, failures=failures,
                                       recommended=pick, recommended_old=None))
    return out


_SMALL_BINARY_BEFORE = ("platt", "beta", "quadratic-logistic")
_SMALL_K_BEFORE = ("temperature", "vector-scaling", "structured-matrix-scaling",
                   "matrix-scaling")

#: The variants: name -> changes to venncal.comparison._ranking ("TABLE:problem,intervals").
#: "before 2026-11-27": the small defaults before the arena of that day.
VARIANTS = {
    "as shipped": {},
    "before 2026-11-27": {"SMALL_DEFAULTS:binary,False": _SMALL_BINARY_BEFORE,
                          "SMALL_DEFAULTS:multiclass,False": _SMALL_K_BEFORE},
    "before, but binary small: platt+ivap-clip first": {
        "SMALL_DEFAULTS:binary,False": ("platt+ivap-clip", *_SMALL_BINARY_BEFORE),
        "SMALL_DEFAULTS:multiclass,False": _SMALL_K_BEFORE},
    "before, but K-class small: the scores after temperature": {
        "SMALL_DEFAULTS:binary,False": _SMALL_BINARY_BEFORE},
    "binary: clipped first (large sets too)": {
        "DEFAULTS:binary,False": ("beta+ivap-clip", "beta", "quadratic-logistic", "platt")},
    "K-class small: temperature+ovr-ivap-clip first": {
        "SMALL_DEFAULTS:multiclass,False": ("temperature+ovr-ivap-clip", "temperature",
                                            "uncalibrated", *_SMALL_K_BEFORE[1:])},
    "switch at 2 standard errors": {"SWITCH_SE": 2.0},
    "switch at 4 standard errors": {"SWITCH_SE": 4.0},
    "never switch": {"SWITCH_SE": math.inf},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks_json")
    parser.add_argument("--variant", action="append", choices=list(VARIANTS),
                        help="replay only these (default: all)")
    args = parser.parse_args()
    tasks = _tasks(args.tasks_json)
    shipped = replay(tasks, {})
    same = sum(t.recommended == r.recommended for t, r in zip(tasks, shipped))
    print(f"{len(tasks)} tasks; the installed rule replays {same} of the recorded picks\n")
    groups = [*GROUPS, "all"]
    print("| rule | " + " | ".join(groups) + " |")
    print("|---|" + "---|" * len(groups))
    for name in ["the run's picks", *(args.variant or VARIANTS)]:
        done = tasks if name == "the run's picks" else replay(tasks, VARIANTS[name])
        cells = []
        for g in groups:
            mine = done if g == "all" else [t for t in done if t.spec.group == g]
            rank, best, best_rank, place = recommend_target(mine)
            cells.append(f"{rank:.2f} ({place}; best fixed {best} {best_rank:.2f})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    # Over all tasks a fixed method's mean rank is over the tasks where it ran; here each
    # method is compared with the shipped rule's pick on the same tasks.
    print("\nThe shipped rule against each fixed method on the tasks where both ran "
          "(closest margins first):\n")
    print("| method | tasks | its mean rank | venncal recommends |")
    print("|---|---|---|---|")
    pairs = paired_ranks(shipped)
    for m, (theirs, mine, n) in sorted(pairs.items(), key=lambda kv: kv[1][0] - kv[1][1])[:8]:
        print(f"| {m} | {n} | {theirs:.2f} | {mine:.2f} |")


if __name__ == "__main__":
    main()
