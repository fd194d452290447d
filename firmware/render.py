"""The renderer: a pure function from a table snapshot to the LED frame.

What the board shows (``docs/operation.md`` has the same list for players):

* **Pegs.** Each side plays on one lane (:func:`firmware.geometry.side_lanes`).
  Its **front peg** (the score) is bright, its **back peg** (the previous
  score) is dim, so the last increment is visible. Holes 1-15 are points
  1-15; hole 16 is the edge of the world and lights only when the target is
  reached. A score of 0 shows nothing.
* **Laps.** Longer games (31, 61, 121) go round the lane in laps of 15; the
  peg's colour tells the lap, from :data:`LAP_PALETTE` (lap 1 green, lap 2
  blue, lap 3 purple, lap 4 yellow, lap 5 cyan, lap 6 orange, lap 7 pink,
  lap 8 white, then again from green). The phone page shows the exact score.
* **Status LEDs** (chained after the lanes): LED 1-3 sit at the start of
  lanes 1-3 and show that lane's side: white = its turn in the matching phase,
  blue = it owns the pocket (casino play, when that is not the dealer),
  amber = it deals. LED 4 shows the phase (:data:`PHASE_COLOURS`). A board
  with fewer status LEDs shows the side's marker dimly in the lane's last hole.
* **Peg-out.** When the game ends, the peg of the side that reached the
  target (the loser, or the winner when the game is won by reaching it, as in
  cribbage or when the four-hand casino house reaches 16) runs from its back
  hole off the end of the world (:data:`RUN_S` seconds), then every side that
  collects flashes its lane in its peg colour as many times as its stake
  multiplier (x1..x4), then a skunked loser's lane flashes red once for a
  skunk, twice for a double skunk. Afterwards the board settles on the final
  pegs.
* **Palettes.** :data:`STANDARD` above, or :data:`COLOUR_BLIND` (``[board]
  palette = "colour-blind"`` or the page's settings): Okabe-Ito hues, laps
  alternating light and dark, and the skunk flashed on every other hole.
* **Refusal.** A side button pressed on a lane where no side plays (``p2``,
  the middle lane, in a two-hand game) blinks that lane red twice
  (:data:`REFUSED_S`, 0.6 s) and changes nothing.

Every frame then goes through the same light stage: gamma, brightness (live,
capped by the configured limit) and the power cap, which scales the whole
frame down until its estimated current (``ma_per_channel`` per channel at
full scale) fits the budget.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from firmware.config import Record, StripConfig, record
from firmware.frame import OFF, RGB, Frame
from firmware.geometry import Geometry, side_lanes

#: Peg colours by lap (lap 1 first); documented in docs/operation.md.
LAP_PALETTE: tuple[tuple[str, RGB], ...] = (
    ("green", (0, 255, 0)),
    ("blue", (0, 80, 255)),
    ("purple", (160, 0, 255)),
    ("yellow", (255, 200, 0)),
    ("cyan", (0, 255, 255)),
    ("orange", (255, 90, 0)),
    ("pink", (255, 40, 120)),
    ("white", (255, 255, 255)),
)
#: Back peg = front colour x this (before gamma).
BACK_LEVEL = 0.35
#: Status LED colours for a lane's side.
TURN: RGB = (255, 255, 255)
POCKET: RGB = (0, 80, 255)
DEALER: RGB = (255, 110, 0)
#: The marker drawn in a lane's last hole when there is no status LED for it (x colour).
MARKER_LEVEL = 0.3
#: The phase LED (the status LED after the lane LEDs).
PHASE_COLOURS: dict[str, RGB] = {
    "manual": OFF,
    "cut": (120, 120, 120),
    "pegging": (0, 255, 0),
    "show": (0, 80, 255),
    "pocket": (160, 0, 255),
    "grid": (0, 255, 255),
    "over": (255, 0, 0),
}
PEG_OUT: RGB = (255, 0, 0)


@record
class Palette(Record):
    """The colours the board draws with: lap colours, status LEDs, phase LED and the skunk flash."""

    name: str
    laps: tuple[tuple[str, RGB], ...]
    """Peg colours by lap, lap 1 first (they wrap)."""
    turn: RGB
    pocket: RGB
    dealer: RGB
    phases: Mapping[str, RGB]
    skunk: RGB
    """Colour of a skunked side's flashes."""
    skunk_dashed: bool = False
    """Draw the skunk flashes on every other hole (a brightness pattern, not only a hue, says who pays)."""


#: The original palette (the README's pictures).
STANDARD = Palette(name="standard", laps=LAP_PALETTE, turn=TURN, pocket=POCKET, dealer=DEALER,
                   phases=PHASE_COLOURS, skunk=PEG_OUT)

#: Okabe & Ito's colour-blind-safe set ("Color Universal Design", 2002; Wong, Nature Methods 8:441, 2011).
OKABE_ITO: dict[str, RGB] = {
    "orange": (230, 159, 0), "sky blue": (86, 180, 233), "bluish green": (0, 158, 115),
    "yellow": (240, 228, 66), "blue": (0, 114, 178), "vermillion": (213, 94, 0),
    "reddish purple": (204, 121, 167),
}

#: Colour-blind-safe: Okabe-Ito hues, laps ordered so each lap is much lighter or darker than the
#: one before (relative luminance ratio >= 1.4), status LEDs white / orange / blue (three distinct
#: lightness levels), and a skunk flashed as a dashed lane, so who collects (a solid lane) and who
#: pays (every other hole) reads without telling red from green.
COLOUR_BLIND = Palette(
    name="colour-blind",
    laps=tuple((n, OKABE_ITO[n]) if n in OKABE_ITO else (n, (255, 255, 255)) for n in (
        "yellow", "blue", "sky blue", "vermillion", "white", "reddish purple", "orange", "bluish green")),
    turn=(255, 255, 255), pocket=OKABE_ITO["blue"], dealer=OKABE_ITO["orange"],
    phases={"manual": OFF, "cut": (120, 120, 120), "pegging": OKABE_ITO["bluish green"],
            "show": OKABE_ITO["blue"], "pocket": OKABE_ITO["reddish purple"], "grid": OKABE_ITO["sky blue"],
            "over": OKABE_ITO["vermillion"]},
    skunk=OKABE_ITO["vermillion"], skunk_dashed=True)

#: Palettes by name (``[board] palette`` in the config, the page's settings).
PALETTES: dict[str, Palette] = {p.name: p for p in (STANDARD, COLOUR_BLIND)}

#: Peg-out timing, in seconds.
RUN_S = 1.2
"""The peg's run from its back hole off the end of the lane."""
TAIL = (1.0, 0.45, 0.2)
"""Levels of the running peg's head and tail LEDs."""
GAP_S = 0.3
"""Pause between the run, the multiplier flashes and the skunk flashes."""
FLASH_ON_S = 0.35
FLASH_OFF_S = 0.35
FLASH_LEVEL = 0.6
#: The refusal flash: a button pressed on a lane where no side plays blinks that lane red.
REFUSED: RGB = (255, 0, 0)
REFUSED_BLINK_S = 0.15
"""Each blink is lit this long, then dark this long."""
REFUSED_BLINKS = 2
REFUSED_LEVEL = 0.5
REFUSED_S = 2 * REFUSED_BLINK_S * REFUSED_BLINKS
"""The whole refusal flash, seconds."""


@record
class Light(Record):
    """The light stage shared by every frame: brightness, gamma and the power cap."""

    brightness: float = 0.5
    """0..1 of full scale (the daemon clamps live changes to the configured limit)."""
    gamma: float = 2.8
    budget_ma: float = 1500.0
    ma_per_channel: float = 20.0

    @classmethod
    def from_config(cls, strip: StripConfig) -> "Light":
        """Return the light stage of a ``[strip]`` config section."""
        return cls(brightness=strip.brightness, gamma=strip.gamma, budget_ma=float(strip.power_budget_ma),
                   ma_per_channel=strip.ma_per_channel)


def lap_colour(lap: int, palette: Palette = STANDARD) -> RGB:
    """Return the peg colour of ``lap`` (0 = the first lap), wrapping after the palette's 8 laps."""
    return palette.laps[lap % len(palette.laps)][1]


def _scale(c: RGB, k: float) -> tuple[float, float, float]:
    return (c[0] * k, c[1] * k, c[2] * k)


class _Canvas:
    """Design-space colours (0..255 floats, before gamma) for each LED, in strip order."""

    def __init__(self, geometry: Geometry, palette: Palette = STANDARD):
        self.g = geometry
        self.palette = palette
        self.px: list[tuple[float, float, float]] = [(0.0, 0.0, 0.0)] * geometry.count

    def hole(self, lane: int, hole: int, colour: tuple[float, float, float]) -> None:
        self.px[self.g.index(lane, hole)] = colour

    def clear_lane(self, lane: int) -> None:
        for h in range(1, self.g.holes + 1):
            self.hole(lane, h, (0.0, 0.0, 0.0))


def _sides(snapshot: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(snapshot.get("sides") or [])


def _pegs(canvas: _Canvas, lane: int, side: Mapping[str, Any], target: int) -> None:
    g = canvas.g
    back = g.place(int(side.get("previous") or 0), target)
    front = g.place(int(side.get("score") or 0), target)
    if back is not None and back != front:
        canvas.hole(lane, back[0], _scale(lap_colour(back[1], canvas.palette), BACK_LEVEL))
    if front is not None:
        canvas.hole(lane, front[0], _scale(lap_colour(front[1], canvas.palette), 1.0))


def _front_colour(geometry: Geometry, side: Mapping[str, Any], target: int, palette: Palette = STANDARD) -> RGB:
    place = geometry.place(int(side.get("score") or 0), target)
    return lap_colour(place[1] if place else 0, palette)


def _status(canvas: _Canvas, snapshot: Mapping[str, Any], lanes: list[int]) -> None:
    g = canvas.g
    pal = canvas.palette
    dealer, turn, pocket = snapshot.get("dealer_side"), snapshot.get("turn_side"), snapshot.get("pocket_owner")
    for i, lane in enumerate(lanes):
        if i == turn and snapshot.get("phase") == "pegging":
            colour = pal.turn
        elif i == pocket and pocket != dealer:
            colour = pal.pocket
        elif i == dealer:
            colour = pal.dealer
        else:
            continue
        if lane - 1 < g.status:
            canvas.px[g.status_index(lane - 1)] = _scale(colour, 1.0)
        elif canvas.px[g.index(lane, g.holes)] == (0.0, 0.0, 0.0):
            canvas.hole(lane, g.holes, _scale(colour, MARKER_LEVEL))
    if g.status > g.lanes:
        phase = "over" if snapshot.get("result") else snapshot.get("phase")
        canvas.px[g.status_index(g.lanes)] = _scale(pal.phases.get(phase or "manual", OFF), 1.0)


@dataclass(frozen=True)
class _PegOut:
    runner: int | None
    """Index of the side whose peg runs off the end (the one that reached the target)."""
    start_hole: int
    flashes: dict[int, int]
    """Side index -> number of flashes in its peg colour (the multiplier it collects at)."""
    skunks: dict[int, int]
    """Side index -> number of red flashes (1 for a skunk, 2 for a double skunk)."""

    @property
    def flash_at(self) -> float:
        return (RUN_S + GAP_S) if self.runner is not None else 0.0

    @property
    def skunk_at(self) -> float:
        most = max(self.flashes.values(), default=0)
        return self.flash_at + most * (FLASH_ON_S + FLASH_OFF_S) + (GAP_S if most else 0.0)

    @property
    def length(self) -> float:
        return self.skunk_at + max(self.skunks.values(), default=0) * (FLASH_ON_S + FLASH_OFF_S)


def _peg_out(snapshot: Mapping[str, Any], geometry: Geometry) -> _PegOut | None:
    """Return what the peg-out animation of a finished game shows, or None while the game runs.

    The table's ``result`` keys ``multipliers`` by the sides that receive
    (RULINGS R2): every receiving side flashes its own multiplier (a side
    pegged out and pays every other side: L6, M5, H5, S2; or the winner
    reached the target and collects: the cribbage skunk bands, S1, or the
    house collecting each stake once, H5). A cribbage loser's ``skunk``
    (1 or 2) then flashes red that many times. Results from before R2 that
    keyed a skunk by the paying side still flash the same way.
    """
    result = snapshot.get("result")
    if not result:
        return None
    sides = _sides(snapshot)
    index = {s.get("id"): i for i, s in enumerate(sides)}
    target = int(snapshot.get("target") or geometry.holes)

    def score(i: int) -> int:
        return int(sides[i].get("score") or 0)

    loser = result.get("loser")
    loser = index.get(loser) if isinstance(loser, str) else None     # several payers (R1): none runs off as the loser
    if "winners" in result:
        winners = [index[w] for w in result["winners"] if w in index]
    elif loser is not None:
        winners = [i for i in range(len(sides)) if i != loser]
    else:
        winners = [index[result["winner"]]] if result.get("winner") in index else []
    # the peg that reached the target: the loser's where reaching it loses, else the winner's
    # (the four-hand casino house wins by reaching 16 in a game that the teams lose by reaching it)
    order = [loser, *winners] if snapshot.get("reach", "loses") == "loses" else [*winners, loser]
    runner = next((i for i in order if i is not None and score(i) >= target), None)
    start = 1
    if runner is not None:
        back = geometry.place(int(sides[runner].get("previous") or 0), target)
        front = geometry.place(score(runner), target)
        if back is not None and front is not None and back[1] == front[1]:
            start = back[0]
    mult = {index[sid]: int(k) for sid, k in (result.get("multipliers") or {}).items()
            if sid in index and int(k) > 0}
    if set(mult) <= set(winners):
        flashes = {i: mult.get(i, 1) for i in winners}
        skunks: dict[int, int] = {}
    else:
        flashes = {i: max(mult.values()) for i in winners}
        skunks = {i: k - 1 for i, k in mult.items() if i not in winners and k > 1}
    if result.get("skunk") and loser is not None:
        skunks = {loser: int(result["skunk"])}
    return _PegOut(runner=runner, start_hole=start, flashes=flashes, skunks=skunks)


def animation_length(snapshot: Mapping[str, Any], geometry: Geometry) -> float:
    """Return how long (seconds) the peg-out animation of ``snapshot`` runs; 0.0 when the game is not over."""
    po = _peg_out(snapshot, geometry)
    return po.length if po else 0.0


def _animate(canvas: _Canvas, po: _PegOut, t: float, snapshot: Mapping[str, Any], lanes: list[int]) -> None:
    g, pal = canvas.g, canvas.palette
    sides = _sides(snapshot)
    target = int(snapshot.get("target") or g.holes)
    if po.runner is not None and t < RUN_S:
        lane = lanes[po.runner]
        colour = _front_colour(g, sides[po.runner], target, pal)
        canvas.clear_lane(lane)
        distance = g.holes + len(TAIL) - po.start_hole
        head = po.start_hole + int(distance * t / RUN_S)
        for k, level in enumerate(TAIL):
            h = head - k
            if po.start_hole <= h <= g.holes:
                canvas.hole(lane, h, _scale(colour, level))
        return
    period = FLASH_ON_S + FLASH_OFF_S
    if po.flash_at <= t < po.skunk_at:
        dt = t - po.flash_at
        n, within = int(dt // period), dt % period
        for i, k in po.flashes.items():
            if n < k:
                lane = lanes[i]
                colour = _scale(_front_colour(g, sides[i], target, pal), FLASH_LEVEL if within < FLASH_ON_S else 0.0)
                for h in range(1, g.holes + 1):
                    canvas.hole(lane, h, colour)
        return
    if po.skunk_at <= t < po.length:
        dt = t - po.skunk_at
        n, within = int(dt // period), dt % period
        colour = _scale(pal.skunk, FLASH_LEVEL if within < FLASH_ON_S else 0.0)
        for i, k in po.skunks.items():
            if n < k:
                for h in range(1, g.holes + 1):
                    dark = pal.skunk_dashed and h % 2 == 0
                    canvas.hole(lanes[i], h, (0.0, 0.0, 0.0) if dark else colour)


def light(px: list[tuple[float, float, float]], geometry: Geometry, settings: Light) -> Frame:
    """Return the frame of design colours ``px`` after gamma, brightness and the power cap.

    Each channel becomes ``round(255 * (v/255) ** gamma * brightness)``; a lit
    channel never rounds down to 0 while brightness > 0. When the estimated
    current is over the budget the frame is scaled by ``budget / current``
    (rounded down), so the result never exceeds the budget.
    """
    b = max(0.0, min(1.0, settings.brightness))
    gamma = settings.gamma
    done: dict[Any, tuple[int, int, int]] = {}       # design colour -> its channels (most LEDs share a few)
    out: list[tuple[int, int, int]] = []
    for pixel in px:
        key = tuple(pixel)
        chans = done.get(key)
        if chans is None:
            chans = tuple(0 if v <= 0 or b == 0 else max(1, round(255.0 * (min(v, 255.0) / 255.0) ** gamma * b))
                          for v in pixel)
            done[key] = chans
        out.append(chans)
    total = sum(map(sum, out)) * settings.ma_per_channel / 255.0
    if total > settings.budget_ma:
        k = settings.budget_ma / total
        out = [(math.floor(c[0] * k), math.floor(c[1] * k), math.floor(c[2] * k)) for c in out]
    return Frame(tuple((c[0], c[1], c[2]) for c in out), geometry)


def _refusal(canvas: _Canvas, lane: int, s: float) -> None:
    """Blink ``lane`` red :data:`REFUSED_BLINKS` times, ``s`` seconds into the flash (lit on even steps)."""
    step = int(s // REFUSED_BLINK_S)
    if 0 <= s < REFUSED_S and step % 2 == 0 and 1 <= lane <= canvas.g.lanes:
        for h in range(1, canvas.g.holes + 1):
            canvas.hole(lane, h, _scale(REFUSED, REFUSED_LEVEL))


def render(snapshot: Mapping[str, Any] | None, geometry: Geometry, t: float | None = None, *,
           settings: Light = Light(), palette: Palette = STANDARD,
           refused: "tuple[int, float] | None" = None) -> Frame:
    """Return the LED frame that shows ``snapshot`` (a ``Table.snapshot()`` dict).

    :param t: seconds since the game ended (the snapshot's ``result`` appeared),
        to draw the peg-out animation at that moment; ``None`` (default) draws
        the settled board. Times past :func:`animation_length` are settled too.
    :param settings: gamma, brightness and power cap (see :func:`light`).
    :param palette: the colours (:data:`PALETTES`: ``standard`` or ``colour-blind``).
    :param refused: ``(lane, seconds)``: a button was pressed that long ago on
        ``lane``, where no side plays; the lane blinks red for :data:`REFUSED_S`
        seconds (two 0.15 s blinks), then shows what it showed before.
    :raises ValueError: the snapshot has more sides than the board has lanes.
    """
    canvas = _Canvas(geometry, palette)
    if snapshot:
        sides = _sides(snapshot)
        lanes = side_lanes(sides, lanes=geometry.lanes)
        target = int(snapshot.get("target") or geometry.holes)
        for side, lane in zip(sides, lanes):
            _pegs(canvas, lane, side, target)
        _status(canvas, snapshot, lanes)
        if t is not None:
            po = _peg_out(snapshot, geometry)
            if po is not None and 0 <= t < po.length:
                _animate(canvas, po, t, snapshot, lanes)
    if refused is not None:
        _refusal(canvas, *refused)
    return light(canvas.px, geometry, settings)
