"""The composition root: one process that keeps the table, drives the board and serves the page.

``landsend serve [--sim] [--config FILE] [--db FILE] [--host H] [--port P]``
(or ``python -m firmware.daemon ...``) calls :func:`main`. This is the only
module that reads the environment and picks hardware; everything below it
takes its dependencies as parameters.

* The table (``companion.table.Table``) owns the state; the buttons and the
  web page only submit commands; the render loop and the phones are told of
  every new state through ``table.subscribe``.
* A strip or button that fails to open (device missing, permission denied),
  or a voice without its speech engine or sound card, becomes a *fault*:
  logged, shown on the page (``faults``), and the daemon keeps serving.
* The voice (:mod:`firmware.voice`) is subscribed to the table too; it only
  queues the announcement, and speaks it from its own thread.
* Under systemd (``Type=notify``) it sends ``READY=1`` once the page is
  listening and ``WATCHDOG=1`` from the main loop every ``WatchdogSec/2``
  while the render and web threads are alive and the board keeps drawing
  (a strip write that never returns stops the pings too). SIGTERM/SIGINT
  turn the LEDs off and close everything.
* One daemon per database: :func:`_lock_database` locks the database file
  itself, whatever name (path, symlink, hard link) each daemon was given.

Paths: the database is ``--db``, else ``$LANDSEND_DB``, else
``$STATE_DIRECTORY/landsend.db`` (systemd's ``StateDirectory=``), else
``$XDG_STATE_HOME/landsend/landsend.db``, else
``~/.local/state/landsend/landsend.db``. The config is ``--config``, else
``$LANDSEND_CONFIG``, else ``/etc/landsend/config.toml`` when it exists,
else the built-in defaults.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from companion.errors import StoreError
from firmware.config import DEFAULTS, Config, ConfigError, load
from firmware.drivers import Strip, StripError
from firmware.geometry import Geometry, side_lanes
from firmware.render import PALETTES, Light
from firmware.render_loop import RenderLoop
from firmware.sdnotify import Notifier

log = logging.getLogger(__name__)

SYSTEM_CONFIG = Path("/etc/landsend/config.toml")


def default_db_path(env: Mapping[str, str] | None = None) -> Path:
    """Return where the database lives when ``--db`` is not given (see the module docstring)."""
    env = os.environ if env is None else env
    if env.get("LANDSEND_DB"):
        return Path(env["LANDSEND_DB"])
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":")[0]) / "landsend.db"
    if env.get("XDG_STATE_HOME"):
        return Path(env["XDG_STATE_HOME"]) / "landsend" / "landsend.db"
    return Path(env.get("HOME") or Path.home()) / ".local" / "state" / "landsend" / "landsend.db"


def default_config_path(env: Mapping[str, str] | None = None) -> Path | None:
    """Return the config file to read when ``--config`` is not given, or None for the defaults."""
    env = os.environ if env is None else env
    if env.get("LANDSEND_CONFIG"):
        return Path(env["LANDSEND_CONFIG"])
    return SYSTEM_CONFIG if SYSTEM_CONFIG.exists() else None


def make_strip(config: Config, geometry: Geometry, *, sim: bool) -> Strip:
    """Return the (unopened) strip driver the config asks for; the simulator when ``sim``."""
    s = config.strip
    if sim or s.driver == "sim":
        from firmware.drivers.sim import SimStrip
        return SimStrip(geometry, budget_ma=s.power_budget_ma, ma_per_channel=s.ma_per_channel, gamma=s.gamma)
    if s.driver == "ws281x":
        from firmware.drivers.ws281x import Ws281xStrip
        return Ws281xStrip(geometry.count, order=s.type, gpio=s.gpio, dma=s.dma)
    from firmware.drivers.spi import SpiStrip
    return SpiStrip(geometry.count, order=s.type, bus=s.spi_bus, device=s.spi_device, hz=s.spi_hz)


@dataclass
class Daemon:
    """Everything :func:`build` wired together."""

    config: Config
    table: Any
    loop: RenderLoop
    strip: Strip | None
    buttons: Any
    app: Any
    faults: list[str]
    sim: bool
    geometry: Geometry
    _closers: list[Callable[[], None]] = field(default_factory=list)
    voice: Any = None
    """The board's voice (:class:`firmware.voice.Voice`)."""
    hub: Any = None
    """The web app's :class:`web.hub.Hub` (as ``create_app`` returned it; None without the web app)."""
    wifi: Any = None
    """The board's Wi-Fi (:class:`firmware.wifi.Wifi`), or None without NetworkManager."""
    late: "Callable[[], None] | None" = None
    """What :func:`build` left for :func:`serve` to do once the page answers (``buttons_late``): the buttons."""
    name_fault: "str | None" = None
    """The page's fault of a real name conflict (:meth:`name_conflict`), to take off when it has gone."""
    restart: bool = False
    """A restore was staged: :func:`run` starts the daemon again, which switches to the restored table."""

    def hotspot_button(self) -> None:
        """The menu button's longest hold: bring the board's own Wi-Fi back (a table can never lock itself out)."""
        if self.wifi is None or self.wifi.hotspot is None:
            log.warning("menu held for the board's own Wi-Fi, but it has none here (systemd/install.sh makes it)")
            self.loop.refuse(2)
            return
        try:
            self.wifi.set_hotspot(True)          # nmcli runs in its own thread: the GPIO thread goes on
        except Exception as exc:
            log.warning("cannot bring the board's own Wi-Fi back now: %s", exc)

    def add_fault(self, message: str) -> None:
        """Record a fault for the page (once) and the log; open pages hear it at once when the app runs."""
        if self.hub is not None:
            self.hub.add_fault(message)     # the same list: appended once, pushed as a ``faults`` event
        elif message not in self.faults:
            self.faults.append(message)

    def clear_fault(self, message: str) -> None:
        """Take a fault that has gone off the page."""
        if self.hub is not None:
            self.hub.clear_fault(message)
        elif message in self.faults:
            self.faults.remove(message)

    def name_conflict(self, line: "str | None", name: str) -> None:
        """:class:`firmware.mdns.NameWatch`'s report: another device answers to the board's name, so the board
        is ``name``.local (shown on the page; phones may open the page by that name), or (``line`` None) the
        board has its own name again."""
        if line is None:
            if self.name_fault is not None:
                self.clear_fault(self.name_fault)
                self.name_fault = None
            return
        trusted = self.app.config.get("TRUSTED_HOSTS") if self.app is not None else None
        if trusted is not None and hasattr(trusted, "names") and f"{name}.local" not in trusted.names:
            trusted.names.append(f"{name}.local")       # the Host check must let that name through
        self.name_fault = line
        self.add_fault(line)

    def release_table(self) -> None:
        """Make every phone join again (the menu button's long hold); the web app owns the join code."""
        if self.hub is None:
            log.warning("no web app: nothing to release")
            return
        epoch = self.hub.release()
        log.info("table released: access epoch %s", epoch)

    def press_not_stored(self, lane: int | None, exc: Exception) -> None:
        """A board press that could not be stored (a full disk): blink its lane red, show the fault on every page."""
        if lane is not None:
            self.loop.refuse(lane)
        if self.hub is not None:
            self.hub.store_fault(str(exc))
        else:
            self.add_fault(str(exc))

    def menu_press(self) -> None:
        """A short press of the menu button: next brightness step, and forget failed join codes.

        Strangers' wrong codes can hold the join page back for a while; a hand
        at the board lifts that at once.
        """
        self.loop.step_brightness()
        if self.hub is not None:
            self.hub.clear_join_lock()

    def side_for_lane(self, lane: int) -> str | None:
        """Return the id of the side that plays on ``lane`` (1..3) now, or None when the lane is empty."""
        sides = (self.table.snapshot() or {}).get("sides") or []
        try:
            lanes = side_lanes(sides, lanes=self.geometry.lanes)
        except ValueError:
            return None
        return next((s.get("id") for s, n in zip(sides, lanes) if n == lane), None)

    def close(self) -> None:
        """Turn the LEDs off and release strip, buttons and table (idempotent)."""
        closers, self._closers = self._closers, []
        for fn in reversed(closers):
            try:
                fn()
            except Exception:
                log.exception("while closing")


class LateButtons:
    """The simulated buttons as the page holds them until :func:`serve` has built them (``buttons_late``).

    A press made meanwhile waits for them (they are built moments after the
    page first answers), then is theirs; buttons that could not be built
    refuse it as the page's stand-in for absent ones does.
    """

    def __init__(self) -> None:
        self._ready = threading.Event()
        self._panel: Any = None

    def attach(self, panel: Any) -> None:
        """Hand over the built panel (None: the buttons failed, a fault says why)."""
        self._panel = panel
        self._ready.set()

    def press(self, *args: Any, **kw: Any) -> Any:
        if not self._ready.wait(10.0) or self._panel is None:
            raise RuntimeError("the board's buttons could not be set up (see the faults)")
        return self._panel.press(*args, **kw)


def build(config: Config = DEFAULTS, *, sim: bool, db: str | Path | None = None, table: Any = None,
          strip: Strip | None = None, pin_factory: Any = None, clock: Callable[[], float] | None = None,
          web: bool = True, notices: "list[str] | tuple[str, ...]" = (), buttons_late: bool = False) -> Daemon:
    """Return a :class:`Daemon` with table, strip, render loop (running), buttons and web app.

    :param sim: simulated strip and ``MockFactory`` buttons with a :class:`~firmware.buttons.SimClock`.
    :param db: SQLite file of the table (ignored when ``table`` is given).
    :param table: an open table to use instead of ``Table.open(db)``.
    :param strip: a strip to use instead of the one the config names.
    :param pin_factory: gpiozero pin factory for the buttons (default: MockFactory in sim, gpiozero's choice otherwise).
    :param clock: the buttons' clock (default: SimClock in sim, ``time.monotonic`` otherwise).
    :param web: build the web app (tests of the board alone pass False).
    :param notices: problems found before the daemon started, shown on the page as faults (the image's
        settings file refused at boot: :func:`firmware.setup_status.setup_faults`).
    :param buttons_late: leave the buttons to :func:`serve`, which builds them as soon as the page listens
        (``Daemon.late``): gpiozero is a quarter of what the daemon imports, and the page needs none of it to
        answer. A press of a button is taken from the same moment as before (the build still follows at
        once, before ``READY=1``); in ``--sim`` the page's stand-in waits for them (:class:`LateButtons`).
    """
    faults: list[str] = list(notices)
    closers: list[Callable[[], None]] = []
    state_dir = None
    if table is None:
        from companion.table import Table
        path = Path(db) if db is not None else default_db_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        table = Table.open(str(path))
        closers.append(table.close)
        state_dir = str(path.parent)
        log.info("table: %s", path)
    geometry = Geometry.from_config(config.board)

    strip = strip if strip is not None else make_strip(config, geometry, sim=sim)
    try:
        strip.open()
    except (StripError, OSError) as exc:
        faults.append(f"LED strip: {exc}")
        log.error("LED strip: %s (the page keeps working without it)", exc)
        strip = None

    loop = RenderLoop(strip, geometry, Light.from_config(config.strip), max_brightness=config.strip.max_brightness,
                      fps=config.strip.fps, palette=PALETTES[config.board.palette])
    daemon = Daemon(config=config, table=table, loop=loop, strip=strip, buttons=None, app=None, faults=faults,
                    sim=sim, geometry=geometry, _closers=closers)
    loop.on_fault = daemon.add_fault        # a strip that fails while running is a fault like one at start
    if strip is not None:
        closers.append(strip.close)
    loop.update(table.snapshot())
    closers.append(table.subscribe(loop.update))
    loop.start()
    closers.append(loop.stop)

    from firmware.voice import make_voice
    voice = make_voice(config.voice, sim=sim, state_dir=state_dir, on_fault=daemon.add_fault)
    daemon.voice = voice
    voice.start()
    closers.append(voice.stop)

    daemon.wifi = make_wifi(sim=sim)
    if daemon.wifi is not None and not sim and daemon.wifi.hotspot is not None:
        from firmware.wifi import LinkWatch             # a network NetworkManager keeps up with no link
        watch = LinkWatch(daemon.wifi)
        watch.start()
        closers.append(watch.stop)

    from firmware.mdns import AVAHI_SERVICE, NameWatch
    if not sim and AVAHI_SERVICE.exists():              # an installed board: avahi's spurious renames undone
        names = NameWatch(on_conflict=daemon.name_conflict)
        names.start()
        closers.append(names.stop)

    def make_buttons() -> Any:
        made = _make_buttons(config, daemon, sim=sim, pin_factory=pin_factory, clock=clock)
        if made is not None:
            daemon.buttons = made
            closers.append(made.close)
        return made
    if buttons_late:
        buttons: Any = LateButtons() if sim else None

        def late() -> None:
            made = make_buttons()
            if isinstance(buttons, LateButtons):
                buttons.attach(made)
        daemon.late = late
    else:
        buttons = make_buttons()
    if web:
        from web import create_app
        # the page keeps its secret key and access state next to the database (the state dir), unless
        # the instance config or LANDSEND_STATE_DIR says otherwise (create_app reads both over these settings)
        daemon.app = create_app(None, settings={"STATE_DIR": state_dir} if state_dir else None, table=table,
                                board=loop, buttons=buttons if sim else None, faults=faults, voice=voice,
                                wifi=daemon.wifi)
        daemon.hub = daemon.app.hub
        closers.append(daemon.hub.close)
        from firmware.clock import make_clock
        daemon.app.extensions["landsend.clock"] = make_clock(sim=sim, table=table)   # None in --sim
        from firmware.update import make_queue
        daemon.app.extensions["landsend.updates"] = make_queue()     # None off an installed board
        backups = daemon.app.extensions.get("landsend.backups")
        if backups is not None:         # the board keeps its own backups: at every settle-up and once a night
            backups.start()
            closers.append(backups.close)
    # the voice hears each new state after the board and the phones (its announcement only queues: its own
    # thread speaks), so the phones' streams do not wait for it (issue 38)
    closers.append(table.subscribe(voice.update))
    return daemon


def make_wifi(*, sim: bool, env: Mapping[str, str] | None = None) -> Any:
    """Return the board's Wi-Fi control, or None when there is no ``nmcli`` (or in ``--sim`` without one).

    ``$LANDSEND_NMCLI`` names the command to run instead of ``nmcli`` (a stand-in, for trying the Wi-Fi
    screen off a Pi); ``$LANDSEND_WIFI`` the hotspot file instead of ``/etc/landsend/wifi.toml``.
    """
    import shlex
    import shutil

    env = os.environ if env is None else env
    if env.get("LANDSEND_NMCLI"):
        command = shlex.split(env["LANDSEND_NMCLI"])
    elif sim or shutil.which("nmcli") is None:
        if not sim:
            log.info("no nmcli: the page cannot set up the board's Wi-Fi (NetworkManager is not installed)")
        return None
    else:
        command = ["nmcli"]
    from firmware.wifi import WIFI_FILE, Hotspot, Wifi      # only when there is a Wi-Fi to set up
    return Wifi(Hotspot.load(env.get("LANDSEND_WIFI") or WIFI_FILE), nmcli=command)


def _make_buttons(config: Config, daemon: Daemon, *, sim: bool, pin_factory: Any, clock: Any) -> Any:
    from firmware.boardid import buttons_fault, identify
    from firmware.buttons import ButtonPanel, SimClock

    b = config.buttons
    if sim and pin_factory is None:
        from gpiozero.pins.mock import MockFactory
        pin_factory = MockFactory()
    if clock is None:
        clock = SimClock() if sim else time.monotonic
    board = None
    if not sim and pin_factory is None:       # gpiozero picks the pins: say which board it will find
        board = identify()
        log.info("board: %s", board.describe())
    try:
        return ButtonPanel(b.pins(), daemon.table.submit, pin_factory=pin_factory, clock=clock, hold_s=b.hold_s,
                           release_s=b.release_s, debounce_s=b.debounce_ms / 1000.0,
                           on_release=daemon.release_table, on_menu_press=daemon.menu_press,
                           hotspot_s=b.hotspot_s, on_hotspot=daemon.hotspot_button,
                           side_for_lane=daemon.side_for_lane, on_refused=daemon.loop.refuse,
                           on_store_fault=daemon.press_not_stored)
    except Exception as exc:  # gpiozero raises many kinds (BadPinFactory, PinInvalidPin, OSError...)
        message = buttons_fault(exc, board)
        daemon.add_fault(message)
        log.error("%s (the page keeps working without them)", message)
        return None


def phone_urls(host: str, port: int, addresses: Callable[[], list[str]] | None = None) -> list[str]:
    """Return the addresses a phone at the table opens, for the start-up log (docs/operation.md).

    Bound to every interface (``0.0.0.0``, ``::``, empty), that is ``http://landsend.local`` (mDNS)
    and each of this machine's own IPv4 addresses but loopback; bound to one address, just that one.
    The port is left out where it is 80."""
    from web.security import local_addresses

    tail = "" if port == 80 else f":{port}"
    if host not in ("", "0.0.0.0", "::"):
        return [f"http://{host}{tail}/"]
    found = [a for a in (addresses or local_addresses)() if not a.startswith("127.")]
    return [f"http://landsend.local{tail}/"] + [f"http://{a}{tail}/" for a in found]


def server_port(server: Any, asked: int) -> int:
    """Return the port ``server`` listens on (``asked`` unless that was 0: any free port)."""
    try:
        return int(server.effective_port) if not asked else asked
    except (AttributeError, TypeError, ValueError):
        return asked


PRESTART_DELAY = 5.0
"""Seconds after the page answers before the first job worker is started ahead (``serve(prestart=...)``): the
boot's own work goes first; then the worker imports the advice and warms its caches at a low priority."""


def serve(daemon: Daemon, *, host: str, port: int, notifier: Notifier | None = None,
          stop: threading.Event | None = None, threads: int | None = None, started: float | None = None,
          prestart: float | None = None) -> int:
    """Serve the page with waitress until ``stop`` is set (SIGTERM/SIGINT set it); return the exit status.

    Builds what :func:`build` left for later (``Daemon.late``: the buttons) as
    soon as the page listens, then sends ``READY=1``, and ``WATCHDOG=1`` every half watchdog
    period while the render loop and the web server threads are alive and the
    board is not stalled (:meth:`RenderLoop.stalled`: a change waiting, or a
    frame drawing, for longer than that period). ``prestart``: seconds after that to start the first job
    worker ahead (:func:`web.jobs.prestart`; None: on the first job). On the way out the LEDs are
    turned off and everything is closed.
    """
    from web import create_server

    notifier = notifier or Notifier()
    stop = stop or threading.Event()
    try:
        server = create_server(daemon.app, host=host, port=port, threads=threads or daemon.config.web.threads)
    except OSError as exc:
        log.error("cannot listen on %s:%s: %s", host, port, exc.strerror or exc)
        daemon.close()
        return 1
    web_thread = threading.Thread(target=server.run, name="waitress", daemon=True)
    web_thread.start()
    late, daemon.late = daemon.late, None
    if late is not None:              # what build left until the page answers (the buttons), before READY=1
        late()
    # what start-up made (the modules, the app, the board, the table: ~100k objects) lives as long as the
    # process: hidden from the collector, a full pass during play walks only what play made. Walking them all
    # took 3 ms here, a tenth of a second on a Zero 2 W, in whichever press met it (issue 38). O(1).
    gc.freeze()
    log.info("serving http://%s:%d/%s", host, port, " (simulator)" if daemon.sim else "")
    log.info("phones open %s", " or ".join(phone_urls(host, server_port(server, port))))
    notifier.notify(f"READY=1\nSTATUS=serving on port {port}")
    if started is not None:
        log.info("ready in %.2f s", time.monotonic() - started)
    if prestart is not None:
        threading.Thread(target=_prestart, args=(daemon, stop, prestart), name="jobs-prestart", daemon=True).start()
    interval = notifier.ping_interval
    healthy, stalled = True, False
    while not stop.wait(interval if interval else 3600.0):
        if not (daemon.loop.alive and web_thread.is_alive()):
            if healthy:
                log.error("a thread died (render loop alive: %s, web alive: %s); no more watchdog pings",
                          daemon.loop.alive, web_thread.is_alive())
            healthy = False
            continue
        if interval and daemon.loop.stalled(interval):
            if not stalled:
                log.error("the board has not drawn for over %.0f s (a strip write hangs?); "
                          "no watchdog ping until it does", interval)
            stalled = True
            continue
        stalled = False
        if interval:
            notifier.notify("WATCHDOG=1")
    # a restart (a restore) goes on in this same process (run() execs the daemon again): systemd hears a reload
    notifier.notify("RELOADING=1" if daemon.restart else "STOPPING=1")
    log.info("restarting (a restore waits)" if daemon.restart else "stopping")
    server.close()
    jobs = daemon.app.extensions.get("landsend.jobs")
    if jobs is not None:                # no job worker outlives the page (nor waits for the process's exit)
        jobs.close()
    daemon.close()
    web_thread.join(timeout=2.0)
    gc.unfreeze()                     # a restart in this process (a restore) freezes its own start-up again
    return 0 if healthy else 1


def _prestart(daemon: Daemon, stop: threading.Event, delay: float) -> None:
    if stop.wait(delay):
        return
    from web.jobs import prestart
    pid = prestart(daemon.app)
    if pid is not None:
        log.info("job worker %d started ahead (it warms the advice while it waits)", pid)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="landsend serve", description="Run the table daemon: board, buttons and page.")
    add_arguments(p)
    return p


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``serve`` options to ``parser`` (shared with the ``landsend`` command line)."""
    parser.add_argument("--sim", action="store_true", help="simulated strip and buttons (runs on any PC)")
    parser.add_argument("--config", metavar="FILE", help="TOML config (default: $LANDSEND_CONFIG, "
                        "/etc/landsend/config.toml, built-in defaults)")
    parser.add_argument("--db", metavar="FILE", help="SQLite database (default: $LANDSEND_DB or the state dir)")
    parser.add_argument("--host", metavar="H", help="address to listen on (default: the config's, 0.0.0.0)")
    parser.add_argument("--port", metavar="P", type=int, help="port to listen on (default: the config's, 8000)")


def run(args: argparse.Namespace, *, stderr: Any = None) -> int:
    """Return the exit status of serving with parsed ``args``.

    2 when nothing can start: a refused config, a bad port, a state folder
    that cannot be written, a damaged, empty or unwritable database (one
    line on ``stderr`` each); 1 when another daemon holds the database.
    """
    stderr = stderr or sys.stderr
    if not logging.getLogger().handlers:
        logging.basicConfig(level=os.environ.get("LANDSEND_LOG", "INFO").upper(),
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    started = time.monotonic()
    path = Path(args.config) if args.config else default_config_path()
    try:
        config = load(path) if path else DEFAULTS
    except ConfigError as exc:
        stderr.write(f"landsend serve: config refused: {exc}\n")
        return 2
    if args.port is not None and not 0 <= args.port <= 65535:
        stderr.write(f"landsend serve: --port must be 0..65535, got {args.port}\n")
        return 2
    db = Path(args.db) if args.db else default_db_path()
    try:
        db.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        stderr.write(f"landsend serve: cannot create the database directory {db.parent}: {exc.strerror or exc}\n")
        return 2
    try:
        lock = _lock_database(db)
    except OSError as exc:      # a read-only state folder: the lock file cannot even be created
        stderr.write(f"landsend serve: cannot write in the state folder {db.resolve().parent}: "
                     f"{exc.strerror or exc}\n")
        return 2
    if lock is None:
        stderr.write(f"landsend serve: another landsend daemon is already using {db.resolve()}\n")
        return 1
    # before anything is started: no program the daemon runs (busctl, timedatectl, the job worker) may inherit
    # systemd's notify socket and watchdog, which are this process's alone
    notifier = Notifier(unset_environment=True)
    stop = threading.Event()
    # before build() lights the board: a stop during start-up must still turn the LEDs off
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    from firmware.setup_status import STATUS, setup_faults
    notices = setup_faults(Path(os.environ.get("LANDSEND_SETUP_STATUS") or STATUS))
    for notice in notices:
        log.warning("%s", notice)
    restored = _apply_restore(db, stderr)
    if restored is False:
        return 2
    if restored is not None:
        lock.close()                    # the lock was on the file the restore replaced: take it on the new one
        lock = _lock_database(db)
        if lock is None:
            stderr.write(f"landsend serve: another landsend daemon is already using {db.resolve()}\n")
            return 1
    try:
        daemon = build(config, sim=args.sim, db=db, notices=notices, buttons_late=True)
    except StoreError as exc:   # a damaged, empty or unwritable database: nothing was started
        stderr.write(f"landsend serve: {exc}\n")
        return 2
    except OSError as exc:      # the page's secret key or access state cannot be written
        where = exc.filename or db.resolve().parent
        stderr.write(f"landsend serve: cannot write in the state folder: {where}: {exc.strerror or exc}\n")
        return 2
    if daemon.app is not None:
        def restart() -> None:          # web.backup, once a restore is staged and its answer sent
            daemon.restart = True
            stop.set()
        daemon.app.extensions["landsend.restart"] = restart
    terminal = None
    if args.sim and sys.stdin.isatty():
        from firmware.terminal import Terminal
        terminal = Terminal(daemon, stop)
        terminal.start()
    try:
        status = serve(daemon, host=args.host or config.web.host,
                       port=args.port if args.port is not None else config.web.port, notifier=notifier, stop=stop,
                       started=started, prestart=PRESTART_DELAY)
    finally:
        if terminal is not None:
            terminal.close()
    if daemon.restart:
        lock.close()
        _exec_again(notifier.environment)
    return status


BOARD_META = ("web.",)
"""What a table's database keeps for the board rather than the table (the page's secret key, who hosts it, its
phones' seats and notes): kept across a restore, so the host that restored the table still holds the board."""


def _apply_restore(db: Path, stderr: Any) -> "dict | None | bool":
    """Switch to a restore staged by the page (:func:`companion.backup.apply_staged`), before the table opens.

    Returns what was restored, None when nothing waited, False when the switch failed (said on ``stderr``).
    """
    from companion import backup
    if not backup.staged_path(db).exists():
        return None
    from web.backup import board_name
    from firmware.wifi import Hotspot
    try:
        spot = Hotspot.load()
    except Exception:
        spot = None
    kept = backup.Kept(db.parent / "backups", board=board_name(spot))
    try:
        done = backup.apply_staged(db, kept, carry=BOARD_META)
    except (OSError, StoreError, backup.BackupError) as exc:
        stderr.write(f"landsend serve: cannot switch to the restored table: {exc}\n")
        return False
    log.info("restored the table from %s; the table before it is kept as %s", backup.describe(done or {}),
             (done or {}).get("kept_before"))
    return done


def _exec_again(systemd: Mapping[str, str]) -> None:
    """Start this daemon again in the same process (same pid for systemd; every file and socket closes), with
    ``systemd``'s notify socket and watchdog given back (:attr:`Notifier.environment`: taken out at start)."""
    log.info("starting again")
    for handler in logging.getLogger().handlers:
        handler.flush()
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], {**os.environ, **systemd})


def _lock_database(db: Path):
    """Return the database file ``db`` open and locked exclusively, or None when another daemon holds it.

    Two daemons folding and appending to one event store would interleave
    their sequence numbers. The lock (``flock``) is taken on the database
    file itself, so it holds the file whatever name reaches it: a symlink, a
    hard link, another path. A missing database is created first (whole, as
    :class:`~companion.store.SQLiteStore` makes it) so there is a file to
    lock. The OS releases the lock when the process ends, however it ends
    (SIGKILL and power cuts included). Keep the returned file open while the
    table is open: it is never closed before then (closing a descriptor of
    the file would drop SQLite's own locks on it).

    :raises OSError: the folder cannot be written (the database cannot be made) or the file opened.
    """
    import fcntl

    from companion.store import _create
    db = db.resolve()
    # SQLite writes its -wal and -shm files beside the database: a folder that cannot be written fails here
    probe = db.with_name(f".{db.name}.probe-{os.getpid()}")
    os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    probe.unlink()
    if not db.exists():
        try:
            _create(db)
        except Exception as exc:       # sqlite3.Error: the folder let the probe in but not the database
            raise OSError(f"cannot create {db}: {exc}") from exc
    handle = open(db, "rb")
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        return None
    return handle


def release_stopped(db: Path | None, *, stdout: Any, stderr: Any) -> int:
    """Release the table kept in ``db`` as the menu button's 5 s hold does (``landsend release``); return
    the exit status: 1 while a daemon holds the database (the button is the way then), 2 on an error."""
    from companion.store import SQLiteStore
    from web.security import Access
    db = db if db is not None else default_db_path()
    if not db.is_file():
        stderr.write(f"landsend release: no table database at {db}\n")
        return 2
    try:
        lock = _lock_database(db)
    except OSError as exc:
        stderr.write(f"landsend release: cannot write in the state folder {db.resolve().parent}: "
                     f"{exc.strerror or exc}\n")
        return 2
    if lock is None:
        stderr.write(f"landsend release: a landsend daemon is using {db.resolve()}: hold the board's menu "
                     "button for 5 s, or stop the daemon first\n")
        return 1
    try:
        store = SQLiteStore(db)
        try:
            epoch = Access(store).release()
        finally:
            store.close()
    except StoreError as exc:
        stderr.write(f"landsend release: {exc}\n")
        return 2
    finally:
        lock.close()
    stdout.write(f"{db}: released (access epoch {epoch}): every phone must join again, and the next phone "
                 "to claim the table becomes its host\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Return the exit status of ``landsend serve`` with ``argv`` (the options after ``serve``)."""
    parser = _parser()
    try:
        args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
