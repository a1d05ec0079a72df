"""The parameters and labels of the families of calibrating functions (:mod:`.families`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["numbered", "union_labels"]


def _params(values, width: int, name: str, low=-np.inf, high=np.inf) -> np.ndarray:
    arr = np.array(values, dtype=np.float64)
    if width == 1 and arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] != width or arr.shape[0] == 0:
        shape = "a non-empty sequence of numbers" if width == 1 else (
            f"a non-empty sequence of {width}-tuples")
        raise ValueError(f"{name} must be {shape}; got {values!r}")
    if not (np.isfinite(arr).all() and (arr >= low).all() and (arr <= high).all()):
        raise ValueError(f"{name} must hold finite numbers in [{low:g}, {high:g}]; got {values!r}")
    return arr


def _labels(params: np.ndarray, names: Sequence[str], show: str) -> list[str]:
    return [",".join(f"{n}={show.format(float(v))}" for n, v in zip(names, row, strict=True))
            for row in params]


def _named(params: np.ndarray, *names: str) -> list[str]:
    """Labels ``name=value,...``: values as ``%g``, in full if that makes two alike (1, 1+2**-52)."""
    for show in ("{:g}", "{!r}"):
        labels = _labels(params, names, show)
        if len(set(labels)) >= len(set(map(tuple, params.tolist()))):  # equal params: one label
            break
    return labels


def union_labels(members) -> list[str]:
    """The labels of a union of ``members``: ``kind:label`` (a user's family's as given).

    Where two are alike (``cox([1]) + cox([1 + 2**-52])``), the paper's
    families show their values in full; a user's labels still alike get
    ``#2``, ``#3``, ... from their second.

    Examples
    --------
    >>> from venncal.online.families import cox, family
    >>> union_labels([cox([1.0]), cox([1 + 2**-52])])
    ['cox:beta=1.0', 'cox:beta=1.0000000000000002']
    >>> f = family(lambda p: p ** 2, labels=["square"])
    >>> union_labels([f, family(lambda p: p ** 3, labels=["square"])])
    ['square', 'square#2']
    """
    def prefixed(full: bool) -> list[str]:
        out = []
        for fam in members:
            if fam.kind == "custom":
                out += list(fam.labels)
                continue
            labels = fam.labels
            if full:
                names = [part.partition("=")[0] for part in labels[0].split(",")]
                labels = _labels(fam.params, names, "{!r}")
            out += [f"{fam.kind}:{label}" for label in labels]
        return out

    labels = prefixed(False)
    if len(set(labels)) == len(labels):
        return labels
    labels = prefixed(True)
    return numbered(labels)


def numbered(labels: Sequence[str]) -> list[str]:
    """``labels`` with each one alike to an earlier one numbered ``#2``, ``#3``, ...

    >>> numbered(["<lambda>", "<lambda>", "f", "<lambda>#2"])
    ['<lambda>', '<lambda>#3', 'f', '<lambda>#2']
    """
    taken, used, out = set(labels), set(), []
    for label in labels:
        name, n = label, 1
        while name in used or (n > 1 and name in taken):  # "#n" that is a label of its own: next
            n += 1
            name = f"{label}#{n}"
        used.add(name)
        out.append(name)
    return out
