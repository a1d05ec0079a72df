"""The package imports lazily: the command line's --help needs none of the heavy libraries."""

import subprocess
import sys

import pytest

import venncal

HEAVY = ("sklearn", "scipy", "numba", "pandas", "pyarrow", "matplotlib")


def test_help_and_version_import_no_heavy_library():
    code = (
        "import sys, contextlib, io\n"
        "from venncal.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['--help']) == 0 and main(['--version']) == 0\n"
        "for sub in ('fit', 'predict', 'evaluate', 'reproduce', 'demo'):\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n"
        "        assert main([sub, '--help']) == 0\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


@pytest.mark.parametrize("name", venncal.__all__)
def test_every_public_name_resolves(name):
    assert getattr(venncal, name) is not None
    assert name in dir(venncal)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        venncal.nope  # noqa: B018


def test_submodules_are_reachable_as_attributes():
    assert venncal.metrics.log_loss([0, 1], [0.5, 0.5], base=2) == 1.0
    assert venncal.persist.load is venncal.load
