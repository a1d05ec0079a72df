"""Dask data frames: summarise the partitions, fit on the client, score in place."""

from __future__ import annotations

import sys
from collections.abc import Hashable, Sequence

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from .. import _engine
from .. import _score_names as score_names
from .._docs import fill
from .._input_scales import exact_float64
from ..multiclass._outputs import is_multiclass
from ..summary import ScoreSummary
from ._files import located_rows

__all__ = ["fit", "reduction", "shipped", "summarize", "transform"]


def _partition_pieces(pdf, score_col, label_col, weight_col, by, round_scores, partition=None):
    """Reduce one pandas partition (number ``partition``) to ``(pieces, problems)``.

    See :mod:`venncal._engine`; the first bad score and weight are located in it.
    """
    s = exact_float64(pdf[score_col], "scores")  # as the local fit reads them (attack 52 F1)
    if round_scores is not None:
        s = _engine.rounded(s, round_scores)
    s = s + 0.0  # -0.0 becomes 0.0
    w = None if weight_col is None else exact_float64(pdf[weight_col], "sample_weight")
    labels, groups = pdf[label_col], (pdf[by] if by is not None else None)
    return (_engine.frame_pieces(s, w, labels, groups),
            _engine.frame_problems(s, w, labels, groups, partition))


def _combine(*parts, max_distinct):
    """Merge partial results ``(pieces, problems)``; fail early past ``max_distinct``."""
    pieces, problems = {}, _engine.Problems()
    for part_pieces, part_problems in parts:
        _engine.merge_pieces(pieces, part_pieces)
        problems = problems.merge(part_problems)
    _engine.check_distinct(_engine.n_distinct(pieces), max_distinct)
    return pieces, problems


def reduction(df, score_col, label_col, weight_col, by, round_scores, split_every, max_distinct):
    """Return the tree reduction of the partitions of ``df``: a delayed ``(pieces, problems)``."""
    if not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2; got {split_every!r}")
    round_scores = _engine.check_round_scores(round_scores)
    columns = _engine.input_columns(score_col, label_col, weight_col, by)
    _engine.check_columns(columns, df.columns)
    reduce_part = dask.delayed(_partition_pieces, pure=True)
    parts = [
        reduce_part(part, score_col, label_col, weight_col, by, round_scores, i)
        for i, part in enumerate(df[columns].to_delayed())
    ]
    combine = dask.delayed(_combine, pure=True)
    while True:  # at least one level, so that even one partition is checked
        parts = [
            combine(*parts[i:i + split_every], max_distinct=max_distinct)
            for i in range(0, len(parts), split_every)
        ]
        if len(parts) == 1:
            return parts[0]


def _reduce(df, score_col, label_col, weight_col, by, round_scores, split_every, max_distinct):
    """Tree-reduce the partitions of ``df``; return the merged, checked ``(pieces, problems)``."""
    pieces, problems = reduction(
        df, score_col, label_col, weight_col, by, round_scores, split_every, max_distinct
    ).compute()
    checked(problems, by)
    return pieces, problems


def checked(problems, by, weight_name: str = "sample_weight") -> None:
    """``problems.check``; a bad row it locates is named at its partition (:func:`row_error`)."""
    with located_rows():
        problems.check(by, weight_name)


@fill
def summarize(
    df: dd.DataFrame,
    score_col: str,
    label_col: str,
    weight_col: str | None = None,
    by: str | None = None,
    positive_label=None,
    *,
    round_scores: int | None = None,
    max_distinct: int = _engine.DEFAULT_MAX_DISTINCT,
    split_every: int = 8,
) -> ScoreSummary | dict[Hashable, ScoreSummary]:
    """Reduce a Dask data frame to its exact score summary.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
    {columns}
    {round_scores}
    {max_distinct}
    split_every : int, default=8
        Fan-in of the merge tree.

    {summary_returns}

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from venncal.dask import summarize
    >>> df = dd.from_pandas(pd.DataFrame({"s": [0.3, 0.1, 0.3, 0.9], "y": [1, 0, 0, 1]}),
    ...                     npartitions=2)
    >>> summarize(df, "s", "y").weights
    array([1., 2., 1.])
    """
    pieces, problems = _reduce(
        df, score_col, label_col, weight_col, by, round_scores, split_every, max_distinct
    )
    return _engine.summary_of(pieces, problems, by, positive_label)


@fill
def fit(
    df: dd.DataFrame,
    method="ivap",
    *,
    score_col: str | Sequence[str],
    label_col: str,
    weight_col: str | None = None,
    by: str | None = None,
    round_scores: int | None = None,
    max_distinct: int = _engine.DEFAULT_MAX_DISTINCT,
    split_every: int = 8,
    **params,
):
    """Fit a score-level calibrator on a Dask data frame through its score summary.

    A multiclass calibrator (:class:`~venncal.OneVsRestCalibrator`,
    :class:`~venncal.OneVsOneCalibrator`) takes ``score_col`` as its K
    score columns, in the order of its classes (``classes`` when given,
    else the labels sorted), and ``by`` as the fold column with a cross
    Venn-Abers base: the distinct labels are gathered first, then every
    partition is reduced to one summary per class or pair (and fold),
    merged exactly on the workers; the model is the one its ``fit`` gives
    on the same rows, bit for bit, with the same errors
    (:mod:`venncal._engine_multiclass`; ``round_scores`` and
    ``max_distinct`` apply to each binary problem's scores).

    A label column of Python objects arrives as text (Dask's
    ``dataframe.convert-string`` option, on by default): Python booleans as
    ``'False'`` and ``'True'``, numbers as their text.  The classes are then
    those texts, in the order of the values they stand for (else refused:
    the order is not guessed); the probabilities are those of the pandas
    fit, the class values are not.  Convert such a column first
    (``astype(bool)``, ``astype('int64')``) for the pandas fit's classes.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
    {fit_method}
    score_col, label_col, weight_col, round_scores, max_distinct, split_every
        As for :func:`summarize`; ``score_col`` is a list of K columns for
        a multiclass calibrator.
    {fit_params}

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from venncal.dask import fit
    >>> pdf = pd.DataFrame({"s": [0.1, 0.4, 0.35, 0.8, 0.2, 0.3, 0.6, 0.9],
    ...                     "y": ["n", "n", "p", "p", "n", "p", "n", "p"],
    ...                     "fold": [0, 0, 0, 0, 1, 1, 1, 1]})
    >>> cvap = fit(dd.from_pandas(pdf, npartitions=3), "cvap", score_col="s", label_col="y",
    ...            by="fold")
    >>> cvap.classes_.tolist(), cvap.predict_proba([[0.5, 0.55]]).round(4)
    (['n', 'p'], array([[0.4495, 0.5505]]))

    Three classes, one-vs-rest on logits, equal to the fit on the rows:

    >>> import numpy as np
    >>> from venncal import OneVsRestCalibrator
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(200, 3)).round(1)
    >>> y = np.array(["a", "b", "c"])[(z + rng.gumbel(size=z.shape)).argmax(axis=1)]
    >>> frame = pd.DataFrame({"z0": z[:, 0], "z1": z[:, 1], "z2": z[:, 2], "y": y})
    >>> ovr = fit(dd.from_pandas(frame, npartitions=3), OneVsRestCalibrator(score="logit"),
    ...           score_col=["z0", "z1", "z2"], label_col="y")
    >>> same = OneVsRestCalibrator(score="logit").fit(z, y)
    >>> bool((ovr.predict_interval(z) == same.predict_interval(z)).all())
    True
    """
    calibrator = _engine.engine_calibrator(method, params, by)
    if is_multiclass(calibrator):
        from ._multiclass import fit_multiclass

        return fit_multiclass(
            df, calibrator, score_col=score_col, label_col=label_col, weight_col=weight_col,
            by=by, round_scores=round_scores, max_distinct=max_distinct, split_every=split_every,
            check_raw=lambda raw: check_text_labels(df[label_col].dtype, raw, label_col),
            check_folds=lambda folds: check_text_groups(df[by].dtype, folds, by),
        )
    pieces, problems = _reduce(
        df, score_col, label_col, weight_col, by, round_scores, split_every, max_distinct
    )
    if not _engine.names_classes(calibrator):
        check_text_labels(df[label_col].dtype, problems.labels, label_col)
    if by is not None:
        check_text_groups(df[by].dtype, {group for group, _ in pieces}, by)
    return _engine.fit_pieces(calibrator, pieces, problems, by)


#: Why a data frame's labels or groups may be text that was not text in pandas.
_DASK_TEXT = "Dask makes a column of Python objects text (its 'dataframe.convert-string' option)"


def check_text_labels(dtype, labels: Sequence, label_col: str) -> None:
    """Refuse text labels of a data frame that sort in another order when read as numbers.

    Dask turns a column of Python objects into text (its
    ``dataframe.convert-string`` option): integer labels 9 and 10 held in an
    object column arrive as ``'9'`` and ``'10'``, whose sorted order (hence
    the positive class, or the order of K classes) is not the numbers'.  The
    fit on the same pandas column would take the numbers, so the order is
    not guessed: such labels must be converted, or the classes named.
    Text labels whose two orders agree, and labels that do not all read as
    numbers, are fitted as the text they are.
    """
    texts = [v for v in labels if isinstance(v, str)]
    if not pd.api.types.is_string_dtype(dtype) or len(texts) < 2 or len(texts) < len(labels):
        return
    values = _numbers(texts)  # 'inf' and '-inf' too (attack 24 F2)
    if values is None:
        return
    by_text = sorted(texts)
    by_value = [t for _, t in sorted(zip(values, texts, strict=True))]
    if by_text == by_value:
        return
    shown = ", ".join(repr(t) for t in by_text[:6]) + (", ..." if len(texts) > 6 else "")
    numbers = ", ".join(by_value[:6]) + (", ..." if len(texts) > 6 else "")
    raise ValueError(
        f"column {label_col!r} holds its labels as text ({shown}), which read as numbers in "
        f"another order ({numbers}); {_DASK_TEXT}, so the classes' order is not guessed: convert "
        f"the column to numbers (df[{label_col!r}].astype('int64') or 'float64'), or name "
        "the classes as the texts they are (classes=[...] of "
        f"{', '.join(repr(t) for t in by_text[:6])}{', ...' if len(texts) > 6 else ''})"
    )


def _score_partition(pdf, calibrator, score_cols, names, nan_scores):
    scores = np.column_stack([exact_float64(pdf[c], "scores") for c in score_cols])
    values, _ = _engine.score_rows(calibrator, scores, len(names), nan_scores)
    return pdf.assign(**dict(zip(names, values, strict=True)))


def current_client(client=None):
    """Return ``client``, else the distributed client the computations run on, else None."""
    if client is not None:
        return client
    scheduler = dask.config.get("scheduler", None)
    if hasattr(scheduler, "scatter"):  # dask.config.set(scheduler=client)
        return scheduler
    if scheduler is not None and scheduler not in ("dask.distributed", "distributed"):
        return None  # "synchronous", "threads", "processes", or a get function
    if "distributed" not in sys.modules:  # then there is no client
        return None
    try:
        return sys.modules["distributed"].default_client()
    except ValueError:  # no default client
        return None


def shipped(calibrator, client=None):
    """Return the fitted model as an argument of ``map_partitions``, sent to the workers once.

    On a distributed client it is scattered to every worker (so it is not
    put into the graph, where distributed warns about a large graph when a
    model has many scores); elsewhere a delayed object. Each call scatters
    under a fresh key (``hash=False``): with the content's hash as its key, a
    second scatter of the same model could meet the release of the first
    call's future on the scheduler, which then forgot the key while it was
    being replicated and cancelled the computation ("lost dependencies").
    """
    client = current_client(client)
    if client is not None:
        return client.scatter(calibrator, broadcast=True, hash=False)
    return dask.delayed(calibrator, pure=True)


@fill
def transform(
    df: dd.DataFrame,
    calibrator,
    score_col: str | Sequence[str],
    output_cols: str | Sequence[str] = ("p", "p0", "p1"),
    *,
    nan_scores: str = "error",
) -> dd.DataFrame:
    """Add calibrated probabilities to a Dask data frame, partition by partition.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
    {transform_columns}
    nan_scores : {"error", "propagate"}, default="error"
        A missing score (NaN or NA): the computation fails with the
        calibrator's ``ValueError`` (``"error"``), or that row gets NaN
        outputs and the others are scored as usual (``"propagate"``, as
        ``venncal predict --nan-scores propagate``).  An infinite score is
        always an error.

    Returns
    -------
    dask.dataframe.DataFrame
        ``df`` with the new float64 columns (lazy).  For a multiclass
        calibrator: ``p_<class>`` per class and, with three prefixes and a
        Venn-Abers base, ``p0_<unit>``, ``p1_<unit>`` per class or pair
        (``b_vs_a``) (``p``, ``p0``, ``p1`` the prefixes), from its K score columns (or F*K, fold by fold, with
        a cross Venn-Abers base); see :mod:`venncal.multiclass._outputs`.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from venncal import IsotonicCalibrator
    >>> from venncal.dask import transform
    >>> iso = IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    >>> df = dd.from_pandas(pd.DataFrame({"s": [0.15, 0.35]}), npartitions=1)
    >>> transform(df, iso, "s").compute()
          s    p
    0  0.15  0.0
    1  0.35  0.5
    """
    _engine.check_nan_scores(nan_scores)
    names = _engine.output_names(calibrator, output_cols)
    score_cols = _engine.names(score_col)
    score_names.check(calibrator, score_cols)
    meta = pd.DataFrame({c: pd.Series(dtype=t) for c, t in df.dtypes.items()})
    meta = meta.assign(**{name: pd.Series(dtype=np.float64) for name in names})
    model = shipped(calibrator)
    return df.map_partitions(_score_partition, model, score_cols, names, nan_scores, meta=meta)


def check_text_groups(dtype, groups, by: str) -> None:
    """Refuse text groups (folds) of a data frame that read as one number (``'1'``, ``'1.0'``).

    Dask makes an object column of ``1`` and ``1.0`` (one fold of the
    local fit) the texts ``'1'`` and ``'1.0'``, two folds (attack 24 F4).
    """
    if not pd.api.types.is_string_dtype(dtype):
        return
    seen: dict = {}
    for text in sorted(g for g in groups if isinstance(g, str)):
        value = _numbers([text])  # a text that is no number is no other group's
        if value is None:
            continue
        other = seen.setdefault(value[0], text)
        if other != text:
            raise ValueError(
                f"column {by!r} holds the groups {other!r} and {text!r} as text, which read "
                f"as one number ({value[0]!r}); {_DASK_TEXT}, so two groups would be fitted "
                f"where the rows have one: convert the column to numbers "
                f"(df[{by!r}].astype('int64'))"
            )


def _numbers(texts: list) -> list | None:
    """The texts read as Python reads numbers (``'inf'`` too), or None unless all are numbers."""
    try:
        values = [float(t) for t in texts]
    except ValueError:
        return None
    return None if any(v != v for v in values) else values
