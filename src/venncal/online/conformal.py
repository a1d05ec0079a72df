"""Label-free monitoring: conformal test martingales over a stream of scores.

A deployed model's scores can drift before any label comes back.  Under the
hypothesis that the scores are exchangeable (for instance i.i.d.: the population
has not changed), the smoothed conformal p-value of each new score against the
scores seen so far,

    p_n = (#{i <= n: a_i > a_n} + U_n #{i <= n: a_i = a_n}) / n,

with ``a_i`` the nonconformity of score ``i`` and ``U_n`` uniform on ``[0, 1)``,
is exactly uniform, and the p-values are independent (Vovk, Gammerman & Shafer,
*Algorithmic Learning in a Random World*, section 8; Vovk 2021, *Testing
randomness online*).  Betting on them gives a test martingale ``S_n``: by Ville's
inequality, ``P(S_n >= 1/alpha for some n) <= alpha`` while the scores stay
exchangeable.  A shift of the score distribution makes the p-values of the new
scores small (or large), and ``S_n`` grows.

:class:`ConformalMartingale` computes the p-values with exact integer counts
(``O(log n)`` a score: a Fenwick tree for batches, a treap for single scores;
:mod:`venncal._kernels.conformal`) and bets in log space (``log10 S`` past
``10^10000`` and over ``10^7`` steps without overflow).  :func:`conformal_pvalues`
gives the p-values alone, and :func:`monitor_scores` the summary a monitor prints.

Examples
--------
>>> import numpy as np
>>> from venncal.online import ConformalMartingale
>>> rng = np.random.default_rng(0)
>>> before = rng.normal(0.0, 1.0, 500)
>>> after = rng.normal(1.0, 1.0, 500)     # the scores shift up at step 501
>>> cm = ConformalMartingale(seed=0)
>>> res = cm.run(np.r_[before, after])
>>> res.alarm(0.01) > 500                 # the first n with S_n >= 100
True
>>> bool(cm.log10_value > 2)
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .._kernels.conformal import (
    NONCONFORMITY,
    jumper_bet,
    pvalues_fresh,
    pvalues_treap,
    treap_build,
    treap_sorted,
)
from .._validation import Check, Interval, Options, _at, check_scores, validate_params
from ._state import AlarmRecords, alarm_level

__all__ = ["BETTING", "ConformalMartingale", "ConformalResult", "conformal_pvalues",
           "monitor_scores"]

#: The betting schemes: name -> (the ``eps`` of ``f_eps(p) = 1 + eps (p - 1/2)``,
#: the jump rates as multiples of ``jump_rate``).
BETTING = {
    "simple-jumper": ((-1.0, 0.0, 1.0), (1.0,)),
    "composite": ((-1.0, -0.5, 0.0, 0.5, 1.0), (10.0, 1.0, 0.1)),
}
# "two-sided" decides |v - m| > |z - m| by the sign of v + z - 2m, exact below this.
_TWO_SIDED_BOUND = 2.0 ** 1022


def _is_seed(v) -> bool:
    return (isinstance(v, (int, np.integer)) and not isinstance(v, bool)
            and 0 <= int(v) < 2 ** 64)


_CONSTRAINTS = {
    "betting": [Options(tuple(BETTING))],
    "jump_rate": [Interval("real", 0.0, 1.0, closed="right")],
    "nonconformity": [Options(tuple(NONCONFORMITY))],
    "seed": [Check(_is_seed, "an integer in [0, 2**64)")],
}


def _checked(scores, nonconformity: str, name: str = "scores",
             row_base: int | None = None) -> np.ndarray:
    # a bad score is named as venncal._validation names it: by index, or by row from row_base
    s = check_scores(scores, name=name, row_base=row_base)
    if nonconformity == "two-sided":
        big = np.abs(s) >= _TWO_SIDED_BOUND
        if big.any():
            i = int(np.flatnonzero(big)[0])
            where = "" if name == "score" else f" {_at(i, row_base)}"  # learn_one: one score
            raise ValueError(
                f"{name} must be of magnitude below 2**1022 (about 4.5e307) for two-sided "
                f"nonconformity, where |score - median| is compared exactly; got "
                f"{float(s[i])!r}{where}"
            )
    return s


@dataclass(frozen=True, eq=False)
class ConformalResult:
    """The trajectory of a conformal test martingale over a stream (returned by ``run``).

    Attributes
    ----------
    log10_martingale : ndarray of shape (n,)
        ``log10 S_n`` after each step.
    pvalues : ndarray of shape (n,)
        The smoothed conformal p-value of each score against the scores before it.
    log10_factors : ndarray of shape (n,)
        ``log10(S_n / S_{n-1})``, the betting factor of each step, from the kernel
        (for change-point procedures, which restart the product of the factors).
    start : int
        Steps of the stream before this run: row ``i`` is step ``start + i + 1``.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.online import ConformalResult
    >>> res = ConformalResult(np.array([0.5, 2.5]), np.array([0.2, 0.01]),
    ...                       np.array([0.5, 2.0]), start=10)
    >>> res.alarm(0.01), res.alarm(0.001), res.log10_final
    (12, None, 2.5)
    """

    log10_martingale: np.ndarray
    pvalues: np.ndarray
    log10_factors: np.ndarray
    start: int = 0

    @property
    def log10_final(self) -> float:
        """``log10 S`` after the last step of the run."""
        return float(self.log10_martingale[-1])

    def alarm(self, alpha: float) -> int | None:
        """First step ``n`` of this run (counted in the stream) with ``S_n >= 1/alpha``, or None.

        ``log10 S_n`` within 8 ulps below ``log10(1/alpha)`` counts
        (:func:`venncal.online._state.alarm_level`).
        """
        hits = np.flatnonzero(self.log10_martingale >= alarm_level(alpha))
        return int(self.start + hits[0] + 1) if hits.size else None


class _Bag:
    """The multiset of scores seen: a treap in arrays (see :mod:`venncal._kernels.conformal`)."""

    def __init__(self) -> None:
        self.meta = np.array([-1, 0], dtype=np.int64)
        self._alloc(16)

    def _alloc(self, cap: int) -> None:
        self.key = np.empty(cap)
        self.cnt = np.zeros(cap, dtype=np.int64)
        self.size = np.zeros(cap, dtype=np.int64)
        self.left = np.empty(cap, dtype=np.int64)
        self.right = np.empty(cap, dtype=np.int64)

    @property
    def distinct(self) -> int:
        return int(self.meta[1])

    def reserve(self, extra: int) -> None:
        need = self.distinct + extra
        cap = self.key.shape[0]
        if need > cap:
            new = max(need, 2 * cap)
            for name in ("key", "cnt", "size", "left", "right"):
                old = getattr(self, name)
                grown = np.empty(new, dtype=old.dtype)
                grown[: old.shape[0]] = old
                setattr(self, name, grown)

    def sorted(self) -> tuple[np.ndarray, np.ndarray]:
        D = self.distinct
        uniq, counts = np.empty(D), np.empty(D, dtype=np.int64)
        treap_sorted(self.key, self.cnt, self.left, self.right, self.meta, uniq, counts)
        return uniq, counts

    def pvalues(self, s: np.ndarray, kind: int, seed: np.uint64, first: int) -> np.ndarray:
        """The p-values of steps ``first, ...`` for the scores ``s``; the scores join the bag."""
        n = s.shape[0]
        out = np.empty(n)
        if n >= max(1, self.distinct // 4):
            # Fenwick tree over the bag and the batch, then the treap rebuilt: O((D + n) log).
            prior_uniq, prior_counts = self.sorted()
            both = np.concatenate((prior_uniq, s))
            uniq = np.empty(both.shape[0])
            counts = np.empty(both.shape[0], dtype=np.int64)
            D = pvalues_fresh(both, np.argsort(both), kind, seed, first, prior_counts, out, uniq,
                              counts)
            if D > self.key.shape[0]:
                self._alloc(max(D, 2 * self.key.shape[0]))
            treap_build(uniq[:D], counts[:D], self.key, self.cnt, self.size, self.left,
                        self.right, self.meta)
        else:
            self.reserve(n)
            pvalues_treap(s, kind, seed, first, self.key, self.cnt, self.size, self.left,
                          self.right, self.meta, out)
        return out


def conformal_pvalues(scores, *, nonconformity: str = "high", seed: int = 0) -> np.ndarray:
    """Smoothed conformal p-values of each score against the scores before it (from step 1).

    ``O(n log n)`` through a Fenwick tree on ranks; the counts ``gt`` and ``eq`` are
    exact integers, and each p-value ``(gt + U eq) / n`` is rounded three times
    (the product, the sum, the quotient): within 3 ulps of the exact value (attack 36:
    1.84 ulps at most over 3,885 p-values against fractions).

    Parameters
    ----------
    scores : array-like of shape (n,)
        Finite scores, in stream order.
    nonconformity : {"high", "low", "two-sided"}, default="high"
        What makes a score strange: a high score (``a = z``), a low one
        (``a = -z``), or its distance from the median of the scores so far
        (``a = |z - m_n|``, recomputed for every score at every step).
    seed : int, default=0
        Seed of the uniform numbers ``U_n`` that break ties (the same step of a
        stream gets the same ``U_n`` whatever the split).

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> from venncal.online.conformal import conformal_pvalues
    >>> conformal_pvalues([3.0, 1.0, 2.0, 5.0], seed=1).round(3)
    array([0.75 , 0.686, 0.479, 0.239])
    """
    validate_params("conformal_pvalues", {"nonconformity": nonconformity, "seed": seed},
                    _CONSTRAINTS)
    s = _checked(scores, nonconformity)
    return _Bag().pvalues(s, NONCONFORMITY[nonconformity], np.uint64(seed), 1)


class ConformalMartingale:
    """A conformal test martingale over a score stream: is the stream still exchangeable?

    Each score gets its smoothed conformal p-value against the scores before it,
    and Jumpers bet on the p-values with the betting functions
    ``f_eps(p) = 1 + eps (p - 1/2)`` (each with mean 1 over a uniform ``p``, so the
    capital is a test martingale under exchangeability):

    * ``"simple-jumper"``: Vovk's Simple Jumper, ``eps in {-1, 0, 1}`` at the rate
      ``J = jump_rate``: ``C_eps := (1 - J) C_eps + J C / 3``, then
      ``C_eps := C_eps f_eps(p_n)``.  ``eps = -1`` bets on small p-values (scores
      stranger than before), ``eps = 1`` on large ones, ``eps = 0`` keeps the capital.
    * ``"composite"``: the average of three Jumpers, at rates ``10 J``, ``J`` and
      ``J / 10`` (each capped at 1), over the "sleeper" ``eps = 0`` (bets nothing)
      and the "drifters" ``eps in {-1, -1/2, 1/2, 1}``: a mixture over how often the
      stream changes and how strongly, as Vovk et al. (2021, *Retrain or not
      retrain*) compose Jumpers.  An average of test martingales is one.

    Parameters
    ----------
    betting : {"simple-jumper", "composite"}, default="simple-jumper"
    jump_rate : float, default=0.01
        ``J`` in ``(0, 1]``.
    nonconformity : {"high", "low", "two-sided"}, default="high"
        What makes a score strange (see :func:`conformal_pvalues`).  "high" and
        "low" see a shift of the scores' location either way (``eps = -1`` profits
        from small p-values, ``eps = 1`` from large ones; for continuous scores the
        two give the same martingale); "two-sided" sees a change of their spread.
    seed : int, default=0
        Seed of the ``U_n`` (counter-based: step ``n`` gets the same ``U_n``
        however the stream is split between calls).

    Attributes
    ----------
    n_seen_ : int
        Scores seen since the last :meth:`reset`.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.online import ConformalMartingale
    >>> cm = ConformalMartingale(betting="composite", nonconformity="two-sided")
    >>> rng = np.random.default_rng(3)
    >>> cm.learn_many(rng.normal(size=1000))     # exchangeable: no evidence
    >>> bool(cm.log10_value < 2), cm.alarm(0.01)
    (True, None)
    >>> for z in rng.normal(0.0, 4.0, 300):     # the spread grows
    ...     cm.learn_one(z)
    >>> cm.alarm(0.01) is not None
    True
    """

    _parameter_constraints: ClassVar[dict] = _CONSTRAINTS

    def __init__(self, betting: str = "simple-jumper", jump_rate: float = 0.01, *,
                 nonconformity: str = "high", seed: int = 0):
        self.betting = betting
        self.jump_rate = jump_rate
        self.nonconformity = nonconformity
        self.seed = seed
        validate_params(type(self).__name__, self.get_params(), self._parameter_constraints)
        eps, multiples = BETTING[betting]
        self._eps = np.array(eps)
        self._rates = np.array([min(1.0, m * jump_rate) for m in multiples])
        self._kind = NONCONFORMITY[nonconformity]
        self.reset()

    def get_params(self) -> dict:
        """Return the constructor's parameters, as given."""
        return {"betting": self.betting, "jump_rate": self.jump_rate,
                "nonconformity": self.nonconformity, "seed": self.seed}

    def clone(self) -> ConformalMartingale:
        """Return a fresh object with the same parameters and no score seen."""
        return type(self)(**self.get_params())

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def reset(self) -> None:
        """Forget the stream: ``S_0 = 1``, uniform weights, an empty bag."""
        R, K = self._rates.shape[0], self._eps.shape[0]
        self.weights_ = np.full((R, K), 1.0 / K)
        self._log_cap = np.zeros(R)
        self._log_err = np.zeros(R)
        self._bag = _Bag()
        self._records = AlarmRecords()
        self.n_seen_ = 0
        self._log10 = 0.0
        self._one = (np.empty(1), np.empty(1), np.empty(1), np.empty(1))  # learn_one's buffers

    @property
    def log10_value(self) -> float:
        """``log10 S_n`` after the last score (0 before any)."""
        return self._log10

    @property
    def rate_log10_values(self) -> np.ndarray:
        """``log10 S_{r,n}`` of each rate's Jumper (one for the Simple Jumper)."""
        return (self._log_cap + self._log_err) / math.log(10.0)

    def alarm(self, alpha: float) -> int | None:
        """The first step ``n`` (from 1, since :meth:`reset`) with ``S_n >= 1/alpha``, or None.

        While the scores are exchangeable, this happens with probability at most
        ``alpha`` over the whole infinite stream (Ville's inequality).
        """
        return self._records.first_at_least(alarm_level(alpha))

    def _advance(self, s: np.ndarray) -> ConformalResult:
        n = s.shape[0]
        pvals = self._bag.pvalues(s, self._kind, np.uint64(self.seed), self.n_seen_ + 1)
        log10, factors = np.empty(n), np.empty(n)
        jumper_bet(pvals, self._eps, self._rates, self.weights_, self._log_cap, self._log_err,
                   log10, factors)
        result = ConformalResult(log10, pvals, factors, start=self.n_seen_)
        self._records.add(self.n_seen_ + 1, log10)
        self.n_seen_ += n
        self._log10 = float(log10[-1])
        return result

    def run(self, scores) -> ConformalResult:
        """Process a recorded stream of scores in order; return the trajectory.

        The stream continues the object's state (:meth:`reset` first for a new
        one); any split of a stream between ``run``, ``learn_many`` and
        ``learn_one`` gives the same p-values bit for bit, and the same martingale.

        Parameters
        ----------
        scores : array-like of shape (n,)
            Finite scores (two-sided: of magnitude below ``2**1022``).

        Returns
        -------
        ConformalResult
            ``log10_martingale``, ``pvalues`` and ``log10_factors`` of each step.

        Raises
        ------
        ValueError
            For an empty, non-finite or (two-sided) too large score; the object is
            then as it was.
        """
        return self._advance(_checked(scores, self.nonconformity))

    def learn_many(self, scores: Sequence[float] | np.ndarray) -> None:
        """Process a batch of scores, in order (``run`` without the trajectory).

        An empty batch is refused, as by every online object's ``learn_many``.
        """
        self._advance(_checked(np.asarray(scores), self.nonconformity))

    def learn_one(self, score: float) -> None:
        """Process one score (the treap and the kernels on arrays of length 1, in place)."""
        bag = self._bag
        # the fast path takes floats only: an integer past 2**53 (which a double cannot hold)
        # is refused by the checks, as learn_many refuses it
        if not isinstance(score, (float, np.floating)) or bag.distinct < 8:
            self._advance(_checked([score], self.nonconformity, name="score"))
            return
        z = float(score)
        if not (math.isfinite(z) and (self._kind != 2 or abs(z) < _TWO_SIDED_BOUND)):
            self._advance(_checked([score], self.nonconformity, name="score"))  # the error
            return
        one, p, log10, factor = self._one
        one[0] = z
        bag.reserve(1)
        pvalues_treap(one, self._kind, np.uint64(self.seed), self.n_seen_ + 1, bag.key, bag.cnt,
                      bag.size, bag.left, bag.right, bag.meta, p)
        jumper_bet(p, self._eps, self._rates, self.weights_, self._log_cap, self._log_err, log10,
                   factor)
        self.n_seen_ += 1
        self._log10 = float(log10[0])
        if self._log10 > self._records.top:
            self._records.add(self.n_seen_, log10)


def monitor_scores(scores, *, betting: str = "composite", jump_rate: float = 0.01,
                   nonconformity: str = "high", alpha: float = 0.01,
                   seed: int = 0, row_base: int | None = None) -> tuple[ConformalResult, dict]:
    """Run a conformal test martingale over a recorded score stream; return it and a summary.

    The defaults watch the location of the scores (a shift up or down: the betting
    functions bet on both ends of the p-values); ``nonconformity="two-sided"``
    watches their spread instead.  A score it cannot take is named by its index,
    or by its row counted from ``row_base`` when given (1 for a table read by the
    command line).

    The summary holds ``rows``, the parameters, ``final_log10_S``, ``max_log10_S``,
    ``alpha`` and ``alarm`` (the first step with ``S >= 1/alpha``, or None), and
    ``pvalue_mean`` (1/2 in expectation while the stream is exchangeable).
    :func:`summary_lines` prints it.

    Examples
    --------
    >>> import numpy as np
    >>> from venncal.online.conformal import monitor_scores, summary_lines
    >>> rng = np.random.default_rng(0)
    >>> res, summary = monitor_scores(np.r_[rng.random(2000), rng.random(500) + 0.3])
    >>> summary["alarm"] > 2000
    True
    >>> print(summary_lines(summary)[1])
    betting: composite, jump rate: 0.01, nonconformity: high, seed: 0
    """
    cm = ConformalMartingale(betting, jump_rate, nonconformity=nonconformity, seed=seed)
    res = cm._advance(_checked(scores, nonconformity, row_base=row_base))  # cm.run, rows named
    summary = {
        "rows": int(res.pvalues.shape[0]),
        "betting": betting,
        "jump_rate": jump_rate,
        "nonconformity": nonconformity,
        "seed": seed,
        "final_log10_S": res.log10_final,
        "max_log10_S": float(res.log10_martingale.max()),
        "alpha": alpha,
        "alarm": res.alarm(alpha),
        "pvalue_mean": float(res.pvalues.mean()),
    }
    return res, summary


def summary_lines(s: dict) -> list[str]:
    """The lines a label-free monitor prints for the summary of :func:`monitor_scores`."""
    alarm = "none" if s["alarm"] is None else f"step {s['alarm']:,}"
    return [
        f"rows: {s['rows']:,} (scores only: conformal test martingale)",
        f"betting: {s['betting']}, jump rate: {s['jump_rate']:g}, "
        f"nonconformity: {s['nonconformity']}, seed: {s['seed']}",
        f"final log10 S: {s['final_log10_S']:.4f} (max {s['max_log10_S']:.4f})",
        f"alarm (S >= 1/{s['alpha']:g}): {alarm}",
        f"mean p-value: {s['pvalue_mean']:.4f} (1/2 while the scores are exchangeable)",
    ]
