"""The image's setup at boot (firmware/firstboot.py) on a fake root: the board's Wi-Fi, the network to join,
SSH, the daemon's config and the table card from landsend.toml; a malformed file changes nothing; growing
the root; the boot pattern on the LEDs; the refusal on the page."""

import json
import os
import tomllib
from pathlib import Path

import pytest

from firmware import firstboot
from firmware.config import DEFAULTS, loads
from firmware.geometry import Geometry

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHt8mXhR0qDo3cN9bqTqKxLr1wY2c6Rw4Q1Cq4m1S8Yb ann@laptop"
GOOD = (f'name = "Pub Table"\nhotspot_password = "pub-secret-9"\n[wifi]\nssid = "Home"\npassword = "homepass1"\n'
        f'[ssh]\nenabled = true\nauthorized_keys = ["{KEY}"]\n[strip]\ndriver = "sim"\n')


@pytest.fixture
def fake(tmp_path):
    root, boot = tmp_path / "root", tmp_path / "boot"
    (root / "etc/ssh").mkdir(parents=True)
    (root / "etc/machine-id").write_text("0123456789abcdef0123456789ab4f2a\n")
    boot.mkdir()
    return root, boot


def tree(path: Path) -> dict:
    return {str(p.relative_to(path)): (p.read_bytes(), p.stat().st_mode) for p in sorted(path.rglob("*")) if p.is_file()}


def test_a_new_board_without_a_settings_file_gets_its_name_a_password_the_hotspot_and_no_ssh(fake):
    root, boot = fake
    out = firstboot.apply(root, boot)
    assert out.status == {"settings": "absent", "error": None, "file": str(boot / "landsend.toml"),
                          "ssid": "Lands End 4F2A"}
    spot = tomllib.loads((root / "etc/landsend/wifi.toml").read_text())
    assert spot["ssid"] == "Lands End 4F2A" and len(spot["password"]) == 12
    assert (root / "etc/landsend/wifi.toml").stat().st_mode & 0o777 == 0o640
    profile = root / "etc/NetworkManager/system-connections/landsend-hotspot.nmconnection"
    assert "ssid=Lands End 4F2A" in profile.read_text() and f"psk={spot['password']}" in profile.read_text()
    assert profile.stat().st_mode & 0o777 == 0o600
    assert (root / firstboot.SSH_OFF).exists() and not (root / firstboot.AUTHORIZED_KEYS).exists()
    assert not out.ssh_host_keys
    assert loads((root / firstboot.CONFIG).read_text()) == DEFAULTS
    assert "Lands End 4F2A" in out.card and spot["password"] in out.card and "http://10.42.0.1/" in out.card
    # the next boot keeps the password, and the card on the boot partition is not written again
    (boot / firstboot.CARD).write_text(out.card)
    again = firstboot.apply(root, boot)
    assert tomllib.loads((root / "etc/landsend/wifi.toml").read_text()) == spot
    assert again.card is None and again.changes == []


def test_a_good_file_names_the_wifi_sets_its_password_joins_a_network_turns_ssh_on_and_configures_the_strip(fake):
    root, boot = fake
    first = firstboot.apply(root, boot)
    (boot / firstboot.CARD).write_text(first.card)
    (boot / "landsend.toml").write_text(GOOD)
    out = firstboot.apply(root, boot)
    assert out.status["settings"] == "ok" and out.status["ssid"] == "Pub Table"
    spot = tomllib.loads((root / "etc/landsend/wifi.toml").read_text())
    assert (spot["ssid"], spot["password"]) == ("Pub Table", "pub-secret-9")
    hotspot = (root / "etc/NetworkManager/system-connections/landsend-hotspot.nmconnection").read_text()
    assert "ssid=Pub Table\n" in hotspot and "psk=pub-secret-9\n" in hotspot and "autoconnect-priority=-100" in hotspot
    join = root / firstboot.JOIN_PROFILE
    assert join.stat().st_mode & 0o777 == 0o600
    text = join.read_text()
    assert "id=landsend Home\n" in text and "ssid=Home\n" in text and "psk=homepass1\n" in text
    assert "autoconnect-priority=50" in text           # above the hotspot's -100: the known network wins in reach
    assert (root / firstboot.AUTHORIZED_KEYS).read_text() == KEY + "\n"
    assert (root / firstboot.AUTHORIZED_KEYS).stat().st_mode & 0o777 == 0o600
    assert not (root / firstboot.SSH_OFF).exists() and out.ssh_host_keys
    assert loads((root / firstboot.CONFIG).read_text()).strip.driver == "sim"
    assert "Pub Table" in out.card and "pub-secret-9" in out.card
    assert set(out.changes) >= {"the board's Wi-Fi is 'Pub Table'", "joins 'Home' when it is in reach",
                                "SSH on for 1 key(s)", "board config from landsend.toml"}
    # taking [wifi] and [ssh] out again: no network to join, SSH off, its key gone
    (boot / "landsend.toml").write_text('name = "Pub Table"\n')
    out = firstboot.apply(root, boot)
    assert not join.exists() and (root / firstboot.SSH_OFF).exists() and not (root / firstboot.AUTHORIZED_KEYS).exists()
    assert tomllib.loads((root / "etc/landsend/wifi.toml").read_text())["password"] == "pub-secret-9"   # kept
    assert loads((root / firstboot.CONFIG).read_text()) == DEFAULTS


def test_a_malformed_file_changes_nothing_and_says_why(fake):
    root, boot = fake
    (boot / "landsend.toml").write_text(GOOD)
    firstboot.apply(root, boot)
    before = tree(root)
    (boot / "landsend.toml").write_text('name = "Other"\n[strip]\ndriver = "neon"\n')
    out = firstboot.apply(root, boot)
    assert out.status["settings"] == "refused"
    assert out.status["error"].startswith("landsend.toml: line 3, strip.driver: must be one of spi, ws281x, sim")
    assert tree(root) == before and out.changes == [] and out.status["ssid"] == "Pub Table"
    status = root / "status.json"
    status.write_text(json.dumps(out.status))
    faults = firstboot.setup_faults(status)
    assert len(faults) == 1 and faults[0].startswith("settings file refused, nothing of it applied")
    assert "line 3, strip.driver" in faults[0]
    status.write_text(json.dumps({"settings": "ok"}))
    assert firstboot.setup_faults(status) == [] and firstboot.setup_faults(root / "missing.json") == []


def test_a_malformed_file_on_a_new_board_still_gives_it_its_defaults(fake):
    root, boot = fake
    (boot / "landsend.toml").write_text("[ssh]\nenabled = true\n")
    out = firstboot.apply(root, boot)
    assert out.status["settings"] == "refused" and out.status["ssid"] == "Lands End 4F2A"
    assert (root / "etc/NetworkManager/system-connections/landsend-hotspot.nmconnection").exists()
    assert out.card is not None


def test_the_root_is_grown_only_when_the_card_has_room_after_it():
    assert firstboot.grow_commands("/dev/mmcblk0", "/dev/mmcblk0p3", 3, 62_333_952, 1_056_768, 4_000_000) == [
        ["sfdisk", "--no-reread", "--no-tell-kernel", "-q", "-N", "3", "/dev/mmcblk0"],
        ["partx", "-u", "--nr", "3", "/dev/mmcblk0"],
        ["resize2fs", "/dev/mmcblk0p3"]]
    assert firstboot.grow_commands("/dev/vda", "/dev/vda3", 3, 5_056_768 + 1000, 1_056_768, 4_000_000) == []


class RecordingStrip:
    def __init__(self):
        self.frames, self.closed = [], False

    def show(self, frame):
        self.frames.append(frame)

    def close(self):
        self.closed = True


def test_the_boot_pattern_is_the_lanes_in_red_green_blue_then_red_status_blinks_when_refused():
    g = Geometry.from_config(DEFAULTS.board)
    plain = firstboot.boot_frames(g, refused=False)
    assert len(plain) == 4 and plain[-1] == ({}, 0.0)
    assert {c for c in plain[0][0].values()} == {(255, 0, 0)} and len(plain[0][0]) == 48
    refused = firstboot.boot_frames(g, refused=True)
    blinks = refused[3:-1]
    assert len(blinks) == 2 * firstboot.BLINKS
    assert blinks[0][0] == {g.status_index(i): (255, 0, 0) for i in range(4)} and blinks[1][0] == {}
    strip, slept = RecordingStrip(), []
    said = firstboot.show_boot_pattern(DEFAULTS, refused=True, strip=strip, sleep=slept.append)
    assert "blinked red" in said and strip.closed and len(strip.frames) == len(refused)
    assert sum(slept) == pytest.approx(3 * firstboot.SELFTEST_S + 2 * firstboot.BLINKS * firstboot.BLINK_S)
    assert firstboot.show_boot_pattern(DEFAULTS.replace("strip", driver="sim"), refused=True) == \
        "strip driver sim: no boot pattern"


def test_the_card_is_written_with_the_boot_partition_writable_only_meanwhile(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(firstboot, "_remount", lambda boot, mode: calls.append(mode) or True)
    assert firstboot.write_card(tmp_path, "<svg/>") == f"wrote {tmp_path / 'landsend-card.svg'}"
    assert calls == ["rw", "ro"] and (tmp_path / "landsend-card.svg").read_text() == "<svg/>"
    assert not any(p.name.endswith(".new") for p in tmp_path.iterdir())


def test_the_daemon_shows_a_refused_settings_file_on_the_page(tmp_path):
    from companion.table import Table
    from firmware.daemon import build
    d = build(DEFAULTS, sim=True, table=Table.memory(), notices=["settings file refused, nothing of it applied: x"])
    try:
        client = d.app.test_client()
        faults = client.get("/api/session", headers={"Host": "localhost"}).get_json()["faults"]
        assert faults[0] == "settings file refused, nothing of it applied: x"
    finally:
        d.close()


def test_the_setup_unit_runs_before_the_network_and_the_daemon():
    unit = (Path(__file__).resolve().parents[1] / "systemd" / "landsend-setup.service").read_text()
    before = " ".join(line.split("=", 1)[1] for line in unit.splitlines() if line.startswith("Before="))
    assert set(before.split()) >= {"NetworkManager.service", "avahi-daemon.service", "ssh.service", "landsend.service"}
    assert "Type=oneshot" in unit and "ExecStart=/opt/landsend/current/bin/python -P -m firmware.firstboot" in unit
    assert os.access(Path(__file__).resolve().parents[1] / "scripts" / "boot-check.sh", os.X_OK)
