"""The More screen's address and Wi-Fi panels in Chromium at 390x844 and 360x740, with nmcli replaced by the
recording fake (tests/fake_nmcli.py): scan, a wrong password, a network that works, moving to it, the hotspot
switched back on; the QR codes Chromium draws are decoded from screenshots."""

import struct
import sys
import zlib
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import claim, shot, until

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from test_wifi import AP_ON, SPOT, Air  # noqa: E402

from firmware.wifi import Wifi  # noqa: E402

SIZES = [{"width": 390, "height": 844}, {"width": 360, "height": 740}]


def png_grey(data: bytes):
    """Return (grey bytes, width, height) of an 8-bit RGB/RGBA non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, hgt, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    prev, out = bytearray(stride), bytearray()
    for y in range(hgt):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += bytes((line[i] + line[i + 1] + line[i + 2]) // 3 for i in range(0, stride, bpp))
        prev = line
    return bytes(out), w, hgt


def decoded(locator) -> list[str]:
    """Return the QR codes zxing reads in a screenshot of ``locator`` (a few looks: an image that has just
    loaded may not be painted yet)."""
    zxingcpp = pytest.importorskip("zxingcpp")
    for _ in range(5):
        grey, w, h = png_grey(locator.screenshot())
        found = [b.text for b in zxingcpp.read_barcodes(memoryview(grey).cast("B", (h, w)),
                                                        formats=zxingcpp.BarcodeFormat.QRCode)]
        if found:
            return found
        locator.page.wait_for_timeout(300)
    return []


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_the_hosts_wifi_screen_scans_tries_moves_and_brings_the_hotspot_back(make_server, phones, tmp_path, size):
    air = Air(tmp_path)
    wifi = Wifi(SPOT, nmcli=air.command)
    server = make_server(wifi=wifi)
    page = phones(server.url)
    page.set_viewport_size(size)
    claim(page)
    page.click("[data-tab=more]")
    expect(page.locator("#address-url")).to_have_text(server.url + "/")
    expect(page.locator("#wifi-now")).to_have_text(
        "The board runs its own Wi-Fi, Lands End 4F2A: phones open http://10.42.0.1/.")
    expect(page.locator("#wifi-pass")).to_have_text(SPOT.password)
    # (polled from Python: wait_for_function evaluates its string with eval, which the page's CSP refuses
    # whenever the images are not loaded at the first look)
    until(page, lambda: page.evaluate("document.getElementById('wifi-qr').naturalWidth > 0 && "
                                      "document.getElementById('address-qr').naturalWidth > 0"))
    assert decoded(page.locator("#address-qr")) == [server.url + "/"]
    assert decoded(page.locator("#wifi-qr")) == [f"WIFI:T:WPA;S:{SPOT.ssid};P:{SPOT.password};;"]
    expect(page.locator("#card-open")).to_have_attribute("href", "/card.svg")
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]

    page.click("#wifi-scan")
    expect(page.locator("#wifi-list button")).to_have_count(3)
    expect(page.locator("#wifi-list .wifi-name")).to_have_text(["Cafe", "Pub: Guest", "Home"])
    assert air.calls()[-1] == "-t -f IN-USE,SSID,SIGNAL,SECURITY device wifi list --rescan yes"

    # a wrong password: the board comes back to its own Wi-Fi and says so
    page.click("#wifi-list [data-ssid='Home']")
    page.fill("#wifi-password", "not-the-password")
    page.click("#wifi-try")
    expect(page.locator("#wifi-trial")).to_have_text("Home refused the password", timeout=60000)
    assert "connection delete id landsend-try Home" in air.calls() and air.state["active"] == AP_ON

    # the right one: it works, the page says the board's address there, and Move switches for good
    page.click("#wifi-list [data-ssid='Home']")
    page.fill("#wifi-password", "kettle-on-please")
    page.click("#wifi-try")
    expect(page.locator("#wifi-works")).to_have_text("Home works: the board will be at http://10.0.0.7/ there.",
                                                     timeout=60000)
    shot(page, f"wifi-{size['width']}")
    assert air.state["active"] == AP_ON
    page.click("#wifi-move")
    expect(page.locator("#wifi-now")).to_have_text("The board is on Home, at http://10.0.0.7/.", timeout=60000)
    expect(page.locator("#wifi-trial")).to_contain_text("The board is on Home now")
    assert air.state["active"] == "landsend Home"

    # and the board's own Wi-Fi back from the page
    page.click("#wifi-hotspot")
    # Home is saved (autoconnect): on its own Wi-Fi the board says it waits for Home, and how it gets there
    expect(page.locator("#wifi-now")).to_have_text(
        "The board runs its own Wi-Fi, Lands End 4F2A: phones open http://10.42.0.1/. It does not reach Home: "
        "it joins Home at its next start when in reach, or now with Scan and Try it.", timeout=60000)
    assert f"--wait 30 connection up id {AP_ON}" in air.calls()
    assert air.state["active"] == AP_ON
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    assert page.errors == []


def test_other_phones_see_the_address_but_not_the_wifi(make_server, phones, tmp_path):
    air = Air(tmp_path)
    server = make_server(wifi=Wifi(SPOT, nmcli=air.command))
    host = phones(server.url)
    claim(host)
    visitor = phones(server.url)
    visitor.set_viewport_size(SIZES[1])
    visitor.click("[data-tab=more]")
    expect(visitor.locator("#address-url")).to_have_text(server.url + "/")
    expect(visitor.locator("#wifi")).to_be_hidden()
    expect(visitor.locator("#card-box")).to_be_hidden()
    until(visitor, lambda: visitor.evaluate("document.getElementById('address-qr').naturalWidth > 0"))
    assert decoded(visitor.locator("#address-qr")) == [server.url + "/"]
    assert visitor.errors == []
