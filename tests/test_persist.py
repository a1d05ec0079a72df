"""Saving and loading calibrators: venncal.persist and docs/model-format.md."""

from __future__ import annotations

import base64
import gzip
import io
import json
import math
import pickle
import re
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

import venncal
from venncal import _registry, persist  # _registry: to register test-only classes
from venncal.cli import main
from venncal.persist import ModelFormatError

DOCS = Path(__file__).resolve().parent.parent / "docs"
V1_FIXTURES = Path(__file__).resolve().parent / "data" / "model-v1"
# Every calibrator a model file can hold, by its command-line method name.
CALIBRATORS = {
    "ivap": venncal.VennAbersCalibrator,
    "cvap": venncal.CrossVennAbersCalibrator,
    "platt": venncal.PlattCalibrator,
    "isotonic": venncal.IsotonicCalibrator,
    "histogram": venncal.HistogramBinningCalibrator,
    "bbq": venncal.BBQCalibrator,
    "enir": venncal.ENIRCalibrator,
    "quantized-isotonic": venncal.QuantizedIsotonicCalibrator,
    "beta": venncal.BetaCalibrator,
    "quadratic-logistic": venncal.QuadraticLogisticCalibrator,
}
METHODS = tuple(CALIBRATORS)


def test_every_method_is_tested(capsys):
    # Every method of the registry (the binary calibrators a model file names by method) is
    # tested here, and the command line offers each; it offers the K-class methods and chains
    # of venncal compare's table too (tests/test_cli_fit_methods.py saves and loads those).
    from venncal._registry import available_methods

    assert sorted(available_methods()) == sorted(METHODS)
    assert main(["fit", "cal.csv", "--method", "?"]) == 2
    offered = re.search(r"choose from (.*)\)", capsys.readouterr().err).group(1)
    assert set(METHODS) <= set(re.findall(r"'([^']+)'", offered))


def _data(kind: str, n: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=n)
    scores[::7] = np.round(scores[::7], 1)  # ties
    hit = rng.random(n) < 1 / (1 + np.exp(-2 * scores))
    labels = {
        "int": np.where(hit, 1, 0),
        "int-pm": np.where(hit, 1, -1),
        "str": np.where(hit, "yes", "no"),
        "object": np.where(hit, "yes", "no").astype(object),  # a pandas text column
        "bool": hit,
        "float": np.where(hit, 2.5, -0.5),
    }[kind]
    folds = rng.integers(0, 4, n)
    weights = rng.integers(0, 4, n).astype(float) + 0.5
    return scores, labels, folds, weights


def _fit(method, kind="int", weighted=False):
    cls = CALIBRATORS[method]
    scores, labels, folds, weights = _data(kind)
    w = weights if weighted else None
    if method == "cvap":
        return cls().fit(scores, labels, folds=folds, sample_weight=w)
    if method == "beta":  # the scores are normal draws: logits, not probabilities
        return cls(score="logit").fit(scores, labels, sample_weight=w)
    return cls().fit(scores, labels, sample_weight=w)


def _float_bits(x: float) -> bytes:
    return struct.pack("<d", x)


def assert_identical(a, b, where="value"):
    """The two values are equal bit for bit, with the same types and dtypes."""
    assert type(a) is type(b), f"{where}: {type(a)} != {type(b)}"
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype, f"{where}: dtype {a.dtype} != {b.dtype}"
        assert a.shape == b.shape, where
        nan_a = np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool)
        nan_b = np.isnan(b) if b.dtype.kind == "f" else np.zeros(b.shape, bool)
        np.testing.assert_array_equal(nan_a, nan_b)
        if not nan_a.any():
            assert a.tobytes() == b.tobytes(), where
            assert np.array_equal(a, b), where
        else:
            assert a[~nan_a].tobytes() == b[~nan_b].tobytes(), where
    elif isinstance(a, np.generic):
        assert a.dtype == b.dtype, where
        assert_identical(np.asarray(a), np.asarray(b), where)
    elif isinstance(a, float):
        assert math.isnan(a) == math.isnan(b), where
        if not math.isnan(a):
            assert _float_bits(a) == _float_bits(b), where
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_identical(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            assert_identical(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, BaseEstimator):
        assert_same_calibrator(a, b, where)
    else:
        assert a == b, where


def assert_same_calibrator(a, b, where="calibrator"):
    assert type(a) is type(b)
    pa, pb = a.get_params(deep=False), b.get_params(deep=False)
    assert list(pa) == list(pb)
    for k in pa:  # e.g. a list given by the user comes back as a list
        assert_identical(pa[k], pb[k], f"{where}.params.{k}")
    assert hasattr(a, "classes_") == hasattr(b, "classes_"), where
    if not hasattr(a, "classes_"):  # an unfitted calibrator (a wrapper's parameter)
        return
    for name in ("classes_", *type(a)._state):
        assert_identical(getattr(a, name), getattr(b, name), f"{where}.{name}")


def _test_scores(model):
    q = np.concatenate([np.linspace(-4, 4, 101), model_scores_of(model), [-1e300, 1e300]])
    if hasattr(model, "calibrators_"):
        return [q, np.column_stack([q + 0.01 * k for k in range(len(model.calibrators_))])]
    return [q]


def model_scores_of(model):
    for name in ("scores_", "thresholds_", "bin_edges_"):
        if hasattr(model, name):
            return np.asarray(getattr(model, name), dtype=float)
    return np.array([0.0])


def assert_same_predictions(a, b):
    for q in _test_scores(a):
        assert a.predict_proba(q).tobytes() == b.predict_proba(q).tobytes()
        np.testing.assert_array_equal(a.predict(q), b.predict(q))
        if hasattr(a, "predict_interval"):
            assert a.predict_interval(q).tobytes() == b.predict_interval(q).tobytes()


def _round_trip(model, path):
    persist.save(model, path)
    return persist.load(path)


# Array members built and read here from the specification, not with venncal.persist.


def _bytes_member(arr, *, compression="zlib", dtype=None) -> dict:
    """A version-2 array member holding ``arr``'s little-endian bytes."""
    arr = np.asarray(arr)
    raw = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    member = {
        "type": "ndarray",
        "dtype": dtype or arr.dtype.newbyteorder("<").str,
        "shape": list(arr.shape),
        "encoding": "base64",
    }
    if compression is not None:
        member["compression"] = compression
        raw = zlib.compress(raw)
    member["data"] = base64.b64encode(raw).decode("ascii")
    return member


def _list_member(arr) -> dict:
    """A version-1 style array member (finite floats, integers or strings)."""
    arr = np.asarray(arr)
    return {
        "type": "ndarray",
        "dtype": arr.dtype.newbyteorder("<").str,
        "shape": list(arr.shape),
        "data": arr.ravel().tolist(),
    }


def _array_of(member: dict) -> np.ndarray:
    """The array a member holds (finite floats in lists)."""
    dtype = np.dtype(member["dtype"])
    if member.get("encoding") == "base64":
        raw = base64.b64decode(member["data"], validate=True)
        if member.get("compression") == "zlib":
            raw = zlib.decompress(raw)
        return np.frombuffer(raw, dtype).reshape(member["shape"]).astype(dtype.newbyteorder("="))
    return np.array(member["data"], dtype=dtype).reshape(member["shape"])


# Version-3 checksums, computed here from docs/model-format.md ("Checksums").


def spec_array_crc(member: dict) -> int:
    """CRC-32 of the little-endian bytes of the array a member holds (lists may hold "nan")."""
    dtype = np.dtype(member["dtype"]).newbyteorder("<")
    if member.get("encoding") == "base64":
        raw = base64.b64decode(member["data"], validate=True)
        return zlib.crc32(zlib.decompress(raw) if member.get("compression") == "zlib" else raw)
    data = member["data"]
    if dtype.kind == "f":
        special = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
        data = np.array([special.get(v, v) for v in data], np.float64).astype(dtype)
    return zlib.crc32(np.array(data, dtype=dtype).tobytes())


def spec_canonical(value, *, top=False) -> bytes:
    """The canonical encoding of a parsed JSON value (of a document without its crc32 if top)."""
    if value is None or isinstance(value, bool):
        return {None: b"n", True: b"t", False: b"f"}[value]
    if isinstance(value, str):
        raw = value.encode("utf-8", "surrogatepass")
        return b"s" + struct.pack("<I", len(raw)) + raw
    if isinstance(value, (int, float)):
        try:
            x = float(value)
        except OverflowError:
            x = math.copysign(math.inf, value)
        return b"d" + struct.pack("<d", x)
    if isinstance(value, list):
        return b"l" + struct.pack("<I", len(value)) + b"".join(map(spec_canonical, value))
    skip = {"crc32"} if top else {"data"} if value.get("type") == "ndarray" else set()
    names = sorted((k.encode("utf-8", "surrogatepass"), k) for k in value if k not in skip)
    return b"o" + struct.pack("<I", len(names)) + b"".join(
        spec_canonical(k) + spec_canonical(value[k]) for _, k in names
    )


def seal(value, version=None):
    """Recompute, in place, every checksum of a version-3 document (after an edit).

    Array members of a version-3 document that have no ``crc32`` (made by
    ``_bytes_member`` or ``_list_member``) get one.
    """
    if isinstance(value, list):
        for v in value:
            seal(v, version)
    elif isinstance(value, dict):
        version = value.get("format_version", version) if "format" in value else version
        for v in value.values():
            seal(v, version)
        if value.get("type") == "ndarray" and ("crc32" in value or version == 3):
            try:
                value["crc32"] = spec_array_crc(value)
            except (TypeError, ValueError, KeyError, zlib.error, OverflowError):
                # an edit that leaves no array: the reader refuses it before its checksum
                value.setdefault("crc32", 0)
        if "format" in value and value.get("format_version") == 3:
            value["crc32"] = zlib.crc32(spec_canonical(value, top=True))
    return value


# ------------------------------------------------------------------------ round trips


@pytest.mark.parametrize("kind", ["int", "int-pm", "str", "object", "bool", "float"])
@pytest.mark.parametrize("method", METHODS)
def test_round_trip_every_calibrator(method, kind, tmp_path):
    model = _fit(method, kind)
    copy = _round_trip(model, tmp_path / "model.json")
    assert_same_calibrator(model, copy)
    assert_same_predictions(model, copy)
    assert copy.classes_.dtype == model.classes_.dtype


def test_labels_and_classes_from_pandas_save(tmp_path):
    # A new user's pandas text column (an object array) fitted every calibrator, and then no
    # model could be saved ("cannot save an array of dtype object"); nor could classes=
    # given as df.label.unique(). Text labels are text classes, as for K classes.
    scores, labels, _, _ = _data("object")
    given = np.array(["no", "yes"], dtype=object)
    for model in (venncal.VennAbersCalibrator(classes=given).fit(scores, labels),
                  venncal.ChainedCalibrator(venncal.PlattCalibrator(),
                                            venncal.VennAbersCalibrator()).fit(scores, labels)):
        assert model.classes_.dtype.kind == "U"
        copy = _round_trip(model, tmp_path / "model.json")
        assert np.array_equal(copy.predict_proba(scores), model.predict_proba(scores))
        assert copy.classes_.tolist() == ["no", "yes"]


@pytest.mark.parametrize("method", METHODS)
def test_round_trip_weighted_gzip_and_file_objects(method, tmp_path):
    model = _fit(method, "str", weighted=True)
    gz = tmp_path / "model.json.gz"
    persist.save(model, gz)
    assert gz.read_bytes()[:2] == b"\x1f\x8b"
    assert_same_calibrator(model, persist.load(gz))
    # gzip is recognised from the content, not the name
    renamed = tmp_path / "model.json"
    renamed.write_bytes(gz.read_bytes())
    assert_same_predictions(model, persist.load(str(renamed)))
    buffer = io.StringIO()
    persist.save(model, buffer)
    assert_same_calibrator(model, persist.load(io.StringIO(buffer.getvalue())))
    assert_same_calibrator(model, persist.load(io.BytesIO(buffer.getvalue().encode())))


@pytest.mark.parametrize("method", METHODS)
def test_saving_is_deterministic(method, tmp_path):
    model = _fit(method)
    for name in ("a.json", "b.json", "a.json.gz", "b.json.gz"):
        persist.save(model, tmp_path / name)
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert (tmp_path / "a.json.gz").read_bytes() == (tmp_path / "b.json.gz").read_bytes()
    # and loading then saving again reproduces the document
    persist.save(persist.load(tmp_path / "a.json"), tmp_path / "c.json")
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "c.json").read_bytes()


@pytest.mark.parametrize("version", [2, 3])
def test_document_members(tmp_path, version):
    model = venncal.VennAbersCalibrator(merge="brier").fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    persist.save(model, tmp_path / "m.json", format_version=version)
    doc = json.loads((tmp_path / "m.json").read_text("utf-8"))
    crc = ["crc32"] if version == 3 else []
    assert list(doc) == [
        "format", "format_version", "venncal_version", "class", "params", "state", *crc
    ]
    assert doc["format"] == "venncal.calibrator" == persist.FORMAT
    assert doc["format_version"] == version
    assert persist.FORMAT_VERSION == 3
    assert doc["venncal_version"] == venncal.__version__
    assert doc["class"] == "venncal.venn_abers.VennAbersCalibrator"
    assert doc["params"] == {"classes": None, "merge": "brier"}
    # negative_weights_ only where w - a lost a class (tests/test_ivap_negatives.py)
    assert set(doc["state"]) == {"classes_", *venncal.VennAbersCalibrator._state} - {
        "negative_weights_"}
    assert doc["state"]["scores_"] == {
        "type": "ndarray",
        "dtype": "<f8",
        "shape": [4],
        **({"crc32": zlib.crc32(np.array([0.1, 0.35, 0.4, 0.8]).tobytes())} if crc else {}),
        "data": [0.1, 0.35, 0.4, 0.8],
    }
    assert doc["state"]["classes_"]["dtype"] == np.dtype(int).newbyteorder("<").str


def test_nested_cvap(tmp_path):
    cls = venncal.CrossVennAbersCalibrator
    scores, labels, _, weights = _data("str")
    folds = np.array(["b", "a", "c"])[np.arange(scores.size) % 3]
    model = cls(merge="brier").fit(scores, labels, folds=folds, sample_weight=weights)
    persist.save(model, tmp_path / "cvap.json")
    doc = json.loads((tmp_path / "cvap.json").read_text("utf-8"))
    nested = doc["state"]["calibrators_"]
    assert len(nested) == 3
    assert all(d["format"] == "venncal.calibrator" for d in nested)
    assert all(d["class"] == "venncal.venn_abers.VennAbersCalibrator" for d in nested)
    copy = persist.load(tmp_path / "cvap.json")
    assert all(type(c) is venncal.VennAbersCalibrator for c in copy.calibrators_)
    assert copy.folds_.tolist() == ["a", "b", "c"]
    assert_same_calibrator(model, copy)
    assert_same_predictions(model, copy)


@pytest.mark.parametrize("method", METHODS)
def test_round_trip_format_version_1(method, tmp_path):
    model = _fit(method, "str", weighted=True)
    persist.save(model, tmp_path / "v1.json", format_version=1)
    doc = json.loads((tmp_path / "v1.json").read_text("utf-8"))
    assert doc["format_version"] == 1
    assert '"encoding"' not in (tmp_path / "v1.json").read_text("utf-8")
    copy = persist.load(tmp_path / "v1.json")
    assert_same_calibrator(model, copy)
    assert_same_predictions(model, copy)


@pytest.mark.parametrize("version", [0, 4, "2", True, None, 3.0])
def test_save_refuses_unknown_format_version(version, tmp_path):
    model = _fit("ivap")
    with pytest.raises(ValueError, match="format_version must be 1, 2 or 3"):
        persist.save(model, tmp_path / "m.json", format_version=version)
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("version", [2, 3])
def test_arrays_as_bytes_or_lists(dummy_registered, tmp_path, version):
    # more than LIST_MAX numeric or bool elements: base64 of zlib-compressed
    # little-endian bytes, whatever the array's own byte order and layout
    model = _dummy()
    many = persist.LIST_MAX + 1
    model.arrays_ = [
        np.arange(many, dtype=">f8"),
        np.asfortranarray(np.arange(2.0 * many).reshape(2, many)),
        np.arange(many) % 2 == 0,
        np.arange(many, dtype=np.uint16),
        np.full(many, np.nan).view(np.uint64).__or__(np.uint64(7)).view(np.float64),  # payload
        np.array(["s"] * many),
        np.arange(persist.LIST_MAX, dtype=float),
        np.arange(many, dtype=np.float32)[:0],
    ]
    persist.save(model, tmp_path / "m.json", format_version=version)
    doc = json.loads((tmp_path / "m.json").read_text("utf-8"))
    members = doc["state"]["arrays_"]
    if version == 3:  # the checksum of the little-endian bytes, just before the data
        for arr, member in zip(model.arrays_, members, strict=True):
            little = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))
            if arr.dtype.kind == "f" and "encoding" not in member:
                little = np.where(np.isnan(little), np.nan, little).astype(little.dtype)
            assert member.pop("crc32") == zlib.crc32(little.tobytes())
    for arr, member in zip(model.arrays_[:5], members[:5], strict=True):
        little = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
        # compressed exactly when zlib shrinks the first 64 KiB to 3/4 or less
        zipped = len(zlib.compress(little[:65_536], 1)) <= 0.75 * len(little[:65_536])
        assert ("compression" in member) == zipped
        expected = _bytes_member(arr, compression="zlib" if zipped else None)
        assert member == expected | {"data": member["data"]}
        assert list(member) == ["type", "dtype", "shape", "encoding", *(
            ["compression"] if zipped else []), "data"]
        raw = base64.b64decode(member["data"], validate=True)
        assert (zlib.decompress(raw) if zipped else raw) == little
    assert members[0]["dtype"] == "<f8"
    assert members[2]["dtype"] == "|b1"
    for member in members[5:]:  # strings, LIST_MAX elements, empty
        assert "encoding" not in member
        assert isinstance(member["data"], list)
    copy = persist.load(tmp_path / "m.json")
    for arr, got in zip(model.arrays_, copy.arrays_, strict=True):
        assert got.dtype == arr.dtype.newbyteorder("=")
        assert got.flags.writeable
        assert got.flags.c_contiguous
        assert np.ascontiguousarray(arr, dtype=got.dtype).tobytes() == got.tobytes()


def test_uncompressed_bytes_load(tmp_path):
    # "compression" may be left out: then data is the raw bytes
    doc = _ivap_doc(tmp_path)
    model = persist.load(tmp_path / "ok.json")
    for name in ("scores_", "p0_", "p1_"):
        doc["state"][name] = _bytes_member(getattr(model, name), compression=None)
    assert_same_calibrator(model, _load_doc(doc, tmp_path))


@pytest.mark.parametrize("method", ["ivap", "cvap"])
def test_model_file_size_is_linear(method, tmp_path):
    # The bytes of a model of 1e5 distinct scores (5 float64 arrays of 8e5
    # bytes each): version 2 stays under 12 bytes a score (version 1 took ~70).
    n = 10**5
    rng = np.random.default_rng(1)
    scores = rng.random(n)
    y = rng.random(n) < scores
    cls = CALIBRATORS[method]
    kwargs = {"folds": np.arange(n) % 5} if method == "cvap" else {}
    model = cls().fit(scores, y, **kwargs)
    path = tmp_path / "m.json"
    persist.save(model, path)
    assert path.stat().st_size < 12 * n
    gz = tmp_path / "m.json.gz"
    persist.save(model, gz)
    assert gz.stat().st_size < path.stat().st_size
    copy = persist.load(gz)
    assert_same_calibrator(model, copy)


# ------------------------------------------------------------------------ version-1 files


def _v1_expected():
    return json.loads((V1_FIXTURES / "expected.json").read_text("utf-8"))


@pytest.mark.parametrize("name", sorted(_v1_expected()["models"]))
def test_version_1_files_load(name, tmp_path):
    # Files written by the format-1 code (tests/data/model-v1/README.md) load
    # and predict bit for bit as the saved calibrators did.
    expected = _v1_expected()
    entry = expected["models"][name]
    path = V1_FIXTURES / entry["file"]
    data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    assert json.loads(data)["format_version"] == 1
    model = persist.load(path)
    q = np.array([float.fromhex(x) for x in expected["queries"]])
    if name == "cvap":
        q = np.column_stack([q] * len(model.calibrators_))
    assert model.predict(q).tolist() == entry["predict"]
    proba = model.predict_proba(q)[:, 1]
    interval = model.predict_interval(q) if "interval" in entry else None
    expected_interval = [x for pair in entry.get("interval", []) for x in pair]
    if name == "cvap":
        # The log merge takes geometric means through numpy's log and exp,
        # whose SIMD versions differ by an ulp or two between CPUs (seen: 2 ulp
        # on an AVX-512 machine); everything else is exact arithmetic.
        assert_within_ulps(proba, entry["proba"], 4)
        assert_within_ulps(interval.ravel(), expected_interval, 4)
    else:
        assert [x.hex() for x in proba.tolist()] == entry["proba"]
        if interval is not None:
            assert [x.hex() for x in interval.ravel().tolist()] == expected_interval
    # saved again (as version 2, and as version 3 by default) it reloads identical
    for version in (2, 3):
        path = tmp_path / f"v{version}.json"
        persist.save(model, path, **({"format_version": 2} if version == 2 else {}))
        assert json.loads(path.read_text("utf-8"))["format_version"] == version
        copy = persist.load(path)
        assert_same_calibrator(model, copy)
        assert_same_predictions(model, copy)


def assert_within_ulps(got, expected_hex, ulps):
    want = np.array([float.fromhex(x) for x in expected_hex])
    np.testing.assert_array_max_ulp(got, want, maxulp=ulps)


def test_version_1_documents_have_no_bytes_arrays(tmp_path):
    doc = json.loads((V1_FIXTURES / "ivap.json").read_text("utf-8"))
    doc["state"]["scores_"] = _bytes_member(np.sort(_array_of(doc["state"]["scores_"])))
    with pytest.raises(ModelFormatError, match=r"scores_: unknown member.*'encoding'"):
        _load_doc(doc, tmp_path)


# -------------------------------------------------------- every value type, generically


class Dummy(BaseEstimator):
    """A registered stand-in holding every kind of value the format can hold."""

    _state = ("arrays_", "scalars_", "misc_", "children_")

    def __init__(
        self,
        *,
        flag=True,
        name="x",
        count=3,
        ratio=0.5,
        limit=math.inf,
        pair=(1, "a"),
        options=None,
        values=None,
    ):
        self.flag = flag
        self.name = name
        self.count = count
        self.ratio = ratio
        self.limit = limit
        self.pair = pair
        self.options = options
        self.values = values

    def fit(self):
        return self  # the test sets the state by hand


@pytest.fixture
def dummy_registered(monkeypatch):
    monkeypatch.setitem(_registry.CALIBRATORS, "dummy", f"{__name__}.Dummy")


def _dummy():
    child = venncal.VennAbersCalibrator().fit([0.0, 1.0, 2.0], [0, 1, 1])
    d = Dummy(
        options={"a": [1, 2.5, None], "b": {"c": -math.inf}},
        values=np.array([1.5, 2]),
        pair=(True, -0.0, "s", 10**30),
    )
    d.classes_ = np.array([False, True])
    special = np.array(
        [
            0.0,
            -0.0,
            math.inf,
            -math.inf,
            math.nan,
            5e-324,
            1.7976931348623157e308,
            0.1,
            1 / 3,
            -2.2250738585072014e-308,
        ]
    )
    d.arrays_ = [
        special,
        np.array([0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, 3.4e38, 0.1], np.float32),
        np.array([0.0, -0.0, math.inf, -math.inf, math.nan, 6e-8, 65504.0, 0.1], np.float16),
        np.arange(12, dtype=np.int32).reshape(3, 4),
        np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max]),
        np.array([np.iinfo(np.uint64).max], dtype=np.uint64),
        np.array([-128, 127], dtype=np.int8),
        np.array([[True, False]]),
        np.array(["", "é", "long string"], dtype="<U20"),
        np.empty((0, 3)),
        np.array(3.25),
        np.array([1.0, 2.0]).astype(">f8"),  # big-endian in, little-endian out
        np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    ]
    d.scalars_ = (
        np.float64(-0.0),
        np.float32(0.1),
        np.int16(-7),
        np.bool_(True),
        np.str_("abc"),
        np.float64(math.nan),
        np.uint8(255),
    )
    d.misc_ = {
        "inf": math.inf,
        "nan": math.nan,
        "neg": -math.inf,
        "zero": -0.0,
        "big": 2**70,
        "none": None,
        "list": [1, [2, [3.5]]],
        "t": (),
        "s": "text",
    }
    d.children_ = [child, child]
    return d


def test_every_value_type_round_trips(dummy_registered, tmp_path):
    model = _dummy()
    copy = _round_trip(model, tmp_path / "dummy.json")
    for name in ("classes_", *Dummy._state):
        original = getattr(model, name)
        if name == "arrays_":
            # big-endian and Fortran-ordered arrays come back native and C-ordered
            original = [np.array(a, dtype=a.dtype.newbyteorder("="), order="C") for a in original]
        assert_identical(original, getattr(copy, name), name)
    assert_identical(model.get_params(), copy.get_params(), "params")
    text = (tmp_path / "dummy.json").read_text("utf-8")
    assert "Infinity" not in text
    assert "NaN" not in text
    json.loads(text, parse_constant=lambda c: pytest.fail(f"non-standard constant {c}"))


def test_non_finite_floats_are_strings(dummy_registered, tmp_path):
    persist.save(_dummy(), tmp_path / "dummy.json")
    doc = json.loads((tmp_path / "dummy.json").read_text("utf-8"))
    special = doc["state"]["arrays_"][0]
    assert special["data"][2:5] == ["inf", "-inf", "nan"]
    assert special["data"][1] == -0.0
    assert math.copysign(1, special["data"][1]) == -1
    assert doc["state"]["misc_"] == {
        "type": "dict",
        "items": {
            "inf": {"type": "float", "value": "inf"},
            "nan": {"type": "float", "value": "nan"},
            "neg": {"type": "float", "value": "-inf"},
            "zero": -0.0,
            "big": 2**70,
            "none": None,
            "list": [1, [2, [3.5]]],
            "t": {"type": "tuple", "items": []},
            "s": "text",
        },
    }
    assert doc["params"]["limit"] == {"type": "float", "value": "inf"}
    assert doc["state"]["scalars_"]["items"][2] == {"type": "scalar", "dtype": "<i2", "value": -7}


@given(
    hnp.arrays(
        dtype=st.sampled_from([np.float64, np.float32, np.float16]),
        shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
        elements={"allow_nan": True, "allow_infinity": True, "allow_subnormal": True},
    )
)
def test_float_arrays_bit_exact(arr):
    model = Dummy()
    model.classes_ = np.array([0, 1])
    model.arrays_, model.scalars_, model.misc_, model.children_ = [arr], (), {}, []
    buffer = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(_registry.CALIBRATORS, "dummy", f"{__name__}.Dummy")
        persist.save(model, buffer)
        (got,) = persist.load(io.StringIO(buffer.getvalue())).arrays_
    assert got.dtype == arr.dtype.newbyteorder("=")
    assert got.shape == arr.shape
    nan = np.isnan(arr)
    np.testing.assert_array_equal(np.isnan(got), nan)
    assert arr[~nan].tobytes() == got[~nan].tobytes()


# ------------------------------------------------------------------------ refusals


def _ivap_doc(tmp_path, version=2) -> dict:
    model = venncal.VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    persist.save(model, tmp_path / "ok.json", format_version=version)
    return json.loads((tmp_path / "ok.json").read_text("utf-8"))


def _load_doc(doc, tmp_path, *, sealed=False):
    """Load a document (a version-3 one with its checksums recomputed if ``sealed``)."""
    path = tmp_path / "bad.json"
    if sealed:
        doc = seal(doc)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), "utf-8")
    return persist.load(path)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(format="something.else"), "not a venncal calibrator"),
        (lambda d: d.pop("format"), "not a venncal calibrator"),
        (lambda d: d.update(format_version=4), r"format_version 4 is newer .*upgrade venncal"),
        (lambda d: d.update(format_version="1"), "invalid format_version '1'"),
        (lambda d: d.update(format_version=0), "invalid format_version 0"),
        (lambda d: d.pop("format_version"), "invalid format_version None"),
        (lambda d: d.update(extra=1), "unknown member.*'extra'"),
        (lambda d: d.pop("params"), "missing member.*'params'"),
        (lambda d: d.update({"class": "os.system"}), "unknown calibrator class 'os.system'"),
        (lambda d: d.update({"class": "pickle.loads"}), "known classes: venncal.venn_abers"),
        (lambda d: d.update({"class": 3}), "class must be a string"),
        (
            lambda d: d["params"].update(bogus=1),
            "unknown parameter.*bogus.*parameters: classes, merge",
        ),
        (lambda d: d["state"].pop("p0_"), r"VennAbersCalibrator\.state: missing member.*'p0_'"),
        (lambda d: d["state"].update(x_=1), "unknown member.*'x_'"),
        (lambda d: d["state"]["p0_"].update(dtype="|O"), "unsupported dtype '|O'"),
        (lambda d: d["state"]["p0_"].update(dtype="<c16"), "unsupported dtype"),
        (lambda d: d["state"]["p0_"].update(dtype="nonsense"), "unknown dtype 'nonsense'"),
        (lambda d: d["state"]["p0_"].update(shape=[5]), "data must be a list of 5 values"),
        (lambda d: d["state"]["p0_"].update(shape=[-4]), "shape must be a list of non-negative"),
        (
            lambda d: d["state"]["p0_"]["data"].__setitem__(1, "x"),
            r"state\.p0_\.data\[1\]: expected a number",
        ),
        (lambda d: d["state"]["p0_"]["data"].__setitem__(1, True), "expected a number"),
        (lambda d: d["state"]["classes_"]["data"].__setitem__(0, 0.5), r"expected int, got 0\.5"),
        (lambda d: d["state"]["classes_"]["data"].__setitem__(0, False), "expected int"),
        (lambda d: d["state"]["classes_"].update(dtype="|i1", data=[0, 300]), "does not fit"),
        (lambda d: d["state"]["classes_"].update(dtype="<U1", data=["a", "bb"]), "longer than"),
        (lambda d: d["state"]["p0_"].update(type="pickle"), "unknown value type 'pickle'"),
        (lambda d: d["state"]["p0_"].pop("type"), "unknown value type None"),
        (lambda d: d["state"]["p0_"].update(extra=1), "unknown member"),
        (
            lambda d: d["state"].update(n_negative_={"type": "float", "value": "Infinity"}),
            "expected a number or one of 'inf'",
        ),
        (lambda d: d.update(state=[]), "params and state must be JSON objects"),
    ],
)
@pytest.mark.parametrize("version", [2, 3])
def test_refuses_bad_documents(edit, message, tmp_path, version):
    # version 3: the checksums recomputed after the edit, so the rule is what refuses it
    doc = _ivap_doc(tmp_path, version)
    edit(doc)
    with pytest.raises(ModelFormatError, match=message):
        _load_doc(doc, tmp_path, sealed=True)


def _ivap40_doc(tmp_path, version=2) -> tuple[dict, int]:
    """A version-2 (or 3) IVAP document whose arrays (k > LIST_MAX scores) are bytes."""
    rng = np.random.default_rng(3)
    scores = rng.random(40)
    model = venncal.VennAbersCalibrator().fit(scores, scores > 0.5)
    persist.save(model, tmp_path / "ok.json", format_version=version)
    doc = json.loads((tmp_path / "ok.json").read_text("utf-8"))
    assert doc["state"]["p0_"]["encoding"] == "base64"
    return doc, model.scores_.size


def _set_p0(**members):
    return lambda d, k: d["state"]["p0_"].update(members)


def _p0_bytes(raw: bytes, compression=None):
    """Put base64 of ``raw`` (zlib data if ``compression``, else the bytes) in p0_."""

    def edit(d, k):
        d["state"]["p0_"].pop("compression")
        d["state"]["p0_"]["data"] = base64.b64encode(raw).decode("ascii")
        if compression is not None:
            d["state"]["p0_"]["compression"] = compression

    return edit


def _p0_member(make):
    return lambda d, k: d["state"].update(p0_=make(k))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_set_p0(data="@@@@"), r"p0_: data is not valid base64"),
        (lambda d, k: d["state"]["p0_"].update(data=d["state"]["p0_"]["data"][:-1]), "base64"),
        (lambda d, k: d["state"]["p0_"].update(data=d["state"]["p0_"]["data"] + "="), "base64"),
        (lambda d, k: d["state"]["p0_"].update(data="=" + d["state"]["p0_"]["data"]), "base64"),
        (_set_p0(data="é"), "not valid base64"),
        (_set_p0(data="QUJD===="), "not valid base64: excess padding"),
        (_set_p0(data="QUJ\nD"), "not valid base64"),
        (_set_p0(data=[0.5] * 40), "data must be a base64 string, got list"),
        (_set_p0(data=None), "data must be a base64 string"),
        (_set_p0(encoding="base85"), "unknown encoding 'base85'"),
        (_set_p0(encoding=None), "unknown encoding None"),
        (_set_p0(compression="gzip"), "unknown compression 'gzip'"),
        (_set_p0(compression=None), "unknown compression None"),
        (lambda d, k: d["state"]["p0_"].pop("compression"), "holds .* bytes; shape"),
        (lambda d, k: d["state"]["p0_"].pop("data"), "missing member.*'data'"),
        (lambda d, k: d["state"]["p0_"].pop("shape"), "missing member.*'shape'"),
        (_set_p0(extra=1), "unknown member.*'extra'"),
        (_set_p0(dtype="nonsense"), "unknown dtype 'nonsense'"),
        (_set_p0(dtype=8), "unknown dtype 8"),
        (_set_p0(dtype=">f8"), "big-endian dtype '>f8'"),
        (_set_p0(dtype=">i4"), "big-endian dtype"),
        (_set_p0(dtype="<U2"), "string arrays are stored as JSON lists"),
        (_set_p0(dtype="|O"), "unsupported dtype '|O'"),
        (_set_p0(dtype="<c16"), "unsupported dtype '<c16'"),
        (_set_p0(dtype="float64"), r"unsupported dtype 'float64' .*one of .*<f8"),
        (_set_p0(dtype="<M8[D]"), "unsupported dtype"),
        (_set_p0(shape=[-40]), "shape must be a list of non-negative integers"),
        (_set_p0(shape=40), "shape must be a list"),
        (_set_p0(shape=[1] * 33), "at most 32"),
        (_set_p0(dtype="<f4"), r"longer than the 160 bytes that shape \[40\] of dtype <f4"),
        (_set_p0(shape=[41]), r"decompressed data holds 320 bytes; shape \[41\] .* needs 328"),
        (_set_p0(shape=[2, 20]), "inconsistent state"),  # reads, but is not 1-D
        (_p0_bytes(b"\x00" * 320, compression="zlib"), "not valid zlib data"),
        (_p0_bytes(zlib.compress(b"\x00" * 320)[:-6], compression="zlib"), "truncated zlib"),
        (_p0_bytes(zlib.compress(b"\x00" * 320) + b"!", compression="zlib"), "after the end"),
        (_p0_bytes(b"\x00" * 321), r"data holds 321 bytes; shape \[40\] of dtype <f8 needs 320"),
        (_p0_bytes(b"\x00" * 319), "holds 319 bytes"),
        (_p0_member(lambda k: _bytes_member(np.full(k, 2, np.uint8), dtype="|b1")), "bool element"),
        (_p0_member(lambda k: _bytes_member(np.full(k, np.nan))), "inconsistent state.*finite"),
        (_p0_member(lambda k: _bytes_member(np.zeros(k, np.float32))), "inconsistent state"),
        (_p0_member(lambda k: _bytes_member(np.zeros(k - 1))), "inconsistent state.*length"),
    ],
)
@pytest.mark.parametrize("version", [2, 3])
def test_refuses_bad_bytes_arrays(edit, message, tmp_path, version):
    doc, k = _ivap40_doc(tmp_path, version)
    assert k == 40
    edit(doc, k)
    with pytest.raises(ModelFormatError, match=message):
        _load_doc(doc, tmp_path, sealed=True)


def test_bytes_arrays_need_version_2_and_load_with_it(tmp_path):
    doc, _ = _ivap40_doc(tmp_path)
    model = _load_doc(doc, tmp_path)
    # every array may be a list in version 2 too
    for name in ("scores_", "weights_", "positive_weights_", "p0_", "p1_"):
        doc["state"][name] = _list_member(getattr(model, name))
    assert_same_calibrator(model, _load_doc(doc, tmp_path))
    doc["state"]["p0_"] = _bytes_member(model.p0_)
    doc["format_version"] = 1
    with pytest.raises(ModelFormatError, match=r"p0_: unknown member.*'encoding'"):
        _load_doc(doc, tmp_path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "not JSON"),
        ("score,label\n0.1,0\n", "not JSON"),
        ("[1, 2]", "not a venncal calibrator"),
        ('"venncal.calibrator"', "not a venncal calibrator"),
        ('{"format": "venncal.calibrator", "format_version": NaN}', "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply|not JSON"),
    ],
)
def test_refuses_what_is_not_a_document(content, message, tmp_path):
    with pytest.raises(ModelFormatError, match=message):
        _load_doc(content, tmp_path)


def test_refuses_pickles_and_binary(tmp_path):
    model = venncal.VennAbersCalibrator().fit([0.1, 0.4], [0, 1])
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps(model))
    with pytest.raises(ModelFormatError, match="not a venncal calibrator"):
        persist.load(path)
    path.write_bytes(gzip.compress(b"\xff\xfe\x00garbage"))
    with pytest.raises(ModelFormatError, match="not UTF-8"):
        persist.load(path)
    path.write_bytes(b"\x1f\x8b\x08\x00broken")
    with pytest.raises(ModelFormatError, match="gzip"):
        persist.load(path)


def test_refuses_deeply_nested_documents(tmp_path):
    inner = json.dumps(_ivap_doc(tmp_path))
    head = (
        '{"format": "venncal.calibrator", "format_version": 1, "venncal_version": "0", '
        '"class": "venncal.venn_abers.VennAbersCalibrator", "params": {"classes": '
    )
    text = head * 3000 + inner + '}, "state": {}}' * 3000
    with pytest.raises(ModelFormatError, match="nested too deeply"):
        _load_doc(text, tmp_path)
    text = head * 300 + inner + '}, "state": {}}' * 300  # parses, fails on the state
    with pytest.raises(ModelFormatError, match="missing member"):
        _load_doc(text, tmp_path)


@pytest.mark.parametrize("version", [2, 3])
def test_nested_error_says_where(tmp_path, version):
    cls = venncal.CrossVennAbersCalibrator
    scores, labels, folds, _ = _data("int")
    persist.save(cls().fit(scores, labels, folds=folds), tmp_path / "cvap.json",
                 format_version=version)
    doc = json.loads((tmp_path / "cvap.json").read_text("utf-8"))
    good = doc["state"]["calibrators_"][1]["state"]["p1_"]
    doc["state"]["calibrators_"][1]["state"]["p1_"] = _list_member(_array_of(good))
    doc["state"]["calibrators_"][1]["state"]["p1_"]["data"][0] = "bad"
    with pytest.raises(
        ModelFormatError, match=r"calibrators_\[1\]\.VennAbersCalibrator\.state\.p1_\.data\[0\]"
    ):
        _load_doc(doc, tmp_path, sealed=True)
    doc["state"]["calibrators_"][1]["state"]["p1_"] = dict(good, data="not base64!")
    with pytest.raises(
        ModelFormatError, match=r"calibrators_\[1\]\.VennAbersCalibrator\.state\.p1_: data is not"
    ):
        _load_doc(doc, tmp_path, sealed=True)
    doc["state"]["calibrators_"][1]["format_version"] = 9
    with pytest.raises(ModelFormatError, match=r"calibrators_\[1\]: format_version 9 is newer"):
        _load_doc(doc, tmp_path, sealed=True)


def test_registered_class_that_is_not_installed(monkeypatch, tmp_path):
    monkeypatch.setitem(_registry.CALIBRATORS, "ghost", "venncal.no_such_module.GhostCalibrator")
    doc = _ivap_doc(tmp_path)
    doc["class"] = "venncal.no_such_module.GhostCalibrator"
    with pytest.raises(ModelFormatError, match=r"module venncal\.no_such_module is not part"):
        _load_doc(doc, tmp_path)
    monkeypatch.setitem(_registry.CALIBRATORS, "ghost", "venncal.venn_abers.GhostCalibrator")
    doc["class"] = "venncal.venn_abers.GhostCalibrator"
    with pytest.raises(ModelFormatError, match="has no attribute 'GhostCalibrator'"):
        _load_doc(doc, tmp_path)


def test_missing_file():
    with pytest.raises(FileNotFoundError):
        persist.load("/nonexistent/model.json")


def test_save_refuses_unfitted_unregistered_and_unsupported(tmp_path, dummy_registered):
    with pytest.raises(NotFittedError):
        persist.save(venncal.VennAbersCalibrator(), tmp_path / "m.json")

    class Sub(venncal.VennAbersCalibrator):
        pass

    with pytest.raises(TypeError, match="not a registered venncal calibrator"):
        persist.save(Sub().fit([0.0, 1.0], [0, 1]), tmp_path / "m.json")
    for bad in (
        np.array([object()]),
        np.array([1 + 2j]),
        np.array([b"x"]),
        np.array(["2020-01-01"], dtype="datetime64[D]"),
        {1: 2},
        {1.5},
        object(),
    ):
        model = _dummy()
        model.misc_ = bad
        with pytest.raises(TypeError, match="cannot save"):
            persist.save(model, tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()


# ------------------------------------------------------------------------ registry


def test_registry_errors():
    with pytest.raises(
        ValueError,
        match="unknown calibration method 'nope'; available methods: "
        "ivap, cvap, platt, isotonic, histogram, bbq",
    ):
        _registry.method_class("nope")
    assert _registry.method_class("ivap") is venncal.VennAbersCalibrator
    assert _registry.method_of(venncal.VennAbersCalibrator) == "ivap"
    with pytest.raises(TypeError, match="not a registered"):
        _registry.class_path(dict)


# ------------------------------------------------------------------------ the spec's example


def test_model_format_example_loads():
    text = (DOCS / "model-format.md").read_text("utf-8")
    block = re.search(r"```json\n(.*?)```", text, flags=re.DOTALL).group(1)
    model = persist.load(io.StringIO(block))
    expected = venncal.VennAbersCalibrator().fit([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    assert_same_calibrator(expected, model)
    buffer = io.StringIO()
    persist.save(expected, buffer)
    assert json.loads(buffer.getvalue())["state"] == json.loads(block)["state"]
    np.testing.assert_allclose(model.predict_interval([0.5]), [[1 / 3, 1.0]])


@pytest.mark.parametrize(
    ("dtype", "value"), [("<f4", 0.1), ("<f4", 1e39), ("<f2", 70000.0), ("<f2", 0.1)]
)
def test_refuses_floats_that_do_not_fit(dtype, value, tmp_path):
    doc = _ivap_doc(tmp_path)
    doc["state"]["p0_"].update(dtype=dtype, shape=[1], data=[value])
    with pytest.raises(ModelFormatError, match=f"does not fit in dtype {dtype}"):
        _load_doc(doc, tmp_path)


@pytest.mark.parametrize("version", [2, 3])
@pytest.mark.parametrize("method", METHODS)
def test_inconsistent_state_is_refused(method, tmp_path, version):
    model = _fit(method)
    persist.save(model, tmp_path / "m.json", format_version=version)
    doc = json.loads((tmp_path / "m.json").read_text("utf-8"))
    name = next(
        (
            k
            for k in type(model)._state
            if isinstance(doc["state"][k], dict) and doc["state"][k]["shape"][0] > 1
        ),
        None,
    )
    if name is None:  # scalar state only (Platt): make one number non-finite
        name = type(model)._state[0]
        setattr(model, name, float("inf"))
        persist.save(model, tmp_path / "m.json", format_version=version)
        doc = json.loads((tmp_path / "m.json").read_text("utf-8"))
    else:
        member = doc["state"][name]
        shorter = _array_of(member)[:-1]
        doc["state"][name] = (
            _bytes_member(shorter) if "encoding" in member else _list_member(shorter)
        )
    with pytest.raises(ModelFormatError, match="inconsistent state"):
        _load_doc(doc, tmp_path, sealed=True)


@pytest.mark.parametrize(
    ("cls", "param", "value"),
    [
        (venncal.VennAbersCalibrator, "merge", "banana"),
        (venncal.HistogramBinningCalibrator, "n_bins", 0),
        (venncal.PlattCalibrator, "targets", "x"),
    ],
)
@pytest.mark.parametrize("version", [2, 3])
def test_load_rejects_invalid_parameters(tmp_path, cls, param, value, version):
    # A model file edited by hand must not load and then predict nonsense
    # (version 3: even with its checksum recomputed).
    path = tmp_path / "m.json"
    persist.save(cls().fit([0.1, 0.5, 0.9], [0, 1, 1]), path, format_version=version)
    doc = json.loads(path.read_text())
    doc["params"][param] = value
    path.write_text(json.dumps(seal(doc)))
    with pytest.raises(ModelFormatError, match=f"invalid parameter: .*{param}"):
        persist.load(path)


def test_continuous_scores_plain_steps_compressed(tmp_path):
    """zlib only where it pays: continuous scores stay plain, steps and weights compress."""
    rng = np.random.default_rng(3)
    scores = rng.normal(size=20_000)
    model = venncal.VennAbersCalibrator().fit(scores, rng.uniform(size=20_000) < 0.5)
    persist.save(model, tmp_path / "m.json")
    state = json.loads((tmp_path / "m.json").read_text("utf-8"))["state"]
    assert "compression" not in state["scores_"]
    for name in ("weights_", "positive_weights_", "p0_", "p1_"):
        assert state[name]["compression"] == "zlib"
    copy = persist.load(tmp_path / "m.json")
    assert copy.predict_interval(scores).tobytes() == model.predict_interval(scores).tobytes()
