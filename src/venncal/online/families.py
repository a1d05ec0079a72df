"""Finite families of calibrating functions ``f: [0, 1] -> [0, 1]`` (Vovk, Petej & Gammerman 2021, section 2).

A Jumper bets that one of these functions, possibly a different one at
different times, turns the base forecasts ``p`` into better forecasts
``f(p)``.  The families of the paper:

* :func:`quadratic`: ``f_eps(p) = p + eps p (1 - p)``, ``eps`` in ``[-1, 1]``
  (eq. (1); the experiments use ``E = {-1, -0.5, 0, 0.5, 1}``);
* :func:`cubic`: ``f_{a,b}(p) = p + a p (p - b)(p - 1)`` (eq. (3)), correcting
  overconfidence (``a > 0``) or underconfidence (``a < 0``) around ``b``;
* :func:`cox`: ``f_beta(p) = p^beta / (p^beta + (1 - p)^beta)`` (eq. (4));
* :func:`cox2`: ``f_{alpha,beta}(p) = p^beta e^alpha / (p^beta e^alpha + (1 - p)^beta)``
  (eq. (5));

and :func:`family` for any finite list of the user's own vectorised functions;
:func:`union` (or ``+``) joins families into one, e.g. ``quadratic() + cox()``,
which bets on shifts and on confidence at once (``named("shift+confidence")`` is
``quadratic() + cubic() + cox()``).

Besides the values ``f(p)`` (the forecasts), a family gives the Jumper the
likelihood ratios ``B_{f(p)}(y) / B_p(y)`` of Algorithm 1 line 5
(:meth:`CalibratingFamily.likelihood_ratios`, computed by
:func:`venncal._kernels.jumper.family_ratios`), in forms that are exact at
the edges of floating point: ``f(p) / p = 1 + eps q`` for the quadratic
family, never ``f(p)`` divided by a subnormal ``p``; the complement
``q = 1 - p`` (exact for ``p >= 1/2``) as an input of its own, so that
``p = 1 - 2**-53`` keeps its 53 bits; Cox's families in log-odds, through
``log1p``.  A user's functions are known only by their values, which are then
taken as exact.

Every family is checked when it is made: each function is evaluated on the
grid ``0, 0.001, ..., 1`` (1001 points) and must return finite values in
``[0, 1]`` there.  A grid cannot see between its points, so the Jumper
checks again, on the actual base probabilities, every table it evaluates.
Families are plain, immutable, picklable objects (a user family pickles when
its functions do, e.g. module-level functions or ``functools.partial``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from .._kernels.jumper import FAMILY_KINDS, family_ratios, polynomial_values, value_ratios
from .._kernels.jumper_union import cox_values, union_ratios, union_values
from ._composite import describe, stacked_ratios
from ._family_params import _named, _params, numbered, union_labels

__all__ = ["NAMED", "CalibratingFamily", "cox", "cox2", "cubic", "family", "named", "quadratic",
           "union"]

_GRID = np.linspace(0.0, 1.0, 1001)


class CalibratingFamily:
    """A finite family of calibrating functions, evaluated as a ``(K, n)`` table.

    Make one with :func:`quadratic`, :func:`cubic`, :func:`cox`, :func:`cox2`
    or :func:`family`; ``len(fam)`` is ``K`` and ``fam.labels`` names the
    functions.

    Parameters
    ----------
    kind : str
        ``"quadratic"``, ``"cubic"``, ``"cox"``, ``"cox2"`` or ``"custom"``.
    params : array-like of shape (K, m)
        One row of parameters per function (unused for ``"custom"``).
    labels : sequence of str
        A name for each function.
    funcs : sequence of callable, optional
        The user's functions (``"custom"`` only).

    Examples
    --------
    >>> from venncal.online import quadratic
    >>> fam = quadratic([-1, 0, 1])
    >>> len(fam), fam.labels
    (3, ['eps=-1', 'eps=0', 'eps=1'])
    >>> fam.table([0.5, 0.9]).round(3)
    array([[0.25, 0.81],
           [0.5 , 0.9 ],
           [0.75, 0.99]])
    """

    def __init__(self, kind: str, params, labels: Sequence[str],
                 funcs: Sequence[Callable] | None = None) -> None:
        self.kind = kind
        self.params = np.array(params, dtype=np.float64, ndmin=2)
        self.labels = list(labels)
        self.funcs = tuple(funcs) if funcs is not None else None
        self.params.setflags(write=False)
        if len(self.labels) == 0:
            raise ValueError("a calibrating family needs at least one function")
        for k in range(len(self.labels)):
            _check_on_grid(self.labels[k], self._evaluate_one(k, _GRID))

    def __len__(self) -> int:
        return len(self.labels)

    def __repr__(self) -> str:
        return f"CalibratingFamily({self.kind!r}, {', '.join(self.labels)})"

    def __add__(self, other):
        """``fam1 + fam2`` is :func:`union` ``(fam1, fam2)``."""
        if not isinstance(other, CalibratingFamily):
            return NotImplemented
        return union(self, other)

    def is_identity(self, k: int) -> bool:
        """Whether function ``k`` is the identity by its parameters (never for a user's function).

        Examples
        --------
        >>> [quadratic().is_identity(k) for k in range(5)]
        [False, False, True, False, False]
        """
        if self.kind == "custom":
            return False
        theta = self.params[k]
        return bool({"quadratic": theta[0] == 0.0, "cubic": theta[0] == 0.0,
                     "cox": theta[0] == 1.0,
                     "cox2": theta[0] == 0.0 and theta[-1] == 1.0}[self.kind])

    def _evaluate_one(self, k: int, p: np.ndarray) -> np.ndarray:
        if self.funcs is not None:
            return np.asarray(self.funcs[k](p), dtype=np.float64)
        return _EVALUATORS[self.kind](self.params[k], p)

    def table(self, p) -> np.ndarray:
        """Return ``f_k(p_i)`` as a C-contiguous float64 array of shape ``(K, n)``.

        Parameters
        ----------
        p : array-like of shape (n,)
            Probabilities in ``[0, 1]``.

        Raises
        ------
        ValueError
            If a function returns a value outside ``[0, 1]`` (or NaN), naming
            the function and the first such index.
        """
        p = np.ascontiguousarray(p, dtype=np.float64)
        out = np.empty((len(self), p.shape[0]))
        if self.kind in ("quadratic", "cubic"):
            polynomial_values(FAMILY_KINDS[self.kind], self.params, p, out)
        elif self.kind in ("cox", "cox2"):  # SciPy's expit(alpha + beta logit p), compiled
            cox_values(self._kernel_params(), p, out)
        else:
            for k in range(len(self)):
                out[k] = self._evaluate_one(k, p)
        # min and max propagate NaN, which fails both comparisons.
        if out.size and not (out.min() >= 0.0 and out.max() <= 1.0):
            k, i = np.argwhere(~((out >= 0.0) & (out <= 1.0)))[0]
            raise ValueError(
                f"calibrating function {self.labels[k]} maps p={float(p[i])!r} (index {i}) to "
                f"{float(out[k, i])!r}, outside [0, 1]"
            )
        return out

    def likelihood_ratios(self, p: np.ndarray, y: np.ndarray,
                          table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(t, ls)``: the likelihood ratios of the family's forecasts, scaled.

        ``t[k, i] * exp(ls[i]) = B_{f_k(p_i)}(y_i) / B_{p_i}(y_i)`` (Algorithm 1
        line 5 of Vovk, Petej & Gammerman 2021), with ``t`` in ``[0, 1]`` and ``max_k t[k, i] = 1``
        (``t`` all 0 and ``ls[i] = -inf`` when every function gives the label
        probability 0).  Exact up to a few roundings for every ``p`` in
        ``[0, 1]``, subnormal or within ``2**-53`` of 1; a user's functions are
        taken at their float values.

        Parameters
        ----------
        p : ndarray of float64 of shape (n,)
            Base probabilities, with ``B_{p_i}(y_i) > 0`` (no ``p = 0`` with a
            positive label, no ``p = 1`` with a negative one).
        y : ndarray of bool of shape (n,)
            True for the positive label.
        table : ndarray of float64 of shape (K, n)
            ``self.table(p)``.

        Examples
        --------
        At ``p = 1e-310`` and a positive label the ratios are ``f(p)/p = 1 + eps (1 - p)``:

        >>> import numpy as np
        >>> fam = quadratic([-0.5, 0.5])
        >>> p, y = np.array([1e-310]), np.array([True])
        >>> t, ls = fam.likelihood_ratios(p, y, fam.table(p))
        >>> t[:, 0] * np.exp(ls)
        array([0.5, 1.5])
        """
        t, ls = self._scaled_ratios(p, y, table)
        coded = t < 0.0  # a ratio below 2**-1022, carried as its log: its float (subnormal or 0)
        if coded.any():
            t[coded] = np.exp(t[coded])
        return t, ls

    def _scaled_ratios(self, p, y, table) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`likelihood_ratios` as the Jumper's kernels take them: a ratio below ``2**-1022`` as its log.

        (:func:`~venncal._kernels.jumper_forget.coded`: forgetting brings such
        a weight back, so its relative precision counts, attack 19 F2.)
        """
        p = np.ascontiguousarray(p, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.bool_)
        table = np.ascontiguousarray(table, dtype=np.float64)
        t = np.empty(table.shape)
        ls = np.empty(p.shape[0])
        if self.kind == "custom":
            value_ratios(p, y, table, t, ls)
        else:
            family_ratios(FAMILY_KINDS[self.kind], self._kernel_params(), p, y, table, t, ls)
        return t, ls

    def _kernel_params(self) -> np.ndarray:
        """The parameters as :func:`~venncal._kernels.jumper.family_ratios` takes them."""
        if self.kind != "cox":
            return self.params
        cached = self.__dict__.get("_cox2_params")  # cox(beta) is cox2(0, beta)
        if cached is None:
            cached = np.column_stack([np.zeros(len(self)), self.params[:, 0]])
            self._cox2_params = cached
        return cached


def _check_on_grid(label: str, values: np.ndarray) -> None:
    if values.shape != _GRID.shape:
        raise ValueError(
            f"calibrating function {label} must be vectorised: given an array of shape "
            f"{_GRID.shape} it returned shape {values.shape}"
        )
    bad = ~((values >= 0.0) & (values <= 1.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"calibrating function {label} must map [0, 1] into [0, 1]; on the grid "
            f"0, 0.001, ..., 1 it maps {_GRID[i]:g} to {float(values[i])!r}"
        )


def _one_row(kind: str):
    """The evaluator of one function of a family of the paper (its kernel on one row)."""

    def evaluate(theta: np.ndarray, p: np.ndarray) -> np.ndarray:
        out = np.empty((1, p.shape[0]))
        theta = np.ascontiguousarray(theta[None, :])
        p = np.ascontiguousarray(p, dtype=np.float64)
        if kind == "cox":  # cox(beta) is cox2(0, beta)
            cox_values(np.array([[0.0, theta[0, 0]]]), p, out)
        elif kind == "cox2":
            cox_values(theta, p, out)
        else:
            polynomial_values(FAMILY_KINDS[kind], theta, p, out)
        return out[0]

    return evaluate


_EVALUATORS = {kind: _one_row(kind) for kind in ("quadratic", "cubic", "cox", "cox2")}


def quadratic(E: Sequence[float] = (-1.0, -0.5, 0.0, 0.5, 1.0)) -> CalibratingFamily:
    """Return the quadratic family ``f_eps(p) = p + eps p (1 - p)``, ``eps`` in ``E`` (eq. (1)).

    ``eps > 0`` corrects forecasts that underestimate the probability of the
    positive label, ``eps < 0`` overestimates; ``eps = 0`` is the identity.

    Parameters
    ----------
    E : sequence of float, default=(-1, -0.5, 0, 0.5, 1)
        The values of ``eps``, each in ``[-1, 1]`` (the paper's ``E``).

    Examples
    --------
    >>> quadratic()
    CalibratingFamily('quadratic', eps=-1, eps=-0.5, eps=0, eps=0.5, eps=1)
    >>> quadratic([0.5]).table([0.2])
    array([[0.28]])
    """
    params = _params(E, 1, "E", -1.0, 1.0)
    return _distinct(CalibratingFamily("quadratic", params, _named(params, "eps")))


#: The default grids of the families (``venncal monitor --family NAME`` uses them too).
CUBIC_GRID = ((0.0, 0.5), *((a, b) for a in (-1.0, -0.5, 0.5, 1.0) for b in (0.25, 0.5, 0.75)))
COX_GRID = (0.5, 0.75, 1.0, 1.5, 2.0)
COX2_GRID = tuple((a, b) for a in (-1.0, -0.5, 0.0, 0.5, 1.0) for b in (0.5, 1.0, 2.0))


def cubic(pairs: Sequence[tuple[float, float]] = CUBIC_GRID) -> CalibratingFamily:
    """Return the cubic family ``f_{a,b}(p) = p + a p (p - b)(p - 1)`` (eq. (3)).

    ``b`` is the probability that needs no correction; ``a > 0`` pulls
    forecasts near 0 and 1 towards ``b`` (overconfidence), ``a < 0`` pushes
    them away (underconfidence).

    Parameters
    ----------
    pairs : sequence of (a, b), default=CUBIC_GRID
        With ``a`` in ``[-1, 1]`` and ``b`` in ``[0, 1]`` (the paper takes
        ``(a, b)`` in ``[0, 1]^2``; negative ``a`` is its underconfidence case).
        The default is the identity and ``a`` in {-1, -0.5, 0.5, 1} x ``b`` in
        {0.25, 0.5, 0.75}.

    Examples
    --------
    >>> fam = cubic([(0.5, 0.5), (-0.5, 0.5)])
    >>> fam.labels
    ['a=0.5,b=0.5', 'a=-0.5,b=0.5']
    >>> fam.table([0.1, 0.5]).round(4)
    array([[0.118, 0.5  ],
           [0.082, 0.5  ]])
    """
    params = _params(pairs, 2, "pairs", -1.0, 1.0)
    if (params[:, 1] < 0.0).any():
        raise ValueError(f"cubic: b must lie in [0, 1]; got {pairs!r}")
    return _distinct(CalibratingFamily("cubic", params, _named(params, "a", "b")))


def cox(betas: Sequence[float] = COX_GRID) -> CalibratingFamily:
    """Return Cox's one-parameter family ``f_beta(p) = p^beta / (p^beta + (1 - p)^beta)`` (eq. (4)).

    ``beta > 1`` sharpens the forecasts, ``beta < 1`` softens them, ``beta = 1``
    is the identity, ``beta = 0`` the constant 1/2 and ``beta < 0`` reverses
    them.  Evaluated as ``expit(beta * logit(p))``.

    Parameters
    ----------
    betas : sequence of float, default=COX_GRID
        Finite real numbers; by default {0.5, 0.75, 1, 1.5, 2}.

    Examples
    --------
    >>> cox([0.5, 1, 2]).table([0.2, 0.5]).round(4)
    array([[0.3333, 0.5   ],
           [0.2   , 0.5   ],
           [0.0588, 0.5   ]])
    """
    params = _params(betas, 1, "betas")
    return _distinct(CalibratingFamily("cox", params, _named(params, "beta")))


def cox2(pairs: Sequence[tuple[float, float]] = COX2_GRID) -> CalibratingFamily:
    """Return Cox's two-parameter family ``expit(alpha + beta logit p)`` (eq. (5)).

    That is ``p^beta e^alpha / (p^beta e^alpha + (1 - p)^beta)``: a logistic
    recalibration of the base forecasts (Platt scaling on the log-odds).

    Parameters
    ----------
    pairs : sequence of (alpha, beta), default=COX2_GRID
        Finite real numbers; by default ``alpha`` in {-1, -0.5, 0, 0.5, 1} x
        ``beta`` in {0.5, 1, 2}.

    Examples
    --------
    >>> cox2([(0.0, 1.0), (1.0, 1.0)]).table([0.5]).round(4)
    array([[0.5   ],
           [0.7311]])
    """
    params = _params(pairs, 2, "pairs")
    return _distinct(CalibratingFamily("cox2", params, _named(params, "alpha", "beta")))


def family(*funcs: Callable[[np.ndarray], np.ndarray],
           labels: Sequence[str] | None = None) -> CalibratingFamily:
    """Return a family of the user's own calibrating functions.

    Parameters
    ----------
    *funcs : callable
        Vectorised functions: given a float64 array of probabilities they
        return an array of the same shape with values in ``[0, 1]``.  Each is
        checked on the grid ``0, 0.001, ..., 1``.
    labels : sequence of str, optional
        Distinct names for the functions; by default their ``__name__``
        (numbered ``#2``, ``#3``, ... where alike, as two lambdas).

    Raises
    ------
    ValueError
        If there is no function, a label is missing or given twice, a
        function is given twice, or one is not vectorised or leaves
        ``[0, 1]`` on the grid.

    Examples
    --------
    >>> import numpy as np
    >>> fam = family(np.sqrt, np.square)
    >>> fam.labels
    ['sqrt', 'square']
    >>> family(lambda p: 2 * p, labels=["double"])
    Traceback (most recent call last):
    ...
    ValueError: calibrating function double must map [0, 1] into [0, 1]; on the grid 0, 0.001, ..., 1 it maps 0.501 to 1.002
    """
    for f in funcs:
        if not callable(f):
            raise TypeError(f"family takes functions; got {f!r}")
    if labels is None:  # two lambdas: "<lambda>", "<lambda>#2"
        labels = numbered([getattr(f, "__name__", repr(f)) for f in funcs])
    elif len(labels) != len(funcs):
        raise ValueError(f"family: {len(funcs)} function(s) but {len(labels)} label(s)")
    elif len(set(labels)) < len(labels):
        raise ValueError(f"family: labels name one function each; got {list(labels)!r}")
    return _distinct(CalibratingFamily("custom", np.zeros((len(funcs), 0)), labels, funcs))


class _Union(CalibratingFamily):
    """The union of families, as one family (made by :func:`union`)."""

    def __init__(self, members: Sequence[CalibratingFamily]) -> None:
        self.kind = "union"
        self.members = tuple(members)
        self.labels = union_labels(self.members)
        self.params = np.zeros((len(self.labels), 0))
        self.params.setflags(write=False)
        self.funcs = None
        self._compiled = describe(self.members)  # None with a user's family among them

    def _evaluate_one(self, k: int, p: np.ndarray) -> np.ndarray:
        for fam in self.members:
            if k < len(fam):
                return fam._evaluate_one(k, p)
            k -= len(fam)
        raise IndexError(k)

    def table(self, p) -> np.ndarray:
        p = np.ascontiguousarray(p, dtype=np.float64)
        if self._compiled is None:
            return np.ascontiguousarray(np.vstack([fam.table(p) for fam in self.members]))
        out = np.empty((len(self), p.shape[0]))
        union_values(*self._compiled, p, out)
        return out

    def _scaled_ratios(self, p, y, table):
        p = np.ascontiguousarray(p, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.bool_)
        table = np.ascontiguousarray(table, dtype=np.float64)
        if self._compiled is None:
            return stacked_ratios(self.members, p, y, table)
        t, ls = np.empty(table.shape), np.empty(p.shape[0])
        union_ratios(*self._compiled, p, y, table, t, ls, np.empty((len(self.members), p.shape[0])))
        return t, ls

    def __setstate__(self, state: dict) -> None:  # pickled before the compiled union
        self.__dict__.update(state)
        if "_compiled" not in state:
            self._compiled = describe(self.members)


def _distinct(fam: CalibratingFamily) -> CalibratingFamily:
    """``fam``, or a ValueError naming two of its functions that are one (by :func:`_key`)."""
    seen: dict = {}
    for k in range(len(fam)):
        j = seen.setdefault(_key(fam, k), k)
        if j != k:
            raise ValueError(
                f"{fam.kind}: {fam.labels[j]} and {fam.labels[k]} are the same function; a "
                "family is a set (Algorithm 1 weighs each once, as union keeps it): give each once")
    return fam


def _key(fam: CalibratingFamily, k: int):
    """What makes function ``k`` of ``fam`` a duplicate: its parameters, or the function itself."""
    if fam.is_identity(k):
        return ("identity",)
    if fam.kind == "custom":
        return ("custom", id(fam.funcs[k]))
    kind = "cox2" if fam.kind == "cox" else fam.kind  # cox(beta) is cox2(0, beta)
    theta = tuple(fam._kernel_params()[k].tolist())
    return (kind, theta)


def union(*families: CalibratingFamily) -> CalibratingFamily:
    """Return the union of families: one family holding every function of each, in order.

    A Jumper over the union bets on all the functions at once (the uniform
    prior over them): it is itself a Jumper test martingale, so Ville's
    inequality holds for it.  Each function is kept once, the first time it
    comes: a later one is dropped when it has the same parameters
    (``cox(beta)`` counts as ``cox2(0, beta)``), is the same Python function
    object (a user's functions are compared as objects only), or when both are
    the identity (``eps = 0``, ``a = 0``, ``beta = 1``, ``(alpha, beta) = (0, 1)``).
    Unions inside are flattened; ``fam1 + fam2`` is ``union(fam1, fam2)``.
    Labels are prefixed by their family's kind (``"cox:beta=2"``).  The
    likelihood ratios are the members' scaled ratios brought to one scale,
    the largest of their ``ls``, through an exactly taken difference of
    logarithms: no overflow, and each member's ratios keep their precision.
    A union of the paper's families is evaluated in compiled code
    (:mod:`venncal._kernels.jumper_union`), one with a user's family by its
    members in Python.

    Parameters
    ----------
    *families : CalibratingFamily
        At least one.

    Raises
    ------
    TypeError
        If an argument is not a :class:`CalibratingFamily`.
    ValueError
        If no family is given.

    Examples
    --------
    >>> fam = quadratic() + cox()
    >>> len(fam), fam.labels[:3], fam.labels[5:]
    (9, ['quadratic:eps=-1', 'quadratic:eps=-0.5', 'quadratic:eps=0'], ['cox:beta=0.5', 'cox:beta=0.75', 'cox:beta=1.5', 'cox:beta=2'])

    The scaled ratios at ``p = 1e-310`` (a positive label) stay exact:

    >>> import numpy as np
    >>> fam = union(quadratic([-0.5, 0.5]), cubic([(0.5, 0.5)]))
    >>> p, y = np.array([1e-310]), np.array([True])
    >>> t, ls = fam.likelihood_ratios(p, y, fam.table(p))
    >>> t[:, 0] * np.exp(ls)
    array([0.5 , 1.5 , 1.25])
    """
    if not families:
        raise ValueError("union needs at least one family")
    flat = []
    for fam in families:
        if not isinstance(fam, CalibratingFamily):
            raise TypeError(f"union takes calibrating families; got {fam!r}")
        flat.extend(fam.members if isinstance(fam, _Union) else [fam])
    seen, members = set(), []
    for fam in flat:
        keep = []
        for k in range(len(fam)):
            key = _key(fam, k)
            if key not in seen:
                seen.add(key)
                keep.append(k)
        if len(keep) == len(fam):
            members.append(fam)
        elif keep:
            labels = [fam.labels[k] for k in keep]
            funcs = None if fam.funcs is None else [fam.funcs[k] for k in keep]
            members.append(CalibratingFamily(fam.kind, fam.params[keep], labels, funcs))
    return members[0] if len(members) == 1 else _Union(members)


#: The parameter grids of the named families, as ``venncal monitor --family`` and the Bank
#: reproduction use them (Vovk, Petej & Gammerman 2021, section 2).
NAMED = {
    "quadratic": "eq. (1), eps in {-1, -0.5, 0, 0.5, 1} (the paper's)",
    "cubic": "eq. (3), the identity and a in {-1, -0.5, 0.5, 1} x b in {0.25, 0.5, 0.75}",
    "cox": "eq. (4), beta in {0.5, 0.75, 1, 1.5, 2}",
    "cox2": "eq. (5), alpha in {-1, -0.5, 0, 0.5, 1} x beta in {0.5, 1, 2}",
    "shift+confidence": "quadratic+cubic+cox: shifts, over- and underconfidence about b, "
                        "sharpening and softening; the identity once (21 functions)",
}


def named(name: str) -> CalibratingFamily:
    """Return the family of :data:`NAMED` called ``name``, on its standard grid.

    Names joined by ``+`` give the :func:`union` of the families, e.g.
    ``"quadratic+cubic"``; ``"shift+confidence"`` is ``"quadratic+cubic+cox"``.

    Examples
    --------
    >>> len(named("quadratic")), len(named("cubic")), len(named("cox")), len(named("cox2"))
    (5, 13, 5, 15)
    >>> named("cox").labels == cox().labels   # each family's default grid
    True
    >>> len(named("shift+confidence")), len(named("quadratic+cox2"))
    (21, 19)
    """
    makers = {"quadratic": quadratic, "cubic": cubic, "cox": cox, "cox2": cox2}
    if name == "shift+confidence":
        name = "quadratic+cubic+cox"
    parts = name.split("+") if isinstance(name, str) else [name]
    if all(part in makers for part in parts):
        return union(*(makers[part]() for part in parts))
    raise ValueError(f"unknown family {name!r}; named families: {', '.join(NAMED)}, "
                     "or names joined by '+'")
