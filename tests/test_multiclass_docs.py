"""docs/multiclass.md's examples run (doctest)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "multiclass.md"


def test_multiclass_guide_examples():
    if not GUIDE.exists():
        pytest.skip("docs/multiclass.md is not next to the tests")
    result = doctest.testfile(str(GUIDE), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted >= 10
