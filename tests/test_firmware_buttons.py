"""firmware.buttons on gpiozero's MockFactory with a fake clock: press, hold, bounce -> commands."""

import pytest
from gpiozero.pins.mock import MockFactory

from firmware.buttons import ButtonPanel, SimClock

PINS = {"p1": 17, "p2": 27, "p3": 22, "menu": 23}
PEG = lambda i: {"type": "peg", "side": i, "points": 1}  # noqa: E731


class Rig:
    def __init__(self, **kw):
        self.factory = MockFactory()
        self.clock = SimClock(lambda: 100.0)
        self.commands, self.events = [], []
        self.panel = ButtonPanel(PINS, self.commands.append, pin_factory=self.factory, clock=self.clock,
                                 on_release=lambda: self.events.append("release"),
                                 on_menu_press=lambda: self.events.append("menu"), **kw)

    def pin(self, name):
        return self.factory.pin(PINS[name])

    def hold(self, name, seconds):
        self.pin(name).drive_low()
        self.clock.advance(seconds)
        self.pin(name).drive_high()
        self.clock.advance(0.5)


@pytest.fixture
def rig():
    r = Rig()
    yield r
    r.panel.close()


def test_buttons_use_pull_ups_on_their_pins(rig):
    assert {n: b.pin.info.name for n, b in rig.panel.buttons.items()} == {n: f"GPIO{p}" for n, p in PINS.items()}
    assert all(b.pull_up for b in rig.panel.buttons.values())
    assert rig.commands == []


def test_short_presses_peg_one_for_their_side(rig):
    rig.hold("p1", 0.1)
    rig.hold("p3", 0.1)
    rig.hold("p2", 0.99)
    assert rig.commands == [PEG(0), PEG(2), PEG(1)]


def test_a_hold_undoes_when_released(rig):
    rig.pin("p2").drive_low()
    rig.clock.advance(3.0)
    assert rig.commands == []            # classified on release: a long hold never pegs on the way
    rig.pin("p2").drive_high()
    assert rig.commands == [{"type": "undo"}]


def test_menu_press_hold_and_long_hold(rig):
    rig.hold("menu", 0.2)
    rig.hold("menu", 1.0)
    rig.hold("menu", 4.9)
    rig.hold("menu", 5.0)
    assert rig.commands == [{"type": "new_game"}, {"type": "new_game"}]
    assert rig.events == ["menu", "release"]


def test_a_ten_second_menu_hold_brings_the_boards_wifi_back_and_releases_nothing():
    r = Rig(on_hotspot=lambda: r.events.append("hotspot"))
    try:
        r.hold("menu", 9.9)
        r.hold("menu", 10.0)
        r.hold("menu", 30.0)
        assert r.events == ["release", "hotspot", "hotspot"] and r.commands == []
    finally:
        r.panel.close()
    plain = Rig()                        # no hotspot hook (no Wi-Fi control): the longest hold still releases
    try:
        plain.hold("menu", 12.0)
        assert plain.events == ["release"]
    finally:
        plain.panel.close()


def test_a_bouncing_contact_pegs_once(rig):
    pin = rig.pin("p1")
    # press: the contact chatters for 4 ms, then stays closed for 120 ms
    for _ in range(3):
        pin.drive_low()
        rig.clock.advance(0.001)
        pin.drive_high()
        rig.clock.advance(0.001)
    pin.drive_low()
    rig.clock.advance(0.120)
    # release: chatters again
    for _ in range(3):
        pin.drive_high()
        rig.clock.advance(0.002)
        pin.drive_low()
        rig.clock.advance(0.002)
    pin.drive_high()
    rig.clock.advance(0.5)
    assert rig.commands == [PEG(0)]


def test_two_quick_real_presses_peg_twice(rig):
    rig.hold("p1", 0.08)
    pin = rig.pin("p1")
    pin.drive_low()
    rig.clock.advance(0.08)
    pin.drive_high()
    rig.clock.advance(0.04)             # 40 ms later, past the 30 ms debounce
    pin.drive_low()
    rig.clock.advance(0.08)
    pin.drive_high()
    assert rig.commands == [PEG(0), PEG(0), PEG(0)]


def test_a_missed_release_restarts_the_press_instead_of_undoing(rig):
    pin = rig.pin("p1")
    pin.drive_low()
    rig.clock.advance(0.010)            # released inside the debounce window: the release is lost
    pin.drive_high()
    rig.clock.advance(5.0)
    pin.drive_low()                     # the next press starts a fresh press
    rig.clock.advance(0.1)
    pin.drive_high()
    assert rig.commands == [PEG(0)]


def test_side_buttons_peg_the_side_on_their_lane():
    # three-hand casino seating: the house (first side) plays on the middle lane
    lanes = {1: "p1", 2: "house", 3: "p2"}
    two_hand = {1: "p1", 3: "p2"}
    factory, clock, got = MockFactory(), SimClock(lambda: 0.0), []
    panel = ButtonPanel(PINS, got.append, pin_factory=factory, clock=clock, side_for_lane=lanes.get)
    assert [panel.press(b) for b in ("p2", "p1", "p3")] == [
        {"type": "peg", "side": "house", "points": 1}, {"type": "peg", "side": "p1", "points": 1},
        {"type": "peg", "side": "p2", "points": 1}]
    panel.side_for_lane = two_hand.get
    assert panel.press("p2") is None                     # nobody plays on the middle lane
    assert len(got) == 3
    panel.close()


def test_refused_commands_are_logged_not_raised(caplog):
    def refuse(cmd):
        raise ValueError("nothing to undo")
    factory, clock = MockFactory(), SimClock(lambda: 0.0)
    panel = ButtonPanel({"p1": 17}, refuse, pin_factory=factory, clock=clock)
    assert panel.press("p1", hold=True) == {"type": "undo"}
    assert "refused: nothing to undo" in caplog.text
    panel.close()


def test_press_helper_drives_the_mock_pins(rig):
    assert rig.panel.press("p2") == PEG(1)
    assert rig.panel.press("p1", hold=True) == {"type": "undo"}
    assert rig.panel.press("menu", hold=True) == {"type": "new_game"}
    assert rig.panel.press("menu", seconds=5.5) is None
    assert rig.panel.press("menu") is None
    assert rig.commands == [PEG(1), {"type": "undo"}, {"type": "new_game"}]
    assert rig.events == ["release", "menu"]
    # floating, pulled up, pressed (low), released
    assert [s.state for s in rig.pin("p2").states] == [False, True, False, True]
    with pytest.raises(ValueError, match="unknown button 'p4'"):
        rig.panel.press("p4")


def test_press_helper_refuses_a_real_clock():
    panel = ButtonPanel({"p1": 17}, [].append, pin_factory=MockFactory())
    with pytest.raises(RuntimeError, match="needs simulated pins"):
        panel.press("p1")
    panel.close()


def test_configured_hold_time(rig):
    r = Rig(hold_s=0.5)
    r.hold("p1", 0.6)
    assert r.commands == [{"type": "undo"}]
    r.panel.close()


def test_unknown_button_names_and_pins_in_use_are_refused():
    with pytest.raises(ValueError, match="unknown button names: p9"):
        ButtonPanel({"p9": 5}, [].append, pin_factory=MockFactory())
    factory = MockFactory()
    first = ButtonPanel({"p1": 17}, [].append, pin_factory=factory)
    with pytest.raises(Exception, match="pin 17 is already in use|GPIO17"):
        ButtonPanel({"p1": 5, "p2": 17}, [].append, pin_factory=factory)
    first.close()
    # the failed panel released the pin it had claimed (GPIO5)
    ButtonPanel({"p1": 5}, [].append, pin_factory=factory).close()


def test_sim_clock_only_moves_forward():
    clock = SimClock(lambda: 10.0)
    clock.advance(2.5)
    assert clock() == 12.5
    with pytest.raises(ValueError, match="cannot go back"):
        clock.advance(-1)
    assert clock() == 12.5


def test_a_press_on_a_lane_with_no_side_is_refused_with_a_flash_and_a_log_line(caplog):
    """Issue 8 item 5: p2 in a two-hand game (sides on lanes 1 and 3) was accepted silently."""
    two_hand = {1: "p1", 3: "p2"}
    factory, clock, got, refused = MockFactory(), SimClock(lambda: 0.0), [], []
    panel = ButtonPanel(PINS, got.append, pin_factory=factory, clock=clock, side_for_lane=two_hand.get,
                        on_refused=refused.append)
    with caplog.at_level("WARNING", logger="firmware.buttons"):
        assert panel.press("p2") is None
    assert (got, refused) == ([], [2])
    assert caplog.messages == ["button p2 (lane 2): no side plays on this lane: nothing pegged, the lane "
                               "flashes red"]
    assert panel.press("p3") == {"type": "peg", "side": "p2", "points": 1}     # lane 3 is the second side
    assert refused == [2]
    panel.close()


def test_a_simulated_pin_keeps_a_bounded_history_however_long_the_evening(rig):
    """Issue 18: gpiozero's mock pin appended a record for every edge, so a --sim daemon's memory grew with
    every press from the page. The panel keeps the last SIM_PIN_HISTORY of them."""
    from firmware.buttons import SIM_PIN_HISTORY
    for _ in range(300):
        rig.panel.press("p2")
    assert len(rig.commands) == 300
    assert len(rig.pin("p2").states) == SIM_PIN_HISTORY
    assert [s.state for s in rig.pin("p2").states][-2:] == [False, True]    # the last press: down, up
