"""Settings for the whole suite."""

import os

# The job workers the tests start (and the daemons they run) do not warm the advice while they wait
# (web/jobworker.py): it would only take the suite's cores. The tests of the warm-up turn it on themselves.
os.environ.setdefault("LANDSEND_WARM_UP", "0")
