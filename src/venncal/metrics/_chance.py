"""Scores or probabilities that rank the positive class below chance (AUC < 0.5).

A calibrator fitted on such scores is nearly flat, and probabilities that
rank that way usually mean the wrong class was named positive.
:func:`below_chance` tells (for a :class:`~venncal.summary.ScoreSummary`,
as ``venncal fit`` sees its data, or for an AUC already computed, as
``venncal evaluate`` has it) and says what to try instead; the front end
names its own options for the advice.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

__all__ = ["below_chance"]


def below_chance(
    ranking, positive, others: Sequence = (), *, subject: str = "", negated: bool | None = None,
    positive_given: bool = False, option: str = "positive_label", flip: str = "decreasing",
) -> str | None:
    """Return a warning when ``ranking`` puts ``positive`` below chance, else None.

    Parameters
    ----------
    ranking : ScoreSummary or float
        The summary of the scores the calibrator sees (label 1 the positive
        class; one class only ranks nothing: None), or an AUC (NaN: None).
    positive : object
        The positive class.
    others : sequence
        The other label(s): the first is offered as the positive class.
    subject : str
        What ranks (``"column 'p'"``), when ``ranking`` is an AUC.
    negated : bool, default=None
        For a summary: the calibrator sees minus the scores (``flip`` was
        given, and the summary is of minus the scores) when True, the scores
        when False.
    positive_given : bool, default=False
        For a summary: the positive class was named by ``option``.
    option, flip : str
        How the warning names the parameter that names the positive class
        and the one that negates the score.

    Examples
    --------
    >>> below_chance(0.25, "yes", ["no"], subject="column 'p'")
    "column 'p' ranks the positive class 'yes' below chance (AUC 0.250); if 'no' is the positive class, give positive_label no"
    >>> below_chance(0.75, "yes", ["no"], subject="column 'p'") is None
    True
    """
    if negated is None:
        if not ranking < 0.5:  # False for NaN (a single class)
            return None
        hint = ""
        if others:
            hint = (f"; if {others[0]!r} is the positive class, give {option} "
                    f"{shlex.quote(str(others[0]))}")
        return f"{subject} ranks the positive class {positive!r} below chance (AUC {ranking:.3f}){hint}"
    try:
        auc = ranking.auc()
    except ValueError:  # one class only: nothing to rank
        return None
    if not auc < 0.5:
        return None
    negative = others[0]
    other = f"with {option} {negative}" + (" instead" if positive_given else "")
    direction = "minus the score" if negated else "the score"
    return (
        f"{direction} ranks the positive class {positive!r} below chance on the calibration "
        f"data (AUC {auc:.3f} < 0.5), so the calibrated probabilities will hardly depend on "
        f"the score; if the score predicts {negative!r}, fit {other}; if it falls as "
        f"{positive!r} becomes more likely, fit {'without' if negated else 'with'} {flip}"
    )
