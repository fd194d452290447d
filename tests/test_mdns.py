"""The board's name on the network: avahi's spurious renames undone, a real conflict told once (firmware/mdns.py)."""

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from firmware.mdns import RUNNING, Avahi, AvahiError, NameWatch

ROOT = Path(__file__).resolve().parents[1]


class FakeAvahi:
    """avahi as the watch sees it: a state and a name; ``rename_on_set`` names a real conflict (another
    device keeps the name: every request is renamed again)."""

    def __init__(self, name="landsend", state=RUNNING, rename_on_set=None):
        self.name, self.st, self.rename_on_set = name, state, rename_on_set
        self.asked: list[str] = []
        self.down = False

    def state(self):
        if self.down:
            raise AvahiError("avahi GetState: Unit avahi-daemon.service not found")
        return self.st, self.name

    def set_name(self, name):
        self.asked.append(name)
        self.name = self.rename_on_set or name


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def watch(avahi, **kw):
    told = []
    clock = Clock()
    w = NameWatch(avahi, want="landsend", on_conflict=lambda line, name: told.append((line, name)), clock=clock,
                  retry_after=60, tries=3, **kw)
    return w, told, clock


def test_right_name_asks_nothing():
    a = FakeAvahi()
    w, told, _ = watch(a)
    assert w.check() is None and w.check() is None
    assert a.asked == [] and told == [] and w.name == "landsend"


def test_spurious_rename_is_undone_once():
    a = FakeAvahi(name="landsend-2")
    w, told, clock = watch(a)
    said = w.check()
    assert a.asked == ["landsend"]
    assert said.startswith("mdns: avahi had renamed the board landsend-2.local") and "(1 of 3)" in said
    clock.t += 15
    assert w.check() == "mdns: the board answers as landsend.local again"
    assert told == []                                   # nothing was reported, so nothing to take back
    assert w.check() is None and a.asked == ["landsend"]


def test_probing_is_left_alone():
    a = FakeAvahi(name="landsend-2", state=1)       # AVAHI_SERVER_REGISTERING: still probing
    w, told, _ = watch(a)
    assert w.check() is None and a.asked == []


def test_real_conflict_asked_three_times_then_told_once():
    a = FakeAvahi(name="landsend-2", rename_on_set="landsend-2")
    w, told, clock = watch(a)
    assert "(1 of 3)" in w.check()
    clock.t += 59.9
    assert w.check() is None and len(a.asked) == 1      # not again within a minute
    clock.t += 0.1
    assert "(2 of 3)" in w.check()
    clock.t += 60
    assert "(3 of 3)" in w.check()
    clock.t += 60
    said = w.check()
    assert said == ("mdns: another device on this network answers as landsend.local: this board is "
                    "landsend-2.local (avahi took it 3 times after being asked for landsend.local)")
    assert told == [(said.removeprefix("mdns: "), "landsend-2")]
    for _ in range(5):                                  # then quiet: no more requests, nothing said again
        clock.t += 60
        assert w.check() is None
    assert a.asked == ["landsend"] * 3 and len(told) == 1
    # the other device leaves; avahi is restarted with the board's name: the page's fault goes
    a.name = "landsend"
    assert w.check() == "mdns: the board answers as landsend.local again"
    assert told[-1] == (None, "landsend")
    # a later spurious rename gets its three tries again
    a.name, a.rename_on_set = "landsend-3", None
    assert "(1 of 3)" in w.check() and a.name == "landsend"


def test_avahi_down_said_once():
    a = FakeAvahi()
    a.down = True
    w, told, _ = watch(a)
    first = w.check()
    assert first.startswith("mdns: avahi GetState") and "not watched until avahi answers" in first
    assert w.check() is None and w.name is None
    a.down = False
    assert w.check() is None and w.name == "landsend"
    a.down = True
    assert w.check() is not None                        # a new spell of failure is said again


def test_refused_request_is_said():
    class Refusing(FakeAvahi):
        def set_name(self, name):
            raise AvahiError("avahi SetHostName: Access denied")
    w, told, _ = watch(Refusing(name="landsend-2"))
    assert w.check() == "mdns: avahi answers as landsend-2.local and refused landsend: avahi SetHostName: Access denied"


def test_thread_looks_and_stops():
    a = FakeAvahi(name="landsend-2")
    w, told, _ = watch(a)
    w.start(period=0.01)
    for _ in range(500):
        if a.asked:
            break
        import time
        time.sleep(0.01)
    w.stop()
    assert a.asked == ["landsend"] and not w._thread.is_alive()


# -- busctl: a fake program answering as busctl --json=short does

FAKE_BUSCTL = r'''
import json, sys
args = sys.argv[1:]
log = open(sys.argv[0] + ".log", "a"); log.write(" ".join(args) + "\n"); log.close()
method = args[args.index("call") + 4]
if method == "GetState":
    print(json.dumps({"type": "i", "data": [2]}))
elif method == "GetHostName":
    print(json.dumps({"type": "s", "data": ["landsend-2"]}))
elif method == "SetHostName":
    if args[-1] == "refused":
        print("Call failed: Access denied", file=sys.stderr); sys.exit(1)
else:
    sys.exit(3)
'''


@pytest.fixture
def busctl(tmp_path):
    prog = tmp_path / "busctl.py"
    prog.write_text(FAKE_BUSCTL)
    return prog


def test_avahi_over_busctl(busctl):
    av = Avahi([sys.executable, str(busctl)])
    assert av.state() == (2, "landsend-2")
    av.set_name("landsend")
    calls = Path(str(busctl) + ".log").read_text().splitlines()
    assert calls[-1] == "--system --json=short call org.freedesktop.Avahi / org.freedesktop.Avahi.Server SetHostName s landsend"
    with pytest.raises(AvahiError, match="Access denied"):
        av.set_name("refused")


def test_avahi_missing_or_garbled(tmp_path):
    with pytest.raises(AvahiError, match="busctl is not installed"):
        Avahi([str(tmp_path / "no-such-busctl")]).state()
    garbled = tmp_path / "g.py"
    garbled.write_text("print('not json')")
    with pytest.raises(AvahiError, match="not busctl's JSON"):
        Avahi([sys.executable, str(garbled)]).state()

    def hang(*a, **k):
        raise subprocess.TimeoutExpired(a[0], 10)
    with pytest.raises(AvahiError, match="did not answer GetState within 10 s"):
        Avahi(run=hang).state()


def test_dbus_policy_allows_the_service_user_set_host_name_only():
    tree = ET.parse(ROOT / "systemd" / "landsend-avahi.conf").getroot()
    policies = tree.findall("policy")
    assert [p.attrib for p in policies] == [{"user": "landsend"}]
    rules = list(policies[0])
    assert [(r.tag, r.attrib) for r in rules] == [("allow", {
        "send_destination": "org.freedesktop.Avahi", "send_interface": "org.freedesktop.Avahi.Server",
        "send_member": "SetHostName"})]


def test_daemon_shows_a_real_conflict_and_trusts_the_name():
    from firmware.daemon import Daemon
    from web.security import TrustedHosts

    class App:
        config = {"TRUSTED_HOSTS": TrustedHosts(["landsend.local"], addresses=lambda: [])}
    d = Daemon(config=None, table=None, loop=None, strip=None, buttons=None, app=App(), faults=[], sim=False,
               geometry=None)
    line = "another device on this network answers as landsend.local: this board is landsend-2.local (...)"
    d.name_conflict(line, "landsend-2")
    assert d.faults == [line]
    assert "landsend-2.local" in list(App.config["TRUSTED_HOSTS"])
    d.name_conflict(None, "landsend")
    assert d.faults == []
