"""The fast parts of scripts/raspi-check.sh (the qemu runs stay out of the suite): what the Pi firmware reads of
config.txt, the SD card's size in qemu."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from firmware import image

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts/image"))
import raspi_check  # noqa: E402

#: config.txt as Debian's raspi-firmware writes it on the image (its own part, then ours from image.CONFIG_TXT)
DEBIAN_PART = """# Do not modify this file!
# Switch the CPU from ARMv7 into ARMv8 (aarch64) mode
arm_64bit=1

enable_uart=1
upstream_kernel=1

kernel=vmlinuz-6.1.0-50-arm64
# For details on the initramfs directive, see
# https://www.raspberrypi.org/forums/viewtopic.php?f=63&t=10532
initramfs initrd.img-6.1.0-50-arm64

# Inserted by /etc/default/raspi-firmware-custom
"""


def test_the_image_config_txt_as_a_pi_3_reads_it():
    cfg = raspi_check.config_txt(DEBIAN_PART + image.CONFIG_TXT)
    assert cfg == {"kernel": "vmlinuz-6.1.0-50-arm64", "initramfs": "initrd.img-6.1.0-50-arm64",
                   "dtoverlay": [image.OVERLAY], "dtparam": ["audio=on"]}


def test_sections_for_other_boards_and_later_kernels_do_not_apply():
    text = ("kernel=a\n[pi4]\ndtoverlay=four\nkernel=b\n[pi3]\ndtoverlay=three,speed=4 # ours\n[all]\n"
            "initramfs one followkernel\ninitramfs two\ndtoverlay=every\n")
    cfg = raspi_check.config_txt(text)
    assert cfg == {"kernel": "a", "initramfs": "one", "dtoverlay": ["three,speed=4", "every"], "dtparam": []}
    assert raspi_check.config_txt(text, model="pi4")["dtoverlay"] == ["four", "every"]


@pytest.mark.parametrize("size, card", [(2327838720, 4 << 30), (500 << 20, 1 << 30), (3584 << 20, 4 << 30),
                                        (3585 << 20, 8 << 30)])
def test_the_sd_card_is_a_power_of_two_with_room_to_grow(size, card):
    assert raspi_check.card_size(size) == card


# ---------------------------------------------------------------- the boot check's memory at idle (issue 38)

import boot_check  # noqa: E402

#: what the booted image answered (a fresh boot on qemu's virt machine, 1 GiB, the Wi-Fi check's copy)
MEMINFO = """MemTotal:        1000836 kB
MemAvailable:     784328 kB
unit landsend 86904832
unit NetworkManager 23379968
unit wpa_supplicant 5492736
unit polkit [not set]
unit dbus 2772992
pss 327 40356
pss 495 45212
"""


class _Answers:
    def __init__(self, text: str):
        self.text, self.asked = text, []

    def ssh(self, command: str, timeout: float = 60) -> str:
        self.asked.append(command)
        return self.text


def test_the_boot_checks_memory_line_reads_use_units_and_pss_and_holds_the_budget():
    m = _Answers(MEMINFO)
    line = boot_check.memory_figures(m)
    # (1000836 - 784328) / 1024 = 211.4 MiB in use
    assert line.startswith("memory at idle: 211 MiB in use of 977 (budget 240 of a Zero 2 W's 430); by unit: "
                           "landsend 82.9, NetworkManager 22.3, wpa_supplicant 5.2, dbus 2.6 MiB; ")
    assert line.endswith("PSS: daemon 39.4 MiB, job worker 44.2 MiB")
    assert "pgrep -P $main" in m.asked[0] and "MemAvailable" in m.asked[1]


def test_the_boot_check_fails_an_image_over_its_idle_memory_budget():
    over = MEMINFO.replace("784328", str(1000836 - 241 * 1024))
    with pytest.raises(boot_check.CheckFailed, match="uses 241 MiB, over its budget of 240 MiB"):
        boot_check.memory_figures(_Answers(over))


class _Journal:
    def __init__(self, refused: str, boots: int):
        self.refused, self.boots = refused, boots

    def ssh(self, command: str, timeout: float = 60) -> str:
        if "--list-boots" in command:
            return "".join(f"{-i} {i:032x} Sun 2026-11-29 02:40:19 UTC\n" for i in range(self.boots))
        assert "grep 'Got notification message'" in command and "-u landsend" in command
        return self.refused


def test_the_boot_check_fails_a_card_whose_journal_has_a_refused_notification():
    assert boot_check.notify_refusals(_Journal("", 7)) == "no notification refused in the card's 7 boot(s)"
    line = ("landsend.service: Got notification message from PID 409, but reception only permitted for main "
            "PID 313\n")
    with pytest.raises(boot_check.CheckFailed, match="refused notifications for landsend.service: .*PID 409"):
        boot_check.notify_refusals(_Journal(line, 7))


def test_the_boot_checks_watchdog_wait_is_the_unit_s():
    unit = (Path(__file__).resolve().parents[1] / "systemd/landsend.service").read_text()
    assert f"\nWatchdogSec={boot_check.WATCHDOG_S}\n" in unit
