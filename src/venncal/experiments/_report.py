"""Pieces shared by the experiments' reports: the report itself, number formatting, figures.

Every experiment's ``report(result, out_dir, *, command=None)`` writes
``out_dir/report.md`` (creating the folder) and its figures, and returns a
:class:`Report`: the plain-text tables the command line prints, and the files
written. ``command`` is the command line stated in the report (default: one that
repeats the run, :meth:`RunInfo.command`). An experiment builds its report in a
:class:`ReportDraft`, which starts it with the same header for every experiment (what
was run, when, where, with which versions, how long it took), draws and lists its
figures, and writes it. Losses are formatted the same way (:func:`fmt_loss`) and the
paper's numbers may be drawn against ours (:func:`scatter_vs_paper`).

matplotlib is optional and imported only when a figure is drawn; figures are built with
its object API (:class:`matplotlib.figure.Figure`), which needs no backend selection and
leaves pyplot's global state alone. Without matplotlib a report has no figures.
"""

from __future__ import annotations

import datetime
import math
import os
import platform
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._run import RunInfo

__all__ = [
    "Report",
    "ReportDraft",
    "count_convergence_warnings",
    "fmt_loss",
    "has_data_dir",
    "header",
    "new_figure",
    "require_data_dir",
    "scatter_vs_paper",
    "write_report",
]

#: The environment variable naming the data folder when ``data_dir`` is not given.
DATA_ENV = "VENNCAL_DATA"


@dataclass(frozen=True)
class Report:
    """What an experiment's ``report`` wrote and what the command line prints."""

    #: Plain-text rendering of the main tables.
    text: str
    #: The Markdown report (None when the experiment writes none, as the demo).
    markdown: Path | None
    #: Figures written (PNG files); empty without matplotlib.
    figures: tuple[Path, ...] = ()


def fmt_loss(v: float | None, digits: int = 4) -> str:
    """Format a loss for the reports: ``?`` for a missing value, ``inf``, ``nan`` or digits.

    Examples
    --------
    >>> fmt_loss(0.123456), fmt_loss(math.inf), fmt_loss(None), fmt_loss(0.5, digits=3)
    ('0.1235', 'inf', '?', '0.500')
    """
    if v is None:
        return "?"
    return "inf" if math.isinf(v) else f"{v:.{digits}f}"


def header(info: RunInfo, protocol: str, command: str | None = None) -> list[str]:
    """Return the Markdown lines every report starts with.

    Parameters
    ----------
    info : RunInfo
        The run.
    protocol : str
        One paragraph: the paper, its tables or figures and the protocol followed.
    command : str, optional
        The command line that made the run (default: :meth:`RunInfo.command`).

    Returns
    -------
    list of str
        Title, protocol, date, machine, command, versions, seed, jobs and run time.
    """
    import joblib
    import numpy as np
    import scipy
    import sklearn

    from .._version import __version__

    return [
        f"# Reproduction: {info.experiment} ({info.mode} mode)",
        "",
        protocol,
        "",
        f"- date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}",
        (
            f"- machine: {platform.node()} ({platform.platform()}, {platform.machine()}, "
            f"{os.cpu_count() or '?'} CPUs)"
        ),
        f"- command: `{command or info.command()}`",
        (
            f"- versions: venncal {__version__}, Python {platform.python_version()}, "
            f"numpy {np.__version__}, scipy {scipy.__version__}, scikit-learn "
            f"{sklearn.__version__}, joblib {joblib.__version__}"
        ),
        f"- seed {info.seed}, jobs {info.jobs}, runtime {info.seconds:.1f} s",
    ]


@dataclass
class ReportDraft:
    """A report being written: Markdown lines, plain-text lines and figures.

    Creating it creates ``out_dir`` and starts the Markdown with :func:`header`, then
    the run's own facts (``facts``: Markdown bullets such as the test rows used,
    followed by one blank line when there are any). An experiment's ``report`` adds
    its sections to :attr:`md` and :attr:`text`, draws its figures with
    :meth:`figure` or :meth:`image`, and returns :meth:`write`.

    Examples
    --------
    >>> import tempfile
    >>> info = RunInfo("demo-experiment", quick=True, seed=0, jobs=1, seconds=1.5)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     draft = ReportDraft(info, tmp, "One paragraph on the protocol.", facts=["- rows: 10"])
    ...     draft.md += ["## Results", "", "| a | b |"]
    ...     draft.text += ["a b"]
    ...     written = draft.write()
    ...     md = written.markdown.read_text(encoding="utf-8").splitlines()
    >>> md[0]
    '# Reproduction: demo-experiment (quick mode)'
    >>> md[-5:], written.text
    (['- rows: 10', '', '## Results', '', '| a | b |'], 'a b')
    """

    info: RunInfo
    out_dir: str | os.PathLike[str]
    protocol: str
    command: str | None = None
    facts: Sequence[str] = ()
    #: The Markdown lines written so far.
    md: list[str] = field(default_factory=list, init=False)
    #: The plain-text lines (what the command line prints).
    text: list[str] = field(default_factory=list, init=False)
    #: The figures drawn, in order.
    figures: list[Path] = field(default_factory=list, init=False)
    #: The report's folder.
    out: Path = field(init=False)

    def __post_init__(self) -> None:
        self.out = Path(self.out_dir)
        self.out.mkdir(parents=True, exist_ok=True)
        self.md = header(self.info, self.protocol, self.command)
        if self.facts:
            self.md += [*self.facts, ""]

    def figure(self, name: str, draw: Callable[[Path], bool]) -> Path | None:
        """Draw figure ``name`` in the report's folder with ``draw(path)``; list it if drawn.

        ``draw`` returns False (having written nothing) without matplotlib. Returns the
        path written, or None.
        """
        path = self.out / name
        if not draw(path):
            return None
        self.figures.append(path)
        return path

    def image(self, name: str, draw: Callable[[Path], bool], alt: str) -> bool:
        """:meth:`figure`, then (if drawn) its Markdown image line and a blank line."""
        path = self.figure(name, draw)
        if path is not None:
            self.md += [f"![{alt}]({path.name})", ""]
        return path is not None

    def write(self) -> Report:
        """Write ``report.md`` and return the :class:`Report` (text, Markdown, figures)."""
        return write_report(self.out, self.md, self.text, self.figures)


def has_data_dir(data_dir) -> bool:
    """Whether a data folder is given: ``data_dir``, or the ``VENNCAL_DATA`` variable."""
    return data_dir is not None or bool(os.environ.get(DATA_ENV))


def require_data_dir(data_dir, name: str, what: str = "the UCI data sets") -> None:
    """Raise ``FileNotFoundError`` naming both ways to give experiment ``name`` its data folder.

    Examples
    --------
    >>> require_data_dir("/data", "vovk2014-uci")  # given: nothing happens
    """
    if not has_data_dir(data_dir):
        raise FileNotFoundError(
            f"{name} reads {what} from a folder laid out as the shared data store: give it "
            f"with data_dir (venncal reproduce --data-dir DIR) or the environment variable "
            f"{DATA_ENV}"
        )


def count_convergence_warnings(caught) -> int:
    """Count the ConvergenceWarnings of ``caught`` (for the report); re-issue any other warning."""
    from sklearn.exceptions import ConvergenceWarning

    n_warn = 0
    for item in caught:
        if issubclass(item.category, ConvergenceWarning):
            n_warn += 1
        else:
            warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)
    return n_warn


def write_report(
    out_dir: str | os.PathLike[str],
    lines: Iterable[str],
    text: Sequence[str],
    figures: Iterable[Path] = (),
) -> Report:
    """Write ``out_dir/report.md`` (creating the folder) and return the :class:`Report`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return Report(text="\n".join(text), markdown=path, figures=tuple(figures))


def new_figure(ncols: int, figsize: tuple[float, float]) -> tuple[Any, Any] | None:
    """Return a figure and its row of `ncols` axes, or None without matplotlib.

    The figure comes from venncal's one headless figure helper (Agg canvas,
    object API, nothing registered with pyplot, nothing to close).
    """
    from ..plotting import figure

    try:
        fig = figure(figsize, layout=None)
    except ImportError:
        return None
    return fig, fig.subplots(1, ncols, squeeze=False)[0]


def scatter_vs_paper(panels: dict[str, dict[str, list]], path: Path) -> bool:
    """Write a PNG of our values against the paper's, one panel per loss, one colour per method.

    Parameters
    ----------
    panels : dict
        ``loss -> method -> list of (paper's value, our value)``; pairs where either value
        is missing (None) or not finite are left out.
    path : Path
        The PNG to write.

    Returns
    -------
    bool
        False (and nothing written) when matplotlib is not installed.
    """
    made = new_figure(len(panels), (5 * len(panels), 4.6))
    if made is None:
        return False
    fig, axes = made
    for ax, (loss, by_method) in zip(axes, panels.items(), strict=True):
        _scatter_panel(ax, loss, by_method)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def _scatter_panel(ax: Any, loss: str, by_method: dict[str, list]) -> None:
    lo, hi = math.inf, -math.inf
    for i, (method, pairs) in enumerate(by_method.items()):
        kept = [
            (p, o)
            for p, o in pairs
            if p is not None and o is not None and math.isfinite(p) and math.isfinite(o)
        ]
        if not kept:
            continue
        xs, ys = zip(*kept, strict=True)
        # The colour follows the method's position, so it is the same in every panel.
        ax.scatter(xs, ys, s=14, color=f"C{i}", label=method, alpha=0.8)
        lo, hi = min(lo, *xs, *ys), max(hi, *xs, *ys)
    if math.isfinite(lo):  # something was drawn (a legend of nothing would warn)
        ax.plot([lo, hi], [lo, hi], color="0.5", lw=0.8)
        ax.legend(fontsize=8)
    ax.set_xlabel(f"paper's {loss}")
    ax.set_ylabel(f"our {loss}")
    ax.set_title(f"{loss}: finite values (below the line: ours is lower)", fontsize=10)
