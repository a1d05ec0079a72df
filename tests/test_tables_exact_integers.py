"""Integer cells a float64 cannot hold exactly are refused by every reader of numbers (issue 22).

The Python API refuses int64/uint64 scores past 2**53 that would round
(``venncal._input_scales``); the command line reads CSV text and Parquet
columns through :func:`venncal.tables.column_numbers`, which must agree:
9007199254740992 and 9007199254740993 would otherwise become one double, a tie.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venncal.cli import main
from venncal.tables import TableError, column_numbers

TWO53 = 2**53


def _held(v: int) -> bool:
    return int(float(v)) == v


@pytest.mark.parametrize("cells, row", [
    (["1", " 9007199254740992 ", "9007199254740993"], 3),
    (["-9007199254740993", "0.5"], 1),
    (["+18446744073709551615"], 1),
    (["123456789012345678901234567890"], 1),
])
def test_text_integers_not_held_are_refused(cells, row):
    with pytest.raises(TableError, match=rf"t.csv: column 's', row {row}: the integer '.*' is "
                       "not a float64 exactly"):
        column_numbers(pa.array(cells), "t.csv", "s")


def test_decimal_text_and_held_integers_are_read():
    x = column_numbers(pa.array(["9007199254740993.0", "1e300", "18446744073709551616",
                                 "9007199254740994", " 2 "]), "t.csv", "s")
    assert x.tolist() == [2.0**53, 1e300, 2.0**64, 2.0**53 + 2, 2.0]


@pytest.mark.parametrize("type_", [pa.int64(), pa.uint64()])
def test_arrow_integers_not_held_are_refused(type_):
    with pytest.raises(TableError, match=r"row 3: the integer 9007199254740993 is not"):
        column_numbers(pa.array([1, None, TWO53 + 1], type_), "t.parquet", "s",
                       missing="propagate")
    assert column_numbers(pa.array([TWO53, 2**60], type_), "t", "s").tolist() == [2.0**53, 2.0**60]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-(2**64), 2**64), min_size=1, max_size=6), st.booleans())
def test_integers_near_2_53_text_and_arrow(values, spaces):
    values = [v if abs(v) > 2**50 else v + TWO53 for v in values]
    bad = [i for i, v in enumerate(values) if not _held(v)]
    texts = [f" {v} " if spaces else str(v) for v in values]
    arrays = [pa.array(texts)]
    if all(-(2**63) <= v < 2**63 for v in values):
        arrays.append(pa.array(values, pa.int64()))
    if all(0 <= v < 2**64 for v in values):
        arrays.append(pa.array(values, pa.uint64()))
    for arr in arrays:
        if bad:
            with pytest.raises(TableError, match=rf"row {bad[0] + 1}: the integer"):
                column_numbers(arr, "t", "s")
        else:
            assert column_numbers(arr, "t", "s").tolist() == [float(v) for v in values]


def _csv(path, scores, labels):
    path.write_text("score,label\n" + "".join(f"{s},{y}\n" for s, y in zip(scores, labels)))
    return str(path)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_every_command_refuses_them(fmt, tmp_path, capsys):
    scores, labels = [TWO53, TWO53 + 1, 1, 2], [0, 1, 0, 1]
    good = _csv(tmp_path / "good.csv", [1, 2, 3, 4], labels)
    if fmt == "csv":
        bad = _csv(tmp_path / "bad.csv", scores, labels)
    else:
        bad = str(tmp_path / "bad.parquet")
        pq.write_table(pa.table({"score": pa.array(scores, pa.int64()), "label": labels}), bad)
    model = str(tmp_path / "m.json")
    assert main(["fit", good, "--score-col", "score", "--label-col", "label",
                 "--method", "ivap", "-o", model]) == 0
    for argv in (
        ["fit", bad, "--score-col", "score", "--label-col", "label", "--method", "ivap",
         "-o", str(tmp_path / "x.json")],
        ["predict", model, bad, "--score-col", "score", "-o", str(tmp_path / "p.csv")],
        ["evaluate", bad, "--prob-col", "score", "--label-col", "label"],
    ):
        capsys.readouterr()
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "column 'score', row 2: the integer" in err and "9007199254740993" in err, argv
