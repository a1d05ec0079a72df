"""How ``fit`` types the labels of a table: from their distinct values, exactly."""

from __future__ import annotations

import numpy as np
import pytest

from venncal import persist
from venncal.cli import main
from venncal.tables import typed_labels

pa = pytest.importorskip("pyarrow")


@pytest.mark.parametrize(
    ("texts", "expected", "kind"),
    [
        (["1", "0", "1"], [1, 0, 1], "i"),
        (["-1", "1"], [-1, 1], "i"),
        (["01", "1", "0"], [1, 1, 0], "i"),  # the same number, as pyarrow reads it
        (["9223372036854775808", "0"], [9223372036854775808, 0], "u"),  # past int64
        (["TRUE", "false"], [True, False], "b"),
        (["1", "true"], ["1", "true"], "U"),  # a number and a word: text
        (["1.0", "0", "1"], [1.0, 0.0, 1.0], "f"),  # 1.0 and 1 are the same number
        (["0.1", "0.10"], [0.1, 0.1], "f"),
        # different numbers that float64 would make equal stay apart, as text
        (["18446744073709551616", "18446744073709551617"],
         ["18446744073709551616", "18446744073709551617"], "U"),
        (["2020-01-01", "2020-01-02"], ["2020-01-01", "2020-01-02"], "U"),
        (["yes", "no"], ["yes", "no"], "U"),
    ],
)
def test_typed_labels(texts, expected, kind):
    got = typed_labels(np.array(texts))
    assert got.dtype.kind == kind
    assert got.tolist() == expected


def test_parquet_labels_that_are_dates_become_text(tmp_path, monkeypatch, capsys):
    import datetime

    import pyarrow.parquet as pq

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    s = rng.random(100)
    days = [datetime.date(2020, 1, 1 + int(u < a)) for a, u in zip(s, rng.random(100), strict=True)]
    pq.write_table(pa.table({"score": s, "label": pa.array(days, pa.date32())}), "d.parquet")
    assert main(["fit", "d.parquet", "--score-col", "score", "--label-col", "label",
                 "--method", "ivap", "-o", "m.json"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    assert persist.load("m.json").classes_.tolist() == ["2020-01-01", "2020-01-02"]


@pytest.mark.parametrize(("positive", "said"), [
    ("5", None),
    ("18446744073709551614", None),
    ("-1", "--positive-label '-1' is beyond the range of the labels' 64-bit integers (uint64)"),
    ("1.5", "--positive-label '1.5' is not an integer, but the label 18446744073709551615"),
])
def test_uint64_labels_name_a_positive_class(tmp_path, monkeypatch, capsys, positive, said):
    """A column of one uint64 label: an absent positive class is named exactly, or refused
    naming the option (attack 21 F8: 'int64 range', then 'not in classes' for '5')."""
    monkeypatch.chdir(tmp_path)
    rows = "".join(f"0.{i}1,18446744073709551615\n" for i in range(9))
    (tmp_path / "u.csv").write_text("score,label\n" + rows)
    args = ["fit", "u.csv", "--score-col", "score", "--label-col", "label", "--method", "ivap",
            f"--positive-label={positive}", "-o", "m.json", "-q"]
    if said is None:
        assert main(args) == 0
        model = persist.load("m.json")
        assert model.classes_.dtype == np.uint64
        assert model.classes_.tolist() == [2**64 - 1, int(positive)]
    else:
        assert main(args) == 2
        assert said in capsys.readouterr().err


def test_float32_labels_are_named_as_float32_prints_them(tmp_path, monkeypatch):
    """A Parquet float32 label 0.1 is 0.10000000149011612 as a double: '0.1' names it in fit
    and evaluate, as does its double's text (attack 21 F8: '0.1' was not one of the labels)."""
    import pyarrow.parquet as pq

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(1)
    s = rng.random(40)
    lab = np.where(rng.random(40) < s, np.float32(0.1), np.float32(0.7)).astype(np.float32)
    pq.write_table(pa.table({"score": s, "label": lab}), "f.parquet")
    for text in ("0.1", "0.10000000149011612"):
        assert main(["fit", "f.parquet", "--score-col", "score", "--label-col", "label",
                     "--method", "ivap", f"--positive-label={text}", "-o", "m.json", "-q"]) == 0
        assert persist.load("m.json").classes_.tolist() == [float(np.float32(0.7)),
                                                           float(np.float32(0.1))]
    assert main(["predict", "m.json", "f.parquet", "--score-col", "score", "-o", "o.csv",
                 "-q"]) == 0
    assert main(["evaluate", "o.csv", "--label-col", "label", "--prob-col", "p",
                 "--positive-label", "0.7", "--json", "-q"]) == 0
