"""The measured costs the classic-system profile's tests design from (test_classic_profile.py,
test_profile_runs.py, test_profile_segments.py; no stack)."""
from __future__ import annotations

from testbed.fit.profile import Measured

# about this 2-core host's figures: the static page's front cost, the JSP and the beans a few
# µs each, /seg/5's front 0.6 ms; Locust and HAProxy included in total_s
M = Measured(front_s={1: 90e-6, 2: 92e-6, 3: 95e-6, 4: 100e-6, 5: 600e-6},
             total_s={1: 340e-6, 5: 2.0e-3}, clone_request_s=3.0e-3, total_request_s=5.0e-3,
             clone_pool_s=1.0e-3, total_pool_s=2.5e-3, round_trip_s=1.0e-3, host_cores=2.0)
