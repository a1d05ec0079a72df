"""Dask: text labels whose order is never guessed, Path outputs, the first bad cell named.

Dask turns a pandas column of Python objects into text (``dataframe.convert-string``),
so integer labels 9 and 10 held in an object column arrive as ``'9'`` and ``'10'``:
sorted as text the positive class was ``'9'``, while the fit on the same pandas
column takes 10, with no word (attack 23 F4).  Such labels are refused unless the
classes are named; text labels whose orders agree are fitted as the text they are.
"""

import io
import os
import re

import numpy as np
import pytest

if not os.environ.get("CI"):
    pytest.importorskip("dask.dataframe", reason="the dask extra is not installed")

import dask
import dask.dataframe as dd
import pandas as pd

import venncal
import venncal.dask as vd
from venncal.dask._frames import check_text_labels

N = 300


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set({"scheduler": "synchronous", "dataframe.convert-string": True}):
        yield


def _frame(labels, seed=0, dtype=object):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0, 1, N)
    y = [labels[1] if b else labels[0] for b in rng.random(N) < s]
    return pd.DataFrame({"s": s, "y": pd.Series(y, dtype=dtype)})


def test_integer_labels_in_an_object_column_are_refused_not_flipped():
    pdf = _frame([9, 10])
    local = venncal.VennAbersCalibrator().fit(pdf.s, pdf.y)
    assert local.classes_.tolist() == [9, 10]
    with pytest.raises(ValueError) as info:
        vd.fit(dd.from_pandas(pdf, npartitions=3), "ivap", score_col="s", label_col="y")
    assert str(info.value) == (
        "column 'y' holds its labels as text ('10', '9'), which read as numbers in another "
        "order (9, 10); Dask makes a column of Python objects text (its "
        "'dataframe.convert-string' option), so the classes' order is not guessed: convert "
        "the column to numbers (df['y'].astype('int64') or 'float64'), or name the classes "
        "as the texts they are (classes=[...] of '10', '9')")
    fixed = vd.fit(dd.from_pandas(pdf.assign(y=pdf.y.astype("int64")), npartitions=3), "ivap",
                   score_col="s", label_col="y")
    assert fixed.classes_.tolist() == [9, 10]
    assert np.array_equal(fixed.predict_proba(pdf.s), local.predict_proba(pdf.s))


def test_named_classes_and_text_whose_orders_agree_are_fitted():
    pdf = _frame(["9", "10"])
    named = vd.fit(dd.from_pandas(pdf, npartitions=2), "ivap", score_col="s", label_col="y",
                   classes=["9", "10"])
    local = venncal.VennAbersCalibrator(classes=["9", "10"]).fit(pdf.s, pdf.y)
    assert named.classes_.tolist() == ["9", "10"]
    assert np.array_equal(named.predict_proba(pdf.s), local.predict_proba(pdf.s))
    for labels in (["0", "1"], ["a", "b"], ["1.5", "x"]):
        pdf = _frame(labels)
        got = vd.fit(dd.from_pandas(pdf, npartitions=2), "platt", score_col="s", label_col="y")
        assert got.classes_.tolist() == sorted(labels)


def test_k_classes_in_an_object_column():
    rng = np.random.default_rng(1)
    z = rng.normal(size=(N, 3))
    y = pd.Series(rng.choice([8, 9, 10], N), dtype=object)
    pdf = pd.DataFrame({"a": z[:, 0], "b": z[:, 1], "c": z[:, 2], "y": y})
    ovr = venncal.OneVsRestCalibrator(score="logit")
    with pytest.raises(ValueError, match=r"\('10', '8', '9'\), which read as numbers in "
                                         r"another order \(8, 9, 10\)"):
        vd.fit(dd.from_pandas(pdf, npartitions=2), ovr, score_col=["a", "b", "c"],
               label_col="y")
    got = vd.fit(dd.from_pandas(pdf.assign(y=y.astype("int64")), npartitions=2), ovr,
                 score_col=["a", "b", "c"], label_col="y")
    assert got.classes_.tolist() == [8, 9, 10]
    named = vd.fit(dd.from_pandas(pdf, npartitions=2),
                   venncal.OneVsRestCalibrator(score="logit", classes=["8", "9", "10"]),
                   score_col=["a", "b", "c"], label_col="y")
    assert named.classes_.tolist() == ["8", "9", "10"]


@pytest.mark.parametrize("labels, refused", [
    (("10", "9"), True), (("-1", "1"), False), (("-2", "-1"), True), (("-2", "-10"), False), (("0.5", "10"), False),
    (("1e3", "2"), True), (("true", "false"), False), (("9", "x"), False), (("9",), False),
    (("-1.0", "-inf"), True), (("inf", "1e308"), False), (("nan", "1"), False),
])
def test_which_text_labels_are_refused(labels, refused):
    if refused:
        with pytest.raises(ValueError, match="another order"):
            check_text_labels(pd.StringDtype(), labels, "y")
    else:
        check_text_labels(pd.StringDtype(), labels, "y")
    check_text_labels(np.dtype(np.int64), labels, "y")  # not a text column: never refused


def test_transform_files_takes_a_path_to_a_new_directory(tmp_path):
    """``Path("out/")`` is ``Path("out")``: the rule 'DIR/ names a directory' could not be
    given as a Path (attack 23 F8)."""
    from venncal.tables import TableError

    pdf = _frame([0, 1], dtype="int64")
    pdf.to_csv(tmp_path / "in.csv", index=False)
    model = venncal.IsotonicCalibrator().fit(pdf.s, pdf.y)
    vd.transform_files(tmp_path / "in.csv", model, tmp_path / "out", score_col="s")
    got = pd.read_parquet(tmp_path / "out")
    assert np.array_equal(got.p.to_numpy(), model.predict_proba(pdf.s)[:, 1])
    vd.transform_files(tmp_path / "in.csv", model, tmp_path / "o2" / "x-*.csv", score_col="s")
    assert (tmp_path / "o2" / "x-0.csv").exists()
    with pytest.raises(TableError, match="names a new directory"):
        vd.transform_files(tmp_path / "in.csv", model, tmp_path / "one.csv", score_col="s")


@pytest.mark.parametrize("engine", ["synchronous", "threads"])
def test_the_first_bad_cell_is_named_whichever_partition_fails_first(tmp_path, engine):
    """Three files of 3,000 rows in partitions of ~20 kB, bad scores at part1.csv row 701 and
    part2.csv row 4: the error named part2.csv row 4, the partition that failed first
    (attack 23 F9); the local reader names the first bad cell."""
    from venncal.tables import TableError

    rng = np.random.default_rng(5)
    folder = tmp_path / "mf"
    folder.mkdir()
    for k in range(3):
        s = rng.uniform(0, 1, 3000).round(6).astype(str)
        if k == 1:
            s[700] = "inf"
        if k == 2:
            s[3] = "x"
        y = (rng.random(3000) < 0.5).astype(int)
        (folder / f"part{k}.csv").write_text(
            "s,y\n" + "".join(f"{a},{b}\n" for a, b in zip(s, y)))
    with dask.config.set(scheduler=engine):
        for _ in range(3):
            with pytest.raises(TableError) as info:
                vd.fit_files(str(folder / "*.csv"), "ivap", score_col="s", label_col="y",
                             blocksize=20000)
            assert str(info.value).startswith(f"{folder / 'part1.csv'}: column 's', row 701")
            assert info.value.row == 701


def test_a_float32_label_is_named_by_its_float32_text(tmp_path):
    """A Parquet float32 label 0.1 is "0.1" for --positive-label on Dask as locally (attack 23
    F6: Dask asked for 0.10000000149011612)."""
    from venncal.files import fit_file
    from venncal.tables import TableError

    rng = np.random.default_rng(4)
    s = rng.uniform(0, 1, N)
    y = np.where(rng.random(N) < s, np.float32(0.1), np.float32(0.2)).astype(np.float32)
    path = tmp_path / "b.parquet"
    pd.DataFrame({"s": s, "y": y}).to_parquet(path)
    local = fit_file(str(path), "ivap", score_col="s", label_col="y", positive_label="0.1")
    got = vd.fit_files(path, "ivap", score_col="s", label_col="y", positive_label="0.1")
    assert got.classes_.tolist() == local.classes_.tolist() == [float(np.float32(0.2)),
                                                                float(np.float32(0.1))]
    assert np.array_equal(got.predict_proba(s), local.predict_proba(s))
    double = vd.fit_files(path, "ivap", score_col="s", label_col="y",
                          positive_label=repr(float(np.float32(0.1))))
    assert np.array_equal(double.predict_proba(s), local.predict_proba(s))
    with pytest.raises(TableError, match="'0.3' is not one of the labels"):
        vd.fit_files(path, "ivap", score_col="s", label_col="y", positive_label="0.3")


def test_float32_classes_are_named_by_their_float32_texts(tmp_path):
    """K classes named "0.1", "0.2", "0.3" name float32 labels on Dask as locally: the model is
    the local one, bit for bit (was refused on Dask: the names were typed as doubles first)."""
    from venncal import persist
    from venncal.files import fit_file
    from venncal.multiclass import OneVsRestCalibrator
    from venncal.tables import TableError

    rng = np.random.default_rng(5)
    scores = rng.dirichlet([1, 1, 1], N)
    y = np.array([0.1, 0.2, 0.3], np.float32)[rng.integers(0, 3, N)]
    path = tmp_path / "k.parquet"
    pd.DataFrame({"a": scores[:, 0], "b": scores[:, 1], "c": scores[:, 2], "y": y}).to_parquet(
        path)
    cols = ["a", "b", "c"]
    model = OneVsRestCalibrator(score="proba", classes=["0.3", "0.1", "0.2"])
    local = fit_file(str(path), model, score_col=cols, label_col="y")
    got = vd.fit_files(path, model, score_col=cols, label_col="y")
    assert model.classes == ["0.3", "0.1", "0.2"]  # the caller's calibrator is left as it was
    want = [float(np.float32(v)) for v in (0.3, 0.1, 0.2)]
    assert got.classes_.tolist() == local.classes_.tolist() == want
    texts = []
    for fitted in (got, local):
        buffer = io.StringIO()
        persist.save(fitted, buffer)
        texts.append(buffer.getvalue())
    assert texts[0] == texts[1]
    with pytest.raises(TableError, match=r"k.parquet: y holds label\(s\) \[0.30000001192092896\] "
                                         r"that are not in classes=\[.*, 0.4\]"):
        vd.fit_files(path, OneVsRestCalibrator(score="proba", classes=["0.1", "0.2", "0.4"]),
                     score_col=cols, label_col="y")


def test_infinite_labels_of_an_object_column_are_refused_not_flipped():
    """-inf and -1.0 became '-inf' and '-1.0', which the first check kept as text: '-1.0' <
    '-inf', and the positive class flipped (attack 24 F2)."""
    pdf = _frame([-np.inf, -1.0])
    assert venncal.VennAbersCalibrator().fit(pdf.s, pdf.y).classes_.tolist() == [-np.inf, -1.0]
    with pytest.raises(ValueError, match=r"\('-1.0', '-inf'\), which read as numbers in "
                                         r"another order \(-inf, -1.0\)"):
        vd.fit(dd.from_pandas(pdf, npartitions=2), "ivap", score_col="s", label_col="y")


def test_fold_texts_that_read_as_one_number_are_refused():
    """An object fold column of 1 and 1.0 (one fold locally) became '1' and '1.0', two folds,
    and the cross Venn-Abers model differed with no word (attack 24 F4)."""
    rng = np.random.default_rng(2)
    s = rng.uniform(0, 1, N).round(2)
    y = (rng.random(N) < s).astype(int)
    folds = rng.integers(0, 3, N)
    mixed = pd.Series([int(v) if i % 2 else float(v) for i, v in enumerate(folds)], dtype=object)
    pdf = pd.DataFrame({"s": s, "y": y, "f": mixed, "z0": -s, "z1": s,
                        "k": np.where(y == 1, "b", "a")})
    with pytest.raises(ValueError, match=r"holds the groups '0' and '0.0' as text, which read "
                                         r"as one number \(0.0\)"):
        vd.fit(dd.from_pandas(pdf, npartitions=3), "cvap", score_col="s", label_col="y", by="f")
    cvap = venncal.OneVsRestCalibrator(venncal.CrossVennAbersCalibrator(), score="logit")
    with pytest.raises(ValueError, match="as one number"):
        vd.fit(dd.from_pandas(pdf, npartitions=3), cvap, score_col=["z0", "z1"], label_col="k",
               by="f")
    from venncal.dask._frames import check_text_groups

    for groups in (["!", "1", "1.0"], ["1", "1.0", "x"]):  # whatever other text sorts first
        with pytest.raises(ValueError, match="holds the groups '1' and '1.0'"):
            check_text_groups(pd.StringDtype(), groups, "f")
    check_text_groups(pd.StringDtype(), ["1", "2", "x"], "f")
    plain = pdf.assign(f=folds)
    got = vd.fit(dd.from_pandas(plain, npartitions=3), "cvap", score_col="s", label_col="y",
                 by="f")
    local = venncal.CrossVennAbersCalibrator().fit(s, y, folds=mixed.to_numpy())
    assert np.array_equal(got.predict_proba(s), local.predict_proba(s))


def _three_files(folder, bad: dict) -> None:
    """part0..2.csv of 3,000 rows of scores in (0, 1) and labels; ``bad[(k, row)]`` the text of
    file k's row (counted from 1 after the header)."""
    rng = np.random.default_rng(7)
    folder.mkdir()
    for k in range(3):
        s = rng.uniform(0.01, 0.99, 3000).round(6).astype(str)
        for (file, row), text in bad.items():
            if file == k:
                s[row - 1] = text
        y = (rng.random(3000) < 0.5).astype(int)
        (folder / f"part{k}.csv").write_text(
            "s,y\n" + "".join(f"{a},{b}\n" for a, b in zip(s, y)))


@pytest.mark.parametrize("engine", ["synchronous", "processes"])
def test_predict_counts_the_bad_rows_of_every_partition(tmp_path, engine):
    """Scores 1.5 at part1.csv row 2,901 and part2.csv rows 11 and 2,501, partitions of ~20 kB:
    Dask's predict said "found 2 outside, the first in row 11" of part2.csv, one partition's
    count and first (attack 24 F3); the local engine says 3, the first at part1.csv row 2,901."""
    from venncal.tables import TableError

    folder = tmp_path / "mf"
    _three_files(folder, {(1, 2901): "1.5", (2, 11): "1.5", (2, 2501): "1.5"})
    model = venncal.BetaCalibrator().fit([0.1, 0.2, 0.6, 0.7, 0.9], [0, 0, 1, 0, 1])
    with dask.config.set(scheduler=engine), pytest.raises(TableError) as info:
        vd.transform_files(str(folder / "*.csv"), model, f"{tmp_path}/out/",
                           score_col="s", blocksize=20000)
    message = str(info.value)
    assert message.startswith(f"{folder / 'part1.csv'}: cannot predict: ")
    assert message.endswith("found 3 outside, the first in row 2,901 (1.5)")
    assert not (tmp_path / "out").exists()


def test_predict_names_a_bad_cell_before_a_bad_row(tmp_path):
    """A score 1.5 at part0.csv row 5 (a bad row for the model) and 'inf' at part2.csv row 7 (a
    bad cell): the local engine reads every cell first and names the cell; so does Dask now,
    whichever partition fails first."""
    from venncal.tables import TableError

    folder = tmp_path / "mf"
    _three_files(folder, {(0, 5): "1.5", (2, 7): "inf"})
    model = venncal.BetaCalibrator().fit([0.1, 0.2, 0.6, 0.7, 0.9], [0, 0, 1, 0, 1])
    with pytest.raises(TableError) as info:
        vd.transform_files(str(folder / "*.csv"), model, f"{tmp_path}/out/",
                           score_col="s", blocksize=20000)
    assert str(info.value).startswith(f"{folder / 'part2.csv'}: column 's', row 7 (partition ")


def test_a_count_over_partitions_that_failed_other_checks_is_a_lower_bound():
    """Partitions 1 and 3 fail one check, partition 2 another (it stopped before counting the
    first check's rows): the total of the first check is then "at least"."""
    from venncal._rows import RowError
    from venncal.dask._files import _first_of_rows, row_error

    def err(partition, kind, count, index):
        return row_error(RowError(f"{kind}; found {count} bad, the first ", index, "",
                                  count=count), partition)

    same = _first_of_rows([err(1, "a", 2, 9), err(3, "a", 4, 0)])
    assert same.partition == 1
    assert str(same.row_error) == "a; found 6 bad, the first row 9 (from 0)"
    mixed = _first_of_rows([err(1, "a", 2, 9), err(2, "b", 1, 0), err(3, "a", 4, 0)])
    assert str(mixed.row_error) == "a; found at least 6 bad, the first row 9 (from 0)"
    alone = _first_of_rows([err(1, "a", 2, 9)])
    assert str(alone.row_error) == "a; found 2 bad, the first row 9 (from 0)"


def test_a_fit_on_distinct_scores_names_no_row():
    """Beta on scores outside [0, 1], fitted by Dask from the summary's distinct scores, said
    "found 1 outside, the first at index 5869 (1.5)": an index of the distinct scores read as a
    row, and a count of distinct scores read as rows (attack 24 F5)."""
    s = np.r_[np.linspace(0.01, 0.99, 50), 1.5, 1.5, -0.5]
    pdf = pd.DataFrame({"s": s, "y": np.arange(s.size) % 2})
    with pytest.raises(ValueError) as info:
        vd.fit(dd.from_pandas(pdf, npartitions=2), "beta", score_col="s", label_col="y")
    assert str(info.value).endswith("found 2 distinct scores outside, the smallest (-0.5)")


def test_transform_files_output_names(tmp_path, monkeypatch):
    """Attack 24 F5: 'NAME-*.csv' in the working directory said "the directory  holds the input"
    (no name); bytes raised a TypeError; glob characters in a Path got the generic usage."""
    from pathlib import Path

    from venncal.tables import TableError

    monkeypatch.chdir(tmp_path)
    Path("in.csv").write_text("s,y\n0.1,0\n0.3,1\n0.6,0\n0.9,1\n")
    model = venncal.IsotonicCalibrator().fit([0.1, 0.3, 0.6, 0.9], [0, 1, 0, 1])
    with pytest.raises(TableError, match="the directory \\. holds the input"):
        vd.transform_files("in.csv", model, Path("o-*.csv"), score_col="s")
    for out in (Path("o[1]"), "o?x/", "x[1]/p-*.csv"):
        with pytest.raises(TableError, match="has a glob character"):
            vd.transform_files("in.csv", model, out, score_col="s")
    assert vd.transform_files("in.csv", model, b"bdir/", score_col="s") == 4
    assert sorted(os.listdir("bdir")) == ["part-0.parquet"]


def test_summarize_names_a_text_label_by_its_number():
    """An object column of ints 9/10 arrives as text: positive_label=10 said "pos_label=10 is not
    one of the labels ['10', '9']" (attack 24 F5); it names '10' now, and True names 'True'."""
    from venncal.summary import ScoreSummary
    from venncal.tables import classes_for

    pdf = pd.DataFrame({"s": [0.1, 0.4, 0.35, 0.8],
                        "y": pd.Series([9, 10, 9, 10], dtype=object),
                        "b": pd.Series([False, True, False, True], dtype=object)})
    df = dd.from_pandas(pdf, npartitions=2)
    want = ScoreSummary.from_arrays(pdf.s.to_numpy(), np.array([0, 1, 0, 1]))
    for col, positive in (("y", 10), ("b", True)):
        got = vd.summarize(df, "s", col, positive_label=positive)
        for name in ("scores", "weights", "positive_weights"):
            assert np.array_equal(getattr(got, name), getattr(want, name))
    with pytest.raises(venncal.tables.ParameterError, match="names both labels"):
        classes_for(["1", "1.0"], 1)


@pytest.mark.parametrize("kind", ["decimal", "int"])
def test_parquet_files_of_different_column_types_are_not_cast_to_one(tmp_path, kind):
    """Dask writes Parquet output in one schema, the first file's: a decimal(5, 2) score of
    -0.69 in the second file came out as -0.6900000000000001 (12 of 100 cells, pyarrow's cast),
    exit 0 (attack 37 F1); int64 then double failed with a cut pyarrow message (F2).  Such
    files are refused for Parquet output, naming the column, the types and the files; CSV
    output writes each file's own cells."""
    import decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    from venncal.tables import TableError

    rng = np.random.default_rng(5)
    s = np.round(rng.uniform(-3, 3, 100), 2)
    y = (rng.random(100) < 0.5).astype("int64")
    first = pa.array(s) if kind == "decimal" else pa.array(np.round(s * 100).astype("int64"))
    second = (pa.array([decimal.Decimal(f"{v:.2f}") for v in s], pa.decimal128(5, 2))
              if kind == "decimal" else pa.array(s))
    (tmp_path / "in").mkdir()
    pq.write_table(pa.table({"s": first, "y": y}), tmp_path / "in" / "a.parquet")
    pq.write_table(pa.table({"s": second, "y": y}), tmp_path / "in" / "b.parquet")
    model = venncal.IsotonicCalibrator().fit(s, y)
    types = "decimal128(5, 2) here and double" if kind == "decimal" else "double here and int64"
    with pytest.raises(TableError, match=rf"b.parquet: column 's' is {re.escape(types)} in "
                                         r".*a.parquet; .*one schema.*write CSV output"):
        vd.transform_files(tmp_path / "in", model, tmp_path / "out", score_col="s")
    assert not (tmp_path / "out").exists()
    vd.transform_files(tmp_path / "in", model, tmp_path / "o2" / "x-*.csv", score_col="s")
    got = pd.read_csv(tmp_path / "o2" / "x-1.csv", dtype={"s": str})  # b.parquet's rows
    if kind == "decimal":
        assert got.s.tolist() == [f"{v:.2f}" for v in s]  # the decimals' own text
    else:
        assert np.array_equal(got.s.astype(float).to_numpy(), s)


def test_parquet_files_with_labels_of_two_kinds_are_refused(tmp_path):
    # attack 52 F4: int 0/1 labels in one file and booleans in another were merged (True as 1),
    # where CSV files, and the local reader, keep them apart
    pd.DataFrame({"s": [0.1, 0.2, 0.3], "y": np.array([0, 1, 0])}).to_parquet(tmp_path / "a.parquet")
    pd.DataFrame({"s": [0.4, 0.5, 0.6], "y": [True, False, True]}).to_parquet(tmp_path / "b.parquet")
    with pytest.raises(venncal.tables.TableError, match="column 'y' holds booleans here and "
                                                        "numbers in .*a.parquet"):
        vd.fit_files(str(tmp_path), "ivap", score_col="s", label_col="y")
    # int and float labels are both numbers (1 and 1.0 are one label): read as before
    pd.DataFrame({"s": [0.4, 0.5, 0.6], "y": [1.0, 0.0, 1.0]}).to_parquet(tmp_path / "b.parquet")
    assert vd.fit_files(str(tmp_path), "ivap", score_col="s", label_col="y").classes_.tolist() == [0, 1]
