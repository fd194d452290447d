"""Browser test harness: the real app under waitress on 127.0.0.1, Debian's Chromium via Playwright.

Every test here is marked ``browser`` and skipped (with the reason) only when
``/usr/bin/chromium`` is absent. Phones are browser contexts at 390x844.
"""

from __future__ import annotations

import os
import tempfile
import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
PHONE = {"width": 390, "height": 844}
# Screenshots refresh the README's pictures only when asked
# (LANDSEND_SCREENSHOTS=1 ./test.sh tests/browser); otherwise they go to a
# temporary folder, so a test run never dirties the checkout.
IMG = (Path(__file__).resolve().parents[2] / "docs" / "img" if os.environ.get("LANDSEND_SCREENSHOTS")
       else Path(tempfile.gettempdir()) / "landsend-screenshots")


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).resolve().parent
    for item in items:
        if Path(str(item.fspath)).resolve().parent == here:
            item.add_marker(pytest.mark.browser)
            if not os.path.exists(CHROMIUM):
                item.add_marker(pytest.mark.skip(reason=f"{CHROMIUM} is not installed (apt-get install chromium)"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The app served by waitress in a thread; ``url`` is its address."""

    def __init__(self, app) -> None:
        from web import create_server
        self.app = app
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = create_server(app, host="127.0.0.1", port=self.port, threads=12)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()

    @property
    def table(self):
        return self.app.extensions["landsend"].table

    def close(self) -> None:
        hub = self.app.extensions["landsend"]
        hub.broadcaster.close()
        for _ in range(100):          # let the open event streams finish before the sockets go
            if hub.broadcaster.streams == 0:
                break
            time.sleep(0.02)
        self.server.close()
        for channel in list(self.server._map.values()):   # connections a proxy or a phone still holds open
            channel.close()
        self.thread.join(timeout=5)


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import expect, sync_playwright
    expect.set_options(timeout=15000)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def make_server(tmp_path):
    servers = []

    def make(*, table=None, board=None, buttons=None, faults=None, config=None, wifi=None):
        from companion.table import Table
        from web import create_app
        t = table or Table.memory()
        cfg = {"TESTING": True, "STATE_DIR": str(tmp_path / f"state{len(servers)}"),
               "TRUSTED_HOSTS": ["127.0.0.1"], "SSE_HEARTBEAT": 1.0}
        cfg.update(config or {})
        app = create_app(cfg, table=t, board=board, buttons=buttons, faults=faults, wifi=wifi)
        s = Server(app)
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.close()


@pytest.fixture
def server(make_server):
    return make_server()


@pytest.fixture
def proxy(server):
    """A :class:`StallingProxy` in front of ``server``: a phone opened on ``proxy.url`` can walk out of range."""
    p = StallingProxy(server.port)
    yield p
    p.close()


@pytest.fixture
def board_server(make_server):
    """The app with the firmware's render loop as its board (no strip), like the daemon without LEDs."""
    from companion.table import Table
    from firmware.geometry import Geometry
    from firmware.render_loop import RenderLoop
    table = Table.memory()
    loop = RenderLoop(None, Geometry())
    table.subscribe(loop.update)
    loop.update(table.snapshot())
    loop.start()
    server = make_server(table=table, board=loop)
    yield server
    loop.stop()


@pytest.fixture
def phones(browser):
    """Return a function making a fresh phone (own cookies) on a page of ``url``; closes them after."""
    contexts = []

    def phone(url: str, path: str = "/"):
        ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(15000)        # generous: the suite may share two cores with others
        page.outside = []
        host = url.split("//", 1)[1]
        page.on("request", lambda req: page.outside.append(req.url)
                if req.url.split("//", 1)[-1].split("/", 1)[0] != host and not req.url.startswith("data:") else None)
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.goto(url + path)
        page.wait_for_selector("#conn.ok")
        return page

    yield phone
    for ctx in contexts:
        ctx.close()


@contextmanager
def phone_at(browser, url: str, viewport: dict, *, script: Path | None = None):
    """Yield a fresh phone of ``viewport`` (its own cookies) on the page at ``url``, connected, with ``errors``
    (the page's uncaught errors) and ``script`` (axe-core) injected into every page when it exists; closed
    after."""
    ctx = browser.new_context(viewport=viewport, device_scale_factor=2, is_mobile=True, has_touch=True)
    if script is not None and script.exists():
        ctx.add_init_script(path=str(script))
    try:
        yield open_page(ctx, url)
    finally:
        ctx.close()


def open_page(ctx, url: str):
    """Return a new page of browser context ``ctx`` at ``url``, connected, with ``errors`` (its uncaught errors)."""
    page = ctx.new_page()
    page.set_default_timeout(15000)
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    page.goto(url)
    page.wait_for_selector("#conn.ok")
    return page


def shot(page, name: str) -> None:
    """Save a screenshot as page-<name>.png (into docs/img with LANDSEND_SCREENSHOTS=1)."""
    IMG.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(IMG / f"page-{name}.png"), full_page=False)


def until(page, condition, *, timeout: float = 15.0) -> None:
    """Wait until ``condition()`` is true, letting the page run between looks (fails after ``timeout`` s)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        page.wait_for_timeout(50)


def join_link(phones, url: str, code: str, seat: str = "*", viewport=None):
    """Open the QR code's join link on a fresh phone and answer its one question, whose phone this is (``seat``:
    a player's name, or "*" for a phone that enters for the whole table); return the joined page."""
    page = phones(url, f"/join/{code}")
    if viewport:
        page.set_viewport_size(viewport)
    page.wait_for_selector("#join-asks:not([hidden])")
    assert page.is_hidden("#join-watch")            # the code came with the link: only the question is left
    page.select_option("#join-seat", seat)
    page.wait_for_selector("#role:text-is('player')")
    return page


def claim(page) -> None:
    """Take the table on ``page`` and wait until the page shows it hosts (on the New game form)."""
    page.click("#claim")
    page.wait_for_selector("#role:text-is('host')")
    page.wait_for_selector("#view-new:not([hidden])")


class StallingProxy:
    """A loopback TCP proxy in front of the server that can stop forwarding without closing anything: a phone
    behind it is out of range (its stream and requests hang, as a phone walking out of Wi-Fi range does),
    which ``set_offline`` does not do (it leaves an open stream working). ``url`` is the phone's address."""

    def __init__(self, port: int) -> None:
        self.upstream = port
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.asks = threading.Event()        # the phone's requests go to the table
        self.answers = threading.Event()     # the table's answers and stream come back
        self.asks.set()
        self.answers.set()
        self.closed = False
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def stall(self) -> None:
        """Stop forwarding, both ways, every connection open or to come; nothing is closed."""
        self.asks.clear()
        self.answers.clear()

    def stall_answers(self) -> None:
        """Forward the phone's requests but hold what comes back: the table takes a command whose answer (and
        every stream message) the phone never hears, as when the phone walks out of range just after sending."""
        self.answers.clear()

    def resume(self) -> None:
        self.asks.set()
        self.answers.set()

    def _accept(self) -> None:
        while not self.closed:
            try:
                down, _ = self.sock.accept()
            except OSError:
                return
            up = socket.create_connection(("127.0.0.1", self.upstream))
            self.conns += [down, up]
            threading.Thread(target=self._pump, args=(down, up, self.asks), daemon=True).start()
            threading.Thread(target=self._pump, args=(up, down, self.answers), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket, flowing: threading.Event) -> None:
        try:
            while True:
                flowing.wait()
                data = src.recv(65536)
                if not data:
                    break
                flowing.wait()               # held, not dropped, while the phone is out of range
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.closed = True
        self.resume()
        self.sock.close()
        for s in self.conns:
            try:
                s.close()
            except OSError:
                pass
