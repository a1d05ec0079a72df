"""Real data sets for examples, tests, benchmarks and the ``venncal demo`` command.

The Adult data files live in ``venncal/datasets/data/`` (see the README there for sources,
licences and checksums). The other UCI data sets (:data:`DATASETS`) are read by
:func:`load_dataset` from a local copy of the shared data store (``data_dir`` or the
environment variable ``VENNCAL_DATA``). Everything is read with the standard library and
numpy only. :func:`paper_tables` returns the published result tables of a paper (the reproduction
targets).
"""

import json
from functools import cache
from importlib import resources
from typing import Any

from ._adult import load_adult
from ._uci import DATASETS, load_dataset

__all__ = ["DATASETS", "load_adult", "load_dataset", "paper_tables"]


#: Papers whose published tables ship with venncal: paper id -> file in this package.
_PAPER_FILES = {
    "000": "paper000_tables.json",
    "001": "paper001_tables.json",
    "002": "paper002_tables.json",
    "004": "paper004_tables.json",
}


@cache
def _paper_tables_text(paper: str) -> str:
    return resources.files(__package__).joinpath(_PAPER_FILES[paper]).read_text("utf-8")


def paper_tables(paper: str) -> dict[str, Any]:
    """Return the published result tables of one reproduced paper, as a fresh dict.

    Each paper's tables are stored once, in ``venncal/datasets/paper<id>_tables.json``;
    the reproduced experiments read them from here. Values are floats, the string
    ``"inf"`` for infinity, or ``None`` where the paper's text could not be read with
    certainty (listed in ``"notes"``).

    Parameters
    ----------
    paper : {"000", "001", "002", "004"}
        ``"000"``: Vovk, Petej & Fedorova (2015), *Large-scale probabilistic predictors
        with and without guarantees of validity*. Keys ``"table1"`` (mean log loss, base
        2) and ``"table2"`` (mean Brier loss ``4 (y - p)**2``), each
        ``table[learner][method]`` with the learners of ``"learners"`` (``"J48"``, ...,
        ``"SVM"``) and methods ``Platt``, ``IR``, ``IVAP``, ``CVAP``; plus ``"methods"``,
        ``"source"`` and ``"notes"``.
        ``"001"``: Vovk & Petej (2014), *Venn-Abers predictors*. Keys ``"table1"`` (mean
        log loss) and ``"table2"`` (RMSE), each ``table[classifier][dataset][method]`` with
        classifiers ``J``, ``JB``, ``LR``, ``NB``, ``NN``, ``SVM``, the nine data sets of
        :data:`DATASETS` other than adult and bank, and methods ``W``, ``VA``, ``SVA``,
        ``DIR``; ``"table3"`` (ranking, per loss and data set, ``[method, classifier]``
        best first); plus ``"classifiers"``, ``"datasets"``, ``"methods"``, ``"source"``
        and ``"notes"``.
        ``"002"``: Vovk, Petej & Gammerman (2021), *Adaptive calibration for binary
        classification*, section 5. Key ``"bank"``: the protocol (``"n_train"``,
        ``"n_test"``, ``"clip"``, ``"forest_seed"``, ``"jump_rate"``, ``"E"``) and the three
        published numbers ``"base_log10_loss"``, ``"jumper_log10_loss"`` and
        ``"final_log10_martingale"``; plus ``"source"`` and ``"notes"``.
        ``"004"``: Naeini & Cooper (2016), *Binary classifier calibration using an
        ensemble of near isotonic regression models*. ``"table1"`` (simulated data,
        ``table1[kernel][method][measure]``, kernels ``linear`` and ``quadratic``, methods
        ``SVM``, ``IsoReg``, ``BBQ``, ``ENIR``, measures of ``"measures"``), ``"ranks"``
        (Tables III-V, ``ranks[base][method][measure]``, bases ``LR``, ``SVM``, ``NB``),
        ``"significant"`` (the measures where ENIR is marked superior, per base and
        method), ``"table6"`` (``table6[base][measure]``, a 95% interval ``[low, high]``).

    Returns
    -------
    dict
        The parsed JSON file (a new copy each call, so it may be modified freely).

    Raises
    ------
    ValueError
        If no tables ship for `paper`.

    Examples
    --------
    >>> from venncal.datasets import paper_tables
    >>> t = paper_tables("001")
    >>> t["table1"]["LR"]["labor"]
    {'W': 1.927, 'VA': 0.687, 'SVA': 0.297, 'DIR': 'inf'}
    >>> t["table3"]["log loss"]["australian"][0]
    ['W', 'JB']
    >>> paper_tables("000")["table2"]["SVM"]["CVAP"]
    0.4375
    >>> paper_tables("004")["table1"]["linear"]["ENIR"]["AUC"]
    0.85
    >>> paper_tables("002")["bank"]["final_log10_martingale"]
    919.3
    """
    if paper not in _PAPER_FILES:
        raise ValueError(f"no tables for paper {paper!r}; expected one of {sorted(_PAPER_FILES)}")
    result: dict[str, Any] = json.loads(_paper_tables_text(paper))
    return result
