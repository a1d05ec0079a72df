"""The weighted Platt MLE in decimal arithmetic of many digits: the reference for small data.

Literal: Platt's targets ``(k+ + 1)/(k+ + 2)`` and ``1/(k- + 2)`` from the
exact (rational) class totals, the loss ``sum_i w_i (t_i softplus(A s_i + B) +
(1 - t_i) softplus(-(A s_i + B)))`` over the total weight, and Newton's
method with a backtracking line search, from the best constant sigmoid
(``A = 0``), in which no score's logit moves by more than 4 per step (a
trust region: no step into the sigmoid's flat tails; full steps once the
decrease is below what the loss's digits resolve), until the Newton step
moves no logit by more than ``1e-40``, or by less than ``1e-20`` but more
than half the step before (the floor of the working digits: near a minimum whose
loss is 1e-16 of the weight, rounding leaves steps of 1e-39 that do not
shrink).  For a single distinct score,
``A = 0`` and ``B = ln(c0 / c1)`` (the constant MLE).
"""

from __future__ import annotations

from decimal import Decimal, localcontext
from fractions import Fraction


def _dec(x: Fraction) -> Decimal:
    return Decimal(x.numerator) / Decimal(x.denominator)


def _log1p(t: Decimal) -> Decimal:
    if t < Decimal(10) ** -30:  # 1 + t would round: the series
        return t - t * t / 2 + t * t * t / 3
    return (1 + t).ln()


def _softplus(z: Decimal) -> Decimal:
    return z + _log1p((-z).exp()) if z > 0 else _log1p(z.exp())


def platt_mle(s, y, w, targets="platt", prec=None, negligible=0.0):
    """``(A, B)`` of the sigmoid ``1 / (1 + exp(A s + B))`` of least weighted loss.

    ``prec`` digits, by default 60 plus twice the decimal span of the
    weights (the Hessian's determinant cancels to the square of that span).
    Rows lighter than ``negligible`` times the heaviest are left out of the
    loss (not of Platt's targets): with ``2**-1022`` they change the MLE by
    less than 1e-300, relative, and would cost twice 300 more digits.
    """
    s = [Fraction(float(v)) for v in s]
    w = [Fraction(float(v)) for v in w]
    heaviest = max(w)
    k_pos = sum((wi for wi, yi in zip(w, y, strict=True) if yi), Fraction(0))
    k_neg = sum((wi for wi, yi in zip(w, y, strict=True) if not yi), Fraction(0))
    if targets == "platt":
        t_pos, t_neg = (k_pos + 1) / (k_pos + 2), 1 / (k_neg + 2)
    else:
        t_pos, t_neg = Fraction(1), Fraction(0)
    sums: dict = {}
    for si, yi, wi in zip(s, y, w, strict=True):
        if wi == 0 or wi < Fraction(negligible) * heaviest:
            continue
        t = t_pos if yi else t_neg
        c1, c0 = sums.get(si, (Fraction(0), Fraction(0)))
        sums[si] = (c1 + wi * t, c0 + wi * (1 - t))
    total = sum(c1 + c0 for c1, c0 in sums.values())
    if prec is None:
        span = heaviest / min(wi for wi in w if wi >= Fraction(negligible) * heaviest)
        prec = 60 + 2 * len(str(span.numerator // span.denominator))
    with localcontext() as ctx:
        ctx.prec, ctx.Emax, ctx.Emin = prec, 10**9, -(10**9)
        pts = [(_dec(k), _dec(c1 / total), _dec(c0 / total)) for k, (c1, c0) in sorted(sums.items())]

        def loss(a, b):
            return sum(c1 * _softplus(a * x + b) + c0 * _softplus(-(a * x + b))
                       for x, c1, c0 in pts)

        if len(pts) == 1:
            _, c1, c0 = pts[0]
            return 0.0, float((c0 / c1).ln())
        # from the best constant: a = 0, b the log odds against of all the weight
        a, b = Decimal(0), (sum(c0 for _, _, c0 in pts) / sum(c1 for _, c1, _ in pts)).ln()
        current = loss(a, b)
        last_move = None
        for _ in range(20000):
            ga = gb = haa = hab = hbb = Decimal(0)
            for x, c1, c0 in pts:
                p = 1 / (1 + (a * x + b).exp())  # the probability of label 1
                q = 1 / (1 + (-(a * x + b)).exp())  # 1 - p, without cancellation
                r = c1 * q - c0 * p
                h = (c1 + c0) * p * q
                ga, gb = ga + r * x, gb + r
                haa, hab, hbb = haa + h * x * x, hab + h * x, hbb + h
            det = haa * hbb - hab * hab
            da, db = -(hbb * ga - hab * gb) / det, -(haa * gb - hab * ga) / det
            decrement = -(ga * da + gb * db)
            move = max(abs(da * x + db) for x, _, _ in pts)
            if move < Decimal(10) ** -40 or (
                    move < Decimal(10) ** -20 and last_move is not None and 2 * move > last_move):
                # converged; or at the floor the working digits leave (the step no longer
                # shrinks: Newton's method would square it), far below float64's resolution
                return float(a + da), float(b + db)
            last_move = move
            if decrement < Decimal(10) ** -(prec - 10) * current:
                # below what the loss resolves: the quadratic model is exact, full step
                a, b, current = a + da, b + db, loss(a + da, b + db)
                continue
            t = Decimal(4) / move if move > 4 else Decimal(1)
            while True:
                new = loss(a + t * da, b + t * db)
                if new <= current - Decimal("1e-4") * t * decrement:
                    break
                t /= 2
                if t < Decimal(10) ** -40:
                    if move < Decimal(10) ** -20:  # the loss no longer resolves the step
                        return float(a + da), float(b + db)
                    raise AssertionError("the reference's line search failed")
            a, b, current = a + t * da, b + t * db, new
    raise AssertionError("the reference did not converge")
