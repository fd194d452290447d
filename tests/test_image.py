"""The SD-card image's fast parts: the settings file's parser and its refusals, the partition and file plan
of scripts/build-image.sh, the udev, config.txt and fstab lines. The image build and the boot check
(scripts/build-image.sh, scripts/boot-check.sh) run outside the suite."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from firmware import image
from firmware.settings_file import Settings, SettingsError, config_toml, load, parse

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "scripts" / "image" / "landsend.toml"
KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHt8mXhR0qDo3cN9bqTqKxLr1wY2c6Rw4Q1Cq4m1S8Yb ann@laptop"


# ---------------------------------------------------------------- the settings file

def test_the_shipped_template_is_all_comments_and_every_commented_example_is_accepted():
    text = TEMPLATE.read_text()
    assert parse(text) == Settings()
    uncommented = "\n".join(re.sub(r"^#(?=\[|[a-z_]+ = )", "", line) for line in text.splitlines())
    uncommented = uncommented.replace("AAAA...paste the whole line of your .pub file here... you@laptop",
                                      KEY.split(" ", 1)[1])
    s = parse(uncommented)
    assert (s.name, s.hotspot_password, s.wifi_ssid, s.ssh_enabled) == ("Lands End Pub", "choose a long one", "Home", True)
    assert s.board == {"strip": {"type": "GRB", "driver": "spi", "brightness": 0.5}, "voice": {"enabled": True}}


def test_a_good_file_gives_every_setting_and_the_daemons_config():
    s = parse(f'name = "Ann\'s Table"\nhotspot_password = "twelve chars"\n[wifi]\nssid = "Home Net"\n'
              f'password = "homepass1"\n[ssh]\nenabled = true\nauthorized_keys = ["{KEY}"]\n'
              '[strip]\ndriver = "sim"\ntype = "RGB"\n[buttons]\np1 = 5\n')
    assert s == Settings(name="Ann's Table", hotspot_password="twelve chars", wifi_ssid="Home Net",
                         wifi_password="homepass1", ssh_enabled=True, ssh_keys=(KEY,),
                         board={"strip": {"driver": "sim", "type": "RGB"}, "buttons": {"p1": 5}})
    from firmware.config import loads
    config = loads(config_toml(s))
    assert (config.strip.driver, config.strip.type, config.buttons.p1, config.buttons.p2) == ("sim", "RGB", 5, 27)


@pytest.mark.parametrize("text, where, reason", [
    ('name = "x"\nnmae = "y"\n', "line 2, nmae", "unknown key"),
    ("name = 42\n", "line 1, name", "must be text in quotes"),
    ('name = "' + "x" * 33 + '"\n', "line 1, name", "1 to 32"),
    ('name = "Tab\\nle"\n', "line 1, name", "1 to 32"),
    ('hotspot_password = "short"\n', "line 1, hotspot_password", "8 to 63"),
    ('[wifi]\npassword = "longenough"\n', "line 1, wifi.ssid", "needs ssid"),
    ('[wifi]\nssid = "Home"\npassword = "short"\n', "line 3, wifi.password", "8 to 63"),
    ('[wifi]\nssid = "Home"\nsecret = "x"\n', "line 3, wifi.secret", "unknown key"),
    ("[ssh]\nenabled = true\n", "line 2, ssh.enabled", "at least one public key"),
    ('[ssh]\nenabled = "yes"\n', "line 2, ssh.enabled", "true or false"),
    ('[ssh]\nenabled = true\nauthorized_keys = ["password123"]\n', "line 3, ssh.authorized_keys", "not an SSH public key"),
    ('[strip]\ndriver = "neon"\n', "line 2, strip.driver", "must be one of spi, ws281x, sim"),
    ("[strip]\nbrightness = 3\n", "line 2, strip.brightness", "between 0.0 and 1.0"),
    ("[buttons]\np1 = 10\n", "line 2, buttons.p1", "SPI0 MOSI"),
    ("[web]\nport = 80\n", "line 1, web", "unknown key"),
    ('name = "x\n', "line 1", "not valid TOML"),
    ("wifi = 3\n", "line 1, wifi", "must be a section"),
])
def test_a_malformed_file_is_refused_with_its_line_key_and_reason(text, where, reason):
    with pytest.raises(SettingsError) as e:
        parse(text)
    assert str(e.value).startswith(f"landsend.toml: {where}: ")
    assert reason in str(e.value)


def test_a_key_after_a_section_header_belongs_to_that_section_and_is_refused_there():
    with pytest.raises(SettingsError, match=r"line 3, wifi.name: unknown key"):
        parse('[wifi]\nssid = "Home"\nname = "Table"\n')


def test_load_reads_windows_files_and_refuses_what_is_not_text(tmp_path):
    path = tmp_path / "landsend.toml"
    assert load(path) is None
    path.write_bytes(b'\xef\xbb\xbfname = "Pub"\r\n[strip]\r\ntype = "RGB"\r\n')   # Notepad: BOM and CRLF
    assert load(path) == Settings(name="Pub", board={"strip": {"type": "RGB"}})
    path.write_bytes(b'name = "\xff"\n')
    with pytest.raises(SettingsError, match="not UTF-8"):
        load(path)
    path.write_bytes(b"#" * 70000)
    with pytest.raises(SettingsError, match="at most 65536"):
        load(path)


# ---------------------------------------------------------------- the image's plan

def test_the_partition_plan_puts_boot_data_and_a_growable_root_in_order_on_4_mib_boundaries():
    lay = image.layout(1500.2)
    assert (lay.boot_start_mib, lay.boot_mib, lay.data_start_mib, lay.data_mib) == (4, 256, 260, 256)
    assert lay.root_start_mib == 516
    assert lay.root_mib % 4 == 0 and lay.root_mib >= 1500.2 * 1.06 + image.ROOT_SPARE_MIB
    assert lay.total_mib == 516 + lay.root_mib
    assert lay.sfdisk().splitlines() == [
        "label: dos", "unit: sectors", "",
        "start=8192, size=524288, type=c, bootable",
        "start=532480, size=524288, type=83",
        f"start=1056768, size={lay.root_mib * 2048}, type=83"]
    shell = dict(line.split("=") for line in lay.shell().split())
    assert shell["total_mib"] == str(lay.total_mib) and shell["root_start_mib"] == "516"
    with pytest.raises(ValueError, match="nothing was built"):
        image.layout(0)


@pytest.mark.skipif(shutil.which("sfdisk") is None, reason="sfdisk (fdisk) is not installed")
def test_sfdisk_makes_that_table_in_an_image_file(tmp_path):
    lay = image.layout(100)
    img = tmp_path / "card.img"
    img.write_bytes(b"")
    import os
    os.truncate(img, lay.total_mib * 1048576)
    r = subprocess.run(["sfdisk", "-q", str(img)], input=lay.sfdisk(), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    import json
    parts = json.loads(subprocess.run(["sfdisk", "-J", str(img)], capture_output=True, text=True).stdout)
    got = [(p["start"], p["size"], p["type"]) for p in parts["partitiontable"]["partitions"]]
    assert got == [(8192, 524288, "c"), (532480, 524288, "83"), (1056768, lay.root_mib * 2048, "83")]


def test_fstab_mounts_by_label_the_data_partition_at_the_state_dir_and_the_boot_partition_read_only():
    rows = [line.split() for line in image.FSTAB.splitlines() if line and not line.startswith("#")]
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("LABEL=landsend-root", "/", "ext4"), ("LABEL=landsend-data", "/var/lib/landsend", "ext4"),
        ("LABEL=LANDSEND", "/boot/firmware", "vfat")]
    assert rows[2][3].split(",")[0] == "ro" and "nofail" in rows[2][3]
    assert [r[5] for r in rows] == ["1", "2", "2"]          # fsck at every boot after a power cut
    assert "root=LABEL=landsend-root" not in image.RASPI_FIRMWARE and "ROOTPART=LABEL=landsend-root" in image.RASPI_FIRMWARE


def test_config_txt_loads_the_spi_overlay_and_the_unit_waits_for_the_setup():
    lines = [x for x in image.CONFIG_TXT.splitlines() if x and not x.startswith("#")]
    assert lines == ["dtoverlay=landsend-spi", "dtparam=audio=on", "[pi3]", "core_freq=250", "[pi4]",
                     "core_freq_min=500", "[all]"]
    assert "After=landsend-setup.service" in image.SERVICE_DROPIN.splitlines()
    assert image.INITRAMFS_MODULES.split()[-2:] == ["virtio_pci", "virtio_blk"]


def test_the_udev_rules_give_spidev_gpiochip_and_sound_to_the_service_users_groups():
    assert image.udev_errors(image.UDEV_RULES) == []
    rules = [line for line in image.UDEV_RULES.splitlines() if line and not line.startswith("#")]
    assert rules[0] == 'SUBSYSTEM=="spidev", KERNEL=="spidev*", GROUP="spi", MODE="0660"'
    assert 'GROUP="gpio"' in rules[1] and 'KERNEL=="gpiochip*"' in rules[1] and 'GROUP="audio"' in rules[2]
    # the checker is live
    assert image.udev_errors('SUBSYSTEM=="spidev", GROUP="spi", MODE="660"') == [
        "line 1: MODE must be four octal digits, got '660'"]
    assert image.udev_errors('SUBSYSTEM="spidev", GROUP="spi"') == [
        "line 1: SUBSYSTEM cannot be assigned", "line 1: a rule needs a match and an assignment"]
    assert image.udev_errors('SUBSYSTEM=="spidev" GROUP="spi"')[0].startswith("line 1: cannot parse")


@pytest.mark.skipif(shutil.which("dtc") is None, reason="dtc (device-tree-compiler) is not installed")
def test_the_spi_overlay_compiles_and_enables_spi0_with_a_spidev_node_on_a_pi_like_tree(tmp_path):
    dtbo = tmp_path / "landsend-spi.dtbo"
    r = subprocess.run(["dtc", "-q", "-@", "-I", "dts", "-O", "dtb", "-o", str(dtbo),
                        str(ROOT / "scripts" / "image" / "landsend-spi.dts")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    base = tmp_path / "bcm2837-rpi-3-b.dtb"      # the two nodes of the Pi's tree that the overlay touches
    src = tmp_path / "base.dts"
    src.write_text('/dts-v1/;\n/ { compatible = "raspberrypi,3-model-b", "brcm,bcm2837"; #address-cells = <1>; '
                   '#size-cells = <1>; soc { #address-cells = <1>; #size-cells = <1>; gpio@7e200000 { reg = <0x7e200000 0xb4>; }; '
                   'spi@7e204000 { reg = <0x7e204000 0x200>; status = "disabled"; }; }; };\n')
    subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(base), str(src)], check=True)
    if shutil.which("fdtoverlay") is None:
        pytest.skip("fdtoverlay is not installed")
    assert image.check_dtb(base, dtbo, tmp_path) is None
    src.write_text(src.read_text().replace("spi@7e204000", "spi@7e215080"))      # no SPI0 where the overlay looks
    subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(base), str(src)], check=True)
    assert image.check_dtb(base, dtbo, tmp_path) is not None


def test_write_root_then_clean_root_on_a_fake_root(tmp_path):
    root = tmp_path / "root"
    for rel in ("etc/landsend/wifi.toml", "etc/NetworkManager/system-connections/landsend-hotspot.nmconnection",
                "etc/ssh/ssh_host_ed25519_key", "etc/ssh/ssh_host_ed25519_key.pub", "usr/sbin/policy-rc.d",
                "tmp/landsend-src/README.md", "etc/machine-id", "var/lib/apt/lists/deb_dists_bookworm_Release",
                "etc/ssh/sshd_config", "etc/landsend/config.toml"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    said = image.write_root(root)
    assert len(said) == len(image.root_files()) + len(image.COPIED_FILES)
    assert (root / "etc/systemd/system/landsend-setup.service").read_text() == (ROOT / "systemd/landsend-setup.service").read_text()
    assert (root / "etc/fstab").read_text() == image.FSTAB
    assert (root / image.UDEV_FILE).read_text() == image.UDEV_RULES
    assert (root / "etc/hostname").read_text() == "landsend\n"
    said = image.clean_root(root)
    assert not (root / "etc/landsend/wifi.toml").exists()
    assert not (root / "etc/NetworkManager/system-connections/landsend-hotspot.nmconnection").exists()
    assert not list((root / "etc/ssh").glob("ssh_host_*")) and (root / "etc/ssh/sshd_config").exists()
    assert not (root / "tmp/landsend-src").exists() and not (root / "usr/sbin/policy-rc.d").exists()
    assert (root / "etc/machine-id").read_text() == ""
    assert not list((root / "var/lib/apt/lists").iterdir())
    assert (root / "etc/landsend/config.toml").exists()           # rewritten at boot, not per board
    assert "emptied /etc/machine-id" in said


def test_used_mib_counts_hard_links_once(tmp_path):
    (tmp_path / "a").write_bytes(b"x" * 1048576)
    (tmp_path / "b").hardlink_to(tmp_path / "a")
    assert 1.0 <= image.used_mib(tmp_path) < 1.1


def test_the_build_script_keeps_its_products_out_of_git():
    ignored = (ROOT / ".gitignore").read_text().split()
    assert "/build/" in ignored and "*.img" in ignored and "*.img.xz" in ignored
    script = (ROOT / "scripts" / "build-image.sh").read_text()
    assert 'out="$here/build"' in script and "/var/tmp/landsend-image-cache" in script


# ---------------------------------------------------------------- the whole image as one listing (issue 37)

def test_the_plan_lists_every_stage_package_file_and_partition_from_the_data_the_build_reads():
    plan = image.plan()
    sections = {}
    for block in plan.split("\n\n"):
        title, *lines = block.splitlines()
        sections[title] = [line.strip() for line in lines]
    assert plan.splitlines()[0] == "Land's End SD-card image: build/landsend-0.1.0-arm64.img, made by scripts/build-image.sh"
    stages = sections["Stages (scripts/build-image.sh)"]
    assert [s.split(".")[0] for s in stages] == [str(n) for n in range(1, 9)]
    assert stages[1].startswith("2. the Debian root") and stages[6].startswith("7. file systems from directories")
    # every package of packages.txt once, in its order, under the comment that says what it is for
    listed = [name for line in sections["Packages (scripts/image/packages.txt)"] for name in line.split(": ")[-1].split()]
    text = (ROOT / "scripts/image/packages.txt").read_text()
    assert listed == [w for line in text.splitlines() if (w := line.split("#")[0].strip())]
    assert len(listed) == 33 and listed[:2] == ["raspi-firmware", "linux-image-arm64"] and listed[-1] == "sqlite3"
    assert sections["Packages (scripts/image/packages.txt)"][3] == "the voice: espeak-ng alsa-utils"
    assert sections["The project (systemd/install.sh, run in the root as on a Pi)"][5] == "6. units"
    files = sections["Files written into the root (write-root)"]
    assert [f.split()[0] for f in files] == ["/" + rel for rel in [*image.root_files(), *image.COPIED_FILES]]
    assert "/etc/fstab  (0644)" in files
    assert sections["Units enabled"] == [" ".join(image.UNITS)]
    boot = next(v for k, v in sections.items() if k.startswith("Files added to the boot partition"))
    assert boot == ["/boot/firmware/landsend.toml  (from scripts/image/landsend.toml)",
                    "/boot/firmware/overlays/landsend-spi.dtbo  (from scripts/image/landsend-spi.dts)"]
    removed = next(v for k, v in sections.items() if k.startswith("Removed before the image is made"))
    assert removed[:len(image.PER_BOARD)] == ["/" + rel for rel in image.PER_BOARD]
    parts = next(v for k, v in sections.items() if k.startswith("Partitions"))
    assert parts[0].startswith("1. LANDSEND  FAT32 (type c)  at 4 MiB, 256 MiB  -> /boot/firmware")
    assert parts[1].startswith("2. landsend-data  ext4 (type 83)  at 260 MiB, 256 MiB  -> /var/lib/landsend")
    assert parts[2].startswith("3. landsend-root  ext4 (type 83)  at 516 MiB, (the root)  -> /:")


def test_the_plan_of_a_built_root_gives_its_partition_sizes_as_the_build_does(tmp_path):
    (tmp_path / "usr").mkdir()
    (tmp_path / "usr" / "big").write_bytes(b"x" * (3 * 1048576))
    lay = image.layout(image.used_mib(tmp_path))
    assert lay.root_mib == 388                          # 3 MiB x 1.06 + 384 = 387.2, rounded up to 4
    plan = image.plan(root=tmp_path)
    assert f"Partitions (MBR; the image is {516 + 388} MiB for a root of 3 MiB)" in plan
    assert "3. landsend-root  ext4 (type 83)  at 516 MiB, 388 MiB  -> /" in plan
    assert lay.sfdisk().splitlines()[-1] == f"start={516 * 2048}, size={388 * 2048}, type=83"


def test_the_plan_and_the_root_spec_follow_the_package_list_they_read(tmp_path):
    # the listing is not a copy: a checkout whose packages.txt gains a package lists it, and the build's root spec
    # (what scripts/lib/debian-root.sh installs and stamps the cached root with) has it too
    for rel in ("pyproject.toml", image.BUILD_SCRIPT, image.INSTALL_SCRIPT, image.PACKAGES_FILE):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text((ROOT / rel).read_text())
    with open(tmp_path / image.PACKAGES_FILE, "a") as f:
        f.write("# the board's clock without a network\nchrony\n")
    assert "the board's clock without a network: chrony" in image.plan(checkout=tmp_path)
    spec = image.root_spec(tmp_path)
    assert spec.names[-2:] == ("sqlite3", "chrony") and spec.names[:-1] == image.root_spec().names
    (tmp_path / image.PACKAGES_FILE).write_text("python3\nnot a name\n")
    with pytest.raises(ValueError, match="'not a name' is not a Debian package name"):
        image.root_spec(tmp_path)


def test_the_root_spec_is_shell_the_shared_root_script_evaluates():
    out = subprocess.run(["bash", "-c", 'eval "$(python3 -m firmware.image root-spec)"; '
                          'echo "$suite $arch $variant $components $include"; echo "$packages"'],
                         cwd=ROOT, capture_output=True, text=True, check=True, env={"PATH": "/usr/bin:/bin",
                                                                                    "PYTHONPATH": str(ROOT)})
    first, packages = out.stdout.splitlines()
    assert first == "bookworm arm64 minbase main,non-free-firmware ca-certificates"
    assert packages.split() == list(image.root_spec().names)


def test_both_debian_root_scripts_source_the_one_shared_file_and_repeat_none_of_it():
    lib = (ROOT / "scripts/lib/debian-root.sh").read_text()
    for name in ("build-image.sh", "pi-check.sh"):
        script = (ROOT / "scripts" / name).read_text()
        assert '. "$here/scripts/lib/debian-root.sh"' in script, name
        code = "\n".join(line.split(" # ")[0] for line in script.splitlines() if not line.lstrip().startswith("#"))
        for own in ("debootstrap --", "mount ", "policy-rc.d", "update-binfmts", "ca-certificates.crt", "install.sh",
                    "tar -C"):
            assert own not in code, (name, own)              # only in the shared file
        assert "root_base " in script and "root_work " in script and "root_install " in script, name
    for own in ("debootstrap --arch", "mount --bind", "policy-rc.d", "update-binfmts", "ca-certificates.crt",
                "systemd/install.sh"):
        assert own in lib
    # pi-check proves install.sh on the image's own cached root, not on one of its own
    pi = (ROOT / "scripts/pi-check.sh").read_text()
    assert 'cache="${IMAGE_CACHE:-/var/tmp/landsend-image-cache}"' in pi and "PI_ROOT" not in pi
    # the update file is made in the same root (issue 35 item 4): it sources the file and repeats none of it either
    update = (ROOT / "scripts/build-update.sh").read_text()
    assert '. "$here/scripts/lib/debian-root.sh"' in update and "root_base " in update and "root_work " in update
    assert not any(own in update for own in ("debootstrap --", "mount ", "policy-rc.d", "tar -C"))
    for name in ("lib/debian-root.sh", "build-image.sh", "pi-check.sh", "build-update.sh", "update-check.sh"):
        subprocess.run(["bash", "-n", str(ROOT / "scripts" / name)], check=True)
    # the qemu checks take their host tools from one place (scripts/lib/host-tools.sh), each naming what it needs
    for name, extra in (("boot-check.sh", ""), ("update-check.sh", " gpg:gnupg"),
                        ("raspi-check.sh", " fdtoverlay:device-tree-compiler")):
        text = (ROOT / "scripts" / name).read_text()
        assert '. "$here/scripts/lib/host-tools.sh"' in text and "apt-get" not in text
        assert (f"host_tools {name} qemu-system-aarch64:qemu-system-arm mcopy:mtools sfdisk:fdisk "
                f"ssh:openssh-client{extra}\n") in text
        subprocess.run(["bash", "-n", str(ROOT / "scripts" / name)], check=True)


def test_script_steps_are_the_numbered_comments_with_their_continuation_lines():
    text = "# 1. tools\nx=1\n# 2. the root: a long\n#    line on\n#   two lines\n# not a step\n#    nor this\n# 3. end\n"
    assert image.script_steps(text) == [(1, "tools"), (2, "the root: a long line on two lines"), (3, "end")]


@pytest.mark.skipif(shutil.which("dtc") is None, reason="dtc (device-tree-compiler) is not installed")
def test_write_boot_puts_the_settings_file_and_the_compiled_overlay_on_the_boot_partition(tmp_path):
    said = image.write_boot(tmp_path)
    assert said == ["wrote /boot/firmware/landsend.toml", "wrote /boot/firmware/overlays/landsend-spi.dtbo"]
    assert (tmp_path / "landsend.toml").read_text() == TEMPLATE.read_text()
    dtbo = (tmp_path / "overlays" / "landsend-spi.dtbo").read_bytes()
    assert dtbo[:4] == bytes.fromhex("d00dfeed")            # a flattened device tree's magic
