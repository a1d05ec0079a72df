"""Plots render headless to PNG and show the bins the metrics use."""

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")

from venncal.metrics._scores import _calibration_bins  # noqa: E402
from venncal.plotting import reliability_diagram, roc_curve  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    p = rng.random(500)
    y = (rng.random(500) < p).astype(int)
    return y, p


def _save(ax, path):
    ax.figure.savefig(path)
    matplotlib.pyplot.close(ax.figure)
    return path.read_bytes()


def test_reliability_diagram_points_are_the_metric_bins(data, tmp_path):
    y, p = data
    ax = reliability_diagram(y, p, n_bins=10)
    bins = _calibration_bins(y.astype(bool), p, None, 10, "uniform")
    ne = bins.nonempty
    lines = [line for line in ax.get_lines() if len(line.get_xdata()) == int(ne.sum())]
    assert lines, "no line through the bins"
    np.testing.assert_allclose(lines[0].get_xdata(), bins.mean_pred[ne])
    np.testing.assert_allclose(lines[0].get_ydata(), bins.frac_pos[ne])
    assert _save(ax, tmp_path / "one.png")[:8] == PNG


def test_several_calibrators_on_one_figure(data, tmp_path):
    y, p = data
    ax = reliability_diagram(y, {"a": p, "b": p**2, "c": np.sqrt(p)}, strategy="quantile")
    labels = [line.get_label() for line in ax.get_lines()]
    assert {"a", "b", "c"} <= set(labels)
    assert _save(ax, tmp_path / "several.png")[:8] == PNG


def test_roc_curve(data, tmp_path):
    y, p = data
    ax = roc_curve(y, {"model": p, "noise": np.random.default_rng(1).random(500)})
    assert len(ax.get_lines()) >= 2
    assert _save(ax, tmp_path / "roc.png")[:8] == PNG
