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
