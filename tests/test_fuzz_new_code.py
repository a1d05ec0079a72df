"""A hostile user's inputs against last sitting's code (issue 22: nothing silent).

Each test is a finding: the input, and the right answer or a clear error
before any state changes.
"""

from __future__ import annotations

import numpy as np
import pytest

from venncal.online import JumperPredictor
from venncal.online.pending import Pending


@pytest.mark.parametrize("key", [float("nan"), np.float64("nan")])
def test_pending_refuses_a_nan_key_before_forecasting(key):
    # was accepted: a NaN is never equal to another NaN, so learn_one(nan, y) could never
    # find the forecast, which stayed in memory (and counted against max_pending) for good
    waiting = Pending(JumperPredictor(classes=[0, 1]))
    with pytest.raises(ValueError, match="key must equal itself"):
        waiting.predict_proba_one(0.3, key=key)
    assert len(waiting) == 0 and waiting.model.n_seen_ == 0
    waiting.predict_proba_one(0.3, key="ok")  # other keys still work
    waiting.learn_one("ok", 1)
    assert waiting.model.n_seen_ == 1
