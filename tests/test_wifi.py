"""The board's Wi-Fi: nmcli driven through a fake that records what it was asked, the Wi-Fi screen's API,
the captive-portal answers with and without the Host check, and the table card's QR codes decoded."""

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.table import Table
from firmware.wifi import Hotspot, Wifi, WifiError, hotspot_profile, install_files, split_terse
from web import create_app
from web.card import card_svg, qr_svg, wifi_uri
from web.portal import CHECKS

FAKE = Path(__file__).with_name("fake_nmcli.py")
SPOT = Hotspot(ssid="Lands End 4F2A", password="kq7mzt3hwp9x")
PUB = {"ssid": "Pub: Guest", "signal": 71, "security": "WPA2", "password": "pint-of-best", "address": "192.168.1.23"}
HOME = {"ssid": "Home", "signal": 40, "security": "WPA1 WPA2", "password": "kettle-on-please", "address": "10.0.0.7"}
CAFE = {"ssid": "Cafe", "signal": 88, "security": "", "address": "172.16.0.9"}
AP_ON = "landsend-hotspot"


class Air:
    """The fake nmcli's world: its state file and the calls it recorded."""

    def __init__(self, tmp_path, *, active=AP_ON, air=(PUB, HOME, CAFE), **extra):
        self.path = tmp_path / "nm.json"
        self.path.write_text(json.dumps({"device": "wlan0", "active": active, "air": list(air),
                                         "profiles": {AP_ON: {"ssid": SPOT.ssid, "mode": "ap"}}, **extra}))
        self.command = [sys.executable, "-S", "-E", str(FAKE), "--state", str(self.path)]

    @property
    def state(self):
        return json.loads(self.path.read_text())

    def calls(self, since=0):
        return [" ".join(c) for c in self.state.get("calls", [])[since:]]


@pytest.fixture
def air(tmp_path):
    return Air(tmp_path)


@pytest.fixture
def wifi(air):
    return Wifi(SPOT, nmcli=air.command, leave_delay=0)


# ------------------------------------------------------------------ nmcli through the fake

def test_terse_fields_keep_escaped_colons_and_backslashes():
    assert split_terse(r"*:Pub\: Guest:71:WPA2") == ["*", "Pub: Guest", "71", "WPA2"]
    assert split_terse(r" :a\\b\:c::") == [" ", "a\\b:c", "", ""]


def test_state_on_the_boards_own_wifi(wifi, air):
    state = wifi.state()
    assert state == {"device": "wlan0", "connection": AP_ON, "mode": "hotspot", "address": "10.42.0.1",
                     "busy": None, "networks": [], "trial": None, "error": None, "waiting": [],
                     "hotspot": {"ssid": "Lands End 4F2A", "address": "10.42.0.1"}}
    assert air.calls() == ["-t -f DEVICE,TYPE,STATE,CONNECTION device status", "-g IP4.ADDRESS device show wlan0",
                           "-t -f NAME,TYPE,AUTOCONNECT connection show"]


def test_scan_lists_named_networks_strongest_first_without_the_boards_own(tmp_path):
    air = Air(tmp_path, air=(PUB, HOME, CAFE, {"ssid": "Lands End 4F2A", "signal": 99, "security": "WPA2"},
                             {"ssid": "", "signal": 90, "security": "WPA2"},
                             {"ssid": "Home", "signal": 22, "security": "WPA2"}))
    nets = Wifi(SPOT, nmcli=air.command).scan()
    assert nets == [{"ssid": "Cafe", "signal": 88, "secure": False, "in_use": False},
                    {"ssid": "Pub: Guest", "signal": 71, "secure": True, "in_use": False},
                    {"ssid": "Home", "signal": 40, "secure": True, "in_use": False}]
    assert air.calls() == ["-t -f IN-USE,SSID,SIGNAL,SECURITY device wifi list --rescan yes"]


def test_a_scan_nmcli_refuses_says_why(tmp_path):
    air = Air(tmp_path, no_scan_in_ap=True)
    w = Wifi(SPOT, nmcli=air.command)
    with pytest.raises(WifiError, match="Scanning not allowed while in AP mode"):
        w.scan()
    assert w.state()["busy"] is None


def test_joining_a_network_that_works_comes_back_to_the_hotspot_and_says_the_new_address(wifi, air):
    wifi.join("Pub: Guest", "pint-of-best", background=False)
    assert wifi.trial == {"ssid": "Pub: Guest", "ok": True, "address": "192.168.1.23", "error": None,
                          "moved": False}
    assert air.calls() == [
        "-t -f DEVICE,TYPE,STATE,CONNECTION device status",
        "connection delete id landsend-try Pub: Guest",
        "connection add type wifi ifname wlan0 con-name landsend-try Pub: Guest ssid Pub: Guest "
        "connection.autoconnect no wifi-sec.key-mgmt wpa-psk wifi-sec.psk pint-of-best",
        "--wait 45 connection up id landsend-try Pub: Guest",
        "-g IP4.ADDRESS device show wlan0",
        "connection delete id landsend Pub: Guest",
        "connection modify id landsend-try Pub: Guest connection.id landsend Pub: Guest connection.autoconnect yes",
        f"--wait 45 connection up id {AP_ON}"]
    assert air.state["active"] == AP_ON                     # the phone that asked finds the board again
    assert air.state["profiles"]["landsend Pub: Guest"] == {"ssid": "Pub: Guest", "psk": "pint-of-best",
                                                           "autoconnect": "yes"}
    n = len(air.calls())
    wifi.move(background=False)
    assert air.calls(n) == ["--wait 45 connection up id landsend Pub: Guest"]
    assert air.state["active"] == "landsend Pub: Guest" and wifi.trial["moved"] is True
    assert wifi.state()["mode"] == "client" and wifi.state()["address"] == "192.168.1.23"
    with pytest.raises(WifiError, match="try a network first"):
        wifi.move(background=False)


def test_a_wrong_password_forgets_the_network_and_brings_the_hotspot_back(wifi, air):
    wifi.join("Home", "not-the-password", background=False)
    assert wifi.trial == {"ssid": "Home", "ok": False, "address": None, "error": "Home refused the password",
                          "moved": False}
    assert air.calls()[-4:] == ["--wait 45 connection up id landsend-try Home",
                                "connection delete id landsend-try Home",
                                "connection delete id landsend-try Home",        # none left
                                f"--wait 45 connection up id {AP_ON}"]
    assert set(air.state["profiles"]) == {AP_ON} and air.state["active"] == AP_ON
    with pytest.raises(WifiError, match="try a network first"):
        wifi.move(background=False)


def test_an_open_network_is_joined_without_a_password_and_one_out_of_reach_is_named(wifi, air):
    wifi.join("Cafe", background=False)
    assert "wifi-sec" not in air.calls()[2] and wifi.trial["ok"] is True and wifi.trial["address"] == "172.16.0.9"
    wifi.join("Castle", "drawbridge", background=False)
    assert wifi.trial["error"] == "no network named Castle is in reach"
    assert air.state["active"] == AP_ON


def test_with_nothing_up_a_network_that_works_brings_the_board_back_to_its_own_wifi(tmp_path):
    # the Wi-Fi check on a real NetworkManager: after a join with nothing up the board stayed on the new
    # network (trial.moved true), the host's phone on the hotspot lost the board and move said "nothing to
    # move to"; the board now comes back to its own Wi-Fi, as docs/api.md promises, and move then switches
    air = Air(tmp_path, active=None)
    w = Wifi(SPOT, nmcli=air.command)
    w.join("Home", "kettle-on-please", background=False)
    assert w.trial == {"ssid": "Home", "ok": True, "address": "10.0.0.7", "error": None, "moved": False}
    assert air.state["active"] == AP_ON
    assert air.calls()[-2:] == ["connection modify id landsend-try Home connection.id landsend Home "
                                "connection.autoconnect yes", f"--wait 45 connection up id {AP_ON}"]
    w.move(background=False)
    assert air.state["active"] == "landsend Home" and w.trial["moved"] is True


def test_a_board_without_its_own_wifi_stays_on_the_network_that_works(tmp_path):
    air = Air(tmp_path, active=None)
    w = Wifi(None, nmcli=air.command)
    w.join("Home", "kettle-on-please", background=False)
    assert w.trial["moved"] is True and air.state["active"] == "landsend Home"
    assert air.calls()[-1] == "connection modify id landsend-try Home connection.id landsend Home connection.autoconnect yes"


def test_on_its_own_wifi_the_board_names_the_networks_it_waits_for(tmp_path):
    # a settings file naming a network that is not there: the hotspot comes up, and the page says which
    # network the board joins by itself once it is in reach (nothing while the board is on a network)
    air = Air(tmp_path)
    profiles = air.state["profiles"]
    profiles["landsend Home"] = {"ssid": "Home", "psk": "kettle-on-please", "autoconnect": "yes"}
    profiles["landsend Pub: Guest"] = {"ssid": "Pub: Guest", "psk": "pint-of-best", "autoconnect": "no"}
    air.path.write_text(json.dumps({**air.state, "profiles": profiles}))
    w = Wifi(SPOT, nmcli=air.command)
    state = w.state()
    assert state["mode"] == "hotspot" and state["waiting"] == ["Home"]
    assert air.calls()[-1] == "-t -f NAME,TYPE,AUTOCONNECT connection show"
    w.join("Home", "kettle-on-please", background=False)
    w.move(background=False)
    assert w.state()["mode"] == "client" and w.state()["waiting"] == []


def test_with_a_second_radio_listed_first_the_join_still_comes_back_to_the_hotspot(tmp_path):
    # NetworkManager lists every radio (a USB dongle, the Wi-Fi check's simulated ones): the board's is
    # the one with its connection up, whatever its place in the list (the first radio used to be taken,
    # so `before` was None and a working join left the board off its own Wi-Fi: trial.moved was true)
    air = Air(tmp_path, other_radios=["wlan1"])
    w = Wifi(SPOT, nmcli=air.command)
    assert w.device() == ("wlan0", AP_ON)
    w.join("Home", "kettle-on-please", background=False)
    assert w.trial["moved"] is False and w.trial["address"] == "10.0.0.7"
    assert [c for c in air.calls() if c.startswith("connection add")][0].startswith(
        "connection add type wifi ifname wlan0 ")
    assert air.state["active"] == AP_ON
    w.move(background=False)
    assert air.state["active"] == "landsend Home" and w.state()["mode"] == "client"


def test_a_wrong_password_with_nothing_up_before_brings_the_boards_own_wifi_up(tmp_path):
    air = Air(tmp_path, active=None)
    w = Wifi(SPOT, nmcli=air.command)
    w.join("Home", "not-the-password", background=False)
    assert w.trial["ok"] is False and w.trial["error"] == "Home refused the password"
    assert air.calls()[-1] == f"--wait 45 connection up id {AP_ON}" and air.state["active"] == AP_ON


def test_bad_names_and_passwords_are_refused_before_nmcli_runs(wifi, air):
    for ssid, password, message in [("", "", "1 to 32 bytes"), ("x" * 33, "", "1 to 32 bytes"),
                                    ("Home", "short", "8 to 63"), ("Home", "x" * 64, "8 to 63"),
                                    ("Lands End 4F2A", "whatever1", "the board's own Wi-Fi")]:
        with pytest.raises(ValueError, match=message):
            wifi.join(ssid, password, background=False)
    assert "calls" not in air.state


def test_hotspot_up_and_down(wifi, air):
    wifi.set_hotspot(False, background=False)
    assert air.state["active"] is None and wifi.state()["mode"] == "off"
    wifi.set_hotspot(True, background=False)
    assert air.state["active"] == AP_ON
    assert [c for c in air.calls() if "connection" in c and "show" not in c] == [f"--wait 30 connection down id {AP_ON}",
                                                              f"--wait 30 connection up id {AP_ON}"]
    with pytest.raises(WifiError, match="not set up here"):
        Wifi(None, nmcli=air.command).set_hotspot(True, background=False)


def test_one_change_at_a_time_and_a_missing_nmcli_is_named(wifi, tmp_path):
    wifi._busy = "join"
    with pytest.raises(WifiError, match="busy \\(join\\)") as exc:
        wifi.scan()
    assert exc.value.busy is True
    w = Wifi(SPOT, nmcli=[str(tmp_path / "no-such-nmcli")])
    with pytest.raises(WifiError, match="apt-get install network-manager"):
        w.scan()
    assert w.state()["error"] == "NetworkManager's nmcli is not installed (apt-get install network-manager)"


# ------------------------------------------------------------------ the board's files

def test_install_files_makes_the_password_once_and_names_the_wifi_after_the_board(tmp_path):
    root = tmp_path / "pi"
    serial = root / "sys/firmware/devicetree/base/serial-number"
    serial.parent.mkdir(parents=True)
    serial.write_bytes(b"10000000a1b24f2a\x00")
    install_files(root)
    spot = Hotspot.load(root / "etc/landsend/wifi.toml")
    assert spot.ssid == "Lands End 4F2A" and re.fullmatch(r"[a-km-np-z2-9]{12}", spot.password)
    profile = root / "etc/NetworkManager/system-connections/landsend-hotspot.nmconnection"
    assert profile.read_text() == hotspot_profile(spot)
    assert oct(profile.stat().st_mode & 0o777) == "0o600" and oct(profile.parent.stat().st_mode & 0o777) == "0o700"
    text = profile.read_text()
    for line in ("mode=ap", "ssid=Lands End 4F2A", f"psk={spot.password}", "method=shared",
                 "address1=10.42.0.1/24", "autoconnect-priority=-100", "key-mgmt=wpa-psk"):
        assert line in text.splitlines()
    # a fixed channel an access point may use under any regulatory domain: NetworkManager's own pick was
    # channel 13 on a board with no country set, where the access point never started (the Wi-Fi check)
    wifi_part = text.split("[wifi]\n")[1].split("\n[")[0].splitlines()
    assert "band=bg" in wifi_part and "channel=6" in wifi_part
    dropin = root / "etc/NetworkManager/dnsmasq-shared.d/landsend.conf"
    assert "address=/#/10.42.0.1" in dropin.read_text().splitlines()
    assert oct((root / "etc/landsend/wifi.toml").stat().st_mode & 0o777) == "0o640"
    install_files(root)                                        # again: the same name and password
    assert Hotspot.load(root / "etc/landsend/wifi.toml") == spot and profile.read_text() == text


# ------------------------------------------------------------------ the Wi-Fi screen's API

def make_app(tmp_path, *, wifi=None, portal=None, hosts=("localhost",)):
    cfg = {"TESTING": True, "STATE_DIR": str(tmp_path / "state"), "TRUSTED_HOSTS": list(hosts)}
    if portal is not None:
        cfg["PORTAL_ADDRESS"] = portal
    return create_app(cfg, table=Table.memory(), wifi=wifi)


def host_client(app):
    c = app.test_client()
    c.get("/")
    with c.session_transaction() as s:
        csrf = s["csrf"]
    h = {"Origin": "http://localhost", "X-CSRF-Token": csrf}
    assert c.post("/api/claim", json={}, headers=h).status_code == 200
    c.h = h
    return c


def test_the_wifi_screen_is_the_hosts_only(tmp_path, wifi, air):
    app = make_app(tmp_path, wifi=wifi)
    visitor = app.test_client()
    assert visitor.get("/api/wifi").status_code == 403
    assert visitor.get("/qr/wifi.svg").status_code == 403 and visitor.get("/card.svg").status_code == 403
    host = host_client(app)
    player = app.test_client()
    player.get("/")
    with player.session_transaction() as s:
        ph = {"Origin": "http://localhost", "X-CSRF-Token": s["csrf"]}
    code = app.extensions["landsend"].access.join_code
    assert player.post("/api/join", json={"code": code}, headers=ph).status_code == 200
    assert player.get("/api/wifi").status_code == 403
    assert player.post("/api/wifi/join", json={"ssid": "Home", "password": "kettle-on-please"},
                       headers=ph).status_code == 403
    assert player.get("/qr/page.svg").status_code == 200          # the address is no secret
    assert "calls" not in air.state or not any("connection add" in c for c in air.calls())
    state = host.get("/api/wifi").get_json()
    assert state["hotspot"] == {"ssid": "Lands End 4F2A", "password": "kq7mzt3hwp9x", "address": "10.42.0.1"}
    assert state["mode"] == "hotspot" and state["page"] == "http://localhost/"


def test_scan_join_wrong_password_and_move_through_the_api(tmp_path, wifi, air):
    host = host_client(make_app(tmp_path, wifi=wifi))
    nets = host.post("/api/wifi/scan", json={}, headers=host.h).get_json()["networks"]
    assert [n["ssid"] for n in nets] == ["Cafe", "Pub: Guest", "Home"]
    r = host.post("/api/wifi/join", json={"ssid": "Home", "password": "wrong-password"}, headers=host.h)
    assert r.status_code == 202
    wifi.wait(30)
    state = host.get("/api/wifi").get_json()
    assert state["trial"]["error"] == "Home refused the password" and state["mode"] == "hotspot"
    assert host.post("/api/wifi/move", json={}, headers=host.h).status_code == 502
    r = host.post("/api/wifi/join", json={"ssid": "Home", "password": "kettle-on-please"}, headers=host.h)
    assert r.status_code == 202
    wifi.wait(30)
    state = host.get("/api/wifi").get_json()
    assert state["trial"] == {"ssid": "Home", "ok": True, "address": "10.0.0.7", "error": None, "moved": False}
    assert host.post("/api/wifi/move", json={}, headers=host.h).status_code == 202
    wifi.wait(30)
    assert host.get("/api/wifi").get_json()["connection"] == "landsend Home"
    assert host.post("/api/wifi/join", json={"ssid": "Home", "password": "short"},
                     headers=host.h).get_json() == {"error": "a Wi-Fi password is 8 to 63 characters "
                                                             "(or none for an open network)"}
    assert host.post("/api/wifi/hotspot", json={"on": "yes"}, headers=host.h).status_code == 400
    assert host.post("/api/wifi/hotspot", json={"on": True}, headers=host.h).status_code == 202
    wifi.wait(30)
    assert air.state["active"] == AP_ON


def test_the_pages_answer_goes_out_before_the_board_leaves_its_network(tmp_path, air):
    # a move answered over the board's own Wi-Fi: the board left it at once and the phone never got the 202
    wifi = Wifi(SPOT, nmcli=air.command, leave_delay=1.0)
    wifi.join("Home", "kettle-on-please", background=False)
    host = host_client(make_app(tmp_path, wifi=wifi))
    n = len(air.calls())
    r = host.post("/api/wifi/move", json={}, headers=host.h)
    assert r.status_code == 202 and r.get_json()["busy"] == "move"
    assert air.calls(n) == [c for c in air.calls(n) if "connection up" not in c]   # still on its own Wi-Fi
    assert air.state["active"] == AP_ON
    wifi.wait(30)
    assert air.state["active"] == "landsend Home" and "--wait 45 connection up id landsend Home" in air.calls(n)


def test_a_change_while_another_runs_is_409_and_no_wifi_control_is_404(tmp_path, wifi):
    host = host_client(make_app(tmp_path, wifi=wifi))
    wifi._busy = "join"
    r = host.post("/api/wifi/scan", json={}, headers=host.h)
    assert r.status_code == 409 and "busy (join)" in r.get_json()["error"]
    wifi._busy = None
    bare = host_client(make_app(tmp_path / "bare"))
    assert bare.get("/api/wifi").status_code == 404
    assert bare.get("/qr/wifi.svg").status_code == 404
    assert bare.get("/card.svg").status_code == 200                 # the card without the Wi-Fi part


# ------------------------------------------------------------------ captive-portal answers

PLATFORM_CHECKS = {
    "android": ("connectivitycheck.gstatic.com", "/generate_204"),
    "apple": ("captive.apple.com", "/hotspot-detect.html"),
    "windows": ("www.msftconnecttest.com", "/connecttest.txt"),
    "firefox": ("detectportal.firefox.com", "/canonical.html"),
}


@pytest.mark.parametrize("platform", sorted(PLATFORM_CHECKS))
def test_each_platforms_check_is_sent_to_the_page_on_the_boards_wifi(tmp_path, platform):
    app = make_app(tmp_path, portal="10.42.0.1")
    hub = app.extensions["landsend"]
    before = hub.table.snapshot()["seq"], hub.access.epoch
    host, path = PLATFORM_CHECKS[platform]
    c = app.test_client()
    r = c.get(path, headers={"Host": host})
    assert r.status_code == 302 and r.headers["Location"] == "http://10.42.0.1/?portal=1"
    assert "Set-Cookie" not in r.headers and r.headers["Cache-Control"] == "no-store"
    assert c.head(path, headers={"Host": host + ":80"}).status_code == 302
    assert (hub.table.snapshot()["seq"], hub.access.epoch) == before        # they change nothing
    # the page they lead to passes the Host check (the board's own address)
    page = make_app(tmp_path / "p", portal="10.42.0.1", hosts=("10.42.0.1",)).test_client()
    assert page.get("/?portal=1", headers={"Host": "10.42.0.1"}).status_code == 200


def test_every_listed_check_answers_and_nothing_else_passes_the_host_check(tmp_path):
    c = make_app(tmp_path, portal="10.42.0.1").test_client()
    assert {CHECKS[k] for k in CHECKS} == {"android", "apple", "windows", "firefox"}
    for (host, path) in CHECKS:
        assert c.get(path, headers={"Host": host}).status_code == 302, (host, path)
    for host, path in [("captive.apple.com", "/api/table"), ("connectivitycheck.gstatic.com", "/"),
                       ("evil.example", "/generate_204"), ("www.msftconnecttest.com", "/card.svg")]:
        r = c.get(path, headers={"Host": host})
        assert r.status_code == 400 and f"Host '{host}' is not trusted." in r.get_data(as_text=True), (host, path)
    r = c.post("/generate_204", headers={"Host": "connectivitycheck.gstatic.com"})   # only GET and HEAD
    assert r.status_code in (400, 403) and "Location" not in r.headers


@pytest.mark.parametrize("platform", sorted(PLATFORM_CHECKS))
def test_without_the_boards_own_wifi_the_host_check_refuses_the_checks(tmp_path, platform):
    host, path = PLATFORM_CHECKS[platform]
    r = make_app(tmp_path).test_client().get(path, headers={"Host": host})
    assert r.status_code == 400 and f"Host '{host}' is not trusted." in r.get_data(as_text=True)


def test_the_hotspot_address_is_the_portal_address_by_default(tmp_path, wifi):
    r = make_app(tmp_path, wifi=wifi).test_client().get("/generate_204", headers={"Host": "clients3.google.com"})
    assert r.headers["Location"] == "http://10.42.0.1/?portal=1"


# ------------------------------------------------------------------ QR codes, decoded

def raster(svg: str, px: float) -> tuple[memoryview, int, int]:
    """Return a grey image of the QR codes drawn in ``svg`` (its path rectangles), ``px`` pixels per unit."""
    box = [float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split()]
    w, h = int(box[2] * px), int(box[3] * px)
    img = bytearray(b"\xff" * (w * h))
    groups = re.findall(r'<g transform="translate\(([\d.]+) ([\d.]+)\) scale\(([\d.]+)\)">.*?d="([^"]+)"', svg)
    if not groups:
        groups = [("0", "0", "1", d) for d in re.findall(r'<path fill="#000" d="([^"]+)"', svg)]
    for tx, ty, s, d in groups:
        tx, ty, s = float(tx), float(ty), float(s)
        for x, y, n in re.findall(r"M([\d.]+),([\d.]+)h(\d+)v1h-\d+z", d):
            x0, y0 = round((tx + s * float(x)) * px), round((ty + s * float(y)) * px)
            x1, y1 = round((tx + s * (float(x) + int(n))) * px), round((ty + s * (float(y) + 1)) * px)
            for row in range(y0, y1):
                img[row * w + x0:row * w + x1] = b"\x00" * (x1 - x0)
    return memoryview(bytes(img)).cast("B", (h, w)), w, h


def decode(svg: str, px: float) -> list[str]:
    zxingcpp = pytest.importorskip("zxingcpp")
    image, _, _ = raster(svg, px)
    found = zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)
    return sorted(b.text for b in found)


def test_wifi_uri_escapes_what_the_format_reserves():
    assert wifi_uri("Lands End 4F2A", "kq7mzt3hwp9x") == "WIFI:T:WPA;S:Lands End 4F2A;P:kq7mzt3hwp9x;;"
    assert wifi_uri('a;b,c:d"e\\', "p;ss") == 'WIFI:T:WPA;S:a\\;b\\,c\\:d\\"e\\\\;P:p\\;ss;;'
    assert wifi_uri("Open", "") == "WIFI:T:nopass;S:Open;;"


def test_the_cards_two_codes_decode_to_the_wifi_and_the_page():
    svg = card_svg("http://10.42.0.1/", ssid="Lands End 4F2A", password="kq7mzt3hwp9x")
    assert decode(svg, 8) == sorted(["WIFI:T:WPA;S:Lands End 4F2A;P:kq7mzt3hwp9x;;", "http://10.42.0.1/"])
    assert "Wi-Fi: Lands End 4F2A" in svg and "Password: kq7mzt3hwp9x" in svg and 'width="105mm"' in svg
    only_page = card_svg("http://landsend.local/")
    assert decode(only_page, 8) == ["http://landsend.local/"] and "Wi-Fi" not in only_page


def test_the_pages_codes_and_card_decode_to_what_this_board_has(tmp_path, wifi):
    host = host_client(make_app(tmp_path, wifi=wifi))
    assert decode(host.get("/qr/page.svg").get_data(as_text=True), 6) == ["http://localhost/"]
    wifi_svg = host.get("/qr/wifi.svg")
    assert wifi_svg.mimetype == "image/svg+xml"
    assert decode(wifi_svg.get_data(as_text=True), 6) == ["WIFI:T:WPA;S:Lands End 4F2A;P:kq7mzt3hwp9x;;"]
    card = host.get("/card.svg?download=1")
    assert card.headers["Content-Disposition"] == 'attachment; filename="landsend-card.svg"'
    assert decode(card.get_data(as_text=True), 8) == sorted(["WIFI:T:WPA;S:Lands End 4F2A;P:kq7mzt3hwp9x;;",
                                                             "http://localhost/"])


def card_command(*args):
    """Run ``landsend card`` in its own process (importing firmware.cli here would add its commands to the
    registry test_cli.py checks, in whichever test runs next in this worker)."""
    out = subprocess.run([sys.executable, "-m", "firmware.cli", "card", *args], capture_output=True, text=True,
                         timeout=60)
    return out.returncode, out.stderr


def test_the_card_command_writes_the_card_from_the_installed_wifi(tmp_path):
    install_files(tmp_path / "pi")
    spot = Hotspot.load(tmp_path / "pi/etc/landsend/wifi.toml")
    out = tmp_path / "card.svg"
    assert card_command("--wifi", str(tmp_path / "pi/etc/landsend/wifi.toml"), "--out", str(out))[0] == 0
    assert decode(out.read_text(), 8) == sorted([f"WIFI:T:WPA;S:{spot.ssid};P:{spot.password};;",
                                                 "http://10.42.0.1/"])
    assert card_command("--no-wifi", "--address", "http://192.168.1.23/", "--out", str(out))[0] == 0
    assert decode(out.read_text(), 8) == ["http://192.168.1.23/"]


def test_the_card_command_refuses_a_bad_address_or_a_missing_wifi_file(tmp_path):
    code, err = card_command("--no-wifi", "--address", "landsend.local", "--out", str(tmp_path / "c.svg"))
    assert (code, err) == (2, "landsend card: --address must be an http:// address, got 'landsend.local'\n")
    assert card_command("--wifi", str(tmp_path / "none.toml"), "--out", str(tmp_path / "c.svg"))[0] == 2
    assert not (tmp_path / "c.svg").exists()


def test_a_standalone_code_decodes():
    assert decode(qr_svg("http://landsend.local/", title="t"), 5) == ["http://landsend.local/"]


def test_card_text_is_escaped():
    svg = card_svg("http://x/?a=1&b=<2>", ssid="Tom & Jerry's <AP>", password="p&ss<word>")
    assert "Tom &amp; Jerry's &lt;AP&gt;" in svg and "http://x/?a=1&amp;b=&lt;2&gt;" in svg
    assert io.StringIO(svg).read().count("<svg") == 1


# ------------------------------------------------------------------ the daemon composes it

def test_the_daemon_gives_the_page_its_wifi_and_a_long_menu_hold_brings_the_hotspot_back(tmp_path, monkeypatch):
    import shlex

    from firmware.daemon import build, make_wifi
    air = Air(tmp_path, active=None)
    wifi_file = tmp_path / "wifi.toml"
    wifi_file.write_text(f'ssid = "{SPOT.ssid}"\npassword = "{SPOT.password}"\n')
    assert make_wifi(sim=True, env={}) is None                # the simulator has no Wi-Fi unless told
    monkeypatch.setenv("LANDSEND_NMCLI", shlex.join(air.command))
    monkeypatch.setenv("LANDSEND_WIFI", str(wifi_file))
    d = build(sim=True, db=tmp_path / "table.db")
    try:
        assert d.app.extensions["landsend.wifi"] is d.wifi and d.wifi.hotspot == SPOT
        d.buttons.press("menu", seconds=10.5)
        d.wifi.wait(30)
        assert air.state["active"] == AP_ON
        assert air.calls()[-1] == f"--wait 30 connection up id {AP_ON}"
    finally:
        d.close()


def test_the_page_a_sign_in_sheet_opens_says_how_to_get_out_of_it(tmp_path):
    c = make_app(tmp_path, hosts=("10.42.0.1",)).test_client()
    sheet = c.get("/?portal=1", headers={"Host": "10.42.0.1"}).get_data(as_text=True)
    assert 'id="portal-note"' in sheet and "sign-in window" in sheet
    assert 'href="http://10.42.0.1/"' in sheet and "Use without Internet" in sheet
    plain = c.get("/", headers={"Host": "10.42.0.1"}).get_data(as_text=True)
    assert "portal-note" not in plain


def test_the_card_escapes_as_xml_sax_did():
    """web.card escapes its text itself (xml.sax and urllib.request are not imported for the start-up):
    byte for byte what ``xml.sax.saxutils.escape`` gave, the title's quotes included."""
    from xml.sax.saxutils import escape

    from web.card import _escape
    for text in ('Tom & Jerry\'s <"net">', "&amp; already", "plain", ""):
        assert _escape(text) == escape(text)
        assert _escape(text, quote=True) == escape(text, {'"': "&quot;"})


# ------------------------------------------------------------------ a lost network NetworkManager keeps up

def _watch(air, carriers, lost_after=30.0):
    from firmware.wifi import LinkWatch
    now = [1000.0]
    wifi = Wifi(SPOT, nmcli=air.command, leave_delay=0)
    watch = LinkWatch(wifi, carriers=lambda: dict(carriers), clock=lambda: now[0], lost_after=lost_after)
    return wifi, watch, now


def test_a_network_kept_connected_with_no_link_for_30_s_gives_way_to_the_boards_own_wifi(tmp_path):
    # the Wi-Fi check's finding: the home access point gone, NetworkManager still says connected
    air = Air(tmp_path, active="landsend Home",
              profiles={AP_ON: {"ssid": SPOT.ssid, "mode": "ap"}, "landsend Home": {"ssid": "Home", "psk": HOME["password"]}})
    carriers = {"wlan0": False}
    wifi, watch, now = _watch(air, carriers)
    assert watch.check() is None and air.calls() == []          # the first look: the spell starts, no nmcli
    now[0] += 29.0
    assert watch.check() is None and air.calls() == []          # 29 s: NetworkManager's own 15 s may still act
    now[0] += 1.0
    said = watch.check()
    assert said == ("wifi: wlan0 had no link for 30 s on landsend Home, which NetworkManager still called "
                    "connected: the board's own Wi-Fi is up")
    assert air.calls() == ["-t -f DEVICE,TYPE,STATE,CONNECTION device status",
                           "--wait 30 connection up id landsend-hotspot"]
    assert air.state["active"] == AP_ON and wifi.state()["mode"] == "hotspot" and wifi.state()["busy"] is None
    # the hotspot up: a carrier again, nothing more is done
    carriers["wlan0"] = True
    n = len(air.calls())
    now[0] += 60.0
    assert watch.check() is None and len(air.calls()) == n


def test_the_link_watch_leaves_alone_a_link_that_comes_back_the_hotspot_a_busy_screen_and_nothing_up(tmp_path):
    air = Air(tmp_path, active="landsend Home",
              profiles={AP_ON: {"ssid": SPOT.ssid, "mode": "ap"}, "landsend Home": {"ssid": "Home", "psk": HOME["password"]}})
    carriers = {"wlan0": False}
    wifi, watch, now = _watch(air, carriers)
    watch.check()
    now[0] += 20.0
    carriers["wlan0"] = True                     # the link came back within the spell: a new spell next time
    assert watch.check() is None
    carriers["wlan0"] = False
    now[0] += 20.0
    assert watch.check() is None and air.calls() == []
    # a change the page asked for is running (a try leaves the board without a link on purpose)
    now[0] += 40.0
    wifi._busy = "join"
    assert watch.check() is None and air.calls() == []
    wifi._busy = None
    # NetworkManager itself has nothing up (connecting, or no profile): it is left to it, looked at once a spell
    air.path.write_text(json.dumps({**air.state, "active": None}))
    assert watch.check() is None
    assert air.calls() == ["-t -f DEVICE,TYPE,STATE,CONNECTION device status"]
    assert watch.check() is None and len(air.calls()) == 1       # not again until another 30 s
    # on the board's own Wi-Fi with no carrier (NetworkManager restarting it): left alone
    air.path.write_text(json.dumps({**air.state, "active": AP_ON}))
    now[0] += 30.0
    assert watch.check() is None and air.calls()[-1] == "-t -f DEVICE,TYPE,STATE,CONNECTION device status"
    assert air.state["active"] == AP_ON


def test_the_link_watch_reads_the_carrier_of_wifi_devices_only(tmp_path):
    from firmware.wifi import wifi_carriers
    for name, carrier, wifi in (("wlan0", "0\n", True), ("wlan1", "1\n", True), ("eth0", "1\n", False),
                                ("wlan2", None, True)):
        d = tmp_path / name
        d.mkdir()
        if wifi:
            (d / "phy80211").mkdir()
        if carrier is not None:
            (d / "carrier").write_text(carrier)
    # wlan2 is down: reading its carrier fails (EINVAL on a real board), so no link
    assert wifi_carriers(tmp_path) == {"wlan0": False, "wlan1": True, "wlan2": False}
