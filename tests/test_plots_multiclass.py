"""The multiclass reliability diagrams render headless and draw exactly the metrics' bins."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from venncal import plotting  # noqa: E402
from venncal.metrics import calibration_bins, top_label_calibration_bins  # noqa: E402
from venncal.plotting import (  # noqa: E402
    classwise_reliability_diagram,
    top_label_reliability_diagram,
)


@pytest.fixture
def data():
    rng = np.random.default_rng(4)
    proba = rng.dirichlet([0.8, 0.8, 0.8, 0.8], size=600)
    labels = np.array(["ant", "bee", "cow", "doe"])
    y = labels[[rng.choice(4, p=row) for row in proba]]
    y[:4] = labels
    return y, proba, labels, rng.exponential(size=600)


def _curve(ax, name):
    (line,) = [ln for ln in ax.get_lines() if ln.get_label() == name]
    return np.asarray(line.get_xdata()), np.asarray(line.get_ydata())


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("weighted", [False, True])
def test_top_label_diagram_draws_the_top_label_bins(data, strategy, weighted):
    y, proba, _, w = data
    w = w if weighted else None
    sharper = proba**2 / (proba**2).sum(axis=1, keepdims=True)
    ax = top_label_reliability_diagram(y, {"raw": proba, "sharper": sharper}, n_bins=8,
                                       strategy=strategy, sample_weight=w)
    for name, pk in (("raw", proba), ("sharper", sharper)):
        bins = top_label_calibration_bins(y, pk, n_bins=8, strategy=strategy, sample_weight=w)
        x, yy = _curve(ax, name)
        np.testing.assert_array_equal(x, bins.mean_pred[bins.nonempty])
        np.testing.assert_array_equal(yy, bins.frac_pos[bins.nonempty])
    assert type(ax.figure.canvas).__name__ == "FigureCanvasAgg"
    assert ax.figure.canvas.manager is None
    assert ax.get_xlabel().startswith("mean confidence")
    assert ax.get_title().startswith(f"Top-label reliability diagram (8 {strategy} bins)")


def test_classwise_diagram_draws_each_class_against_the_rest(data, tmp_path):
    y, proba, labels, w = data
    axes = classwise_reliability_diagram(y, proba, n_bins=6, label="model", sample_weight=w,
                                         min_bin_count=20)
    assert axes.shape == (4,)
    fig = axes[0].figure
    assert type(fig.canvas).__name__ == "FigureCanvasAgg" and fig.canvas.manager is None
    for k, ax in enumerate(axes):
        assert ax.get_title().splitlines()[0] == f"class {labels[k].item()!r} against the rest"
        bins = calibration_bins(y == labels[k], proba[:, k], n_bins=6, sample_weight=w)
        x, yy = _curve(ax, "model")
        np.testing.assert_array_equal(x, bins.mean_pred[bins.nonempty])
        np.testing.assert_array_equal(yy, bins.frac_pos[bins.nonempty])
        assert (ax.get_legend() is not None) == (k == 0)  # one legend, on the first axes
    # 3 columns at most by default: 4 classes fill 2 rows
    geometry = [ax.get_subplotspec().get_geometry()[:2] for ax in axes]
    assert geometry == [(2, 3)] * 4
    fig.savefig(tmp_path / "classwise.png")
    assert (tmp_path / "classwise.png").stat().st_size > 0


def test_classwise_diagram_follows_classes_and_ncols(data):
    y, proba, labels, _ = data
    order = [3, 1, 0, 2]
    fig = plotting.figure()
    axes = classwise_reliability_diagram(y, proba[:, order], classes=labels[order], ncols=1,
                                         fig=fig, show_counts=False)
    assert axes[0].figure is fig
    assert [ax.get_title().splitlines()[0] for ax in axes] == [
        f"class {lab!r} against the rest" for lab in labels[order].tolist()]
    assert [ax.get_subplotspec().get_geometry()[:2] for ax in axes] == [(4, 1)] * 4
    bins = calibration_bins(y == labels[3], proba[:, 3])
    x, _ = _curve(axes[0], "_nolegend_")
    np.testing.assert_array_equal(x, bins.mean_pred[bins.nonempty])


@pytest.mark.parametrize("func", [top_label_reliability_diagram, classwise_reliability_diagram])
def test_bad_input_raises_before_drawing(func, data):
    y, proba, _, _ = data
    bad = proba.copy()
    bad[5, 0] += 0.01
    with pytest.raises(ValueError, match=r"row 5 \(from 0\) sums to"):
        func(y, bad)
    with pytest.raises(ValueError, match=r"n_bins must be"):
        func(y, proba, n_bins=0)
    with pytest.raises(ValueError, match="y holds the label 'ant'"):
        func(y, proba, classes=["a", "b", "c", "d"])


def test_classwise_ncols_must_be_a_positive_integer(data):
    y, proba, _, _ = data
    with pytest.raises(ValueError, match="ncols must be an integer >= 1"):
        classwise_reliability_diagram(y, proba, ncols=0)
