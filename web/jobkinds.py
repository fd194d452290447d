"""Every kind of job, in one list (:func:`job_kinds`), which :func:`web.create_app` puts in
``app.extensions["landsend.job_kinds"]`` when it makes the app: ``POST /api/jobs`` (:mod:`web.jobs`) starts
only these. Nothing registers a kind by being imported.

Each kind is ``(endpoint, start)``: the GET endpoint whose query its ``args`` are (checked as that route checks
them; None: it takes none), and its starter ``start(jobs, args: MultiDict, owner) -> Job``
(:class:`web.jobpool.Jobs`).
"""

from __future__ import annotations

from typing import Callable

JobKind = tuple["str | None", Callable]


def job_kinds() -> dict[str, JobKind]:
    """Return every kind of job: the advice's three (run in a worker process) and the season's build (a
    thread, one for every phone)."""
    from .advice import PLANS, starter
    from .season import start_build
    kinds: dict[str, JobKind] = {kind: (endpoint, starter(kind, plan)) for kind, (endpoint, plan) in PLANS.items()}
    kinds["season"] = (None, start_build)
    return kinds
