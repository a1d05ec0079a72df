"""Real data sets for examples, tests, benchmarks and the ``venncal demo`` command.

The Adult data files live in ``venncal/datasets/data/`` (see the README there for sources,
licences and checksums). The other UCI data sets (:data:`DATASETS`) are read by
:func:`load_dataset` from a local copy of the shared data store (``data_dir`` or the
environment variable ``VENNCAL_DATA``). Everything is read with the standard library and
numpy only. :func:`paper_tables` returns the published result tables used as reproduction
targets.
"""

import json
from functools import cache
from importlib import resources
from typing import Any

from ._adult import load_adult
from ._uci import DATASETS, load_dataset

__all__ = ["DATASETS", "load_adult", "load_dataset", "paper_tables"]


@cache
def _paper_tables_text() -> str:
    return resources.files(__package__).joinpath("paper001_tables.json").read_text("utf-8")


def paper_tables() -> dict[str, Any]:
    """Return the published result tables of the Venn-Abers papers, as a fresh dict.

    Keys: ``"table1"`` (log loss) and ``"table2"`` (RMSE) of paper 001, each
    ``table[classifier][dataset][method]`` with classifiers ``J``, ``JB``, ``LR``, ``NB``,
    ``NN``, ``SVM``, the nine data sets of :data:`DATASETS` other than adult and bank, and
    methods ``W``, ``VA``, ``SVA``, ``DIR``; ``"table3"`` (ranking, per loss and data
    set, ``[method, classifier]`` best first); ``"paper000_table1"`` (log loss) and
    ``"paper000_table2"`` (Brier loss), ``table[algorithm][method]`` with methods
    ``Platt``, ``IR``, ``IVAP``, ``CVAP``; plus ``"classifiers"``, ``"datasets"``,
    ``"methods"``, ``"source"`` and ``"notes"``. Values are floats, the string ``"inf"``
    for infinity, or ``None`` where the paper's text could not be read with certainty
    (listed in ``"notes"``).

    Returns
    -------
    dict
        The parsed JSON file ``venncal/datasets/paper001_tables.json`` (a new copy each
        call, so it may be modified freely).

    Examples
    --------
    >>> from venncal.datasets import paper_tables
    >>> t = paper_tables()
    >>> t["table1"]["LR"]["labor"]
    {'W': 1.927, 'VA': 0.687, 'SVA': 0.297, 'DIR': 'inf'}
    >>> t["paper000_table2"]["SVM"]["CVAP"]
    0.4375
    >>> t["table3"]["log loss"]["australian"][0]
    ['W', 'JB']
    """
    result: dict[str, Any] = json.loads(_paper_tables_text())
    return result
