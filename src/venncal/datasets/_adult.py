"""Loader for the UCI Adult (census income) data set shipped with venncal."""

from __future__ import annotations

import csv
import gzip
import io
import os
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import NamedTuple

import numpy as np

__all__ = ["load_adult"]

#: The 14 attributes of the original files, in file order, as ``(name, kind)``.
ADULT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("age", "continuous"),
    ("workclass", "categorical"),
    ("fnlwgt", "continuous"),
    ("education", "categorical"),
    ("education-num", "continuous"),
    ("marital-status", "categorical"),
    ("occupation", "categorical"),
    ("relationship", "categorical"),
    ("race", "categorical"),
    ("sex", "categorical"),
    ("capital-gain", "continuous"),
    ("capital-loss", "continuous"),
    ("hours-per-week", "continuous"),
    ("native-country", "categorical"),
)

_N_FIELDS = len(ADULT_COLUMNS) + 1  # 14 attributes + income label
_MISSING = "?"
_POSITIVE = ">50K"
_NEGATIVE = "<=50K"
_FILES = {"train": "adult.data", "test": "adult.test"}
_SPLITS = ("train", "test", "all")


class _Raw(NamedTuple):
    """Parsed rows of one file: string attributes and 0/1 labels."""

    fields: np.ndarray  # (n_rows, 14) str
    labels: np.ndarray  # (n_rows,) int64


class _Encoding(NamedTuple):
    """Encoding learned from the training file."""

    categories: dict[int, np.ndarray]  # column index -> sorted categories (without '?')
    modes: dict[int, str]  # column index -> most frequent category of the train column
    feature_names: list[str]


# --------------------------------------------------------------------------- file access


def _read_packaged(name: str) -> bytes:
    resource = resources.files(__package__).joinpath("data", name + ".gz")
    return gzip.decompress(resource.read_bytes())


def _read_from_dir(data_dir: str | os.PathLike[str], name: str) -> bytes:
    folder = Path(data_dir) / "adult"
    gz_path = folder / (name + ".gz")
    plain_path = folder / name
    if gz_path.is_file():
        return gzip.decompress(gz_path.read_bytes())
    if plain_path.is_file():
        return plain_path.read_bytes()
    raise FileNotFoundError(
        f"Adult data file not found: {str(gz_path)!r} (nor the uncompressed {str(plain_path)!r})"
    )


def _read_file(name: str, data_dir: str | os.PathLike[str] | None) -> _Raw:
    data = _read_packaged(name) if data_dir is None else _read_from_dir(data_dir, name)
    return _parse(io.StringIO(data.decode("ascii"), newline=""), name)


def _parse(lines: Iterable[str], name: str) -> _Raw:
    fields: list[list[str]] = []
    labels: list[int] = []
    reader = csv.reader(lines, skipinitialspace=True)
    for row in reader:
        if not row or (len(row) == 1 and not row[0].strip()):
            continue  # blank lines (both files end with one)
        if row[0].startswith("|"):
            continue  # comment line ('|1x3 Cross validator' at the top of adult.test)
        if len(row) != _N_FIELDS:
            raise ValueError(
                f"{name}, line {reader.line_num}: expected {_N_FIELDS} comma-separated "
                f"fields, got {len(row)}"
            )
        label = row[-1].strip().rstrip(".")  # adult.test writes '>50K.' and '<=50K.'
        if label == _POSITIVE:
            labels.append(1)
        elif label == _NEGATIVE:
            labels.append(0)
        else:
            raise ValueError(f"{name}, line {reader.line_num}: unknown income label {row[-1]!r}")
        fields.append(row[:-1])  # skipinitialspace drops the space after each comma
    if not fields:
        raise ValueError(f"{name}: no data rows")
    return _Raw(
        np.asarray(fields, dtype=str).reshape(len(fields), len(ADULT_COLUMNS)),
        np.asarray(labels, dtype=np.int64),
    )


# ------------------------------------------------------------------------------ encoding


def _learn_encoding(train: _Raw) -> _Encoding:
    categories: dict[int, np.ndarray] = {}
    modes: dict[int, str] = {}
    feature_names: list[str] = []
    for j, (name, kind) in enumerate(ADULT_COLUMNS):
        if kind == "continuous":
            feature_names.append(name)
            continue
        cats, counts = np.unique(train.fields[:, j], return_counts=True)
        keep = cats != _MISSING
        cats, counts = cats[keep], counts[keep]
        # Mode: highest count; np.argmax breaks ties by the alphabetically first category.
        modes[j] = str(cats[np.argmax(counts)])
        categories[j] = cats
        feature_names.extend(f"{name}={c}" for c in cats)
    return _Encoding(categories, modes, feature_names)


def _encode(raw: _Raw, enc: _Encoding) -> np.ndarray:
    n = raw.fields.shape[0]
    blocks: list[np.ndarray] = []
    for j, (_, kind) in enumerate(ADULT_COLUMNS):
        column = raw.fields[:, j]
        if kind == "continuous":
            blocks.append(column.astype(np.float64).reshape(n, 1))
            continue
        cats = enc.categories[j]
        column = np.where(column == _MISSING, enc.modes[j], column)
        codes = np.minimum(np.searchsorted(cats, column), len(cats) - 1)
        # Categories never seen in the training file (none occur in the shipped test file)
        # are encoded as all zeros.
        rows = np.flatnonzero(cats[codes] == column)
        block = np.zeros((n, len(cats)), dtype=np.float64)
        block[rows, codes[rows]] = 1.0
        blocks.append(block)
    return np.hstack(blocks)


# -------------------------------------------------------------------------------- public


def load_adult(
    split: str = "train",
    *,
    data_dir: str | os.PathLike[str] | None = None,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Load the UCI Adult (census income) data set, numerically encoded.

    Binary task: does a person's income exceed 50,000 USD a year? The original UCI
    training file ``adult.data`` (32,561 rows) and test file ``adult.test`` (16,281 rows)
    are shipped with venncal (CC BY 4.0; see ``venncal/datasets/data/README.md``).

    Parameters
    ----------
    split : {"train", "test", "all"}, default="train"
        Which file to return: ``"train"`` (``adult.data``), ``"test"`` (``adult.test``),
        or ``"all"`` (the training rows followed by the test rows, 48,842 rows).
    data_dir : str or path-like, optional
        ``None`` (default) reads the files shipped inside the package. Otherwise a folder
        laid out like the shared data set store: the files are read from
        ``<data_dir>/adult/adult.data.gz`` and ``<data_dir>/adult/adult.test.gz``, or from
        the uncompressed ``adult.data`` / ``adult.test`` if the ``.gz`` file is absent.
        The training file is always read, since the encoding is learned from it.

    Returns
    -------
    X : ndarray of shape (n_samples, 105), dtype float64
        Encoded features, rows in the original file order. The six continuous attributes
        (``age``, ``fnlwgt``, ``education-num``, ``capital-gain``, ``capital-loss``,
        ``hours-per-week``) are kept unscaled as floats; each of the eight categorical
        attributes is one-hot encoded in place (columns stay in the file's attribute
        order). Categories are those of the training file (sorted), whatever the split,
        so train and test encodings agree.
    y : ndarray of shape (n_samples,), dtype int64
        1 if the income is ``>50K``, else 0 (the trailing dot of the test file's
        ``>50K.`` / ``<=50K.`` labels is removed).
    feature_names : list of str
        Names of the columns of `X`: the attribute name for continuous columns,
        ``"attribute=category"`` for one-hot columns.

    Raises
    ------
    FileNotFoundError
        If `data_dir` is given and a needed file is missing (the message names it).
    ValueError
        If `split` is not one of the accepted values or a file is malformed.

    Notes
    -----
    Missing values (``?``, only in ``workclass``, ``occupation`` and ``native-country``:
    4,262 values in 2,399 training rows, 2,203 values in 1,221 test rows) are replaced by
    the most frequent category of the same column in the *training* file (``Private``,
    ``Prof-specialty``, ``United-States``), the usual treatment in the calibration papers
    that use this data set; no row is dropped. A category that does not occur in the training file
    would be encoded as all zeros (this does not happen with the shipped files).

    The data set: Becker, B. and Kohavi, R. (1996). Adult. UCI Machine Learning
    Repository. Licence: CC BY 4.0.

    Examples
    --------
    >>> from venncal.datasets import load_adult
    >>> X, y, names = load_adult("train")
    >>> X.shape, int(y.sum())
    ((32561, 105), 7841)
    >>> X_test, y_test, _ = load_adult("test")
    >>> X_test.shape, int(y_test.sum())
    ((16281, 105), 3846)
    >>> names[:3]
    ['age', 'workclass=Federal-gov', 'workclass=Local-gov']
    """
    if not isinstance(split, str) or split not in _SPLITS:
        raise ValueError(f"split must be one of {_SPLITS}, got {split!r}")
    train = _read_file(_FILES["train"], data_dir)
    enc = _learn_encoding(train)
    parts: Sequence[_Raw]
    if split == "train":
        parts = (train,)
    elif split == "test":
        parts = (_read_file(_FILES["test"], data_dir),)
    else:
        parts = (train, _read_file(_FILES["test"], data_dir))
    X = np.vstack([_encode(part, enc) for part in parts])
    y = np.concatenate([part.labels for part in parts])
    return X, y, list(enc.feature_names)
