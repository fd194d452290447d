"""Checks a freshly built board: walks one LED along the strip, lights each lane, reports button presses.

    sudo systemctl stop landsend        # the daemon holds the button pins
    sudo -u landsend /opt/landsend/venv/bin/python -m firmware.selftest --config /etc/landsend/config.toml
    sudo systemctl start landsend

1. One white LED walks the strip in index order (lane 1 left to right, lane 2
   right to left, lane 3 left to right, then the lane status LEDs and the
   phase LED): a jump or a dark stretch shows a bad joint or a wrong wiring
   setting. 2. Each lane lights in turn in red, green, blue: a wrong colour
   means a wrong ``strip.type``. 3. For ``--buttons`` seconds (default 15)
   every button press and release is printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from firmware.config import DEFAULTS, ConfigError, load
from firmware.daemon import make_strip
from firmware.drivers import StripError
from firmware.frame import Frame
from firmware.geometry import Geometry
from firmware.render import Light, light


def _frame(geometry: Geometry, settings: Light, colours: dict[int, tuple[int, int, int]]) -> Frame:
    px = [(0.0, 0.0, 0.0)] * geometry.count
    for i, c in colours.items():
        px[i] = tuple(float(v) for v in c)
    return light(px, geometry, settings)


def main(argv: list[str] | None = None) -> int:
    """Run the checks; return 0, or 1 when the strip cannot be opened, 2 for a refused config."""
    ap = argparse.ArgumentParser(prog="python -m firmware.selftest", description=__doc__.split("\n")[0])
    ap.add_argument("--config", type=Path, help="TOML config (default: the built-in defaults)")
    ap.add_argument("--sim", action="store_true", help="use the simulated strip and print it")
    ap.add_argument("--step", type=float, default=0.1, help="seconds per LED of the walk (default 0.1)")
    ap.add_argument("--buttons", type=float, default=15.0, help="seconds to watch the buttons (default 15)")
    args = ap.parse_args(argv)
    try:
        config = load(args.config) if args.config else DEFAULTS
    except ConfigError as exc:
        print(f"config refused: {exc}", file=sys.stderr)
        return 2
    g = Geometry.from_config(config.board)
    settings = Light.from_config(config.strip)
    strip = make_strip(config, g, sim=args.sim)
    try:
        strip.open()
    except StripError as exc:
        print(f"LED strip: {exc}", file=sys.stderr)
        return 1
    show = strip.show
    if args.sim:
        from firmware.drivers.sim import board_ansi

        def show(frame: Frame) -> None:
            strip.show(frame)
            print(board_ansi(frame, gamma=settings.gamma) + "\n")
    try:
        print(f"1. walking one LED along {g.count} LEDs")
        for i in range(g.count):
            show(_frame(g, settings, {i: (255, 255, 255)}))
            time.sleep(args.step)
        print("2. lanes in red, green, blue")
        for colour in ((255, 0, 0), (0, 255, 0), (0, 0, 255)):
            for lane in range(1, g.lanes + 1):
                show(_frame(g, settings, {g.index(lane, h): colour for h in range(1, g.holes + 1)}))
                time.sleep(0.6)
        show(Frame.blank(g))
        if args.buttons > 0 and not args.sim:
            from gpiozero import DigitalInputDevice
            print(f"3. press each button ({args.buttons:.0f} s)")
            # lgpio makes its notification pipe in the working directory, which the landsend user
            # may not be able to write (sudo -u keeps the caller's): work in a fresh temporary one
            os.chdir(tempfile.mkdtemp(prefix="landsend-selftest-"))
            devices = []
            for name, pin in config.buttons.pins().items():
                d = DigitalInputDevice(pin, pull_up=True)
                d.when_activated = lambda name=name, pin=pin: print(f"   {name} (GPIO{pin}) pressed")
                d.when_deactivated = lambda name=name: print(f"   {name} released")
                devices.append(d)
            time.sleep(args.buttons)
            for d in devices:
                d.close()
    finally:
        strip.show(Frame.blank(g))
        strip.close()
    print("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
