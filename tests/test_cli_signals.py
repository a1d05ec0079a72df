"""Commands end cleanly on SIGTERM, and the library's warnings reach the user once each.

A command killed with SIGTERM (a job scheduler's stop, ``kill``) removes its
temporary ``.XXXX.part.NAME`` files and exits 143, as Ctrl-C does with 130: each
test starts ``venncal`` in a subprocess whose slow step is made to wait, sends a
real signal while the temporary file exists, and checks what is left.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
import warnings
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest

import venncal
from venncal.cli import main

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGTERM") or os.name == "nt",
                                reason="needs POSIX signals")
# The directory of the venncal under test (site-packages in CI, src/ in an editable install):
# the children import it, and load its compiled kernels from its cache, warmed before the
# tests; src/ of a non-editable install has a cold cache of its own (29 s for a fit).
SRC = str(Path(venncal.__file__).resolve().parent.parent)


@pytest.fixture
def data(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    s = rng.normal(size=300).round(3)
    y = np.where(rng.random(300) < 1 / (1 + np.exp(-2 * s)), "yes", "no")
    p = 1 / (1 + np.exp(-s))
    lines = ["score,label,p"] + [f"{a!r},{b},{c!r}" for a, b, c in zip(s.tolist(), y, p.tolist(), strict=True)]
    (tmp_path / "cal.csv").write_text("\n".join(lines) + "\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(shlex.split("fit cal.csv --score-col score --label-col label --method ivap "
                            "-o m.json --quiet")) == 0
    return tmp_path


#: command -> (what to make slow, once its temporary file exists; the file it writes)
SLOW = {
    "fit cal.csv --score-col score --label-col label --method ivap -o out.json":
        ("venncal.persist", "save", "out.json"),
    "predict m.json cal.csv --score-col score --prefix cal_ -o out.csv":
        ("venncal._engine", "score_rows", "out.csv"),
    "monitor cal.csv --prob-col p --label-col label -o out.csv":
        ("venncal.tables._write.Writer", "write", "out.csv"),
    "evaluate cal.csv --prob-col p --label-col label --plot out.png":
        ("matplotlib.figure.Figure", "savefig", "out.png"),
}

CHILD = """
import importlib, sys, time
from pathlib import Path
path, name = {target!r}, {name!r}
module, _, attr = path.rpartition(".")
try:
    owner = importlib.import_module(path)
except ImportError:
    owner = getattr(importlib.import_module(module), attr)
def slow(*args, **kwargs):
    Path("ready").write_text("")
    time.sleep(120)
setattr(owner, name, slow)
from venncal.cli import main
sys.exit(main({argv!r}))
"""


@pytest.mark.parametrize("command", [
    # a subprocess each (seconds): monitor and evaluate run with the slow tests
    pytest.param(c, marks=pytest.mark.slow) if c.startswith(("monitor", "evaluate")) else c
    for c in SLOW
])
def test_sigterm_removes_temporary_files_and_exits_143(command, data):
    if "--plot" in command and find_spec("matplotlib") is None:
        pytest.skip("needs matplotlib")
    target, name, output = SLOW[command]
    code = CHILD.format(target=target, name=name, argv=shlex.split(command))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not Path("ready").exists():
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the command never reached its slow step"
            time.sleep(0.05)
        assert [f for f in os.listdir() if ".part." in f]  # its temporary file, now
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 128 + signal.SIGTERM, err
    assert err.strip().splitlines()[-1] == f"venncal {command.split()[0]}: terminated"
    assert "Traceback" not in err
    assert not [f for f in os.listdir() if ".part." in f]
    assert not Path(output).exists()


def test_no_handler_outside_a_command(data, capsys):
    """Importing or running the CLI leaves the process's SIGTERM handler as it was."""
    code = "import signal, venncal, venncal.cli, venncal.tables; print(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": SRC})
    assert out.stdout.strip() == "True"
    before = signal.getsignal(signal.SIGTERM)
    assert main(shlex.split("predict m.json cal.csv --score-col score -o o.csv --prefix q_")) == 0
    assert signal.getsignal(signal.SIGTERM) is before


class NearlyWeightlessWarning(UserWarning):
    """Stands for a venncal warning (e.g. weights summing to far less than the rows)."""


def test_library_warnings_are_printed_once_even_with_quiet(data, capsys, monkeypatch):
    import venncal.persist

    save = venncal.persist.save

    def warn_then_save(*args, **kwargs):
        for _ in range(3):
            warnings.warn("sample_weight sums to 0.001 for 300 rows", NearlyWeightlessWarning,
                          stacklevel=2)
        warnings.warn("another one", NearlyWeightlessWarning, stacklevel=2)
        return save(*args, **kwargs)

    monkeypatch.setattr(venncal.persist, "save", warn_then_save)
    command = "fit cal.csv --score-col score --label-col label --method ivap -o w.json"
    for quiet in (" --quiet", ""):
        assert main(shlex.split(command + quiet)) == 0
        err = capsys.readouterr().err.splitlines()
        warned = [line for line in err if line.startswith("warning:")]
        assert warned == ["warning: sample_weight sums to 0.001 for 300 rows",
                          "warning: another one"]
        if quiet:
            assert err == warned
    # outside a command, the filters are the caller's again (pytest turns warnings into errors)
    with pytest.raises(NearlyWeightlessWarning):
        warn_then_save(None, None)
