"""Held-out log loss of Beta, Platt-on-logits and quadratic logistic on RF / naive Bayes
probabilities clipped at candidate eps values (docs/parametric.md, "Probabilities of 0 and 1").

Usage: python benchmarks/bench_proba_clip.py diabetes,australian,breast,ionosphere,vote,liver
(reads the UCI sets from $VENNCAL_DATA, default /work/shared/datasets)."""
import os
import sys
import warnings

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import GaussianNB
from sklearn.model_selection import StratifiedShuffleSplit
from venncal.datasets import load_dataset
from venncal.parametric import BetaCalibrator, QuadraticLogisticCalibrator
from venncal.baselines import PlattCalibrator
warnings.simplefilter("ignore")
D = os.environ.get("VENNCAL_DATA", "/work/shared/datasets")
sets = sys.argv[1].split(",")
cands = {"2^-52": 2.0**-52, "1e-12": 1e-12, "1e-7": 1e-7, "1/(2n)": None}
def logit_clip(p, eps):
    with np.errstate(divide="ignore"):
        z = np.log(p) - np.log1p(-p)
    L = np.log1p(-eps) - np.log(eps)
    return np.clip(z, -L, L)
def ll(p, y):
    p = np.clip(p, 1e-300, 1 - 2**-53)
    return -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p))
res = {}
for name in sets:
    X, y, _ = load_dataset(name, data_dir=D)
    for mname, mk in [("RF", lambda s: RandomForestClassifier(100, random_state=s, n_jobs=1)), ("NB", lambda s: GaussianNB())]:
        for rep in range(10):
            sss = StratifiedShuffleSplit(1, test_size=0.5, random_state=rep)
            tr, rest = next(sss.split(X, y))
            sss2 = StratifiedShuffleSplit(1, test_size=0.5, random_state=100 + rep)
            ca, te = next(sss2.split(X[rest], y[rest])); ca, te = rest[ca], rest[te]
            m = mk(rep).fit(X[tr], y[tr])
            pc, pt = m.predict_proba(X[ca])[:, 1], m.predict_proba(X[te])[:, 1]
            for cn, eps in cands.items():
                e = 1 / (2 * len(ca)) if eps is None else eps
                zc, zt = logit_clip(pc, e), logit_clip(pt, e)
                for calname, cal in [("beta", BetaCalibrator(score="logit")), ("platt", PlattCalibrator(score="logit", targets="labels")), ("quad", QuadraticLogisticCalibrator(score="logit"))]:
                    try:
                        cal.fit(zc, y[ca]); v = ll(cal.predict_proba(zt)[:, 1], y[te])
                    except ValueError as ex:
                        v = np.nan
                    res.setdefault((name, mname, calname, cn), []).append(v)
            res.setdefault((name, mname, "frac01", "-"), []).append(np.mean((pc == 0) | (pc == 1)))
for k, v in sorted(res.items()):
    v = np.array(v); print(*k, f"mean={np.nanmean(v):.4f} fails={np.isnan(v).sum()}")
# mean excess over the best candidate's mean log loss per (set, model, calibrator)
for sub in ("RF", "NB", None):
    excess = {c: [] for c in cands}
    fails = dict.fromkeys(cands, 0)
    for (name, mname, calname, _), _v in res.items():
        if calname == "frac01" or (sub and mname != sub) or _ != "1e-7":
            continue
        means = {c: np.nanmean(res[(name, mname, calname, c)]) for c in cands}
        best = min(means.values())
        for c in cands:
            excess[c].append(means[c] / best - 1)
            fails[c] += int(np.isnan(res[(name, mname, calname, c)]).sum())
    print(sub or "all", {c: (f"{100 * np.mean(e):.1f}%", f"{100 * np.median(e):.1f}%", fails[c])
                         for c, e in excess.items()})
