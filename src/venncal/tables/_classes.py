"""Classes of K columns of a table: which class each column is, named by text as read.

A table with one column per class (class scores for
:class:`~venncal.OneVsRestCalibrator`, probabilities for
:func:`~venncal.metrics.evaluate_multiclass`) needs the class of each column:
named (``classes``, given as text, as a command line gives it) or, by
default, the labels sorted.  :func:`column_classes` applies that rule with
the label rule of :mod:`venncal.tables` (text names a label as read: ``"5"``
names the number 5), so that the command line, Python code and the engines
agree on it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._errors import Param, ParameterError
from ._labels import label_value, labels_named, number_like

__all__ = ["column_classes", "named_classes"]


def _typed(text, like):
    """``text`` as a label of the type of ``like`` (a class absent from the labels)."""
    if not isinstance(text, str) or isinstance(like, str):
        return label_value(text)
    if isinstance(like, bool):
        lowered = text.strip().lower()
        if lowered in ("true", "false"):
            return lowered == "true"
        raise ParameterError(
            Param("classes"), f" names {text!r}, which is not true or false as the labels are"
        )
    value, problem = number_like(text, like)  # the text's exact decimal, as positive_label's
    if problem:
        raise ParameterError(Param("classes"), f" names {text!r}, which{problem}")
    return value


def named_classes(labels, names: Sequence) -> list:
    """Return the classes ``names`` name, as labels of the type of ``labels``.

    Each name is matched against the distinct labels as read
    (:func:`~venncal.tables.matches_label`: ``"5"`` names the number 5,
    ``"true"`` the boolean); a name that matches none is a class absent from
    the labels, typed as they are.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        The labels as read (numbers, booleans or text).
    names : sequence of str or labels

    Returns
    -------
    list
        One plain label per name, in the order given.

    Raises
    ------
    ParameterError
        Naming ``classes``: a name that cannot be a label of that type, or
        two names of one class.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.tables._classes import named_classes
    >>> named_classes(np.array([5, 7, 9, 7]), ["9", "5", "7"])
    [9, 5, 7]
    >>> named_classes(np.array(["cat", "dog"]), ["dog", "cat", "emu"])
    ['dog', 'cat', 'emu']
    """
    observed = np.unique(np.asarray(labels))
    values = [label_value(v) for v in observed.tolist()]
    out: list = []
    for name in names:
        found = labels_named(observed, name)
        label = found[0] if found else (_typed(name, values[0]) if values else label_value(name))
        if label in out:
            raise ParameterError(Param("classes"), f" names the class {label!r} twice")
        out.append(label)
    return out


def column_classes(labels, n_columns: int, classes: Sequence | None = None, *,
                   columns: str = "score_cols") -> list:
    """Return the class of each of ``n_columns`` columns: ``classes``, else the labels sorted.

    Parameters
    ----------
    labels : array-like of shape (n_samples,)
        The labels as read.
    n_columns : int
        How many columns the table gives, one per class.
    classes : sequence, default=None
        The classes of the columns in order, as names (see
        :func:`named_classes`); by default the distinct labels, sorted.
    columns : str, default="score_cols"
        The parameter that names the columns, for messages.

    Returns
    -------
    list
        ``n_columns`` plain labels.

    Raises
    ------
    ParameterError
        When the number of classes is not ``n_columns`` (naming ``columns``
        and ``classes``), or as :func:`named_classes`.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.tables._classes import column_classes
    >>> column_classes(np.array(["b", "a", "c", "a"]), 3)
    ['a', 'b', 'c']
    >>> column_classes(np.array(["b", "a"]), 3)
    Traceback (most recent call last):
    ...
    venncal.tables._errors.ParameterError: score_cols gives 3 columns, one per class, but the labels hold 2 classes ('a', 'b'); name the class of each column with classes
    """
    if classes is not None:
        named = named_classes(labels, classes)
        if len(named) != n_columns:
            raise ParameterError(
                Param(columns), f" gives {n_columns} columns but ",
                Param("classes"), f" names {len(named)} classes; give one column per class",
            )
        return named
    observed = [label_value(v) for v in np.unique(np.asarray(labels)).tolist()]
    if len(observed) != n_columns:
        shown = ", ".join(repr(v) for v in observed[:8]) + (", ..." if len(observed) > 8 else "")
        raise ParameterError(
            Param(columns), f" gives {n_columns} columns, one per class, but the labels hold "
            f"{len(observed)} classes ({shown}); name the class of each column with ",
            Param("classes"),
        )
    return observed
