"""venncal.tables from Python: errors that say where, exact cells, the label rule, atomic writes."""

from __future__ import annotations

import datetime
import decimal
import gzip
import io
import os
import pickle
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

pa = pytest.importorskip("pyarrow")

from venncal import tables  # noqa: E402
from venncal.tables import (  # noqa: E402
    Param,
    ParameterError,
    TableError,
    atomic_output,
    classes_for,
    column_labels,
    column_numbers,
    label_value,
    open_table,
    open_writer,
    output_format,
    read_columns,
    typed_labels,
    write_table,
)


def _write(path: Path, text: str) -> str:
    path.write_text(text, "utf-8")
    return str(path)


def _parts(folder) -> list[str]:
    return [f for f in os.listdir(folder) if ".part." in f]


# ------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("text", "numeric", "labels", "where", "match"),
    [
        ("s,y\n0.1,a\nabc,b\n", ["s"], ["y"], ("s", 2), r"t\.csv: column 's', row 2: cannot parse"),
        ("s,y\n0.1,a\n,b\n", ["s"], ["y"], ("s", 2), "row 2: empty cell, a number is needed"),
        ("s,y\n0.1,a\n1e999,b\n", ["s"], ["y"], ("s", 2), "'1e999' is past the largest float64"),
        ("s,y\n0.1,a\n0.2,NA\n", ["s"], ["y"], ("y", 2), "row 2: 'NA' marks a missing value"),
        ("s,y\n0.1,a\n0.2, \n", ["s"], ["y"], ("y", 2), "row 2: empty cell, a label is needed"),
        ("s,y\n0.1,a\n0.2,b,c\n", ["s"], ["y"], (None, 2), r"row 2 has 3 field\(s\)"),
        ("s,y\n", ["s"], ["y"], (None, None), "no data rows after the header"),
    ],
)
def test_table_error_says_where(text, numeric, labels, where, match, tmp_path):
    path = _write(tmp_path / "t.csv", text)
    with open_table(path) as table, pytest.raises(TableError, match=match) as info:
        read_columns(table, numeric, labels)
    err = info.value
    assert isinstance(err, ValueError)
    assert (err.source, err.column, err.row) == (path, *where)


def test_missing_file_and_column(tmp_path):
    with pytest.raises(TableError, match="no such file") as info:
        open_table(str(tmp_path / "none.csv"))
    assert (info.value.source, info.value.column, info.value.row) == (
        str(tmp_path / "none.csv"), None, None)
    path = _write(tmp_path / "t.csv", "s,y\n0.1,a\n")
    with open_table(path) as table, pytest.raises(TableError) as info:
        table.check_columns(["w"], "weight_col")
    err = info.value
    assert str(err) == f"{path}: no column 'w' (given by weight_col); available columns: 's', 'y'"
    assert err.spelled({"weight_col": "--weight-col"}).endswith(
        "(given by --weight-col); available columns: 's', 'y'")
    assert (err.column, err.params) == ("w", ("weight_col",))


def test_errors_pickle_with_their_attributes():
    cell = TableError.at_cell("t.csv", "s", 12_345, "cannot parse 'x' as a number",
                              " (", Param("nan_scores", "propagate"), ")")
    back = pickle.loads(pickle.dumps(cell))
    assert type(back) is TableError
    assert (str(back), back.source, back.column, back.row) == (
        str(cell), "t.csv", "s", 12_345)
    assert "row 12,345: " in str(back)
    moved = back.moved("big.csv", 99, " (partition 3)")
    assert str(moved).startswith("big.csv: column 's', row 99 (partition 3): cannot parse")
    assert moved.spelled({"nan_scores": "--nan-scores"}).endswith("(--nan-scores propagate)")
    plain = ParameterError("raise ", Param("max_distinct"), " or round with ",
                           Param("round_scores", "d"))
    assert str(pickle.loads(pickle.dumps(plain))) == "raise max_distinct or round with round_scores=d"


def test_param_spellings():
    assert Param("classes", "NEGATIVE,1").text({"classes": "--param classes={}"}) == (
        "--param classes=NEGATIVE,1")
    assert Param("classes").text({"classes": "--param classes={}"}) == "--param classes"
    assert Param("engine", python="venncal.dask").text() == "venncal.dask"
    assert Param("engine", python="venncal.dask").text({"engine": "--engine dask"}) == (
        "--engine dask")


def test_output_format_errors_name_the_path():
    with pytest.raises(TableError, match=r"^o\.xlsx: unknown table format") as info:
        output_format("o.xlsx")
    assert info.value.source == "o.xlsx"


# --------------------------------------------------------------------------------- cells


EDGE_NUMBERS = [1e-310, 1e-300, 1e308, 5e-324, 1 - 2**-53, 2.0**53 - 1, 2.0**53, 2.0**53 + 2,
                -0.0, 1.7976931348623157e308, 0.1, 1 / 3]


@given(st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                          st.sampled_from(EDGE_NUMBERS)), min_size=1, max_size=30))
def test_numbers_read_back_bit_for_bit(values):
    x = np.array(values, dtype=np.float64)
    got = column_numbers(pa.array([repr(v) for v in values]), "t", "s")
    assert got.tobytes() == x.tobytes()


@given(st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                          st.sampled_from(EDGE_NUMBERS)), min_size=1, max_size=30))
def test_written_csv_reads_back_bit_for_bit(tmp_path_factory, values):
    path = str(tmp_path_factory.mktemp("w") / "x.csv")
    x = np.array(values, dtype=np.float64)
    write_table(path, {"x": x})
    with open_table(path) as table:
        back = read_columns(table, ["x"])["x"]
    assert back.tobytes() == x.tobytes()


@given(st.integers(1, 38).flatmap(lambda precision: st.tuples(
    st.just(precision), st.integers(1, precision),
    st.lists(st.integers(-(10**precision) + 1, 10**precision - 1), min_size=1, max_size=20))))
def test_decimal_columns_read_as_the_nearest_double_as_their_text(column):
    # pyarrow's cast of decimal128(5, 2) 0.83 to float64 gave 0.8300000000000001, so a Parquet
    # score tying a calibration score fell past it (attack 34 F2: IVAP p 0.79604, not 0.79310)
    precision, scale, units = column
    values = [decimal.Decimal(u).scaleb(-scale, decimal.Context(prec=40)) for u in units]
    if any(abs(v) >= 2**53 and decimal.Decimal(float(v)) != v for v in values):
        # past 2**53 a value must be its double exactly (attack 54 F5): refused alike
        for arr in (pa.array(values, pa.decimal128(precision, scale)),
                    pa.array([str(v) for v in values])):
            with pytest.raises(TableError, match="is not a float64 exactly"):
                column_numbers(arr, "t", "s")
        return
    got = column_numbers(pa.array(values, pa.decimal128(precision, scale)), "t", "s")
    text = column_numbers(pa.array([str(v) for v in values]), "t", "s")
    assert got.tobytes() == text.tobytes() == np.array([float(v) for v in values]).tobytes()


def test_decimal_0_83_is_read_as_0_83():
    for typ in (pa.decimal128(5, 2), pa.decimal256(40, 2)):
        got = column_numbers(pa.array([decimal.Decimal("0.83"), None], typ), "t", "s",
                             missing="propagate")
        assert got[0] == 0.83 and np.isnan(got[1])


def test_integers_near_2_53_as_text_and_as_parquet_integers():
    # read exactly or refused (issue 22), never rounded into a tie: test_tables_issue22.py
    ints = [2**53 - 1, 2**53, 2**53 + 2, -(2**53) - 2]
    text = column_numbers(pa.array([str(i) for i in ints]), "t", "s")
    typed = column_numbers(pa.array(ints, pa.int64()), "t", "s")
    assert text.tobytes() == typed.tobytes() == np.array([float(i) for i in ints]).tobytes()
    for bad in (2**53 + 1, -(2**53) - 1):
        for arr in (pa.array([str(bad)]), pa.array([bad], pa.int64())):
            with pytest.raises(TableError, match="a float64 exactly|not a float64 exactly"):
                column_numbers(arr, "t", "s")


def test_missing_numbers_propagate_or_fail_with_the_hint():
    arr = pa.array(["0.5", "", "NA", "nan", "-1"])
    got = column_numbers(arr, "t", "s", missing="propagate")
    assert np.isnan(got).tolist() == [False, True, True, True, False]
    hint = (" (", Param("nan_scores", "propagate", python="nan_scores='propagate'"), ")")
    with pytest.raises(TableError) as info:
        column_numbers(arr, "t", "s", 10, hint=hint)
    assert info.value.row == 11
    assert str(info.value) == "t: column 's', row 11: empty cell, a number is needed " \
                              "(nan_scores='propagate')"
    with pytest.raises(TableError, match="'inf' is not a finite number"):
        column_numbers(pa.array(["inf"]), "t", "s", missing="propagate")


# -------------------------------------------------------------------------------- labels


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (np.int64(3), 3), (np.float64(0.5), 0.5), (np.bool_(True), True), ("yes", "yes"),
        (datetime.date(2020, 1, 2), "2020-01-02"), (decimal.Decimal("1.50"), "1.50"),
        (None, None),
    ],
)
def test_label_value(value, expected):
    got = label_value(value)
    assert got == expected
    assert type(got) is type(expected)


@given(st.lists(st.integers(min_value=-(2**70), max_value=2**70), min_size=1, max_size=8))
def test_typed_labels_keep_distinct_integers_distinct(values):
    texts = np.array([str(v) for v in values])
    typed = typed_labels(texts)
    assert len(set(typed.tolist())) == len(set(values))  # never two numbers made one
    if typed.dtype.kind in "iu":
        assert typed.tolist() == values  # exact
    elif typed.dtype.kind == "f":
        assert [Fraction(v) for v in typed.tolist()] == [Fraction(v) for v in values]
    else:
        assert typed.tolist() == texts.tolist()


@pytest.mark.parametrize(
    ("texts", "kind"),
    [
        (["-9223372036854775809", "1"], "U"),  # past int64: a float would be another integer
        (["9007199254740993", "0.5"], "U"),  # 2**53 + 1 among floats
        (["9007199254740992", "0.5"], "f"),  # 2**53 is a double
        (["1e20", "0.5"], "f"),
        (["1.5e300", "-2"], "f"),  # its shortest form
        (["0.1", "0.25"], "f"),  # decimals read as their nearest double, as pyarrow does
    ],
)
def test_typed_labels_never_round_a_large_number(texts, kind):
    """Regression: -9223372036854775809 and 1 became the floats -9223372036854775808.0 and 1.0."""
    assert typed_labels(np.array(texts)).dtype.kind == kind


@given(st.lists(st.sampled_from(["0", "1", "1.0", "0.5", "-2", "true", "False", "x", " 1"]),
                min_size=1, max_size=6))
def test_typed_labels_type_depends_on_the_set_not_the_order(texts):
    forward = typed_labels(np.array(texts))
    backward = typed_labels(np.array(texts[::-1]))
    assert forward.dtype == backward.dtype
    assert forward.tolist() == backward.tolist()[::-1]


def test_csv_and_parquet_labels_read_alike(tmp_path):
    import pyarrow.parquet as pq

    days = [datetime.date(2020, 1, 1), datetime.date(2020, 1, 2)]
    pq.write_table(pa.table({"s": [0.1, 0.2], "d": days, "b": [True, False],
                             "i": pa.array([1, 0], pa.int32())}), tmp_path / "t.parquet")
    _write(tmp_path / "t.csv", "s,d,b,i\n0.1,2020-01-01,true,1\n0.2,2020-01-02,FALSE,0\n")
    for name in ("t.csv", "t.parquet"):
        with open_table(str(tmp_path / name)) as table:
            got = read_columns(table, ["s"], ["d", "b", "i"])
        assert got["d"].tolist() == ["2020-01-01", "2020-01-02"], name
        assert got["b"].tolist() == [True, False], name
        assert got["i"].tolist() == [1, 0], name


def test_column_labels_refuse_missing_labels_with_their_row():
    with pytest.raises(TableError) as info:
        column_labels(pa.array([1, None, 0]), "t.parquet", "y")
    assert (info.value.column, info.value.row) == ("y", 2)
    assert str(info.value).endswith("every row needs one (drop such rows or fill them in)")
    # NaN in a float column (Parquet) is a missing label too, named by its row, with the fix
    for dtype in (pa.float64(), pa.float32(), pa.float16()):
        values = np.array([1.0, 0.0, 0.0, np.nan, np.nan]).astype(dtype.to_pandas_dtype())
        with pytest.raises(TableError) as info:
            column_labels(pa.array(values, dtype), "t.parquet", "y", first_row=11)
        assert (info.value.column, info.value.row) == ("y", 14)
        assert str(info.value) == ("t.parquet: column 'y', row 14: NaN marks a missing value, a "
                                   "label is needed (drop such rows or fill them in)")
    assert column_labels(pa.array([1.0, -0.0, np.inf]), "t.parquet", "y").tolist() == [
        1.0, -0.0, np.inf]


@pytest.mark.parametrize(
    ("labels", "positive", "expected"),
    [
        (["no", "yes"], "no", ["yes", "no"]),
        ([-1, 1], "-1", [1, -1]),
        ([0.0, 1.0], "1", [0.0, 1.0]),
        ([False, True], "TRUE", [False, True]),
        ([1], "0", [1, 0]),
        ([1], "1", [0, 1]),
        ([True], "true", [False, True]),
        (["no"], "yes", ["no", "yes"]),
        ([2, 10], 10, [2, 10]),  # a value, not text
        # integers past 2**53 are matched exactly, not through a float (attack 20 F1)
        ([2**53, 2**53 + 1], str(2**53 + 1), [2**53, 2**53 + 1]),
        ([2**53, 2**53 + 1], str(2**53), [2**53 + 1, 2**53]),
        ([0, 2**53 + 1], str(2**53 + 1), [0, 2**53 + 1]),
        ([2**53 + 1], str(2**53), [2**53 + 1, 2**53]),
        ([2, 10], "1e1", [2, 10]),
        ([0], "1.0", [0, 1]),
        ([0.0], "1", [0.0, 1.0]),
        ([0.1, 0.2], "0.1", [0.2, 0.1]),
        ([0.5], "0.25", [0.5, 0.25]),
        ([2, 10], "1e0000001", [2, 10]),  # an exponent's leading zeros are not its size
        # uint64 labels (past int64) name classes up to 2**64 - 1 (attack 21 F8)
        ([2**64 - 1], "5", [2**64 - 1, 5]),
        ([2**64 - 1], str(2**64 - 2), [2**64 - 1, 2**64 - 2]),
        ([5], str(2**64 - 1), [5, 2**64 - 1]),
        ([2**60 + 1], "1.5e1", [2**60 + 1, 15]),
        # a float label is named as the reader reads its text: 17 digits name 0.2 (attack 22 F3)
        ([0.1, 0.2], "0.20000000000000001", [0.1, 0.2]),
        ([0.1, 0.2], "0.1000000000000000055511151231257827", [0.2, 0.1]),
        ([0.25], "0.30000000000000004", [0.25, 0.30000000000000004]),
    ],
)
def test_classes_for(labels, positive, expected):
    got = classes_for(labels, positive)
    assert got == expected
    assert [type(v) for v in got] == [type(v) for v in expected]


@pytest.mark.parametrize(
    ("labels", "positive", "python", "cli"),
    [
        (["a", "b"], "c", "positive_label='c' is not one of the labels ['a', 'b']",
         "--positive-label 'c' is not one of the labels ['a', 'b']"),
        ([1], "x", "positive_label='x' is not a number, but the labels are numbers",
         "--positive-label 'x' is not a number"),
        ([0, 2**53 + 1], str(2**53), f"positive_label='{2**53}' is not one of the labels",
         f"--positive-label '{2**53}' is not one of the labels [0, {2**53 + 1}]"),
        ([1], "1/2", "positive_label='1/2' is not a number", "--positive-label '1/2' is not"),
        ([1], "1_0", "positive_label='1_0' is not a number", "--positive-label '1_0' is not"),
        ([1], "1e400", "positive_label='1e400' is beyond the range of the labels' 64-bit "
         "integers (int64 or uint64)", "--positive-label '1e400' is beyond"),
        # uint64 labels (past int64) take no negative class; int64 ones none past int64
        ([2**64 - 1], "-1", "positive_label='-1' is beyond the range of the labels' 64-bit "
         "integers (uint64)", "--positive-label '-1' is beyond"),
        ([-1], str(2**63), "64-bit integers (int64)", "is beyond"),
        # a float class beside an integer that float64 cannot hold (attack 21 F8)
        ([2**60 + 1], "1.5", "positive_label='1.5' is not an integer, but the label "
         f"{2**60 + 1} is an integer that float64 cannot hold", "--positive-label '1.5' is"),
        ([1.5], "1e400", "positive_label='1e400' is beyond the range of a float64 label",
         "--positive-label '1e400' is beyond"),
        # one class under two names: the text reads as the only label (attack 21 F4)
        ([0], "1e-400", "positive_label='1e-400' is not the label 0, yet it reads as 0.0",
         "--positive-label '1e-400' is not the label 0"),
        ([1], "1.0000000000000001", "is not the label 1, yet it reads as 1.0 in float64",
         "--positive-label '1.0000000000000001' is not the label 1"),
        ([0], "1e-999999999", "is not the label 0, yet it reads as 0.0", "1e-999999999"),
        # float labels are named by their double or its shortest text (attack 21 F6)
        ([2.0**53, 0.5], str(2**53 + 1), "is not one of the labels",
         f"--positive-label '{2**53 + 1}' is not one of the labels"),
        ([0.0, 1.0], "1e-400", "is not one of the labels", "'1e-400' is not one of"),
        ([1], "\u0661", "is not a number", "is not a number"),  # an Arabic-Indic digit one
        ([0.1], "0.10000000000000001", "every label is 0.1, the positive class by",
         "every label is 0.1, the positive class by --positive-label"),
        (["no"], "no", "name both with classes=[negative, 'no'] instead",
         "the positive class by --positive-label, so the negative class is unknown; name both "
         "with --param classes=NEGATIVE,no instead"),
    ],
)
def test_classes_for_errors_name_the_parameter(labels, positive, python, cli):
    from venncal.cli._flags import FLAGS

    with pytest.raises(ParameterError) as info:
        classes_for(labels, positive)
    assert python in str(info.value)
    assert cli in info.value.spelled(FLAGS)


# -------------------------------------------------------------------------------- inputs


def test_compression_by_content_and_stdin(tmp_path, monkeypatch):
    text = "s,y\n0.25,a\n0.5,b\n"
    (tmp_path / "named.csv").write_bytes(gzip.compress(text.encode()))
    with open_table(str(tmp_path / "named.csv")) as table:
        assert read_columns(table, ["s"], ["y"])["s"].tolist() == [0.25, 0.5]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    with open_table("-") as table:
        assert table.source == "<stdin>"
        assert read_columns(table, ["s"], ["y"])["y"].tolist() == ["a", "b"]


# ------------------------------------------------------------------------------- outputs


def test_atomic_output_leaves_nothing_on_failure(tmp_path):
    path = tmp_path / "out.csv"
    with pytest.raises(RuntimeError), atomic_output(str(path)) as tmp:
        Path(tmp).write_text("partial")
        assert _parts(tmp_path) == [os.path.basename(tmp)]
        raise RuntimeError("boom")
    assert not path.exists()
    assert _parts(tmp_path) == []
    with pytest.raises(KeyboardInterrupt), atomic_output(str(path)):
        raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []


def test_writer_replaces_only_when_complete(tmp_path):
    src = _write(tmp_path / "in.csv", "s\n0.5\n")
    out = tmp_path / "out.parquet"
    out.write_bytes(b"old")
    with open_table(src) as table:
        writer = open_writer(str(out), table, ["p"])
        writer.write(["s", "p"], [pa.array(["0.5"]), pa.array([0.25])])
        assert out.read_bytes() == b"old"
        writer.close(ok=False)
    assert out.read_bytes() == b"old"
    assert _parts(tmp_path) == []
    with open_table(src) as table, pytest.raises(TableError, match=r"already has column\(s\) 's'"):
        open_writer(str(out), table, ["s"])


def test_write_table_formats(tmp_path):
    x = np.array([0.5, 1e-310])
    for name in ("x.csv", "x.tsv.gz", "x.parquet", "x.csv.bz2"):
        write_table(str(tmp_path / name), {"x": x})
        with open_table(str(tmp_path / name)) as table:
            assert read_columns(table, ["x"])["x"].tobytes() == x.tobytes(), name
    with pytest.raises(TableError, match="unknown table format"):
        write_table(str(tmp_path / "x.xlsx"), {"x": x})
    assert _parts(tmp_path) == []


def test_public_names_are_documented():
    for name in tables.__all__:
        obj = getattr(tables, name)
        assert obj.__doc__, name


def test_label_texts_with_far_exponents_are_read_at_once():
    """``1e-999999999`` was built digit by digit (Fraction): a label cell or option hung the
    reader (attack 21 F7). It is no float64 exactly, so the labels stay text."""
    from venncal.tables import matches_label, typed_labels

    texts = np.array(["0", "1e-999999999", "1e999999999"])
    assert typed_labels(texts).tolist() == texts.tolist()
    assert not matches_label(0, "-1e-999999999") and not matches_label(0.0, "1e-999999999")
    assert classes_for([2.0, 3.0], "2e0") == [3.0, 2.0]


def test_files_are_opened_from_a_pathlib_path(tmp_path):
    """fit_file(Path(...)) and compare_file raised AttributeError ('PosixPath' has no 'lower')."""
    from venncal.comparison import compare_file
    from venncal.files import fit_file

    path = tmp_path / "t.csv"
    rng = np.random.default_rng(0)
    s = rng.random(60)
    path.write_text("s,y\n" + "".join(f"{a!r},{int(b)}\n" for a, b in
                                      zip(s.tolist(), rng.random(60) < s)))
    with open_table(path) as table:
        assert table.source == str(path)
    assert fit_file(path, "ivap", score_col="s", label_col="y").classes_.tolist() == [0, 1]
    assert compare_file(path, score_col="s", label_col="y", score="proba", folds=2,
                        methods=["platt"]).methods == ("platt",)
