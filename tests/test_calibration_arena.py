"""The calibration arena (issue 25, deliverable 5): tasks, methods, summaries, targets, report."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from venncal.experiments import EXPERIMENTS
from venncal.experiments import calibration_arena as exp
from venncal.experiments._arena_methods import (
    EXTRA_CHAINS,
    FIRST_STAGE,
    RECOMMENDS,
    MethodScore,
    methods_for,
)
from venncal.experiments._arena_summary import (
    chain_target,
    mean_ranks,
    recommend_target,
    task_ranks,
    where_methods_win,
    win_rates,
)
from venncal.experiments._arena_tasks import TaskSpec, build_task, synthetic_logits

FEW = ("uncalibrated", "platt", "ivap", "platt+ivap")
SPECS = (TaskSpec("synthetic-binary", "K2-overconfident", "logits", 0),)


def test_registered():
    assert EXPERIMENTS["calibration-arena"].module == "calibration_arena"
    assert exp.NAME == "calibration-arena"


def test_methods_reuse_the_candidates_and_add_the_chains():
    from venncal.comparison import CANDIDATES

    binary = [c.name for c in methods_for("binary", "logit", 2)]
    multi = [c.name for c in methods_for("multiclass", "logit", 10)]
    assert binary[:len([c for c in CANDIDATES if c.problem == "binary"])] == [
        c.name for c in CANDIDATES if c.problem == "binary"]
    assert {"platt+ivap", "beta+ivap"} <= set(binary)
    assert {"temperature+ovr-ivap", "temperature+ovo-ivap", "vector-scaling+ovr-ivap"} <= set(multi)
    assert "ovo-ivap" not in [c.name for c in methods_for("multiclass", "logit", 100)]
    assert all(c.intervals for c in EXTRA_CHAINS)
    chains = {c.name for c in CANDIDATES if "+" in c.name}
    assert set(FIRST_STAGE) == {c.name for c in EXTRA_CHAINS} | chains
    assert not chains & {c.name for c in EXTRA_CHAINS}  # one table: each method once


def test_the_arena_methods_are_the_same_set_as_before_the_clipped_chains_moved():
    """The clipped chains moved from the arena's extras to the comparison's candidates (issue 25):
    the arena's methods are the same set as before, and the comparison now has the chains."""
    from venncal.comparison import CANDIDATES

    binary = {"uncalibrated", "platt", "beta", "quadratic-logistic", "isotonic", "histogram",
              "bbq", "enir", "ivap", "cvap", "platt+ivap", "beta+ivap",
              "quadratic-logistic+ivap", "platt+ivap-clip", "beta+ivap-clip"}
    multi = {"uncalibrated", "temperature", "vector-scaling", "matrix-scaling",
             "structured-matrix-scaling", "ovr-platt", "ovr-isotonic", "ovr-ivap", "ovo-ivap",
             "temperature+ovr-ivap", "vector-scaling+ovr-ivap",
             "structured-matrix-scaling+ovr-ivap", "temperature+ovo-ivap",
             "temperature+ovo-ivap-normalize", "temperature+ovo-ivap-wlw",
             "vector-scaling+ovo-ivap", "structured-matrix-scaling+ovo-ivap",
             "temperature+ovr-ivap-clip", "vector-scaling+ovr-ivap-clip",
             "structured-matrix-scaling+ovr-ivap-clip", "temperature+ovr-ivap-cap",
             "vector-scaling+ovr-ivap-cap", "structured-matrix-scaling+ovr-ivap-cap"}
    assert {c.name for c in methods_for("binary", "logit", 2)} == binary
    assert {c.name for c in methods_for("multiclass", "logit", 10)} == multi
    compared = {c.name for c in CANDIDATES}
    assert {"platt+ivap-clip", "beta+ivap-clip", "temperature+ovr-ivap-cap",
            "vector-scaling+ovr-ivap-cap", "structured-matrix-scaling+ovr-ivap-cap"} <= compared


def test_synthetic_logits_distortions():
    rng = np.random.default_rng(0)
    z, y, p = synthetic_logits(10, "overconfident", rng, 3000)
    # overconfident: the softmax of the observed logits is sharper than the truth
    zs = np.exp(z - z.max(axis=1, keepdims=True))
    assert (zs / zs.sum(axis=1, keepdims=True)).max(axis=1).mean() > p.max(axis=1).mean()
    assert set(np.unique(y)) <= set(range(10))
    with pytest.raises(ValueError, match="unknown distortion"):
        synthetic_logits(3, "wobbly", rng, 5)


def test_build_task_splits_a_bundled_set():
    task = build_task(TaskSpec("multiclass", "iris", "NB", 0), seed=0)
    train, cal, test = task.sizes
    assert (train, cal, test) == (75, 39, 36) or train + cal + test == 150
    assert task.s_cal.shape == (cal, 3) and task.score == "logit"
    assert set(np.unique(task.y_cal)) == {0, 1, 2}


def _hand_task(group, data, losses, recommended=None, failures=None):
    scores = {m: MethodScore(v, v / 2, math.nan, 0.01) for m, v in losses.items()}
    if recommended:
        scores[RECOMMENDS] = scores[recommended]
    return SimpleNamespace(spec=TaskSpec(group, data, "m", 0), scores=scores,
                           failures=failures or {}, recommended=recommended)


def test_ranks_and_targets_on_a_hand_made_result():
    t1 = _hand_task("multiclass", "a", {"uncalibrated": 1.0, "temperature": 0.50,
                                        "temperature+ovr-ivap": 0.504}, "temperature")
    t2 = _hand_task("multiclass", "b", {"uncalibrated": 0.9, "temperature": 0.60,
                                        "temperature+ovr-ivap": 0.59}, "temperature")
    t3 = _hand_task("multiclass", "c", {"uncalibrated": 0.7, "temperature": 0.40,
                                        "temperature+ovr-ivap": 0.41}, "uncalibrated",
                    failures={})
    assert task_ranks(t1) == {"uncalibrated": 3.0, "temperature": 1.0,
                              "temperature+ovr-ivap": 2.0, RECOMMENDS: 1.0}
    ranks = mean_ranks([t1, t2, t3])
    assert ranks["temperature"] == (pytest.approx(4 / 3), 3)
    assert ranks[RECOMMENDS] == (pytest.approx((1 + 2 + 3) / 3), 3)
    # target 1: 0.504 / 0.50 = 1.008 and 0.59 / 0.60 within 1%; 0.41 / 0.40 = 1.025 not
    share, n, ratio = chain_target([t1, t2, t3])["temperature+ovr-ivap"]
    assert (share, n) == (pytest.approx(2 / 3), 3) and ratio == pytest.approx(1.008)
    # target 2: venncal recommends (2.0) is behind temperature (4/3) and the chain (5/3)
    mine, best, best_rank, place = recommend_target([t1, t2, t3])
    assert (mine, best, best_rank, place) == (pytest.approx(2.0), "temperature",
                                              pytest.approx(4 / 3), 3)
    rates = win_rates([t1, t2, t3], ["temperature", RECOMMENDS])
    assert rates["temperature"][RECOMMENDS] == pytest.approx(2 / 3)  # 2 ties, 1 win
    wins = where_methods_win([t1, t2, t3])
    assert wins["uncalibrated"]["beats_uncalibrated"] == 0.0
    assert wins["temperature"]["best_share"] == pytest.approx(2 / 3)


def test_a_failed_method_ranks_last():
    t = _hand_task("binary", "a", {"platt": 0.5, "ivap": 0.4},
                   failures={"bbq": "ValueError: no"})
    assert task_ranks(t) == {"platt": 2.0, "ivap": 1.0, "bbq": 3.0}


@pytest.fixture(scope="module")
def tiny():
    return exp.run(specs=SPECS, methods=FEW, seed=3)


def test_tiny_run_is_deterministic_under_the_seed(tiny):
    again = exp.run(specs=SPECS, methods=FEW, seed=3)
    (a,), (b,) = tiny.tasks, again.tasks
    assert a.recommended == b.recommended and a.recommended in FEW
    assert {m: s._replace(seconds=0) for m, s in a.scores.items()} == {
        m: s._replace(seconds=0) for m, s in b.scores.items()}
    assert set(a.scores) == {*FEW, RECOMMENDS}
    assert a.oracle is not None and a.oracle <= min(s.log_loss for s in a.scores.values()) + 0.02
    assert a.scores["ivap"].width > 0 and math.isnan(a.scores["platt"].width)


def test_tiny_report_tables_and_files(tiny, tmp_path):
    written = exp.report(tiny, tmp_path)
    md = written.markdown.read_text("utf-8")
    assert written.markdown == tmp_path / "report.md"
    for needle in ("Reproduction: calibration-arena", "**Target 1**", "**Target 2**",
                   "Mean ranks (synthetic logits, K = 2", "Win rates by log loss",
                   "Where each method wins and loses", "In plain words", "venncal recommends",
                   "no multiclass task ran a chain", "K2-overconfident/logits/0: floor"):
        assert needle in md
    assert "Targets" in written.text and "rank log loss" in written.text
    for fig in written.figures:
        assert fig.exists() and fig.parent == tmp_path
    assert "`tasks.json`" in md


def test_tasks_json_replays_the_recommendation(tiny, tmp_path):
    """tasks.json holds each task's scores and its comparison's rule inputs (strict JSON),
    and replaying the rule on them gives the pick the arena scored."""
    import json

    from venncal.comparison import recommend

    exp.report(tiny, tmp_path)
    (row,) = json.loads((tmp_path / "tasks.json").read_text("utf-8"),
                        parse_constant=lambda c: pytest.fail(f"non-strict JSON {c}"))
    (task,) = tiny.tasks
    assert row["recommended"] == task.recommended and set(row["scores"]) == set(task.scores)
    assert row["scores"]["platt"]["log_loss"] == task.scores["platt"].log_loss
    inputs = row["rule_inputs"]
    inputs["losses"] = {m: np.array(v, dtype=float) for m, v in inputs["losses"].items()}
    assert recommend(**inputs, intervals=False).method == task.recommended
    inputs["problem"] = None
    assert recommend(**inputs, intervals=False).method == task.recommended_old


def test_default_specs_sizes():
    quick = exp.default_specs(True, 1, uci=False)
    assert len(quick) == 7 and {s.group for s in quick} == {
        "binary", "multiclass", "synthetic-binary", "synthetic-multiclass"}
    full = exp.default_specs(False, 2, uci=True)
    assert len(full) == 2 * (9 * 5 + 3 * 5 + 3 * 4)
    assert len(exp.default_specs(False, 1, uci=False)) == 2 * 5 + 15 + 12


def test_build_task_reads_a_uci_set_from_the_data_folder():
    from pathlib import Path

    folder = Path("/work/shared/datasets")
    if not (folder / "statlog-australian-credit").is_dir():
        pytest.skip("the shared data store is not here")
    task = build_task(TaskSpec("binary", "australian", "NB", 0), seed=0, data_dir=folder)
    assert task.s_cal.ndim == 1 and sum(task.sizes) == 690 and task.score == "logit"


def test_random_forest_probabilities_are_clipped_for_the_linear_maps():
    task = build_task(TaskSpec("multiclass", "iris", "RF", 0), seed=0)
    assert task.score == "proba" and task.s_cal.min() >= 1e-3 * 0.99
    assert np.allclose(task.s_cal.sum(axis=1), 1.0)


def test_the_old_rule_is_ranked_beside_the_new_on_the_same_tasks():
    from venncal.experiments._arena_methods import RECOMMENDS_OLD

    t1 = _hand_task("binary", "a", {"beta": 0.40, "platt": 0.42, "isotonic": 0.45}, "beta")
    t2 = _hand_task("binary", "b", {"beta": 0.30, "platt": 0.29, "isotonic": 0.35}, "beta")
    t1.recommended_old, t2.recommended_old = "isotonic", "platt"
    assert task_ranks(t1)[RECOMMENDS_OLD] == 3.0 and task_ranks(t1)[RECOMMENDS] == 1.0
    assert recommend_target([t1, t2]) == (pytest.approx(1.5), "beta", pytest.approx(1.5), 1)
    assert recommend_target([t1, t2], meta=RECOMMENDS_OLD) == (
        pytest.approx(2.0), "beta", pytest.approx(1.5), 3)
    assert win_rates([t1, t2], [RECOMMENDS, RECOMMENDS_OLD])[RECOMMENDS][RECOMMENDS_OLD] == 0.5
    # an old pick that failed on the test rows ranks last
    t1.recommended_old = "bbq"
    t1.failures = {"bbq": "ValueError: no"}
    assert task_ranks(t1)[RECOMMENDS_OLD] == 4.0
    # tasks without the old rule's pick (hand-made, or the meta-method off) leave it out
    assert RECOMMENDS_OLD not in mean_ranks([_hand_task("binary", "c", {"beta": 0.1}, "beta")])


def test_chain_target_counts_a_chain_as_infinite_as_its_first_stage_as_equal():
    # digits/RF: vector scaling and its clipped chain both infinite; inf / inf gave a NaN median
    t1 = _hand_task("multiclass", "a", {"vector-scaling": math.inf,
                                        "vector-scaling+ovr-ivap-clip": math.inf})
    t2 = _hand_task("multiclass", "b", {"vector-scaling": 0.5,
                                        "vector-scaling+ovr-ivap-clip": 0.6})
    share, n, ratio = chain_target([t1, t2])["vector-scaling+ovr-ivap-clip"]
    assert (share, n) == (0.5, 2) and ratio == pytest.approx(1.1)
