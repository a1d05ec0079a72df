"""Golden files: format versions 1 and 2 are still written byte for byte (tests/data/models)."""

from __future__ import annotations

import base64
import io
import json
import re
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


def test_every_registered_class_has_golden_files():
    saved = {json.loads((GOLDEN / f"{name}.v2.json").read_text("utf-8"))["class"] for name in NAMES}
    assert {*_registry.CALIBRATORS.values(), *_registry.WRAPPERS} <= saved
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
