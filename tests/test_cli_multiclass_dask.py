"""``venncal fit``/``predict --score-cols`` with ``--engine dask``: the local engine's model and rows.

The CLI calls :func:`venncal.dask.fit_files` with ``method=`` a multiclass
calibrator and ``score_col=`` the K columns, and
:func:`venncal.dask.transform_files` with ``output_cols=`` the prefixes
(issue 24's engine contract).  The commands run on the session's
LocalCluster of two worker processes (``--scheduler``).
"""

from __future__ import annotations

import os
import shlex

import numpy as np
import pandas as pd
import pytest

REASON = 'the dask extra is not installed (pip install "venncal[dask]")'
if not os.environ.get("CI"):
    pytest.importorskip("dask.dataframe", reason=REASON)
    pytest.importorskip("distributed", reason=REASON)

from venncal import persist
from venncal.cli import main

N, K = 300, 3
pytestmark = [pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame")]
SCORES = "--score-cols s_0,s_1,s_2"


@pytest.fixture(scope="module")
def scheduler(dask_cluster):
    return dask_cluster.scheduler_address


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """cal.csv and the same rows in three CSV files (parts/) and three Parquet files (pq/)."""
    d = tmp_path_factory.mktemp("mcengine")
    rng = np.random.default_rng(0)
    z = (rng.normal(size=(N, K)) * 2).round(2)  # ties across the files
    frame = pd.DataFrame({f"s_{k}": z[:, k] for k in range(K)})
    frame["y"] = np.array([5, 7, 9])[(z + rng.gumbel(size=z.shape)).argmax(axis=1)]
    frame["fold"], frame["w"] = np.arange(N) % 3, rng.integers(0, 4, N)
    frame.to_csv(d / "cal.csv", index=False)
    (d / "parts").mkdir()
    (d / "pq").mkdir()
    for k, (a, b) in enumerate([(0, 120), (120, 121), (121, N)]):
        frame.iloc[a:b].to_csv(d / "parts" / f"p{k}.csv", index=False)
        frame.iloc[a:b].to_parquet(d / "pq" / f"p{k}.parquet")
    return d


def ok(capsys, command: str):
    code = main(shlex.split(command))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


@pytest.mark.parametrize("source", ["parts", "pq"])
@pytest.mark.parametrize(
    "options",
    ["--method ivap --weight-col w", "--method cvap --fold-col fold --multiclass ovo",
     "--method platt --classes 9,5,7"],
)
def test_dask_fit_and_predict_equal_local(files, scheduler, capsys, monkeypatch, source, options):
    monkeypatch.chdir(files)
    tag = f"{source}-{options.split()[1]}"  # the files are shared by the module: one name per case
    common = f"{SCORES} --score-kind logit --label-col y {options}"
    ok(capsys, f"fit cal.csv {common} -o local-{tag}.json")
    ok(capsys, f"fit {source} {common} -o dask-{tag}.json --engine dask "
               f"--scheduler {scheduler}")
    local, dask = persist.load(f"local-{tag}.json"), persist.load(f"dask-{tag}.json")
    z = pd.read_csv("cal.csv")[["s_0", "s_1", "s_2"]].to_numpy()
    assert local.classes_.tolist() == dask.classes_.tolist()
    assert local.predict_proba(z).tobytes() == dask.predict_proba(z).tobytes()
    intervals = "--intervals" if "platt" not in options else ""
    ok(capsys, f"predict local-{tag}.json cal.csv {SCORES} {intervals} -o l-{tag}.csv")
    ok(capsys, f"predict local-{tag}.json {source} {SCORES} {intervals} --engine dask "
               f"--scheduler {scheduler} -o 'out-{tag}/part-*.csv'")
    expected = pd.read_csv(f"l-{tag}.csv", float_precision="round_trip")
    parts = sorted(os.listdir(f"out-{tag}"), key=lambda n: int(n.split("-")[1].split(".")[0]))
    got = pd.concat([pd.read_csv(f"out-{tag}/{p}", float_precision="round_trip")
                     for p in parts], ignore_index=True)
    added = [c for c in expected.columns if c.startswith(("p_", "p0_", "p1_"))]
    assert added and list(got.columns[-len(added):]) == added
    for column in added:
        assert got[column].to_numpy().tobytes() == expected[column].to_numpy().tobytes()


def test_columns_out_of_the_order_of_the_classes_are_the_same_warning(files, scheduler,
                                                                      capsys, tmp_path):
    """--engine dask warns of score columns out of the order of the classes as the local
    engine does, once, with the same words."""
    said = {}
    for engine in ("local", "dask"):
        extra = f"--engine dask --scheduler {scheduler}" if engine == "dask" else ""
        _, err = ok(capsys, f"fit {files / 'cal.csv'} {SCORES} --score-kind logit --label-col y "
                            f"--method ovr-ivap --classes 9,5,7 -o {tmp_path / engine}.json "
                            f"{extra}")
        said[engine] = [line for line in err.splitlines() if "out of the order" in line]
    assert len(said["local"]) == 1 and said["dask"] == said["local"]
