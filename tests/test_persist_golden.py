"""Golden files: format versions 1 and 2 are still written byte for byte (tests/data/models)."""

from __future__ import annotations

import base64
import io
import json
import re
import sys
import zlib
from pathlib import Path

import pytest
from test_persist import assert_same_calibrator, assert_same_predictions

from venncal import _registry, persist

GOLDEN = Path(__file__).resolve().parent / "data" / "models"
NAMES = sorted(p.name[: -len(".v2.json")] for p in GOLDEN.glob("*.v2.json"))
# The zlib the files were written with (README.md there).
GOLDEN_ZLIB = "1.2.13"
_ZLIB_DATA = re.compile(r'("compression": "zlib",\s*"data": ")([A-Za-z0-9+/=]*)(")')


@pytest.fixture(autouse=True)
def _dummy_registered(monkeypatch):
    monkeypatch.setitem(_registry.CALIBRATORS, "dummy", "test_persist.Dummy")


def _inflated(text: str) -> str:
    """``text`` with every zlib-compressed array's data replaced by its decompressed bytes."""

    def inflate(match):
        raw = zlib.decompress(base64.b64decode(match.group(2)))
        return match.group(1) + base64.b64encode(raw).decode("ascii") + match.group(3)

    return _ZLIB_DATA.sub(inflate, text)


def _assert_same_text(written: str, golden: str) -> None:
    if written == golden:
        return
    # Only another zlib may write other compressed bytes for the same array.
    assert zlib.ZLIB_RUNTIME_VERSION != GOLDEN_ZLIB, "not the bytes of the golden file"
    assert _inflated(written) == _inflated(golden)


# Classes registered after format version 3 became the default: no user ever saved them
# as version 1 or 2, so they have no golden files of those versions (their save/load
# round trip is tested in tests/test_multiclass_ovr.py and test_multiclass_ovo.py).
NEWER_THAN_V2 = {
    "venncal.multiclass.OneVsRestCalibrator",
    "venncal.multiclass.OneVsOneCalibrator",
    "venncal.chain.ChainedCalibrator",
}
#: Calibrators registered after format v2: no v1/v2 golden files (those are never regenerated).
NEWER_CALIBRATORS = {
    "venncal.parametric.BetaCalibrator",
    "venncal.parametric.QuadraticLogisticCalibrator",
}


def test_every_registered_class_has_golden_files():
    saved = {json.loads((GOLDEN / f"{name}.v2.json").read_text("utf-8"))["class"] for name in NAMES}
    newer = NEWER_THAN_V2 | NEWER_CALIBRATORS
    assert {*_registry.CALIBRATORS.values(), *_registry.WRAPPERS} - newer <= saved
    assert NEWER_THAN_V2 <= set(_registry.WRAPPERS)
    assert NEWER_CALIBRATORS <= set(_registry.CALIBRATORS.values())
    assert {f"{n}.v1.json" for n in NAMES} == {p.name for p in GOLDEN.glob("*.v1.json")}


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("name", NAMES)
def test_golden_file_is_written_byte_for_byte(name, version):
    path = GOLDEN / f"{name}.v{version}.json"
    model = persist.load(path)
    out = io.StringIO()
    persist.save(model, out, format_version=version)
    _assert_same_text(out.getvalue(), path.read_text("utf-8"))


@pytest.mark.parametrize("name", NAMES)
def test_golden_versions_load_identical(name):
    v1 = persist.load(GOLDEN / f"{name}.v1.json")
    v2 = persist.load(GOLDEN / f"{name}.v2.json")
    if name.startswith("dummy"):
        return  # NaN payloads differ by design (lists keep only the quiet NaN)
    assert_same_calibrator(v1, v2)
    assert_same_predictions(v1, v2)


def test_inflated_comparison_sees_other_bytes():
    text = '"compression": "zlib",\n  "data": "' + base64.b64encode(
        zlib.compress(b"abc", 9)
    ).decode() + '"'
    same = '"compression": "zlib",\n  "data": "' + base64.b64encode(
        zlib.compress(b"abc", 1)
    ).decode() + '"'
    other = '"compression": "zlib",\n  "data": "' + base64.b64encode(
        zlib.compress(b"abd", 1)
    ).decode() + '"'
    assert _inflated(text) == _inflated(same)
    assert _inflated(text) != _inflated(other)


# ------------------------------------------------------------ loading runs no code

# Audit events (PEP 578) of running or importing code, or unpickling.
_WATCHED = {
    "import", "exec", "compile", "pickle.find_class", "marshal.loads", "marshal.load",
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen", "ctypes.dlopen",
    "builtins.input", "code.__new__", "function.__new__",
}
_SEEN: list = []
_WATCHING = [False]
_HOOKED = [False]


def _audit(event, args):
    if _WATCHING[0] and event in _WATCHED:
        _SEEN.append((event, str(args[:1])[:200]))


def _watched_load(path_or_text):
    if not _HOOKED[0]:  # an audit hook cannot be removed: one, idle unless watching
        sys.addaudithook(_audit)
        _HOOKED[0] = True
    _SEEN.clear()
    _WATCHING[0] = True
    try:
        return persist.load(path_or_text)
    finally:
        _WATCHING[0] = False


def test_loading_runs_no_code(tmp_path):
    # Every golden file, and the same models in version 3: with their classes
    # imported once (the registry's only imports), loading imports, compiles,
    # executes and unpickles nothing
    paths = sorted(GOLDEN.glob("*.json"))
    for path in paths:  # warm: the registered classes and numpy's lazy modules
        persist.save(persist.load(path), tmp_path / f"{path.stem}.v3.json")
    paths += sorted(tmp_path.glob("*.v3.json"))
    for path in paths:
        persist.load(path)
        _watched_load(path)
        assert _SEEN == [], (path.name, _SEEN)
    # a document naming any other class is refused before anything is imported
    doc = json.loads((GOLDEN / "platt.v2.json").read_text("utf-8"))
    for name in ("os.system", "pickle.loads", "builtins.eval", "subprocess.Popen",
                 "venncal.persist.load", "venncal._kernels.ivap", "antigravity.fly"):
        doc["class"] = name
        with pytest.raises(persist.ModelFormatError, match="unknown calibrator class"):
            _watched_load(io.StringIO(json.dumps(doc)))
        assert _SEEN == [], (name, _SEEN)
    assert "antigravity" not in sys.modules
