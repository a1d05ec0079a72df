"""Loaders for UCI benchmark data sets read from a local copy of the shared data store.

Covers the Bank Marketing (full) data set and the nine small data sets of the Venn-Abers
paper (Vovk, Petej and Fedorova): Australian, Breast, Diabetes, Echo, Hepatitis,
Ionosphere, Labor, Liver and Vote. The files are *not* shipped with venncal; they are read
from a folder laid out like the shared store (``<data_dir>/<folder>/<file>``), given as
``data_dir`` or through the environment variable ``VENNCAL_DATA``.

Every loader returns ``(X, y, feature_names)`` like :func:`venncal.datasets.load_adult`:
``X`` float64 with categorical attributes one-hot encoded in place (categories are the
distinct non-missing values of the file, sorted numerically when they all look like
numbers, otherwise alphabetically; for the ARFF file, the declared order), ``y`` int64 0/1
and the column names. Missing values are replaced by the column mode (categorical; ties go
to the first category in that order) or mean (numeric) of the whole file, as Weka's
``ReplaceMissingValues`` filter does in the papers; no row is dropped except where
``DATASETS`` says so (Echo).
"""

from __future__ import annotations

import csv
import gzip
import io
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ._adult import load_adult

__all__ = ["DATASETS", "load_dataset"]

_ENV = "VENNCAL_DATA"
_Result = tuple[np.ndarray, np.ndarray, list[str]]


# --------------------------------------------------------------------------- file access


def _resolve_dir(data_dir: str | os.PathLike[str] | None) -> Path:
    if data_dir is not None:
        return Path(data_dir)
    env = os.environ.get(_ENV)
    if env:
        return Path(env)
    raise FileNotFoundError(
        "no data directory given: pass data_dir=<folder holding the UCI data sets> or set "
        f"the environment variable {_ENV}"
    )


def _read_text(data_dir: Path, relpath: str) -> str:
    path = data_dir / relpath
    if not path.is_file():
        raise FileNotFoundError(f"data file not found: {str(path)!r}")
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8")


def _csv_rows(text: str, delimiter: str = ",") -> list[list[str]]:
    rows = []
    for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter):
        row = [field.strip() for field in row]
        if row and any(row):
            rows.append(row)
    return rows


def _whitespace_rows(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines() if line.strip()]


# ------------------------------------------------------------------------------ encoding


class _Column(NamedTuple):
    name: str
    kind: str  # "numeric" or "categorical"
    categories: tuple[str, ...] | None = None  # fixed order (ARFF); None: from the data


def _sort_key(values: Sequence[str]) -> Callable[[str], Any]:
    try:
        for v in values:
            float(v)
    except ValueError:
        return str
    return float


def _encode(
    fields: list[list[str]], columns: Sequence[_Column], missing: str = "?"
) -> tuple[np.ndarray, list[str]]:
    n = len(fields)
    blocks: list[np.ndarray] = []
    names: list[str] = []
    for j, col in enumerate(columns):
        values = [row[j] for row in fields]
        present = [v for v in values if v != missing]
        if col.kind == "numeric":
            x = np.array([float(v) if v != missing else np.nan for v in values])
            if np.isnan(x).any():
                x[np.isnan(x)] = np.mean(x[~np.isnan(x)])
            blocks.append(x.reshape(n, 1))
            names.append(col.name)
            continue
        if col.categories is not None:
            cats = list(col.categories)
            unknown = set(present) - set(cats)
            if unknown:
                raise ValueError(f"column {col.name!r}: undeclared values {sorted(unknown)}")
        else:
            cats = sorted(set(present), key=_sort_key(present))
        counts = [present.count(c) for c in cats]
        mode = cats[int(np.argmax(counts))]
        index = {c: i for i, c in enumerate(cats)}
        block = np.zeros((n, len(cats)))
        block[np.arange(n), [index[mode if v == missing else v] for v in values]] = 1.0
        blocks.append(block)
        names.extend(f"{col.name}={c}" for c in cats)
    return np.hstack(blocks), names


def _labels(values: Sequence[str], positive: str, negative: str, name: str) -> np.ndarray:
    bad = set(values) - {positive, negative}
    if bad:
        raise ValueError(f"{name}: unexpected class labels {sorted(bad)}")
    return np.array([v == positive for v in values], dtype=np.int64)


def _num(*names: str) -> list[_Column]:
    return [_Column(n, "numeric") for n in names]


def _cat(*names: str) -> list[_Column]:
    return [_Column(n, "categorical") for n in names]


# -------------------------------------------------------------------------------- loaders


def _bank(d: Path) -> _Result:
    rows = _csv_rows(_read_text(d, "bank-marketing/bank-full.csv.gz"), delimiter=";")
    header, rows = rows[0], rows[1:]
    numeric = {"age", "balance", "day", "duration", "campaign", "pdays", "previous"}
    columns = [_Column(h, "numeric" if h in numeric else "categorical") for h in header[:-1]]
    X, names = _encode([r[:-1] for r in rows], columns, missing="\0")
    return X, _labels([r[-1] for r in rows], "yes", "no", "bank"), names


def _australian(d: Path) -> _Result:
    rows = _whitespace_rows(_read_text(d, "statlog-australian-credit/australian.dat"))
    categorical = {1, 4, 5, 6, 8, 9, 11, 12}  # A1..A14 as documented in australian.doc
    columns = [
        _Column(f"A{k}", "categorical" if k in categorical else "numeric") for k in range(1, 15)
    ]
    X, names = _encode([r[:14] for r in rows], columns)
    return X, _labels([r[14] for r in rows], "1", "0", "australian"), names


def _breast(d: Path) -> _Result:
    rows = _csv_rows(_read_text(d, "breast-cancer-ljubljana/breast-cancer.data"))
    columns = _cat(
        "age", "menopause", "tumor-size", "inv-nodes", "node-caps",
        "deg-malig", "breast", "breast-quad", "irradiat",
    )  # fmt: skip
    X, names = _encode([r[1:] for r in rows], columns)
    y = _labels([r[0] for r in rows], "recurrence-events", "no-recurrence-events", "breast")
    return X, y, names


def _diabetes(d: Path) -> _Result:
    rows = _csv_rows(_read_text(d, "pima-indians-diabetes/pima-indians-diabetes.data"))
    columns = _num("pregnant", "glucose", "blood-pressure", "skin-thickness", "insulin",
                   "bmi", "pedigree", "age")  # fmt: skip
    X, names = _encode([r[:8] for r in rows], columns, missing="\0")
    return X, _labels([r[8] for r in rows], "1", "0", "diabetes"), names


def _echo(d: Path) -> _Result:
    rows = _csv_rows(_read_text(d, "echocardiogram/echocardiogram.data"))
    rows = [r for r in rows if r[1] != "?"]  # the one row without a still-alive value
    # file columns 3-7 and 9 (0-based 2-6 and 8)
    keep = [2, 3, 4, 5, 6, 8]
    columns = _num("age-at-heart-attack", "fractional-shortening", "epss", "lvdd",
                   "wall-motion-index")  # fmt: skip
    columns.insert(1, _Column("pericardial-effusion", "categorical"))
    X, names = _encode([[r[k] for k in keep] for r in rows], columns)
    return X, _labels([r[1] for r in rows], "1", "0", "echo"), names


def _hepatitis(d: Path) -> _Result:
    rows = _csv_rows(_read_text(d, "hepatitis/hepatitis.data"))
    header = [
        ("age", "numeric"), ("sex", "categorical"), ("steroid", "categorical"),
        ("antivirals", "categorical"), ("fatigue", "categorical"), ("malaise", "categorical"),
        ("anorexia", "categorical"), ("liver-big", "categorical"),
        ("liver-firm", "categorical"), ("spleen-palpable", "categorical"),
        ("spiders", "categorical"), ("ascites", "categorical"), ("varices", "categorical"),
        ("bilirubin", "numeric"), ("alk-phosphate", "numeric"), ("sgot", "numeric"),
        ("albumin", "numeric"), ("protime", "numeric"), ("histology", "categorical"),
    ]  # fmt: skip
    X, names = _encode([r[1:] for r in rows], [_Column(n, k) for n, k in header])
    return X, _labels([r[0] for r in rows], "1", "2", "hepatitis"), names


def _ionosphere(d: Path) -> _Result:
    rows = _csv_rows(_read_text(d, "ionosphere/ionosphere.data"))
    X, names = _encode([r[:34] for r in rows], _num(*(f"a{k}" for k in range(1, 35))))
    return X, _labels([r[34] for r in rows], "g", "b", "ionosphere"), names


def _parse_arff(text: str) -> tuple[list[_Column], list[list[str]]]:
    columns: list[_Column] = []
    data: list[list[str]] = []
    in_data = False
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("%"):
            continue
        if in_data:
            data.append([v.strip().strip("'\"") for v in next(csv.reader([line], quotechar="'"))])
            continue
        lower = line.lower()
        if lower.startswith("@attribute"):
            rest = line[len("@attribute") :].strip()
            if rest[0] in "'\"":
                end = rest.index(rest[0], 1)
                name, spec = rest[1:end], rest[end + 1 :].strip()
            else:
                name, spec = rest.split(None, 1)
            if spec.startswith("{"):
                cats = [c.strip().strip("'\"") for c in spec.strip("{}").split(",")]
                columns.append(_Column(name, "categorical", tuple(cats)))
            elif spec.lower() in {"numeric", "real", "integer"}:
                columns.append(_Column(name, "numeric"))
            else:
                raise ValueError(f"unsupported ARFF attribute type {spec!r}")
        elif lower.startswith("@data"):
            in_data = True
    return columns, data


def _labor(d: Path) -> _Result:
    columns, rows = _parse_arff(_read_text(d, "labor-relations/labor.arff"))
    X, names = _encode([r[:-1] for r in rows], columns[:-1])
    return X, _labels([r[-1] for r in rows], "good", "bad", "labor"), names


def _liver(d: Path) -> _Result:
    rows = _csv_rows(_read_text(d, "liver-disorders/bupa.data"))
    columns = _num("mcv", "alkphos", "sgpt", "sgot", "gammagt", "drinks")
    X, names = _encode([r[:6] for r in rows], columns, missing="\0")
    return X, _labels([r[6] for r in rows], "1", "2", "liver"), names


def _vote(d: Path) -> _Result:
    rows = _csv_rows(_read_text(d, "congressional-voting/house-votes-84.data"))
    issues = (
        "handicapped-infants", "water-project-cost-sharing",
        "adoption-of-the-budget-resolution", "physician-fee-freeze", "el-salvador-aid",
        "religious-groups-in-schools", "anti-satellite-test-ban",
        "aid-to-nicaraguan-contras", "mx-missile", "immigration",
        "synfuels-corporation-cutback", "education-spending", "superfund-right-to-sue",
        "crime", "duty-free-exports", "export-administration-act-south-africa",
    )  # fmt: skip
    X, names = _encode([r[1:] for r in rows], _cat(*issues))
    return X, _labels([r[0] for r in rows], "democrat", "republican", "vote"), names


def _adult(d: Path | None) -> _Result:
    return load_adult("all", data_dir=d)


_MODE_MEAN = "'?' replaced by the column mode (categorical) or mean (numeric)"

#: Registry of the data sets :func:`load_dataset` knows: name -> description.
DATASETS: dict[str, dict[str, Any]] = {
    "adult": {
        "title": "UCI Adult (census income), adult.data rows followed by adult.test rows",
        "rows": 48842, "positives": 11687, "n_features": 105,
        "source_file": "adult/adult.data.gz, adult/adult.test.gz (shipped with venncal)",
        "label": "income: 1 = '>50K' (test file's trailing dot removed), 0 = '<=50K'",
        "missing": "'?' replaced by the training-file mode (see load_adult)",
    },
    "bank": {
        "title": "UCI Bank Marketing, full (bank-full.csv), original chronological order",
        "rows": 45211, "positives": 5289, "n_features": 51,
        "source_file": "bank-marketing/bank-full.csv.gz",
        "label": "y: 1 = 'yes' (subscribed a term deposit), 0 = 'no'",
        "missing": "none marked; 'unknown' (job, education, contact, poutcome) is kept "
        "as its own category, as in the UCI file",
    },
    "australian": {
        "title": "Statlog Australian Credit Approval",
        "rows": 690, "positives": 307, "n_features": 42,
        "source_file": "statlog-australian-credit/australian.dat",
        "label": "A15: 1 = '+' (credit granted), 0 otherwise; 8 categorical attributes "
        "(A1, A4, A5, A6, A8, A9, A11, A12 per australian.doc) one-hot encoded",
        "missing": "none in the file (UCI already replaced them by mode/mean)",
    },
    "breast": {
        "title": "Breast Cancer (Ljubljana)",
        "rows": 286, "positives": 85, "n_features": 41,
        "source_file": "breast-cancer-ljubljana/breast-cancer.data",
        "label": "class: 1 = 'recurrence-events', 0 = 'no-recurrence-events'; all 9 "
        "attributes one-hot encoded",
        "missing": _MODE_MEAN + " (node-caps: 8, breast-quad: 1)",
    },
    "diabetes": {
        "title": "Pima Indians Diabetes",
        "rows": 768, "positives": 268, "n_features": 8,
        "source_file": "pima-indians-diabetes/pima-indians-diabetes.data",
        "label": "class: 1 = tested positive, 0 = negative",
        "missing": "none marked; the zeros that stand for missing values (glucose, blood "
        "pressure, skin thickness, insulin, BMI) are kept as values, as in the UCI/Weka "
        "file the papers used",
    },
    "echo": {
        "title": "Echocardiogram",
        "rows": 131, "positives": 43, "n_features": 7,
        "source_file": "echocardiogram/echocardiogram.data",
        "label": "col 2 still-alive: 1 = alive at the end of the follow-up, 0 = dead; the "
        "one row with still-alive '?' is dropped. Features: age-at-heart-attack, "
        "pericardial-effusion (one-hot), fractional-shortening, epss, lvdd, "
        "wall-motion-index; dropped: survival (follow-up length, censored by the label), "
        "wall-motion-score (names file: use the index instead), mult (derived), name "
        "(constant), group (meaningless), alive-at-1 (derived from the first two columns)",
        "missing": _MODE_MEAN,
    },
    "hepatitis": {
        "title": "Hepatitis",
        "rows": 155, "positives": 32, "n_features": 32,
        "source_file": "hepatitis/hepatitis.data",
        "label": "class: 1 = DIE (file value 1), 0 = LIVE (file value 2); the 13 binary "
        "attributes are one-hot encoded, the 6 numeric ones kept",
        "missing": _MODE_MEAN,
    },
    "ionosphere": {
        "title": "Ionosphere",
        "rows": 351, "positives": 225, "n_features": 34,
        "source_file": "ionosphere/ionosphere.data",
        "label": "class: 1 = 'g' (good), 0 = 'b' (bad)",
        "missing": "none",
    },
    "labor": {
        "title": "Labor Relations (Weka labor.arff, 40 + 17 rows)",
        "rows": 57, "positives": 37, "n_features": 29,
        "source_file": "labor-relations/labor.arff",
        "label": "class: 1 = 'good', 0 = 'bad'; nominal attributes one-hot in their "
        "declared order",
        "missing": _MODE_MEAN,
    },
    "liver": {
        "title": "Liver Disorders (BUPA)",
        "rows": 345, "positives": 145, "n_features": 6,
        "source_file": "liver-disorders/bupa.data",
        "label": "col 7 selector as the class, as in Weka/LIBSVM and the classic papers: "
        "1 = selector 1, 0 = selector 2; the 6 other columns (including drinks) are "
        "features. The choice of positive class does not change log loss or RMSE",
        "missing": "none",
    },
    "vote": {
        "title": "Congressional Voting Records (1984)",
        "rows": 435, "positives": 267, "n_features": 32,
        "source_file": "congressional-voting/house-votes-84.data",
        "label": "party: 1 = 'democrat', 0 = 'republican'; each vote one-hot (n, y)",
        "missing": "'?' (vote not recorded) treated as missing and replaced by the "
        "column mode, as Weka's ReplaceMissingValues does",
    },
}  # fmt: skip

_LOADERS: dict[str, Callable[[Path], _Result]] = {
    "bank": _bank,
    "australian": _australian,
    "breast": _breast,
    "diabetes": _diabetes,
    "echo": _echo,
    "hepatitis": _hepatitis,
    "ionosphere": _ionosphere,
    "labor": _labor,
    "liver": _liver,
    "vote": _vote,
}


def load_dataset(
    name: str, *, data_dir: str | os.PathLike[str] | None = None
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    r"""Load a binary UCI benchmark data set by name, numerically encoded.

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`: ``"adult"``, ``"bank"`` or one of the nine data sets of
        the Venn-Abers paper, ``"australian"``, ``"breast"``, ``"diabetes"``, ``"echo"``,
        ``"hepatitis"``, ``"ionosphere"``, ``"labor"``, ``"liver"``, ``"vote"``.
        ``DATASETS[name]`` documents rows, positive label, source file, label encoding
        and missing-value handling.
    data_dir : str or path-like, optional
        Folder laid out like the shared data store (``<data_dir>/<folder>/<file>``, see
        ``DATASETS[name]["source_file"]``). ``None`` (default) uses the environment
        variable ``VENNCAL_DATA``. For ``"adult"``, ``None`` reads the copy shipped with
        venncal (``VENNCAL_DATA`` is ignored) and the result is ``load_adult("all")``.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
        Features in file order (rows in the file's order, e.g. chronological for
        ``"bank"``); categorical attributes one-hot encoded in place; no NaN.
    y : ndarray of shape (n_samples,), dtype int64
        1 for the positive label given in ``DATASETS[name]["label"]``, else 0.
    feature_names : list of str
        Column names of `X` (``"attribute=category"`` for one-hot columns).

    Raises
    ------
    KeyError
        If `name` is not a registered data set.
    FileNotFoundError
        If no data folder is given (neither `data_dir` nor ``VENNCAL_DATA``), or the data
        file is missing (the message names the file).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from venncal.datasets import DATASETS, load_dataset
    >>> DATASETS["australian"]["rows"], DATASETS["australian"]["positives"]
    (690, 307)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     folder = Path(tmp, "liver-disorders")
    ...     folder.mkdir()
    ...     _ = Path(folder, "bupa.data").write_text("85,92,45,27,31,0.0,1\n"
    ...                                            "85,64,59,32,23,0.0,2\n")
    ...     X, y, names = load_dataset("liver", data_dir=tmp)
    >>> X.shape, y.tolist(), names[-1]
    ((2, 6), [1, 0], 'drinks')
    """
    if name not in DATASETS:
        raise KeyError(f"unknown data set {name!r}; known: {sorted(DATASETS)}")
    if name == "adult":
        return _adult(None if data_dir is None else Path(data_dir))
    return _LOADERS[name](_resolve_dir(data_dir))
