"""No behaviour change unless meant: every record and seeded game digests as recorded (tests/snapshot_stream.py).

A change that is meant to change what the table does (a ruling) regenerates the golden
file with ``.venv/bin/python tests/snapshot_stream.py --write`` and says why in its commit.
"""

import json

import pytest

import snapshot_stream

GOLDEN = json.loads(snapshot_stream.GOLDEN.read_text())
CASES = list(snapshot_stream.cases())


def test_every_case_is_recorded():
    assert sorted(name for name, _ in CASES) == sorted(GOLDEN)
    assert sum(name.startswith("record/") for name in GOLDEN) >= 10


@pytest.mark.parametrize("name,run", CASES, ids=[name for name, _ in CASES])
def test_stream_digests_as_recorded(name, run):
    assert run() == GOLDEN[name], (f"{name}: the stream of snapshots changed; if that is meant, regenerate "
                                   f"with .venv/bin/python tests/snapshot_stream.py --write and say why")
