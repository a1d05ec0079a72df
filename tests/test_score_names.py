"""A model of K class scores fitted on a table remembers its columns (``score_cols_``).

The same columns given in another order would relabel every prediction
without a word (attack 45 F5): the table fits record the names, the table
predictions refuse a recorded column at another class's place, ``venncal
predict`` takes the recorded columns by default, and the names are saved and
checked on load.
"""

from __future__ import annotations

import shlex

import numpy as np
import pandas as pd
import pytest

from venncal import (
    IsotonicCalibrator,
    OneVsOneCalibrator,
    OneVsRestCalibrator,
    TemperatureCalibrator,
    VectorScalingCalibrator,
    persist,
)
from venncal._score_names import NAME, check, record, recorded
from venncal.cli import main
from venncal.files import fit_file, transform_file
from venncal.persist import ModelFormatError
from venncal.tables import ParameterError

COLS = ["za", "zb", "zc"]


def _table(path, seed=0, n=240):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    z = rng.normal(size=(n, 3))
    z[np.arange(n), y] += 1.5
    frame = pd.DataFrame(dict(zip(COLS, z.T, strict=True)))
    frame["y"] = np.array(["ant", "bee", "cat"])[y]
    frame.to_csv(path, index=False)
    return frame


MODELS = {
    "ovr": lambda: OneVsRestCalibrator(score="logit"),
    "ovo": lambda: OneVsOneCalibrator(score="logit"),
    "temperature": lambda: TemperatureCalibrator(),
    "vector": lambda: VectorScalingCalibrator(),
}


@pytest.mark.parametrize("kind", list(MODELS))
def test_a_table_fit_records_its_columns_and_refuses_them_reordered(tmp_path, kind):
    frame = _table(tmp_path / "d.csv")
    model = fit_file(tmp_path / "d.csv", MODELS[kind](), score_col=COLS, label_col="y")
    assert recorded(model) == COLS
    # the same model as the fit on the arrays, plus the names
    plain = MODELS[kind]().fit(frame[COLS].to_numpy(), frame["y"].to_numpy())
    x = frame[COLS].to_numpy()
    assert model.predict_proba(x).tobytes() == plain.predict_proba(x).tobytes()
    transform_file(tmp_path / "d.csv", model, tmp_path / "ok.csv", score_col=COLS)
    for wrong in (["zb", "za", "zc"], ["zc", "zb", "za"], ["za", "zc", "zb"]):
        with pytest.raises(ParameterError, match="the model was fitted on"):
            transform_file(tmp_path / "d.csv", model, tmp_path / "no.csv", score_col=wrong)
        assert not (tmp_path / "no.csv").exists()
    # other names (a table whose columns were renamed) are taken in the order given
    frame.rename(columns=dict(zip(COLS, ["a", "b", "c"], strict=True))).to_csv(
        tmp_path / "renamed.csv", index=False)
    transform_file(tmp_path / "renamed.csv", model, tmp_path / "r.csv", score_col=["a", "b", "c"])
    got = pd.read_csv(tmp_path / "r.csv", float_precision="round_trip")
    same = pd.read_csv(tmp_path / "ok.csv", float_precision="round_trip")
    assert got.filter(like="p_").equals(same.filter(like="p_"))


@pytest.mark.parametrize("kind", list(MODELS))
def test_predict_proba_on_a_dataframe_checks_the_recorded_columns(tmp_path, kind):
    """Attack 54 F9: the recorded columns given to predict_proba as a DataFrame in another
    order relabelled the classes without a word; a fit on a DataFrame recorded no names."""
    frame = _table(tmp_path / "d.csv")
    for model in (fit_file(tmp_path / "d.csv", MODELS[kind](), score_col=COLS, label_col="y"),
                  MODELS[kind]().fit(frame[COLS], frame["y"])):
        assert recorded(model) == COLS
        want = model.predict_proba(frame[COLS].to_numpy())
        assert model.predict_proba(frame[COLS]).tobytes() == want.tobytes()
        renamed = frame[COLS].rename(columns=dict(zip(COLS, "abc", strict=True)))
        assert model.predict_proba(renamed).tobytes() == want.tobytes()
        for wrong in (["zb", "za", "zc"], ["zc", "zb", "za"]):
            with pytest.raises(ParameterError, match="scores gives column .* the model was"):
                model.predict_proba(frame[wrong])
            with pytest.raises(ParameterError, match="the model was fitted on"):
                model.predict(frame[wrong])
        persist.save(model, tmp_path / "m.json")
        assert recorded(persist.load(tmp_path / "m.json")) == COLS
        model.fit(frame[COLS].to_numpy(), frame["y"].to_numpy())
        assert not hasattr(model, NAME)


def test_a_pyarrow_table_is_checked_by_its_column_names(tmp_path):
    """Attack 56 F2: a pyarrow Table's .columns are its data: the names were the data's text
    and a reordered Table was taken silently."""
    import pyarrow as pa

    frame = _table(tmp_path / "d.csv")
    table = pa.Table.from_pandas(frame[COLS], preserve_index=False)
    for model in (OneVsRestCalibrator(score="logit").fit(frame[COLS], frame["y"]),
                  TemperatureCalibrator().fit(table, frame["y"])):
        assert recorded(model) == COLS
        with pytest.raises(ParameterError, match="the model was fitted on"):
            model.predict_proba(table.select(["zb", "za", "zc"]))


@pytest.mark.parametrize("kind", list(MODELS))
def test_a_failed_refit_keeps_the_old_fit_and_its_names(tmp_path, kind):
    """Attack 56 F3, 57 F0: names recorded before the fit stayed when the refit raised; dropped
    then, the old fit stayed without them and took its columns reordered.  A failed refit now
    leaves the model as it was: the old fit, its names, the reordered columns refused."""
    frame = _table(tmp_path / "d.csv")
    model = MODELS[kind]().fit(frame[COLS], frame["y"])
    before = model.predict_proba(frame[COLS].to_numpy())
    with pytest.raises(ValueError):
        model.fit(frame[["zb", "za", "zc"]], frame["y"][:10])
    assert recorded(model) == COLS
    assert model.predict_proba(frame[COLS]).tobytes() == before.tobytes()
    with pytest.raises(ParameterError, match="the model was fitted on"):
        model.predict_proba(frame[["zc", "zb", "za"]])


def test_the_refusal_names_the_classes():
    model = OneVsRestCalibrator().fit(np.eye(3)[[0, 1, 2] * 4], ["ant", "bee", "cat"] * 4)
    record(model, COLS)
    with pytest.raises(ParameterError) as err:
        check(model, ["zb", "za", "zc"])
    assert str(err.value) == (
        "score_col gives column 'zb' as the score of class 'ant'; the model was fitted on "
        "['za', 'zb', 'zc'], where 'zb' is the score of class 'bee': give the columns in "
        "that order")
    # K columns per fold (a cross Venn-Abers base): column j is class j mod K's
    check(model, COLS + COLS)
    with pytest.raises(ParameterError, match="'zc' as the score of class 'ant'"):
        check(model, ["x", "y", "z", "zc", "za", "zb"])


@pytest.mark.parametrize("kind", list(MODELS))
def test_a_fit_on_arrays_forgets_the_names(tmp_path, kind):
    frame = _table(tmp_path / "d.csv")
    model = fit_file(tmp_path / "d.csv", MODELS[kind](), score_col=COLS, label_col="y")
    model.fit(frame[["zb", "za", "zc"]].to_numpy(), frame["y"].to_numpy())
    assert not hasattr(model, NAME)
    transform_file(tmp_path / "d.csv", model, tmp_path / "o.csv", score_col=["zb", "za", "zc"])


def test_saved_loaded_bit_for_bit_and_checked(tmp_path):
    _table(tmp_path / "d.csv")
    model = fit_file(tmp_path / "d.csv", OneVsRestCalibrator(score="logit"), score_col=COLS,
                     label_col="y")
    persist.save(model, tmp_path / "m.json")
    back = persist.load(tmp_path / "m.json")
    assert getattr(back, NAME).dtype == getattr(model, NAME).dtype
    assert getattr(back, NAME).tolist() == COLS
    persist.save(back, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == (tmp_path / "m.json").read_bytes()
    # a model fitted on arrays is saved without the member, as before it existed
    plain = OneVsRestCalibrator(score="logit").fit(np.eye(3)[[0, 1, 2] * 4], [0, 1, 2] * 4)
    persist.save(plain, tmp_path / "plain.json")
    assert NAME not in (tmp_path / "plain.json").read_text()
    bad = {
        "one column per class": np.array(["za", "zb"]),
        "distinct columns": np.array(["za", "za", "zc"]),
        "1-D array of strings": np.array([1.0, 2.0, 3.0]),
    }
    for message, value in bad.items():
        setattr(model, NAME, value)
        persist.save(model, tmp_path / "bad.json")
        with pytest.raises(ModelFormatError, match=f"inconsistent state: {NAME} must (name|be a) {message}"):
            persist.load(tmp_path / "bad.json")
    # only a model of K class scores has the member
    binary = IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
    setattr(binary, NAME, np.array(["s"]))
    persist.save(binary, tmp_path / "binary.json")
    with pytest.raises(ModelFormatError, match=f"unknown member.*{NAME}"):
        persist.load(tmp_path / "binary.json")


def _cli(capsys, command):
    code = main(shlex.split(command))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, err


def test_venncal_predict_takes_the_recorded_columns_and_refuses_them_reordered(
        tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _table("d.csv")
    code, err = _cli(capsys, "fit d.csv --score-cols za,zb,zc --score-kind logit --label-col y "
                             "--method temperature -o m.json")
    assert code == 0, err
    assert _cli(capsys, "predict m.json d.csv -o default.csv")[0] == 0
    assert _cli(capsys, "predict m.json d.csv --score-cols za,zb,zc -o given.csv")[0] == 0
    assert (tmp_path / "default.csv").read_bytes() == (tmp_path / "given.csv").read_bytes()
    code, err = _cli(capsys, "predict m.json d.csv --score-cols zb,za,zc -o wrong.csv")
    assert code == 2 and not (tmp_path / "wrong.csv").exists()
    assert ("--score-cols gives column 'zb' as the score of class 'ant'; the model was fitted "
            "on ['za', 'zb', 'zc']") in err
    code, err = _cli(capsys, "predict m.json d.csv --score-col za -o wrong.csv")
    assert code == 2 and "a model of 3 classes: give its class scores with --score-cols" in err
