"""Server-Sent Events: snapshot first, every change after, heartbeats, catch-up, coalescing."""

from __future__ import annotations

import json

import pytest

from companion.table import Table
from web import create_app
from web.hub import FRAME_INTERVAL
from web.live import HEARTBEAT, Broadcaster, format_event, state_id


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def parse(chunk: str) -> dict:
    """Return an SSE message as {"event", "id", "data"} (data decoded)."""
    out: dict = {}
    for line in chunk.strip("\n").split("\n"):
        key, _, value = line.partition(": ")
        out[key] = json.loads(value) if key == "data" else value
    return out


@pytest.fixture
def table():
    t = Table.memory()
    yield t
    t.close()


@pytest.fixture
def app(tmp_path, table):
    return create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"],
                       "SSE_HEARTBEAT": 0.0}, table=table)


def test_format_event():
    assert format_event("state", {"a": 1}, event_id="m:3") == 'event: state\nid: m:3\ndata: {"a":1}\n\n'
    assert format_event("access", {"epoch": 2}) == 'event: access\ndata: {"epoch":2}\n\n'


def test_stream_sends_the_snapshot_then_each_change(table):
    hub_b = Broadcaster()
    table.subscribe(lambda snap: hub_b.publish("state", snap))
    s = hub_b.stream(table.snapshot, heartbeat=0.0)
    assert next(s) == "retry: 2000\n\n"
    first = parse(next(s))
    assert first["event"] == "state"
    assert first["id"] == state_id(table.snapshot())
    assert first["data"]["sides"][0]["score"] == 0
    table.submit({"type": "peg", "side": "p1", "points": 2})
    msg = parse(next(s))
    assert msg["event"] == "state"
    assert msg["data"]["sides"][0]["score"] == 2
    assert msg["id"] == f"{msg['data']['match_id']}:{msg['data']['seq']}"
    assert next(s) == HEARTBEAT                    # nothing new: a heartbeat, not a repeat
    s.close()
    assert hub_b.streams == 0


def test_slow_phone_gets_only_the_latest_state(table):
    b = Broadcaster()
    table.subscribe(lambda snap: b.publish("state", snap))
    s = b.stream(table.snapshot, heartbeat=0.0)
    next(s), next(s)
    for pts in (1, 2, 3):
        table.submit({"type": "peg", "side": "p2", "points": pts})
    msg = parse(next(s))
    assert msg["data"]["sides"][1]["score"] == 6
    assert next(s) == HEARTBEAT


def test_reconnect_with_the_current_id_skips_the_snapshot_and_an_old_id_catches_up(table):
    b = Broadcaster()
    table.subscribe(lambda snap: b.publish("state", snap))
    current = state_id(table.snapshot())
    s = b.stream(table.snapshot, last_event_id=current, heartbeat=0.0)
    assert next(s) == "retry: 2000\n\n"
    assert next(s) == ": up to date\n\n"
    stale = current
    table.submit({"type": "peg", "side": "p1", "points": 4})
    s2 = b.stream(table.snapshot, last_event_id=stale, heartbeat=0.0)
    next(s2)
    caught = parse(next(s2))
    assert caught["data"]["sides"][0]["score"] == 4


def test_stream_ends_after_max_age_so_the_phone_reconnects():
    clock = FakeClock()
    b = Broadcaster()
    snap = {"match_id": "m", "seq": 0}
    s = b.stream(lambda: snap, heartbeat=0.0, max_age=60, clock=clock)
    assert [next(s), parse(next(s))["event"]] == ["retry: 2000\n\n", "state"]
    assert next(s) == HEARTBEAT
    clock.now = 60
    with pytest.raises(StopIteration):
        next(s)


def test_close_ends_every_stream():
    b = Broadcaster()
    s = b.stream(lambda: {"match_id": "m", "seq": 0}, heartbeat=0.0)
    next(s), next(s)
    b.close()
    with pytest.raises(StopIteration):
        next(s)


def test_access_events_reach_the_stream(app):
    hub = app.extensions["landsend"]
    s = hub.broadcaster.stream(hub.table.snapshot, heartbeat=0.0)
    next(s), next(s)
    hub.release()
    msg = parse(next(s))
    assert msg == {"event": "access", "data": {"epoch": 2, "claimed": False}}


def test_events_route_streams_the_table(app):
    c = app.test_client()
    r = c.get("/api/events", buffered=False)
    assert r.status_code == 200
    assert r.mimetype == "text/event-stream"
    assert r.headers["Cache-Control"] == "no-store"
    chunks = iter(r.response)
    assert next(chunks) == b"retry: 2000\n\n"
    first = parse(next(chunks).decode())
    assert first["data"]["game"] == "lands-end"
    app.extensions["landsend"].table.submit({"type": "peg", "side": "p1", "points": 3})
    msg = parse(next(chunks).decode())
    assert msg["data"]["sides"][0]["score"] == 3
    r.close()


def test_events_route_honours_last_event_id(app):
    snap = app.extensions["landsend"].table.snapshot()
    r = app.test_client().get("/api/events", buffered=False, headers={"Last-Event-ID": state_id(snap)})
    chunks = iter(r.response)
    next(chunks)
    assert next(chunks) == b": up to date\n\n"
    r.close()


class FakeBoard:
    """A board that draws when told to, like the render loop: watchers hear of every frame."""

    def __init__(self) -> None:
        self.frame = {"lanes": [[[0, 0, 0]]], "status": [], "seq": 0, "animating": False}
        self.watchers: list = []

    def frame_json(self) -> dict:
        return dict(self.frame)

    def subscribe(self, fn):
        self.watchers.append(fn)
        return lambda: self.watchers.remove(fn)

    def draw(self, **changes) -> None:
        self.frame.update(changes)
        for fn in list(self.watchers):
            fn()


@pytest.fixture
def board_app(tmp_path, table):
    board = FakeBoard()
    clock = FakeClock()
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path), "TRUSTED_HOSTS": ["localhost"],
                      "SSE_HEARTBEAT": 0.0, "CLOCK": clock}, table=table, board=board)
    yield app, board, clock
    app.hub.close()


def test_the_board_frame_is_pushed_on_the_stream_after_the_state(board_app):
    app, board, clock = board_app
    r = app.test_client().get("/api/events", buffered=False)
    chunks = iter(r.response)
    assert next(chunks) == b"retry: 2000\n\n"
    assert parse(next(chunks).decode())["event"] == "state"
    # a new stream starts with the frame the board shows now: the page draws the mirror without asking
    first = parse(next(chunks).decode())
    assert first == {"event": "board", "data": board.frame}
    app.hub.table.submit({"type": "peg", "side": "p1", "points": 3})
    assert parse(next(chunks).decode())["data"]["sides"][0]["score"] == 3
    board.draw(seq=1, lanes=[[[255, 0, 0]]])                 # the board draws the new state a moment later
    msg = parse(next(chunks).decode())
    assert msg == {"event": "board", "data": {"lanes": [[[255, 0, 0]]], "status": [], "seq": 1, "animating": False}}
    assert next(chunks) == HEARTBEAT.encode()                # one frame, one event
    r.close()


def test_an_animating_board_is_pushed_at_most_every_frame_interval_and_its_last_frame_always(board_app):
    app, board, clock = board_app
    b = app.hub.broadcaster
    board.draw(seq=2, animating=True, t=0)
    assert b.latest("board")["t"] == 0
    clock.now += FRAME_INTERVAL / 3
    board.draw(t=1)                                          # 30 fps: too soon after the last one
    assert b.latest("board")["t"] == 0
    clock.now += FRAME_INTERVAL
    board.draw(t=2)
    assert b.latest("board")["t"] == 2
    clock.now += FRAME_INTERVAL / 3
    board.draw(t=3, animating=False)                         # the settled board goes out at once
    assert b.latest("board") == {**board.frame, "t": 3, "animating": False}


def test_an_animating_boards_frame_of_a_new_state_is_pushed_at_once(board_app):
    app, board, clock = board_app
    b = app.hub.broadcaster
    board.draw(seq=2, animating=True, t=0)
    clock.now += FRAME_INTERVAL / 3
    board.draw(t=1)                                          # the same state, too soon: held back
    assert b.latest("board")["t"] == 0
    board.draw(seq=3, t=2)                                   # a press during the peg-out: its frame goes at once
    assert b.latest("board")["seq"] == 3 and b.latest("board")["t"] == 2
    clock.now += FRAME_INTERVAL / 3
    board.draw(t=3)                                          # and the animation's cadence holds again
    assert b.latest("board")["t"] == 2


def test_without_a_board_the_stream_has_no_board_events(app):
    r = app.test_client().get("/api/events", buffered=False)
    chunks = iter(r.response)
    next(chunks), next(chunks)
    assert next(chunks) == HEARTBEAT.encode()
    r.close()


def _parked(b: Broadcaster, n: int) -> None:
    import time
    deadline = time.monotonic() + 5
    while len(b._parked) < n:
        assert time.monotonic() < deadline, "the streams never waited"
        time.sleep(0.001)


def test_a_settling_publish_returns_once_every_waiting_stream_has_sent_it():
    # the command's thread steps aside until the phones' streams have written the new state (issue 25)
    import threading
    import time
    b = Broadcaster(settle=5.0)
    b.publish("state", {"match_id": "m", "seq": 0})
    sent: list[list] = [[], []]

    def phone(i: int) -> None:
        for text in b.stream(lambda: {"match_id": "m", "seq": 0}, heartbeat=30.0):
            sent[i].append((time.monotonic(), text))
    readers = [threading.Thread(target=phone, args=(i,), daemon=True) for i in range(2)]
    for r in readers:
        r.start()
    try:
        _parked(b, 2)
        b.publish("state", {"match_id": "m", "seq": 1})
        returned = time.monotonic()
        for got in sent:
            assert [t for t, text in got if '"seq":1' in text and t <= returned], "published before the phone had it"
    finally:
        b.close()
        for r in readers:
            r.join(5)


def test_a_settling_publish_does_not_wait_past_its_bound_for_a_stream_that_stops_reading():
    import threading
    import time
    b = Broadcaster(settle=0.2)
    b.publish("state", {"match_id": "m", "seq": 0})
    stuck = threading.Event()

    def phone() -> None:
        for text in b.stream(lambda: {"match_id": "m", "seq": 0}, heartbeat=30.0):
            if '"seq":1' in text:
                stuck.wait(10)              # a phone whose socket is full: its thread blocks in the write
    reader = threading.Thread(target=phone, daemon=True)
    reader.start()
    try:
        _parked(b, 1)
        t0 = time.monotonic()
        b.publish("state", {"match_id": "m", "seq": 1})
        assert 0.15 <= time.monotonic() - t0 < 2
        t0 = time.monotonic()
        b.publish("state", {"match_id": "m", "seq": 2})       # it is not waiting now: not waited for
        assert time.monotonic() - t0 < 0.1
    finally:
        stuck.set()
        b.close()
        reader.join(5)
