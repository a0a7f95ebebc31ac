from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "warroom",
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    max_examples=int(os.environ.get("WARROOM_HYPOTHESIS_EXAMPLES", "25")),
)
settings.load_profile("warroom")
