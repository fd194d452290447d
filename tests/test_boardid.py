"""Which board this is (firmware/boardid.py): read as gpiozero reads it, and said plainly when it is not a Pi."""

from __future__ import annotations

import logging

from companion.table import Table
from firmware import boardid
from firmware.boardid import Board, buttons_fault, identify
from firmware.config import DEFAULTS
from firmware.daemon import build
from firmware.drivers.sim import SimStrip
from firmware.geometry import Geometry


def tree(tmp_path, *, model=None, revision=None, cpuinfo=None):
    if model is not None:
        (tmp_path / "proc/device-tree").mkdir(parents=True, exist_ok=True)
        (tmp_path / "proc/device-tree/model").write_bytes(model.encode() + b"\0")
    if revision is not None:
        (tmp_path / "proc/device-tree/system").mkdir(parents=True, exist_ok=True)
        (tmp_path / "proc/device-tree/system/linux,revision").write_bytes(revision)
    if cpuinfo is not None:
        (tmp_path / "proc").mkdir(exist_ok=True)
        (tmp_path / "proc/cpuinfo").write_text(cpuinfo)
    return tmp_path


def test_a_pi_3_as_its_firmware_leaves_the_device_tree(tmp_path):
    board = identify(tree(tmp_path, model="Raspberry Pi 3 Model B Rev 1.2", revision=bytes.fromhex("00a02082")))
    assert board == Board("Raspberry Pi 3 Model B Rev 1.2", 0xA02082, "/proc/device-tree/system/linux,revision")
    assert board.describe() == ("Raspberry Pi 3 Model B Rev 1.2, revision a02082 "
                                "(from /proc/device-tree/system/linux,revision)")


def test_raspberry_pi_os_kernel_says_it_in_cpuinfo(tmp_path):
    board = identify(tree(tmp_path, model="Raspberry Pi Zero 2 W Rev 1.0",
                          cpuinfo="processor\t: 0\nHardware\t: BCM2835\nRevision\t: 902120\nSerial\t: 00000000\n"))
    assert (board.revision, board.source) == (0x902120, "/proc/cpuinfo")


def test_the_device_tree_goes_first_and_a_short_revision_is_not_read(tmp_path):
    root = tree(tmp_path, model="Raspberry Pi 4 Model B Rev 1.4", revision=bytes.fromhex("00c03114"),
                cpuinfo="Revision\t: a02082\n")
    assert identify(root).revision == 0xC03114
    (root / "proc/device-tree/system/linux,revision").write_bytes(b"\x01")
    assert identify(root).revision == 0xA02082


def test_qemu_virt_is_not_a_pi_and_says_where_it_looked(tmp_path):
    board = identify(tree(tmp_path, model="linux,dummy-virt", cpuinfo="processor\t: 0\nBogoMIPS\t: 125.00\n"))
    assert board == Board("linux,dummy-virt", None)
    assert board.describe() == ("not identified as a Raspberry Pi: no revision code in "
                                "/proc/device-tree/system/linux,revision or /proc/cpuinfo (model: linux,dummy-virt)")
    assert identify(tmp_path / "nothing").describe().endswith("(model: no model in the device tree)")


def test_the_buttons_fault_names_the_board_only_when_gpiozero_chose_the_pins():
    exc = RuntimeError("Unable to load any default pin factory!")
    assert buttons_fault(exc, None) == "buttons: RuntimeError: Unable to load any default pin factory!"
    assert buttons_fault(exc, Board("linux,dummy-virt", None)) == (
        "buttons: off, this board is not identified as a Raspberry Pi: no revision code in "
        "/proc/device-tree/system/linux,revision or /proc/cpuinfo (model: linux,dummy-virt), so gpiozero has no "
        "pins for them (RuntimeError: Unable to load any default pin factory!)")
    pi = Board("Raspberry Pi 3 Model B Rev 1.2", 0xA02082, "/proc/cpuinfo")
    assert buttons_fault(OSError("busy"), pi) == (
        "buttons: OSError: busy (board: Raspberry Pi 3 Model B Rev 1.2, revision a02082 (from /proc/cpuinfo))")


def test_the_daemon_says_it_in_the_journal_and_on_the_page(tmp_path, monkeypatch, caplog):
    """No Pi here: gpiozero's own choice of pins fails, and the fault says the board was not identified."""
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(boardid, "identify", lambda root="/": identify(tree(tmp_path, model="linux,dummy-virt")))
    caplog.set_level(logging.INFO, logger="firmware.daemon")
    d = build(DEFAULTS, sim=False, table=Table.memory(), strip=SimStrip(Geometry.from_config(DEFAULTS.board)), web=False)
    try:
        assert d.buttons is None
        fault = [f for f in d.faults if f.startswith("buttons: ")]
        assert len(fault) == 1 and fault[0].startswith(
            "buttons: off, this board is not identified as a Raspberry Pi: no revision code in "
            "/proc/device-tree/system/linux,revision or /proc/cpuinfo (model: linux,dummy-virt), so gpiozero")
        said = [r.getMessage() for r in caplog.records]
        assert "board: not identified as a Raspberry Pi: no revision code in /proc/device-tree/system/" \
               "linux,revision or /proc/cpuinfo (model: linux,dummy-virt)" in said
        assert any(m.startswith("buttons: off, this board is not identified") for m in said)
    finally:
        d.close()
