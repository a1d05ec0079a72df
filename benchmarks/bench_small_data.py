"""Held-out log loss of the default rule's pick against fixed calibrators, by calibration size.

The question (issue 25, the new-user check of 2026-11-26): on small calibration sets, does
the binary default (Beta calibration, three parameters) pay, or should a rule with fewer
parameters (Platt, two) lead below some size?  For each UCI set, model and calibration size
``n``, ``--reps`` random splits: the model is trained on one part, ``venncal.compare`` runs
on ``n`` calibration rows, and every method, fitted on those ``n`` rows, is scored on a
held-out test part.  Reported: the mean held-out log loss and the mean rank (among the
methods, per split) by size, and the picks of the rule.

Usage::

    python benchmarks/bench_small_data.py [--reps 10] [--sizes 50,100,200,400,1000]
        [--sets adult,bank,australian,diabetes,vote,ionosphere] [--output FILE]

Reads the UCI sets from ``$VENNCAL_DATA`` (default ``../shared/datasets``).  Small sets use
the sizes up to a third of their rows (the rest is split between training and test).
"""

from __future__ import annotations

import argparse
import os
import warnings
from collections import defaultdict

import numpy as np
from scipy.stats import rankdata
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import venncal
from venncal.comparison._candidates import candidates_for
from venncal.datasets import load_dataset

from _harness import command_line, machine_lines, save_report

FIXED = ("uncalibrated", "beta", "platt", "quadratic-logistic", "ivap", "beta+ivap-clip",
         "platt+ivap-clip")
#: The rules' defaults (binary, without and with intervals), against which a switch is scored.
DEFAULT = {"rule": "beta", "rule-intervals": "beta+ivap-clip", "lowest": "beta"}
MODELS = {
    "hgb": lambda seed: HistGradientBoostingClassifier(random_state=seed),
    "logreg": lambda seed: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
    "nb": lambda seed: GaussianNB(),
}


def log_loss(y: np.ndarray, p: np.ndarray) -> float:
    p = np.clip(p, 1e-300, 1.0)
    return float(-np.mean(np.where(y == 1, np.log(p[:, 1]), np.log(p[:, 0]))))


def one_split(X, y, n, model, seed, cands):
    rest, cal = train_test_split(np.arange(y.shape[0]), test_size=n, random_state=seed,
                                 stratify=y)
    train, test = train_test_split(rest, test_size=0.5, random_state=seed, stratify=y[rest])
    m = MODELS[model](seed).fit(X[train], y[train])
    sc, st = m.predict_proba(X[cal])[:, 1], m.predict_proba(X[test])[:, 1]
    comparison = venncal.compare(sc, y[cal], score="proba", seed=seed)
    picks = {"rule": comparison.recommendation.method,
             "rule-intervals": comparison.recommend(intervals=True).method,
             "lowest": comparison.recommendation.best}
    out = {}
    for name in set(FIXED) | set(picks.values()):
        try:
            out[name] = log_loss(y[test], cands[name].build("proba", [0, 1]).fit(
                sc, y[cal]).predict_proba(st))
        except (ValueError, TypeError):  # a fit with no maximum (separation), or cvap's folds
            out[name] = np.nan
    for rule, name in picks.items():
        out[rule] = out[name]
    return out, picks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--sizes", default="50,100,200,400,1000")
    parser.add_argument("--sets", default="adult,bank,australian,diabetes,vote,ionosphere")
    parser.add_argument("--models", default="hgb,logreg,nb")
    parser.add_argument("--output")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    data = os.environ.get("VENNCAL_DATA", os.path.join(os.path.dirname(__file__), "..", "..",
                                                       "shared", "datasets"))
    cands = {c.name: c for c in candidates_for("binary", "proba", None)}
    sizes = [int(s) for s in args.sizes.split(",")]
    losses = defaultdict(lambda: defaultdict(list))  # size bucket -> method -> values
    ranks = defaultdict(lambda: defaultdict(list))
    picks = defaultdict(lambda: defaultdict(int))
    switched = defaultdict(list)  # (size, rule, pick) -> held-out loss minus the default's
    methods = FIXED + ("rule", "rule-intervals", "lowest")
    for name in args.sets.split(","):
        X, y, _ = load_dataset(name, data_dir=data)
        for n in (n for n in sizes if n <= y.shape[0] // 3):
            for model in args.models.split(","):
                for rep in range(args.reps):
                    out, chosen = one_split(X, y, n, model, rep, cands)
                    row = np.array([out[m] for m in methods])
                    order = rankdata(np.where(np.isnan(row), np.inf, row))  # ties: mean rank
                    for m, v, r in zip(methods, row, order):
                        losses[n][m].append(v)
                        ranks[n][m].append(r)
                    for rule, pick in chosen.items():
                        picks[(n, rule)][pick] += 1
                        switched[(n, rule, pick)].append(out[rule] - out[DEFAULT[rule]])
                print(f"{name} n={n} {model} done", flush=True)
    lines = ["# Small calibration sets: the default rule against fixed calibrators", "",
             *machine_lines(), f"- command: `{command_line()}`", "",
             "Mean held-out log loss (mean rank among the columns, 1 = best, per split; NaN: "
             "a fit with no maximum counts last). `rule`: compare's default rule; "
             "`rule-intervals`: with intervals; `lowest`: the lowest mean out-of-fold log loss.",
             "", "| n | splits | " + " | ".join(methods) + " |",
             "|---|---|" + "---|" * len(methods)]
    for n in sorted(losses):
        cells = [f"{np.nanmean(losses[n][m]):.4f} ({np.mean(ranks[n][m]):.2f})"
                 for m in methods]
        lines.append(f"| {n} | {len(losses[n][methods[0]])} | " + " | ".join(cells) + " |")
    lines += ["", "Fits with no maximum (NaN) per size: " + "; ".join(
        f"n={n}: " + ", ".join(f"{m} {int(np.isnan(losses[n][m]).sum())}" for m in methods
                               if np.isnan(losses[n][m]).any()) for n in sorted(losses)), "",
              "The rule's picks:", ""]
    for (n, rule), counts in sorted(picks.items()):
        top = sorted(counts.items(), key=lambda kv: -kv[1])[:5]
        lines.append(f"- n={n}, {rule}: " + ", ".join(f"{k} {v}" for k, v in top))
    lines += ["", "When the pick is not the default (beta; with intervals beta+ivap-clip): the "
              "held-out log loss of the pick minus the default's, on those splits (mean, "
              "median, worst, count):", ""]
    for (n, rule, pick), gaps in sorted(switched.items()):
        if pick != DEFAULT[rule] and gaps:
            g = np.array(gaps, dtype=float)
            lines.append(f"- n={n}, {rule} -> {pick}: {np.nanmean(g):+.4f}, "
                         f"{np.nanmedian(g):+.4f}, {np.nanmax(g):+.4f}, {g.shape[0]}")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.output:
        print("written to", save_report(text, "small-data", args.output))


if __name__ == "__main__":
    main()
