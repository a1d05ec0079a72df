"""The guard of tests/_approx_guard.py: ``pytest.approx`` refuses a comparison that its hidden
``abs=1e-12`` would make loose or vacuous (values near 1e-310, issue 22), and lets the rest by."""

from __future__ import annotations

import numpy as np
import pytest

import _approx_guard


def test_conftest_installed_the_guard():
    assert hasattr(pytest.approx, "__wrapped__")


@pytest.mark.parametrize("expected", [
    1e-310, -5e-324, 1e-13, 3e-7,  # 3e-7 * 1e-6 < 1e-12
    [0.5, 1e-20], (1e-300,), {"a": 0.5, "b": 2e-200}, np.array([[0.25, 1e-310]]),
])
def test_a_tiny_expected_value_without_abs_is_refused_naming_it(expected):
    with pytest.raises(AssertionError, match="without abs="):
        pytest.approx(expected)
    with pytest.raises(AssertionError, match="without abs="):
        pytest.approx(expected, rel=1e-9)


def test_the_vacuous_comparison_it_prevents():
    loose = _approx_guard.checked_approx(pytest.approx.__wrapped__)
    # what pytest's own approx does: 1e-310 "equals" -1e-300 and 0
    assert -1e-300 == pytest.approx.__wrapped__(1e-310, rel=1e-9)
    assert 0.0 == pytest.approx.__wrapped__(1e-310, rel=1e-9)
    # with the tolerance made explicit the comparison means something
    assert 1e-310 * (1 + 1e-12) == loose(1e-310, rel=1e-9, abs=0.0)
    assert 2e-310 != loose(1e-310, rel=1e-9, abs=0.0)
    assert 0.0 != loose(1e-310, rel=1e-9, abs=0.0)


@pytest.mark.parametrize("expected, rel", [
    (0.0, None), (0.5, None), (2e-6, None), (1e-9, 1e-3), (0.07, 1e-15), ([0.0, 1.0], None),
    ({"n": 3, "name": "x", "flag": True}, None), (np.array([0.0, -0.5]), 1e-12),
    (float("inf"), None), (float("nan"), None), (np.array(["a"]), None),
])
def test_values_the_hidden_abs_does_not_loosen_pass_through(expected, rel):
    # an expected 0 (where abs is the only tolerance), values whose relative tolerance
    # max(rel, 1e-6) * |x| is at least 1e-12, and non-numbers are left to pytest
    assert _approx_guard.smallest_loosened(expected, rel) is None
    pytest.approx(expected, rel=rel, nan_ok=True)


def test_an_explicit_abs_is_always_accepted():
    assert 1e-310 == pytest.approx(1e-310, abs=0.0)  # rel then defaults to 0 in pytest
    assert 1e-13 == pytest.approx(0.0, abs=1e-12)
    assert 1.5e-310 == pytest.approx(1e-310, abs=1e-309)  # a deliberate absolute tolerance
