"""Every docstring example in the installed package and in the README runs."""

import doctest
import importlib
import os
import pkgutil
from pathlib import Path

import pytest

import venncal

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
README = Path(__file__).resolve().parent.parent / "README.md"
#: Modules of the optional engines -> the library their extra installs (skipped outside CI without it).
ENGINES = {
    "venncal.dask": "dask.dataframe",
    "venncal.dask._files": "dask.dataframe",
    "venncal.dask._fit_files": "dask.dataframe",
    "venncal.dask._frames": "dask.dataframe",
    "venncal.dask._transform_files": "dask.dataframe",
    "venncal.spark._fit": "pyspark",
    "venncal.spark._ml": "pyspark",
    "venncal.spark._transform": "pyspark",
    "venncal._spark_ml": "pyspark",
}
#: Modules whose examples need a Spark session: tests/test_spark.py runs them.
SPARK_SESSION = (
    "venncal.spark", "venncal.spark._fit", "venncal.spark._ml", "venncal.spark._transform",
    "venncal._spark_ml",
)


def _modules():
    names = ["venncal"]
    for info in pkgutil.walk_packages(venncal.__path__, prefix="venncal."):
        if not info.name.endswith("__main__"):
            names.append(info.name)
    return names


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    if name in ENGINES and not os.environ.get("CI"):
        pytest.importorskip(ENGINES[name], reason=f"the optional engine of {name} is not installed")
    if name in SPARK_SESSION:
        pytest.skip("its examples need a Spark session: tests/test_spark.py runs them")
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


def test_public_objects_have_examples():
    for name in venncal.__all__:
        obj = getattr(venncal, name)
        if callable(obj):
            assert ">>>" in (obj.__doc__ or ""), f"venncal.{name} has no Examples section"


@pytest.mark.skipif(not README.exists(), reason="README.md is not next to the tests")
def test_readme_examples():
    result = doctest.testfile(str(README), module_relative=False, optionflags=FLAGS)
    assert result.failed == 0
    assert result.attempted > 0


@pytest.mark.skipif(not README.exists(), reason="README.md is not next to the tests")
def test_readme_commands_are_run_by_the_cli_tests():
    # tests/test_cli.py runs every "$ venncal" line of docs/cli.md.
    cli_doc = (README.parent / "docs" / "cli.md").read_text("utf-8").splitlines()
    lines = [
        line for line in README.read_text("utf-8").splitlines() if line.startswith("$ venncal ")
    ]
    assert lines
    for line in lines:
        assert line in cli_doc, line
