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
