"""firmware.render_loop with a fake clock: one frame per change, animation frames only while active."""

import threading
import time

import pytest

from firmware.buttons import SimClock
from firmware.drivers.sim import SimStrip
from firmware.frame import Frame
from firmware.geometry import Geometry
from firmware.render import Light, render
from firmware.render_loop import RenderLoop

G = Geometry()
LIGHT = Light(brightness=0.5, gamma=2.8, budget_ma=1500, ma_per_channel=20)


def snap(seq, p1, p2, result=None):
    return {"seq": seq, "match_id": "m1", "target": 16, "reach": "loses", "phase": "over" if result else "manual",
            "sides": [{"id": "p1", "score": p1[0], "previous": p1[1]}, {"id": "p2", "score": p2[0], "previous": p2[1]}],
            "result": result}


RESULT = {"winner": "p2", "loser": "p1", "multipliers": {"p2": 1}, "skunk": 0}
PLAYING = snap(7, (14, 12), (4, 2))
OVER = snap(8, (17, 14), (4, 2), RESULT)


@pytest.fixture
def rig():
    clock = SimClock(lambda: 0.0)
    strip = SimStrip(G)
    strip.open()
    faults = []
    loop = RenderLoop(strip, G, LIGHT, max_brightness=0.8, fps=30, clock=clock, on_fault=faults.append)
    return loop, strip, clock, faults


def test_idle_loop_draws_nothing(rig):
    loop, strip, clock, _ = rig
    assert loop.step() is None
    assert strip.shown == 0 and loop.frames == 0


def test_each_new_snapshot_is_drawn_once(rig):
    loop, strip, clock, _ = rig
    loop.update(PLAYING)
    assert loop.step() is None
    assert strip.frame == render(PLAYING, G, settings=LIGHT)
    assert loop.step() is None
    assert strip.shown == 1


def test_snapshots_arriving_together_draw_only_the_newest(rig):
    loop, strip, clock, _ = rig
    loop.update(snap(1, (1, 0), (0, 0)))
    loop.update(snap(2, (2, 1), (0, 0)))
    loop.step()
    assert strip.shown == 1 and loop.frame_json()["seq"] == 2


def test_peg_out_animates_at_the_frame_rate_then_settles(rig):
    loop, strip, clock, _ = rig
    loop.update(PLAYING)
    loop.step()
    loop.update(OVER)
    assert loop.step() == pytest.approx(1 / 30)
    assert strip.frame == render(OVER, G, 0.0, settings=LIGHT)
    clock.advance(0.6)
    assert loop.step() == pytest.approx(1 / 30)
    assert strip.frame == render(OVER, G, 0.6, settings=LIGHT)
    assert loop.frame_json()["animating"] is True
    clock.advance(2.2)                    # animation_length = 1.5 + 0.7 + 0.3 = 2.5
    assert loop.step() is None
    assert strip.frame == render(OVER, G, None, settings=LIGHT)
    assert strip.shown == 4
    assert loop.step() is None and strip.shown == 4     # settled: asleep


def test_starting_on_a_finished_game_shows_the_stored_board_without_animating(rig):
    loop, strip, clock, _ = rig
    loop.update(OVER)
    assert loop.step() is None
    assert strip.frame == render(OVER, G, None, settings=LIGHT)


def test_an_undo_during_the_animation_stops_it(rig):
    loop, strip, clock, _ = rig
    loop.update(PLAYING)
    loop.step()
    loop.update(OVER)
    loop.step()
    clock.advance(0.3)
    loop.update(PLAYING)
    assert loop.step() is None
    assert strip.frame == render(PLAYING, G, settings=LIGHT)


def test_brightness_is_clamped_to_the_limit_and_redrawn(rig):
    loop, strip, clock, _ = rig
    loop.update(PLAYING)
    loop.step()
    assert loop.set_brightness(1.0) == 0.8
    loop.step()
    assert strip.frame == render(PLAYING, G, settings=Light(brightness=0.8, gamma=2.8))
    assert strip.frame.at(1, 14) == (0, 204, 0)         # 255 x 0.8
    assert loop.set_brightness(-1) == 0.0
    with pytest.raises(ValueError, match="brightness must be a number from 0 to 1"):
        loop.set_brightness("bright")
    assert [loop.step_brightness() for _ in range(6)] == [0.1, 0.25, 0.5, 0.8, 0.1, 0.25]


def test_a_failing_strip_is_a_fault_once_and_the_page_still_gets_frames(rig):
    loop, strip, clock, faults = rig
    strip.close()
    loop.update(PLAYING)
    loop.step()
    loop.update(snap(9, (15, 14), (4, 2)))
    loop.step()
    assert faults == ["LED strip: sim strip is not open"]
    body = loop.frame_json()
    assert body["strip_ok"] is False and body["seq"] == 9
    assert body["lanes"][0][14] == [0, 128, 0]


def test_frame_json_shape(rig):
    loop, strip, clock, _ = rig
    loop.update(PLAYING)
    loop.step()
    body = loop.frame_json()
    assert sorted(body) == ["animating", "brightness", "current_ma", "gamma", "lanes", "palette", "seq", "sides",
                            "status", "strip_ok"]
    assert body["sides"] == [{"lane": 1, "id": "p1", "name": None}, {"lane": 3, "id": "p2", "name": None}]
    assert [len(body["lanes"]), len(body["lanes"][0]), len(body["status"])] == [3, 16, 4]
    assert body["lanes"][0][13] == [0, 128, 0] and body["lanes"][0][11] == [0, 7, 0]
    # 2 fronts (128) + 2 backs (7) on the green channel: 270 / 255 x 20 mA
    assert body["current_ma"] == pytest.approx(round(270 * 20 / 255, 1))


def test_the_thread_draws_updates_and_stop_turns_the_leds_off(rig):
    loop, strip, clock, _ = rig
    drawn = threading.Event()
    strip.on_show = lambda frame: drawn.set() if any(map(any, frame.pixels)) else None
    loop.start()
    assert loop.alive
    loop.update(PLAYING)
    assert drawn.wait(5.0)
    loop.stop()
    assert not loop.alive
    assert strip.frame == Frame.blank(G)


def test_a_change_not_taken_up_or_a_strip_write_that_hangs_is_a_stall(rig):
    loop, strip, clock, _ = rig
    assert loop.stalled(10) is False                     # asleep on a static board is not a stall
    loop.update(PLAYING)
    clock.advance(10)
    assert loop.stalled(10) is False
    clock.advance(0.5)
    assert loop.stalled(10) is True                      # the change has waited 10.5 s
    loop.step()
    assert loop.stalled(10) is False
    clock.advance(60)
    assert loop.stalled(10) is False                     # static again: no stall however long

    seen = []
    shown = strip.show

    def slow_show(frame):                                # a write that takes 11 s, watched from inside
        seen.append(loop.stalled(10))
        clock.advance(11)
        seen.append(loop.stalled(10))
        shown(frame)
    strip.show = slow_show
    loop.set_brightness(0.3)
    loop.step()
    assert seen == [False, True] and loop.stalled(10) is False


def test_frame_json_names_the_side_of_each_lane_lane_1_first(rig):
    """Three sides: the third plays on the middle lane (geometry.side_lanes), so the page labels 1-2-3 as
    Ann, Cy, Bob; a house takes the middle lane wherever it sits."""
    loop, _, _, _ = rig
    three = dict(PLAYING, sides=[{"id": "p1", "name": "Ann", "score": 1, "previous": 0},
                                 {"id": "p2", "name": "Bob", "score": 2, "previous": 0},
                                 {"id": "p3", "name": "Cy", "score": 3, "previous": 0}])
    loop.update(three)
    loop.step()
    assert loop.frame_json()["sides"] == [{"lane": 1, "id": "p1", "name": "Ann"}, {"lane": 2, "id": "p3", "name": "Cy"},
                                          {"lane": 3, "id": "p2", "name": "Bob"}]
    house = dict(three, seq=8, sides=[{"id": "p1", "name": "House", "house": True, "score": 0, "previous": 0},
                                      {"id": "p2", "name": "Bob", "score": 0, "previous": 0}])
    loop.update(house)
    loop.step()
    assert [(s["lane"], s["name"]) for s in loop.frame_json()["sides"]] == [(1, "Bob"), (2, "House")]


def test_a_refusal_flash_runs_at_the_frame_rate_then_the_board_settles(rig):
    loop, strip, clock, _ = rig
    loop.update(PLAYING)
    assert loop.step() is None
    plain = strip.frame
    loop.refuse(2)
    assert loop.step() == pytest.approx(1 / 30)                 # flashing: the next frame is due
    assert set(strip.frame.lane(2)) == {strip.frame.lane(2)[0]} and strip.frame.lane(2)[0][0] > 0
    assert strip.frame.lane(1) == plain.lane(1) and strip.frame.lane(3) == plain.lane(3)
    clock.advance(0.2)                                          # between the two blinks
    assert loop.step() == pytest.approx(1 / 30)
    assert strip.frame.lane(2) == plain.lane(2)
    clock.advance(0.4)                                          # 0.6 s: over
    shown = strip.shown
    assert loop.step() is None
    assert strip.shown == shown + 1 and strip.frame == plain    # the board as it was
    assert loop.step() is None and strip.shown == shown + 1     # and asleep again


def test_watchers_hear_of_every_frame_drawn_and_unsubscribe(rig):
    loop, strip, clock, _ = rig
    heard = []
    unsubscribe = loop.subscribe(lambda: heard.append(loop.frame_json()["seq"]))
    loop.update(PLAYING)
    loop.step()
    assert heard == [7]
    assert loop.step() is None and heard == [7]          # nothing drawn, nothing heard
    loop.update(OVER)
    loop.step()
    clock.advance(0.6)
    loop.step()                                          # the peg-out animation: a frame each
    assert heard == [7, 8, 8]
    unsubscribe()
    clock.advance(2.2)
    loop.step()
    assert heard == [7, 8, 8] and strip.shown == 4


def test_a_failing_watcher_does_not_stop_the_board(rig):
    loop, strip, clock, _ = rig

    def broken():
        raise RuntimeError("boom")
    loop.subscribe(broken)
    loop.update(PLAYING)
    loop.step()
    assert strip.shown == 1 and loop.frame_json()["seq"] == 7


def test_a_still_board_draws_a_new_snapshot_on_the_callers_thread_before_update_returns(rig):
    """Issue 38: no hand-over to the render thread for a static frame; the watchers (the phones' board event)
    hear of it on the caller's thread, so the table's next subscriber (the phones' state) comes after it."""
    loop, strip, clock, _ = rig
    heard = []
    loop.subscribe(lambda: heard.append((threading.current_thread().name, loop.frame_json()["seq"])))
    loop.start()
    try:
        loop.update(PLAYING)
        assert heard == [(threading.current_thread().name, 7)]         # drawn and pushed before update returned
        assert strip.frame == render(PLAYING, G, settings=LIGHT)
        loop.update(snap(9, (15, 14), (4, 2)))
        assert heard[-1] == (threading.current_thread().name, 9)
        assert loop.frames == 2
    finally:
        loop.stop()


def test_a_peg_out_is_handed_to_the_thread_which_animates_it(rig):
    loop, strip, clock, _ = rig
    heard = []
    loop.subscribe(lambda: heard.append(threading.current_thread().name))
    loop.start()
    try:
        loop.update(PLAYING)
        loop.update(OVER)                  # its first frame here, then the animation is the thread's
        assert heard[:2] == [threading.current_thread().name] * 2
        deadline = time.monotonic() + 5
        while "render-loop" not in heard:
            assert time.monotonic() < deadline, "the thread never took the animation over"
            time.sleep(0.01)
        heard.clear()
        loop.update(snap(10, (17, 14), (5, 4), RESULT))      # the board animates: the thread draws this one
        deadline = time.monotonic() + 5
        while "render-loop" not in heard:
            assert time.monotonic() < deadline, "the thread never drew the new state"
            time.sleep(0.01)
        assert threading.current_thread().name not in heard
    finally:
        loop.stop()


def test_without_inline_every_snapshot_is_drawn_by_the_thread(rig):
    _, strip, clock, _ = rig
    loop = RenderLoop(strip, G, LIGHT, fps=30, clock=clock, inline=False)
    heard = []
    drawn = threading.Event()
    loop.subscribe(lambda: (heard.append(threading.current_thread().name), drawn.set()))
    loop.start()
    try:
        loop.update(PLAYING)
        assert drawn.wait(5.0)
        assert heard == ["render-loop"]
    finally:
        loop.stop()


def test_a_failing_strip_is_drawn_by_the_thread_not_the_caller(rig):
    """A strip whose write fails (or times out: qemu's Pi has no SPI controller, each write waits for the
    kernel's timeout) is left to the render thread after its first failure, so a press's answer never waits
    for it; the fault is reported once and the frames go on."""
    _, _, clock, faults = rig

    class Broken(SimStrip):
        def show(self, frame):
            self.tries = getattr(self, "tries", 0) + 1
            raise OSError("SPI transfer timed out")
    strip = Broken(G)
    strip.open()
    loop = RenderLoop(strip, G, LIGHT, fps=30, clock=clock, on_fault=faults.append)
    heard = []
    drawn = threading.Event()
    loop.subscribe(lambda: (heard.append(threading.current_thread().name), drawn.set()))
    loop.start()
    try:
        loop.update(PLAYING)                     # the first failure is met on the caller's thread
        assert heard == [threading.current_thread().name]
        assert faults == ["LED strip: SPI transfer timed out"]
        drawn.clear()
        loop.update(snap(9, (15, 14), (4, 2)))
        assert drawn.wait(5.0)
        assert heard[-1] == "render-loop" and len(heard) == 2
        assert strip.tries == 2 and faults == ["LED strip: SPI transfer timed out"]
    finally:
        loop.stop(blank=False)
