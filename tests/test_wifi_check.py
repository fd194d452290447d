"""The fast parts of scripts/wifi-check.sh (the boots stay out of the suite, like the boot check): the radio
plan, the files it writes for hostapd, dnsmasq, wpa_supplicant and udhcpc, its mDNS question and answer, and
the QR reader that decodes the table card's WIFI: code from the card's SVG without a new dependency."""

import socket
import string
import struct
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts" / "image"))

import qr_read  # noqa: E402
import wifi_check  # noqa: E402
from web.card import card_svg, qr_matrix, qr_svg, wifi_uri  # noqa: E402


# ------------------------------------------------------------------ the radio plan

def test_the_lowest_radio_is_the_boards_the_next_the_phones_the_last_the_home_networks():
    plan = wifi_check.radio_plan({"phy10": ["wlan2"], "phy8": ["wlan0"], "phy9": ["wlan1"]})
    assert plan == {"board": {"phy": "phy8", "dev": "wlan0"}, "phone": {"phy": "phy9", "dev": "wlan1"},
                    "home": {"phy": "phy10", "dev": "wlan2"}}          # phy10 after phy9: by number, not text
    assert wifi_check.radio_commands(plan) == [
        ["ip", "netns", "add", "phone"], ["iw", "phy", "phy9", "set", "netns", "name", "phone"],
        ["ip", "-n", "phone", "link", "set", "lo", "up"],
        ["ip", "netns", "add", "home"], ["iw", "phy", "phy10", "set", "netns", "name", "home"],
        ["ip", "-n", "home", "link", "set", "lo", "up"],
        ["ip", "-n", "home", "addr", "add", "192.168.77.1/24", "dev", "wlan2"],
        ["ip", "-n", "home", "link", "set", "wlan2", "up"]]


@pytest.mark.parametrize("phys, why", [
    ({"phy0": ["wlan0"], "phy1": ["wlan1"]}, "needs 3 simulated radios, found 2: phy0, phy1"),
    ({}, "found 0: none"),
    ({"phy0": ["wlan0"], "phy1": ["wlan1"], "phy2": ["wlan2"], "phy3": ["wlan3"]}, "found 4"),
    ({"phy0": ["wlan0"], "phy1": [], "phy2": ["wlan2"]}, "phy1 has 0 network devices"),
])
def test_a_radio_plan_without_three_radios_of_one_device_each_is_refused(phys, why):
    with pytest.raises(ValueError, match=why):
        wifi_check.radio_plan(phys)


# ------------------------------------------------------------------ the files the check writes

def test_hostapd_runs_a_wpa2_ccmp_access_point_named_in_hex():
    text = wifi_check.hostapd_conf("wlan2", "Check: Home", "home-pass-8642", channel=6)
    conf = dict(line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    assert conf == {"interface": "wlan2", "driver": "nl80211", "ctrl_interface": "/run/wifi-check/hostapd",
                    "ssid2": "436865636b3a20486f6d65", "hw_mode": "g", "channel": "6", "wpa": "2",
                    "wpa_key_mgmt": "WPA-PSK", "rsn_pairwise": "CCMP", "wpa_passphrase": "home-pass-8642"}
    assert bytes.fromhex(conf["ssid2"]).decode() == "Check: Home"


@pytest.mark.parametrize("ssid, password, why", [
    ("", "home-pass-8642", "1 to 32 bytes"),
    ("x" * 33, "home-pass-8642", "1 to 32 bytes"),
    ("two\nlines", "home-pass-8642", "1 to 32 bytes"),
    ("Home", "short", "8 to 63"),
    ("Home", "p" * 64, "8 to 63"),
    ("Home", "line\nbreak-in-it", "8 to 63"),
])
def test_bad_names_and_passphrases_write_no_file(ssid, password, why):
    for make in (lambda: wifi_check.hostapd_conf("wlan2", ssid, password), lambda: wifi_check.wpa_conf(ssid, password)):
        with pytest.raises(ValueError, match=why):
            make()


def test_the_home_dhcp_server_hands_out_its_range_and_names_itself_the_router_without_dns():
    text = wifi_check.dnsmasq_conf("wlan2", "192.168.77")
    lines = [x for x in text.splitlines() if not x.startswith("#")]
    assert lines == ["interface=wlan2", "bind-interfaces", "port=0", "dhcp-range=192.168.77.10,192.168.77.99,255.255.255.0,1h",
                     "dhcp-option=option:router,192.168.77.1", "dhcp-leasefile=/run/wifi-check/home.leases",
                     "dhcp-authoritative", "user=root", "pid-file=/run/wifi-check/home-dnsmasq.pid"]


def test_the_phone_asks_for_wpa2_with_ccmp_only_and_the_cards_passphrase_as_given():
    text = wifi_check.wpa_conf("Lands End 4F2A", 'kq7"mzt3hwp9x')
    assert "ssid=4c616e647320456e642034463241\n" in text
    assert '    psk="kq7"mzt3hwp9x"\n' in text                # wpa_supplicant reads to the line's last quote
    for want in ("key_mgmt=WPA-PSK", "proto=RSN", "pairwise=CCMP", "group=CCMP"):
        assert f"    {want}\n" in text


def test_udhcpc_writes_the_name_server_into_the_namespaces_own_resolv_conf(tmp_path):
    script = wifi_check.udhcpc_script("phone")
    assert script.startswith("#!/bin/sh\n")
    assert "/etc/netns/phone/resolv.conf" in script and "/etc/resolv.conf" not in script.replace("/etc/netns/phone/resolv.conf", "")
    assert 'ip addr add "$ip/${mask:-24}" dev "$interface"' in script


def test_the_units_run_the_radios_and_the_home_network_before_networkmanager_and_only_in_the_check():
    radios = wifi_check.UNITS["wifi-check-radios.service"]
    home = wifi_check.UNITS["wifi-check-home.service"]
    phone = wifi_check.UNITS["wifi-check-phone.service"]
    assert "Before=NetworkManager.service" in radios and "Before=NetworkManager.service" in home
    assert "Before=NetworkManager.service" not in phone         # the phone waits; it never holds the board up
    assert "ConditionPathExists=/etc/wifi-check/home-on" in home and "Type=simple" in home
    assert "ConditionPathExists=/etc/wifi-check/phone.conf" in phone and "RemainAfterExit=yes" in phone
    # the phone stays on its network after the unit's own process ends, however it ends (a failed unit's
    # leftovers are killed: the phone left the home network and its mDNS question met nobody)
    assert "KillMode=process" in phone and "KillMode" not in radios + home
    # the phone runs in its own namespace, on its own radio (in the root namespace it found no wlan1)
    assert "ExecStart=/usr/bin/env ip netns exec phone /usr/bin/python3 /etc/wifi-check/wifi_check.py guest " \
           "phone-boot" in phone
    assert "ExecStart=/usr/bin/python3 /etc/wifi-check/wifi_check.py guest radios" in radios


def test_the_mdns_question_and_an_answer_with_a_compressed_name():
    q = wifi_check.mdns_query("landsend.local", 7)
    assert q == bytes.fromhex("000700000001000000000000") + b"\x08landsend\x05local\x00" + b"\x00\x01\x00\x01"
    # the answer repeats the question and points its record's name back at it (offset 12)
    answer = (struct.pack("!HHHHHH", 7, 0x8400, 1, 1, 0, 0) + b"\x08landsend\x05local\x00\x00\x01\x00\x01"
              + b"\xc0\x0c" + struct.pack("!HHIH", 1, 0x8001, 120, 4) + socket.inet_aton("192.168.77.23"))
    assert wifi_check.mdns_answer(answer, "landsend.local") == "192.168.77.23"
    assert wifi_check.mdns_answer(answer, "other.local") is None


# ------------------------------------------------------------------ the card's QR codes, read back

def test_the_cards_two_codes_read_back_to_its_wifi_and_its_page():
    card = card_svg("http://10.42.0.1/", ssid="Lands End; 4F2A", password='kq7:mz\\t3"hw')
    codes = qr_read.svg_codes(card)
    assert [qr_read.decode(c) for c in codes] == [wifi_uri("Lands End; 4F2A", 'kq7:mz\\t3"hw'), "http://10.42.0.1/"]
    assert qr_read.wifi_fields(qr_read.decode(codes[0])) == {"T": "WPA", "S": "Lands End; 4F2A", "P": 'kq7:mz\\t3"hw'}
    assert codes[0] == [list(map(bool, row)) for row in qr_matrix(wifi_uri("Lands End; 4F2A", 'kq7:mz\\t3"hw'))]


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.text(alphabet=string.digits, min_size=1, max_size=120),
                 st.text(alphabet=qr_read.ALNUM, min_size=1, max_size=120),
                 st.text(min_size=1, max_size=90).filter(lambda t: "\0" not in t)))
def test_any_text_up_to_version_10_reads_back_as_qrcode_wrote_it(text):
    # (tests/test_wifi.py reads the card with zxing-cpp from a raster: this reader needs neither)
    matrix = qr_matrix(text)
    if len(matrix) > 57:
        return                                          # past version 10: not a code the card draws
    assert qr_read.decode(matrix) == text
    svg = qr_svg(text, title="t")
    assert qr_read.decode(qr_read.svg_codes(svg)[0]) == text


@pytest.mark.parametrize("mangle, why", [
    (lambda g: g[:-1], "not a QR code"),
    (lambda g: [[not x for x in row] if i == 8 else row for i, row in enumerate(g)], "format information"),
])
def test_a_grid_that_is_no_clean_code_is_refused(mangle, why):
    with pytest.raises(qr_read.QrError, match=why):
        qr_read.decode(mangle(qr_matrix("WIFI:T:WPA;S:x;P:yyyyyyyy;;")))


@pytest.mark.parametrize("uri, why", [("http://10.42.0.1/", "not a WIFI: code"), ("WIFI:T:WPA;S:x;P:y", "not a WIFI: code"),
                                      ("WIFI:WPA;;", "a field without a name")])
def test_a_string_that_is_no_wifi_code_is_refused(uri, why):
    with pytest.raises(qr_read.QrError, match=why):
        qr_read.wifi_fields(uri)
