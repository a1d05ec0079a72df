"""venncal.plotting renders headless and draws exactly the metric's bins."""

import doctest
import os
import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
import matplotlib.pyplot as plt

from venncal import plotting
from venncal.metrics import calibration_bins
from venncal.plotting import reliability_diagram, roc_curve

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    p = rng.random(400)
    y = rng.random(400) < p
    return y, p, {"raw": p, "squared": p**2, "rounded": np.round(p * 4) / 4}


def _curve(ax, name):
    (line,) = [ln for ln in ax.get_lines() if ln.get_label() == name]
    return line.get_xydata()


def _save(ax, path):
    ax.figure.savefig(path)
    assert path.read_bytes()[:8] == PNG


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_reliability_points_are_the_metric_bins(data, tmp_path, strategy):
    y, _, preds = data
    ax = reliability_diagram(y, preds, n_bins=8, strategy=strategy)
    _save(ax, tmp_path / f"reliability_{strategy}.png")
    labels = [ln.get_label() for ln in ax.get_lines()]
    assert labels == ["perfectly calibrated", *preds]
    for name, p in preds.items():
        bins = calibration_bins(y, p, n_bins=8, strategy=strategy)
        ne = bins.weight > 0
        expected = np.column_stack((bins.mean_pred[ne], bins.frac_pos[ne]))
        np.testing.assert_array_equal(_curve(ax, name), expected)


def test_reliability_counts_on_twin_axes(data, tmp_path):
    y, p, _ = data
    ax = reliability_diagram(y, p, label="raw", n_bins=5)
    _save(ax, tmp_path / "single.png")
    assert len(ax.figure.axes) == 2  # the diagram and the counts
    counts_ax = next(a for a in ax.figure.axes if a is not ax)
    heights = [patch.get_data().values for patch in counts_ax.patches]
    bins = calibration_bins(y, p, n_bins=5, strategy="uniform")
    assert len(heights) == 2  # an outline and a fill
    for h in heights:
        np.testing.assert_array_equal(h, bins.weight)
    ax2 = reliability_diagram(y, p, show_counts=False)
    assert len(ax2.figure.axes) == 1


@pytest.mark.parametrize("min_bin_count", [None, 3])
def test_reliability_counts_of_every_curve(data, min_bin_count):
    # Each curve's bin counts are drawn, in the curve's colour, with or without min_bin_count
    # (they used to be drawn only with min_bin_count, and for the last curve alone).
    y, p, _ = data
    preds = {"raw": p, "squared": p**2, "root": np.sqrt(p)}
    ax = reliability_diagram(y, preds, n_bins=6, min_bin_count=min_bin_count)
    counts_ax = next(a for a in ax.figure.axes if a is not ax)
    colours = {ln.get_label(): ln.get_color() for ln in ax.get_lines()}
    assert len(counts_ax.patches) == 2 * len(preds)
    for k, (name, pk) in enumerate(preds.items()):
        expected = calibration_bins(y, pk, n_bins=6, strategy="uniform").weight
        outline, fill = counts_ax.patches[2 * k : 2 * k + 2]
        for patch in (outline, fill):
            np.testing.assert_array_equal(patch.get_data().values, expected)
        assert matplotlib.colors.same_color(outline.get_edgecolor()[:3], colours[name])
        assert matplotlib.colors.same_color(fill.get_facecolor()[:3], colours[name])


def test_reliability_on_given_axes(data, tmp_path):
    y, p, _ = data
    _, axes = plt.subplots(1, 2)
    out = reliability_diagram(y, p, ax=axes[1], label="raw")
    assert out is axes[1]
    assert axes[0].get_lines() == []
    _save(out, tmp_path / "given.png")


def test_reliability_rejects_label_with_dict_and_bad_input(data):
    y, p, preds = data
    with pytest.raises(ValueError, match="label"):
        reliability_diagram(y, preds, label="x")
    with pytest.raises(ValueError, match="empty"):
        reliability_diagram(y, {})
    with pytest.raises(ValueError, match="n_bins"):
        reliability_diagram(y, p, n_bins=0)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        reliability_diagram(y, {"bad": p + 1})


def test_roc_curve_lines_and_auc(data, tmp_path):
    from venncal.metrics import roc_auc

    y, _, preds = data
    ax = roc_curve(y, preds)
    _save(ax, tmp_path / "roc.png")
    lines = ax.get_lines()[1:]
    assert len(lines) == len(preds)
    for line, (name, p) in zip(lines, preds.items(), strict=True):
        assert line.get_label() == f"{name} (AUC {roc_auc(y, p):.3f})"
        fpr, tpr = line.get_xydata().T
        assert (fpr[0], tpr[0], fpr[-1], tpr[-1]) == (0, 0, 1, 1)
        area = np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2)
        assert area == pytest.approx(roc_auc(y, p), abs=1e-12)
    single = roc_curve(y, preds["raw"])
    assert single.get_lines()[1].get_label().startswith("AUC ")


def test_docstring_examples_run_with_matplotlib():
    # The examples are skipped by the doctest run (matplotlib is optional); run them here.
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for func in (reliability_diagram, roc_curve):
        test = parser.get_doctest(func.__doc__, {}, func.__name__, None, 0)
        for example in test.examples:
            example.options = {}
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_figures_use_the_agg_canvas_without_pyplot(data):
    # The fast check: every figure comes from plotting.figure (object API, Agg canvas),
    # so no pyplot figure manager is created and nothing needs plt.close.
    y, p, _ = data
    before = plt.get_fignums()
    for ax in (reliability_diagram(y, p), roc_curve(y, p)):
        assert type(ax.figure.canvas).__name__ == "FigureCanvasAgg"
        assert ax.figure.canvas.manager is None
    assert plt.get_fignums() == before


@pytest.mark.slow
def test_import_is_lazy_and_headless(tmp_path):
    code = (
        "import sys, numpy as np\n"
        "import venncal.plotting as vp\n"
        "assert 'matplotlib' not in sys.modules\n"
        "ax = vp.reliability_diagram([0, 1, 1], [0.2, 0.6, 0.9])\n"
        f"ax.figure.savefig({str(tmp_path / 'sub.png')!r})\n"
        "import matplotlib; print(matplotlib.get_backend())\n"
    )
    hidden = ("MPLBACKEND", "DISPLAY", "WAYLAND_DISPLAY")
    env = {k: v for k, v in os.environ.items() if k not in hidden}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip().lower() == "agg"
    assert (tmp_path / "sub.png").stat().st_size > 0


def test_missing_matplotlib_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes the import fail
    with pytest.raises(ImportError, match=r'pip install "venncal\[plot\]"'):
        plotting.reliability_diagram([0, 1], [0.2, 0.8])


def _discs(ax):
    """(offsets, areas, hollow) of every disc drawn on the diagram, in drawing order."""
    out = []
    for coll in ax.collections:
        if len(coll.get_offsets()) == 0:
            continue  # the legend's proxy
        hollow = len(coll.get_facecolors()) == 0 or coll.get_facecolors()[0][3] == 0
        offsets = coll.get_offsets()
        sizes = np.broadcast_to(coll.get_sizes(), len(offsets))
        out += [(tuple(xy), float(s), hollow) for xy, s in zip(offsets, sizes, strict=True)]
    return out


def test_disc_areas_grow_with_the_bin_rows_and_small_bins_are_hollow(data, tmp_path):
    # One row at 0.95 against hundreds elsewhere: its disc is the smallest, and hollow
    # when min_bin_count leaves it out of the MCE.
    rng = np.random.default_rng(3)
    p = np.r_[rng.random(600) * 0.8, 0.95]
    y = rng.random(601) < p
    low, high = plotting.MARKER_AREA
    for min_count, hollow_expected in ((None, 0), (2, 1)):
        ax = reliability_diagram(y, {"model": p}, n_bins=10, min_bin_count=min_count)
        _save(ax, tmp_path / f"discs{min_count}.png")
        bins = calibration_bins(y, p, n_bins=10)
        ne = bins.nonempty
        discs = {xy: (s, h) for xy, s, h in _discs(ax)}
        assert len(discs) == ne.sum()
        fullest = bins.weight.max()
        for k in np.flatnonzero(ne):
            s, hollow = discs[(bins.mean_pred[k], bins.frac_pos[k])]
            assert s == pytest.approx(low + (high - low) * bins.weight[k] / fullest)
            assert hollow == (min_count is not None and bins.weight[k] < min_count)
        assert sum(h for _, h in discs.values()) == hollow_expected
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        assert ("fewer than 2 rows (not in the MCE)" in texts) == (min_count == 2)
        assert texts[:2] == ["perfectly calibrated", "model"]
    with pytest.raises(ValueError, match="min_bin_count"):
        reliability_diagram(y, p, min_bin_count=-1)


def test_discs_share_one_scale_across_curves(data):
    y, _, preds = data
    ax = reliability_diagram(y, preds, n_bins=6)
    fullest = max(calibration_bins(y, p, n_bins=6).weight.max() for p in preds.values())
    assert max(s for _, s, _ in _discs(ax)) == pytest.approx(plotting.MARKER_AREA[1])
    for p in preds.values():
        bins = calibration_bins(y, p, n_bins=6)
        k = int(np.argmin(np.where(bins.nonempty, bins.weight, np.inf)))
        low, high = plotting.MARKER_AREA
        expected = low + (high - low) * bins.weight[k] / fullest
        assert any(s == pytest.approx(expected) for _, s, _ in _discs(ax))


def test_image_formats_are_matplotlibs():
    formats = plotting.image_formats()
    assert {"png", "pdf", "svg"} <= set(formats)
    assert "xlsx" not in formats


def test_roc_title_and_framed_legend(data):
    y, p, preds = data
    assert roc_curve(y, p).get_title() == "ROC curve"
    ax = roc_curve(y, preds)
    assert ax.get_title() == "ROC curves"
    assert ax.get_legend().get_frame_on()


@pytest.mark.parametrize("weight", [1e308, 2.0**1022])
def test_weights_past_the_doubles_draw_their_shares(data, tmp_path, weight):
    """Bin weights of 1e308 rows sum past the largest double: the counts' axis shows each
    bin's share of the weight (matplotlib refused an infinite axis: "Axis limits cannot be
    NaN or Inf")."""
    y, p, _ = data
    w = np.full(p.shape, weight)
    ax = reliability_diagram(y, p, label="raw", n_bins=5, sample_weight=w)
    _save(ax, tmp_path / "huge.png")
    counts_ax = next(a for a in ax.figure.axes if a is not ax)
    assert counts_ax.get_ylabel() == "share of the weight"
    bins = calibration_bins(y, p, n_bins=5, sample_weight=w)
    for patch in counts_ax.patches:
        np.testing.assert_array_equal(patch.get_data().values, bins.share)
    np.testing.assert_array_equal(_curve(ax, "raw"),
                                  np.column_stack((bins.mean_pred, bins.frac_pos)))
    small = reliability_diagram(y, p, label="raw", n_bins=5, sample_weight=w / 2.0**1000)
    assert next(a for a in small.figure.axes if a is not small).get_ylabel() == "weight"
