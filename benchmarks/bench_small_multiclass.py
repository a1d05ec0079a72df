"""Held-out log loss of the K-class default rule's pick against fixed calibrators, by size.

The K-class analogue of ``bench_small_data.py`` (issue 25): on small calibration sets, does
the K-class default (structured matrix scaling, SMS: ``K^2 + K + 1`` nominal parameters,
shrunk) pay, or should a rule with fewer parameters (temperature, one; vector scaling, 2K)
lead below some size?  Not the calibration arena: scikit-learn's bundled sets and
``make_classification`` sets, so the rule is not tuned on the arena that judges it.

For each set, model and calibration size ``n``, ``--reps`` random splits (stratified):
``n`` calibration rows, the rest halved into training and test rows.  The model is
trained on the training rows; every fixed K-class method is fitted on the ``n`` rows and
scored (log loss) on the test rows; ``venncal.compare`` runs on the ``n`` rows and the
default rule's pick (without and with intervals) and the lowest-mean pick are scored the
same way.  Scores: logits (``decision_function``) for logistic regression and histogram
gradient boosting; log-probabilities (logits up to a constant per row) for naive Bayes
(clipped at -700) and the MLP; probabilities clipped to [1e-4, 1] and renormalised for the
random forest.

Sets: ``digits`` (K = 10, 1,797 rows), ``wine`` (K = 3, 178), ``iris`` (K = 3, 150),
``synth4`` and ``synth6``: ``make_classification(n_samples=3000, n_features=20,
n_informative=10, n_redundant=4, n_classes=K, n_clusters_per_class=2, flip_y=0.05,
class_sep=1.0, random_state=K)``.

Usage::

    python benchmarks/bench_small_multiclass.py [--reps 5] [--sets digits,wine,iris,synth4,synth6]
        [--models logreg,nb,rf,hgb,mlp] [--output FILE]
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy.special import log_softmax
from scipy.stats import rankdata
from sklearn.datasets import load_digits, load_iris, load_wine, make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import venncal
from venncal.comparison import _ranking
from venncal.comparison._candidates import candidates_for

from _harness import load_average, log, machine_lines, save_report
from bench_small_data import MODELS as BINARY_MODELS

FIXED = ("uncalibrated", "temperature", "vector-scaling", "matrix-scaling",
         "structured-matrix-scaling", "ovr-platt", "temperature+ovr-ivap-clip",
         "structured-matrix-scaling+ovr-ivap-clip")
RULES = ("rule", "rule@temperature", "rule@vector", "rule-intervals", "rule-intervals@temperature",
         "lowest")
#: The rule with other K-class defaults (``DEFAULTS`` patched for one call of ``recommend``):
#: what it would pick had its defaults started from temperature or vector scaling.
STARTS = {
    "rule@temperature": (False, ("temperature", "vector-scaling", "structured-matrix-scaling",
                                 "matrix-scaling")),
    "rule@vector": (False, ("vector-scaling", "structured-matrix-scaling", "matrix-scaling",
                            "temperature")),
    "rule-intervals@temperature": (True, ("temperature+ovr-ivap-clip",
                                          "structured-matrix-scaling+ovr-ivap-clip",
                                          "temperature+ovr-ivap", "ovr-ivap", "ovo-ivap")),
}
#: Today's K-class defaults, against which a switch is scored.
DEFAULT = {"rule": "structured-matrix-scaling",
           "rule-intervals": "structured-matrix-scaling+ovr-ivap-clip",
           "lowest": "structured-matrix-scaling", "rule@temperature": "temperature",
           "rule@vector": "vector-scaling",
           "rule-intervals@temperature": "temperature+ovr-ivap-clip"}
MODELS = {
    **BINARY_MODELS,  # hgb, logreg (scaled), nb
    "rf": lambda seed: RandomForestClassifier(n_estimators=200, random_state=seed, n_jobs=1),
    "mlp": lambda seed: make_pipeline(StandardScaler(), MLPClassifier(
        hidden_layer_sizes=(64,), max_iter=500, random_state=seed)),
}
SIZES = {"digits": (100, 200, 400, 800), "synth4": (100, 200, 400, 1000),
         "synth6": (100, 200, 400, 1000), "wine": (40, 60), "iris": (40, 60)}


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The features and labels of a set (see the module docstring)."""
    if name.startswith("synth"):
        k = int(name[5:])
        return make_classification(n_samples=3000, n_features=20, n_informative=10,
                                   n_redundant=4, n_classes=k, n_clusters_per_class=2,
                                   flip_y=0.05, class_sep=1.0, random_state=k)
    loader = {"digits": load_digits, "wine": load_wine, "iris": load_iris}[name]
    return loader(return_X_y=True)


def scores_of(model, name: str, X: np.ndarray) -> tuple[np.ndarray, str]:
    """``(scores, kind)`` of a fitted model on ``X`` (see the module docstring)."""
    if name in ("logreg", "hgb"):
        return model.decision_function(X), "logit"
    if name == "rf":
        p = np.clip(model.predict_proba(X), 1e-4, 1.0)
        return p / p.sum(axis=1, keepdims=True), "proba"
    return np.maximum(model.predict_log_proba(X), -700.0), "logit"


def log_loss(y: np.ndarray, p: np.ndarray) -> float:
    """Mean log loss of probabilities ``p`` (columns in class order 0..K-1) for labels ``y``."""
    return float(-np.mean(np.log(np.clip(p[np.arange(y.shape[0]), y], 1e-300, 1.0))))


def one_split(X, y, n, model, seed, cands):
    """Held-out log loss of every fixed method and of the rules' picks on one split."""
    rest, cal = train_test_split(np.arange(y.shape[0]), test_size=n, random_state=seed,
                                 stratify=y)
    train, test = train_test_split(rest, test_size=0.5, random_state=seed, stratify=y[rest])
    m = MODELS[model](seed).fit(X[train], y[train])
    sc, kind = scores_of(m, model, X[cal])
    st, _ = scores_of(m, model, X[test])
    classes = list(range(sc.shape[1]))
    comparison = venncal.compare(sc, y[cal], score=kind, seed=seed)
    picks = {"rule": comparison.recommendation.method,
             "rule-intervals": comparison.recommend(intervals=True).method,
             "lowest": comparison.recommendation.best}
    for rule, (intervals, order) in STARTS.items():
        saved = _ranking.DEFAULTS[("multiclass", intervals)]
        _ranking.DEFAULTS[("multiclass", intervals)] = order
        try:
            picks[rule] = comparison.recommend(intervals=intervals).method
        finally:
            _ranking.DEFAULTS[("multiclass", intervals)] = saved
    out = {}
    for name in set(FIXED) | set(picks.values()):
        if name == "uncalibrated":
            p = np.exp(log_softmax(st, axis=1)) if kind == "logit" else st
            out[name] = log_loss(y[test], p)
            continue
        try:
            cal_ = cands[name].build(kind, classes).fit(sc, y[cal])
            out[name] = log_loss(y[test], cal_.predict_proba(st))
        except (ValueError, TypeError):  # a fit that fails on these rows
            out[name] = np.nan
    for rule, name in picks.items():
        out[rule] = out[name]
    return out, picks


def _params(method: str, k: int) -> int:
    """Nominal parameters of the K-class scalings (SMS: t, D, b; vector: K scales, K biases)."""
    return {"structured-matrix-scaling": k * k + k + 1, "vector-scaling": 2 * k,
            "temperature": 1}[method]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--sets", default="digits,wine,iris,synth4,synth6")
    parser.add_argument("--models", default="logreg,nb,rf,hgb,mlp")
    parser.add_argument("--sizes", help="calibration sizes for every set (default: per set)")
    parser.add_argument("--output")
    parser.add_argument("--rows", help="also save the raw results (JSON) to this file")
    parser.add_argument("--merge", nargs="+", metavar="JSON",
                        help="no run: the report of raw results saved by --rows (runs in parallel)")
    args = parser.parse_args()
    if args.merge:
        rows = [(*r[:5], {k: np.nan if v is None else v for k, v in r[5].items()}, r[6])
                for f in args.merge for r in json.loads(Path(f).read_text())]
        text = report(rows, FIXED + RULES, machine_lines(), args)
        print(text)
        if args.output:
            save_report(text, "small-multiclass", args.output)
        return
    warnings.simplefilter("ignore")
    head = machine_lines()
    methods = FIXED + RULES
    rows = []  # (set, K, n, model, rep, {method: loss}, picks)
    for name in args.sets.split(","):
        X, y = load(name)
        y = np.unique(y, return_inverse=True)[1]
        k = int(y.max()) + 1
        cands = {c.name: c for c in candidates_for("multiclass", "logit", None)}
        cands.update({c.name: c for c in candidates_for("multiclass", "proba", None)})
        for n in ([int(v) for v in args.sizes.split(",")] if args.sizes else SIZES[name]):
            for model in args.models.split(","):
                for rep in range(args.reps):
                    out, chosen = one_split(X, y, n, model, rep, cands)
                    rows.append((name, k, n, model, rep, out, chosen))
                log(f"{name} n={n} {model} done (load {load_average()})")
                if args.rows:  # after each group, so that a stopped run leaves its results
                    _save_rows(rows, args.rows)
    text = report(rows, methods, head, args)
    print(text)
    if args.output:
        save_report(text, "small-multiclass", args.output)


def _save_rows(rows, path: str) -> None:
    tmp = Path(path + ".tmp")
    tmp.write_text(json.dumps([(*r[:5], {k: None if np.isnan(v) else v for k, v in r[5].items()},
                                r[6]) for r in rows]))
    tmp.replace(path)


def _table(groups: dict, methods, title: str) -> list[str]:
    lines = [title, "", "| group | splits | " + " | ".join(methods) + " |",
             "|---|---|" + "---|" * len(methods)]
    for key in sorted(groups):
        rs = groups[key]
        table = np.array([[r[5][m] for m in methods] for r in rs])
        ranks = np.array([rankdata(np.where(np.isnan(t), np.inf, t)) for t in table])
        cells = [f"{np.nanmean(table[:, j]):.4f} ({ranks[:, j].mean():.2f})"
                 for j in range(len(methods))]
        lines.append(f"| {key} | {len(rs)} | " + " | ".join(cells) + " |")
    return lines + [""]


def _worse(groups: dict, methods, title: str) -> list[str]:
    lines = [title, "", "| group | " + " | ".join(methods) + " |",
             "|---|" + "---|" * len(methods)]
    for key in sorted(groups):
        rs = groups[key]
        cells = [f"{np.mean([r[5][m] > r[5]['uncalibrated'] or np.isnan(r[5][m]) for r in rs]):.0%}"
                 for m in methods]
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    return lines + [""]


def report(rows, methods, head, args) -> str:
    by = {"K, n": lambda r: f"K={r[1]:>2} n={r[2]:>4}",
          "set, n": lambda r: f"{r[0]} n={r[2]:>4}",
          "n per SMS parameter": lambda r: _bucket(r[2] / _params("structured-matrix-scaling",
                                                                  r[1])),
          "n per vector-scaling parameter": lambda r: _bucket(r[2] / _params("vector-scaling",
                                                                             r[1])),
          "model": lambda r: r[3]}
    lines = ["# Small K-class calibration sets: the default rule against fixed calibrators", "",
             *head, "",
             "Mean held-out log loss (mean rank among the columns, 1 = best, per split; NaN: a "
             "failed fit, ranked last). `rule`: compare's default rule; `rule-intervals`: with "
             "intervals; `lowest`: the lowest mean out-of-fold log loss. Parameters: SMS "
             "K^2+K+1 (nominal, shrunk), vector scaling 2K, temperature 1.", ""]
    for label, key in by.items():
        groups = defaultdict(list)
        for r in rows:
            groups[key(r)].append(r)
        lines += _table(groups, methods, f"## By {label}")
        if label in ("K, n", "n per SMS parameter"):
            lines += _worse(groups, methods, f"Share of splits worse than uncalibrated, by {label}:")
    picks = defaultdict(lambda: defaultdict(int))
    for r in rows:
        for rule, p in r[6].items():
            picks[(f"K={r[1]:>2} n={r[2]:>4}", rule)][p] += 1
    lines += ["## The rules' picks", ""]
    for (g, rule), counts in sorted(picks.items()):
        top = sorted(counts.items(), key=lambda kv: -kv[1])[:5]
        lines.append(f"- {g}, {rule}: " + ", ".join(f"{k} {v}" for k, v in top))
    nans = defaultdict(int)
    for r in rows:
        for m in methods:
            if np.isnan(r[5][m]):
                nans[m] += 1
    lines += ["", "Failed fits (NaN): " + (", ".join(f"{m} {c}" for m, c in nans.items())
                                           or "none"),
              f"- load average at end: {load_average()}"]
    return "\n".join(lines) + "\n"


def _bucket(x: float) -> str:
    edges = (1, 2, 4, 8, 16, 1e9)
    lo = 0
    for e in edges:
        if x < e:
            return f"[{lo:g}, {e:g})" if e < 1e9 else f">= {lo:g}"
        lo = e
    return "?"


if __name__ == "__main__":
    main()
