"""The calibration arena's report: ranking tables per group, win rates, times, widths,
where each method wins and loses, the two targets, and two figures."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

from .._json import strict_json
from ._arena_methods import FIRST_STAGE, RECOMMENDS, RECOMMENDS_OLD
from ._arena_summary import (
    CHAIN_TOLERANCE,
    GROUPS,
    TARGET_SHARE,
    chain_target,
    mean_ranks,
    median_of,
    recommend_target,
    where_methods_win,
    win_rates,
)
from ._arena_tasks import BINARY_MODELS, DISTORTIONS, MULTICLASS_MODELS
from ._report import ReportDraft, new_figure

__all__ = ["report", "target_lines", "tasks_json"]

_PROTOCOL = (
    "The calibration arena (issue 25, deliverable 5), reported like CalArena (Berta et al. "
    "2026). Binary tabular tasks: scikit-learn's breast-cancer set, adult (shipped) and, "
    "given the data folder, bank and six small UCI sets, each under logistic regression, a "
    "random forest, histogram gradient boosting, Gaussian naive Bayes and an RBF SVM. "
    "Multiclass tabular: iris, wine and digits under logistic regression, a random forest, "
    "gradient boosting, naive Bayes and an MLP. Synthetic logits (deep-learning-like), K = 2, "
    "10 and 100, distorted in a known way. Each tabular task splits each class's rows at "
    "random into training (50%), calibration (25%) and test (25%); each synthetic task draws "
    "2,000 calibration and 5,000 test rows. Every method is fitted on the calibration rows "
    "and scored on the test rows (log loss in nats; Brier summed over the classes). "
    "\"venncal recommends\" runs `venncal.compare` (5 stratified folds) on the calibration "
    "rows only and is scored with the method it recommends, refitted on all of them; "
    "\"lowest CV mean (old rule)\" is the same comparison's pick under the rule before "
    "(the method of lowest mean out-of-fold log loss). Ranks: "
    "per task among the methods that ran (a failure ranks last), averaged over tasks; "
    "the two meta-methods take their pick's rank."
)


def _f(v: float, digits: int = 2) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"


def _table(header: list[str], rows: list[list[str]]) -> tuple[list[str], list[str]]:
    """(Markdown lines, plain-text lines) of one table."""
    md = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    md += ["| " + " | ".join(r) + " |" for r in rows]
    widths = [max(len(x[j]) for x in [header, *rows]) for j in range(len(header))]
    text = ["  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in
                      enumerate(zip(r, widths, strict=True))).rstrip() for r in [header, *rows]]
    return md, text


def _add(draft: ReportDraft, title: str, header: list[str], rows: list[list[str]]) -> None:
    md, text = _table(header, rows)
    draft.md += [f"### {title}", "", *md, ""]
    draft.text += [title, *text, ""]


def target_lines(tasks) -> list[str]:
    """The two targets, computed and said plainly (Markdown bullets)."""
    lines = [f"**Target 1** (a chain's test log loss within {CHAIN_TOLERANCE - 1:.0%} of its "
             f"first stage's on at least {TARGET_SHARE:.0%} of the multiclass tasks):"]
    chains = chain_target(tasks)
    if not chains:
        lines.append("- no multiclass task ran a chain and its first stage")
    for chain, (share, n, ratio) in chains.items():
        ok = "met" if share >= TARGET_SHARE else "MISSED"
        lines.append(f"- {chain} (first stage {FIRST_STAGE[chain]}): {share:.0%} of {n} tasks, "
                     f"median ratio {ratio:.4f}: {ok}")
    lines += ["", "**Target 2** (\"venncal recommends\" with the best mean log-loss rank of all "
                  "methods; the default rule, and beside it the lowest-mean rule on the same "
                  "comparisons):"]
    groups = [(title, [t for t in tasks if t.spec.group == g]) for g, title in GROUPS.items()]
    groups.append(("all tasks (a fixed method's mean rank over the tasks where it ran)", tasks))
    for title, mine in groups:
        if not mine:
            continue
        rank, best, best_rank, place = recommend_target(mine)
        if not best:
            continue
        ok = "met" if place == 1 else f"MISSED (place {place})"
        old, _b, _r, old_place = recommend_target(mine, meta=RECOMMENDS_OLD)
        was = (f"; old rule {_f(old)}, place {old_place}" if old_place else "")
        lines.append(f"- {title}: venncal recommends {_f(rank)}, place {place} of "
                     f"{_n_fixed(mine) + 1}; best fixed method {best} {_f(best_rank)}: {ok}{was}")
    return lines


def _n_fixed(tasks) -> int:
    """How many fixed methods the tasks rank."""
    return len([m for m in mean_ranks(tasks) if m not in (RECOMMENDS, RECOMMENDS_OLD)])


def _group_section(draft: ReportDraft, group: str, tasks) -> None:
    title = GROUPS[group]
    ll, br = mean_ranks(tasks, "log_loss"), mean_ranks(tasks, "brier")
    order = sorted(ll, key=lambda m: (ll[m][0], m))
    draft.md += [f"## {title}: {len(tasks)} tasks", ""]
    draft.text += [f"== {title}: {len(tasks)} tasks ==", ""]
    wins = where_methods_win(tasks)
    rows = []
    for m in order:
        fails = sum(m in t.failures for t in tasks)
        w = wins.get(m, {})
        rows.append([m, _f(ll[m][0]), _f(br[m][0]), str(ll[m][1]), str(fails),
                     _f(100 * w.get("best_share", math.nan), 0),
                     _f(100 * w.get("beats_uncalibrated", math.nan), 0),
                     _f(median_of(tasks, m, "seconds"), 3), _f(median_of(tasks, m, "width"), 4)])
    _add(draft, f"Mean ranks ({title})",
         ["method", "rank log loss", "rank Brier", "tasks", "failed", "% best",
          "% beats uncal.", "median s", "median width"], rows)
    top = order[:8]
    rates = win_rates(tasks, top)
    _add(draft, "Win rates by log loss (row beats column on this share of tasks, ties half; "
                "the 8 best by mean rank)",
         ["", *[str(i + 1) for i in range(len(top))]],
         [[f"{i + 1} {a}", *("-" if a == b else _f(rates[a][b]) for b in top)]
          for i, a in enumerate(top)])
    _add(draft, "Where each method wins and loses (mean log-loss rank per data/model)",
         ["method", "best on", "worst on"],
         [[m, f"{wins[m]['best_case']} ({_f(wins[m]['case_ranks'][wins[m]['best_case']], 1)})",
           f"{wins[m]['worst_case']} ({_f(wins[m]['case_ranks'][wins[m]['worst_case']], 1)})"]
          for m in order if m in wins])
    picks = Counter(t.recommended for t in tasks)
    draft.md += ["\"venncal recommends\" picked: " + ", ".join(
        f"{m} ({n})" for m, n in picks.most_common()), ""]
    old = Counter(t.recommended_old for t in tasks if getattr(t, "recommended_old", None))
    if old:
        draft.md += ["the lowest-mean rule (old) picked: " + ", ".join(
            f"{m} ({n})" for m, n in old.most_common()), ""]
    draft.md += [*_plain_words(order, ll, wins), ""]


def _plain_words(order, ll, wins) -> list[str]:
    """Where each method wins and where it loses, said plainly."""
    out = ["In plain words:", ""]
    for m in order:
        w = wins.get(m)
        if not w:
            continue
        beat = w["beats_uncalibrated"]
        verdict = ("usually helps" if beat >= 0.7 else "often hurts" if beat < 0.5
                   else "helps about as often as it hurts") if not math.isnan(beat) else ""
        out.append(f"- **{m}** (mean rank {_f(ll[m][0])}): best on {w['best_share']:.0%} of "
                   f"tasks, strongest on {w['best_case']}, weakest on {w['worst_case']}"
                   + (f"; beats the uncalibrated scores on {beat:.0%} of tasks ({verdict})"
                      if verdict else "") + ".")
    return out


def _rank_figure(result, path: Path) -> bool:
    groups = [g for g in GROUPS if any(t.spec.group == g for t in result.tasks)]
    made = new_figure(len(groups), (5.2 * len(groups), 6.0))
    if made is None:
        return False
    fig, axes = made
    for ax, g in zip(axes, groups, strict=True):
        ranks = mean_ranks([t for t in result.tasks if t.spec.group == g])
        names = sorted(ranks, key=lambda m: -ranks[m][0])
        colors = ["C3" if m == RECOMMENDS else "C1" if m == RECOMMENDS_OLD else
                  "C0" if "ivap" in m or "cvap" in m else "C7" for m in names]
        ax.barh(names, [ranks[m][0] for m in names], color=colors)
        ax.set_title(GROUPS[g], fontsize=9)
        ax.set_xlabel("mean log-loss rank (lower is better)")
        ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def report(result, out_dir, *, command: str | None = None):
    """Write ``out_dir/report.md`` and its figures; return the :class:`Report`."""
    tasks = result.tasks
    sizes = Counter(t.spec.group for t in tasks)
    facts = [f"- mode: {result.info.mode}; {len(tasks)} tasks, {result.reps} repetition(s) per "
             "(data, model): " + ", ".join(f"{g} {n}" for g, n in sizes.items()),
             "- split: training 50%, calibration 25%, test 25% (stratified); synthetic: 2,000 "
             "calibration and 5,000 test rows",
             "- binary models: " + "; ".join(f"{k}: {v}" for k, v in BINARY_MODELS.items()),
             "- multiclass models: " + "; ".join(f"{k}: {v}" for k, v in
                                                 MULTICLASS_MODELS.items()),
             "- synthetic distortions: " + "; ".join(f"{k}: {v}" for k, v in DISTORTIONS.items()),
             "- K = 100: matrix scaling and every one-vs-one method left out (4,950 pairwise "
             "predictors or 10,000 parameters per fit)"]
    if result.info.quick:
        facts.append("- quick mode: only a few tasks of each group (breast-cancer x LR/RF/NB, "
                     "wine x LR/NB, one K = 2 and one K = 10 synthetic task); numbers are "
                     "indicative only")
    facts += [f"- left out: {d} ({why})" for d, why in result.skipped.items()]
    draft = ReportDraft(result.info, out_dir, _PROTOCOL, command, facts)
    draft.md += ["## The issue's targets", "", *target_lines(tasks), ""]
    draft.text += ["Targets", *target_lines(tasks), ""]
    draft.image("ranks.png", lambda p: _rank_figure(result, p),
                "mean log-loss rank per group (red: venncal recommends, orange: the old "
                "lowest-mean rule, blue: Venn-Abers)")
    for g in GROUPS:
        mine = [t for t in tasks if t.spec.group == g]
        if mine:
            _group_section(draft, g, mine)
    failures = [(t.spec.name, m, why) for t in tasks for m, why in t.failures.items()]
    if failures:
        draft.md += ["## Failures", "", *[f"- {n}: {m}: {why}" for n, m, why in failures], ""]
    oracle = [t for t in tasks if t.oracle is not None]
    if oracle:
        draft.md += ["## Synthetic tasks: the true probabilities' log loss (the floor)", ""]
        draft.md += [f"- {t.spec.name}: floor {t.oracle:.4f}, best method "
                     f"{min(t.scores, key=lambda m: t.scores[m].log_loss)} "
                     f"{min(s.log_loss for s in t.scores.values()):.4f}" for t in oracle]
        draft.md.append("")
    tasks_json(tasks, Path(out_dir) / "tasks.json")
    draft.md += ["Every task's numbers, and the inputs of its comparison's rule (to replay a "
                 "rule with `venncal.comparison.recommend`): `tasks.json`.", ""]
    return draft.write()


def tasks_json(tasks, path) -> None:
    """Write every task's scores, failures, picks and rule inputs to ``path`` (JSON)."""
    import json

    rows = [{"group": t.spec.group, "data": t.spec.data, "model": t.spec.model,
             "rep": t.spec.rep, "score": t.score, "sizes": list(t.sizes),
             "classes": t.n_classes, "recommended": t.recommended,
             "recommended_old": t.recommended_old, "reason": t.reason, "oracle": t.oracle,
             "scores": {m: s._asdict() for m, s in t.scores.items()},
             "failures": t.failures, "rule_inputs": t.rule_inputs} for t in tasks]
    Path(path).write_text(json.dumps(strict_json(rows), allow_nan=False) + "\n")
