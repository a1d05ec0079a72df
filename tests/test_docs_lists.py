"""The lists in the docs are the library's: no experiment, class, command or method is missing.

Issue 23: docs/cli.md listed 3 of the 7 experiments, docs/model-format.md's class table
omitted two classes that ``venncal fit`` writes.  Each list here is read from the docs and
compared with the registry it documents.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
pytestmark = pytest.mark.skipif(not DOCS.is_dir(), reason="docs/ is not next to the tests")


def _section(path: Path, heading: str) -> str:
    text = path.read_text("utf-8")
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _first_column(table_text: str) -> list[str]:
    return re.findall(r"^\| `([^`]+)` \|", table_text, flags=re.MULTILINE)


def test_cli_doc_lists_every_experiment():
    from venncal.experiments import EXPERIMENTS

    assert _first_column(_section(DOCS / "cli.md", "Reproduce")) == list(EXPERIMENTS)


def test_cli_doc_shows_every_command():
    from venncal.cli import build_parser

    parser = build_parser()
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    text = (DOCS / "cli.md").read_text("utf-8")
    for name in sub.choices:
        assert re.search(rf"\bvenncal {name}\b", text), f"docs/cli.md never shows venncal {name}"


def test_model_format_lists_every_class():
    from venncal._registry import CALIBRATORS, WRAPPERS

    text = (DOCS / "model-format.md").read_text("utf-8")
    for path in (*CALIBRATORS.values(), *WRAPPERS):
        assert f"`{path}`" in text, f"docs/model-format.md does not list {path}"


def test_estimators_doc_states_every_methods_score():
    from venncal._registry import available_methods

    text = (DOCS / "estimators.md").read_text("utf-8")
    first_cells = re.findall(r"^\| ([^|]+) \|", text, flags=re.MULTILINE)
    names = {n for cell in first_cells for n in re.findall(r"`([a-z-]+)`", cell)}
    assert set(available_methods()) <= names


def test_readme_lists_every_method():
    from venncal._registry import available_methods

    text = (ROOT / "README.md").read_text("utf-8")
    listed = re.search(r"`fit` takes `--method ([a-z|-]+)`", text).group(1).split("|")
    assert listed == list(available_methods())


def test_data_doc_lists_every_data_set():
    from venncal.datasets import DATASETS

    rows = re.findall(r"^\| `(\w+)` \| `([^`]+)` \|", (DOCS / "data.md").read_text("utf-8"),
                      flags=re.MULTILINE)
    expected = {name: d["source_file"] for name, d in DATASETS.items() if name != "adult"}
    assert dict(rows) == expected


def test_docs_link_only_to_files_that_exist():
    # Issue 23: docs/architecture.md referred to a design note outside the repository.
    for md in [ROOT / "README.md", *DOCS.glob("*.md")]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", md.read_text("utf-8")):
            if "://" in target:
                continue
            assert (md.parent / target).exists(), f"{md.name} links to missing {target}"
        assert "shared/docs" not in md.read_text("utf-8"), f"{md.name} cites shared/docs"


def test_names_table_matches_the_signatures():
    # docs/architecture.md's table of the names of the positive class, folds and weights.
    import inspect

    import venncal
    import venncal.metrics as vm

    def params(f):
        return set(inspect.signature(f).parameters)

    text = _section(DOCS / "architecture.md", "The same thing under different names")
    assert "`classes=[negative, positive]`" in text and "`pos_label=`" in text
    for name in venncal._registry.available_methods():
        assert "classes" in params(venncal._registry.method_class(name))
    for metric in (vm.log_loss, vm.brier_loss, vm.ece, vm.roc_auc, vm.evaluate):
        assert {"pos_label", "sample_weight"} <= params(metric), metric.__name__
    assert "folds" in params(venncal.CrossVennAbersCalibrator.fit)
    pytest.importorskip("dask.dataframe")
    import venncal.dask as vd

    assert {"positive_label", "by", "weight_col"} <= params(vd.summarize)
    assert {"positive_label", "by", "weight_col"} <= params(vd.fit_files)
    assert {"by", "weight_col"} <= params(vd.fit)
