"""The files ``venncal fit`` and ``predict`` wrote before stay the same, byte for byte.

``tests/data/cli_models/`` holds input tables, the commands of ``commands.txt`` and the
files the CLI wrote for them (see its README.md); every command runs again here, in a copy
of that folder, and must write the same bytes and print the same warnings.  The commands
with ``--engine dask`` run on the session's cluster (conftest.py; skipped outside CI without the
``dask`` extra).
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
from pathlib import Path

import pytest

import venncal
from venncal.cli import main

HERE = Path(__file__).resolve().parent / "data" / "cli_models"
COMMANDS = [
    pytest.param(line.strip(), id=shlex.split(line)[-1])  # named by its output
    for line in (HERE / "commands.txt").read_text("utf-8").splitlines()
    if line.strip() and not line.startswith("#")
]
STDERR = json.loads((HERE / "stderr.json").read_text("utf-8"))
VERSION = re.compile(rb'"venncal_version": "[^"]*"')
pytestmark = [
    # dask's Parquet code still passes inplace= to pandas 3.1, which deprecates it.
    pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame"),
]


@pytest.fixture(scope="module")
def scheduler(request):
    if not os.environ.get("CI"):
        pytest.importorskip("dask.dataframe")
        pytest.importorskip("distributed")
    return request.getfixturevalue("dask_cluster").scheduler_address


def _outputs(target: str) -> list[str]:
    """The files a command's ``-o`` names: a file, or the files of its new directory."""
    if "*" in target:
        folder = os.path.dirname(target)
        return sorted(os.path.join(folder, f) for f in os.listdir(HERE / folder))
    return [target]


def _same_bytes(path: str) -> None:
    got, want = Path(path).read_bytes(), (HERE / path).read_bytes()
    if path.endswith(".json"):
        # The fixture holds format version 2 (see its README.md); the CLI now writes
        # version 3, the same document with CRC-32 checksums (issue 22).  Written again as
        # version 2, the model must be the fixture's bytes.
        assert json.loads(got)["format_version"] == venncal.persist.FORMAT_VERSION == 3
        text = io.StringIO()
        venncal.persist.save(venncal.load(path), text, format_version=2)
        got = text.getvalue().encode("utf-8")
        version = f'"venncal_version": "{venncal.__version__}"'.encode()
        want = VERSION.sub(version, want)
    assert got == want, f"{path} differs from tests/data/cli_models/{path}"


@pytest.mark.parametrize("command", COMMANDS)
def test_command_writes_the_same_files(command, tmp_path, monkeypatch, capsys, request):
    argv = shlex.split(command)
    target = argv[argv.index("-o") + 1]
    written = os.path.dirname(target) if "*" in target else target
    # the inputs (models that predict reads included), not the file(s) the command writes
    shutil.copytree(HERE, tmp_path, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(written, "stderr.json"))
    monkeypatch.chdir(tmp_path)
    if "--engine" in argv:
        argv += ["--scheduler", request.getfixturevalue("scheduler")]
    code = main([*argv, "--quiet"])
    _, err = capsys.readouterr()
    assert code == 0, err
    assert err == STDERR.get(target, "")
    for path in _outputs(target):
        _same_bytes(path)
