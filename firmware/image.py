"""The SD-card image's plan: its partitions, the files that make a Debian root a board, and the build's checks.

``scripts/build-image.sh`` runs this module with the build machine's own Python (standard library only,
nothing of the project's dependencies)::

    python3 -m firmware.image plan [--root ROOT]       # the whole image as one listing, for review
    python3 -m firmware.image root-spec                # shell assignments: the Debian root to debootstrap
    python3 -m firmware.image write-root ROOT          # fstab, boot config, udev rules, unit drop-in...
    python3 -m firmware.image write-boot BOOTFS        # the owner's settings file and the SPI overlay
    python3 -m firmware.image units                    # the units the image enables
    python3 -m firmware.image check-root ROOT BOOTFS   # the static hardware checks (no Pi here)
    python3 -m firmware.image clean-root ROOT          # what must be made per board at first boot
    python3 -m firmware.image layout ROOT              # shell assignments: partition sizes and offsets
    python3 -m firmware.image sfdisk ROOT              # the partition table, as an sfdisk script

The layout (``docs/hardware.md`` explains the choice): partition 1 is the FAT32 boot partition
``LANDSEND`` (the Pi's firmware, Debian's kernel and DTBs, ``config.txt``, the owner's ``landsend.toml``
and the table card), mounted read-only at ``/boot/firmware`` and written only by the setup unit, in
one short window; partition 2 the table's database ``landsend-data`` (ext4, ``/var/lib/landsend``), a
file system of its own that nothing else writes; partition 3 the root ``landsend-root`` (ext4), last
so that the first boot can grow it to the card.

Everything the build makes is data here or in the files it names (``scripts/image/packages.txt``, the numbered
stages of ``scripts/build-image.sh`` and ``systemd/install.sh``), and ``plan`` prints it from the same data the
build reads, so the listing cannot drift from the image.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
"""The project's top folder (the build runs this module from a checkout)."""
BUILD_SCRIPT = "scripts/build-image.sh"
INSTALL_SCRIPT = "systemd/install.sh"
PACKAGES_FILE = "scripts/image/packages.txt"


@dataclass(frozen=True)
class RootSpec:
    """The Debian root the image (and ``scripts/pi-check.sh``) is made from: ``debootstrap`` of ``suite`` for
    ``arch`` with ``variant`` and ``components``, then ``packages`` installed without recommends."""

    suite: str
    arch: str
    variant: str
    components: tuple[str, ...]
    include: tuple[str, ...]
    packages: tuple[tuple[str, tuple[str, ...]], ...]
    """(what for, names) in the order of ``packages.txt``; "what for" is the comment above the names."""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for _, group in self.packages for n in group)

    def shell(self) -> str:
        """Return the spec as shell assignments (``suite=bookworm`` ... ``packages='a b c'``)."""
        return (f"suite={self.suite}\narch={self.arch}\nvariant={self.variant}\n"
                f"components={','.join(self.components)}\ninclude={','.join(self.include)}\n"
                f"packages='{' '.join(self.names)}'\n")


def parse_packages(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Return the groups of a package list: one name a line, ``#`` starts a comment, and the comment line just
    above a run of names says what they are for."""
    groups: list[tuple[str, list[str]]] = []
    said = ""
    for raw in text.splitlines():
        line, _, comment = raw.partition("#")
        name = line.strip()
        if not name:
            if comment.strip():
                said = comment.strip()
            continue
        if not re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", name):
            raise ValueError(f"{PACKAGES_FILE}: {name!r} is not a Debian package name")
        if not groups or said:
            groups.append((said, []))
            said = ""
        groups[-1][1].append(name)
    return tuple((what, tuple(names)) for what, names in groups)


def root_spec(checkout: Path = CHECKOUT) -> RootSpec:
    """Return the image's Debian root (its package list read from ``scripts/image/packages.txt``)."""
    return RootSpec("bookworm", "arm64", "minbase", ("main", "non-free-firmware"), ("ca-certificates",),
                    parse_packages((checkout / PACKAGES_FILE).read_text(encoding="utf-8")))


def script_steps(text: str) -> list[tuple[int, str]]:
    """Return the numbered steps of a shell script: its ``# N. what`` comments (with their indented
    ``#    more`` continuation lines), in order."""
    steps: list[tuple[int, str]] = []
    going = False
    for line in text.splitlines():
        m = re.match(r"^# (\d+)\. (.+)$", line)
        if m:
            steps.append((int(m[1]), m[2].strip()))
        elif going and re.match(r"^#\s{2,}\S", line):
            steps[-1] = (steps[-1][0], f"{steps[-1][1]} {line[1:].strip()}")
        going = bool(m) or (going and bool(re.match(r"^#\s{2,}\S", line)))
    return steps


BOOT_LABEL = "LANDSEND"
DATA_LABEL = "landsend-data"
ROOT_LABEL = "landsend-root"
START_MIB = 4
"""The first partition starts 4 MiB in (erase-block aligned, as Debian's and the Pi's images do)."""
BOOT_MIB = 256
DATA_MIB = 256
ROOT_SPARE_MIB = 384
"""Free space on the root before the first boot grows it (journal, the first apt run, a full card's worth
of logs is not needed: the first boot grows it to the card)."""
ALIGN_MIB = 4

#: The device trees of the boards the image boots (Debian's kernel, upstream DTBs): the Pi firmware
#: loads the one of the board it runs on (``upstream_kernel=1``).
BOARD_DTBS = {
    "bcm2837-rpi-3-b.dtb": "Raspberry Pi 3 Model B",
    "bcm2837-rpi-3-b-plus.dtb": "Raspberry Pi 3 Model B+",
    "bcm2837-rpi-3-a-plus.dtb": "Raspberry Pi 3 Model A+",
    "bcm2837-rpi-zero-2-w.dtb": "Raspberry Pi Zero 2 W",
    "bcm2711-rpi-4-b.dtb": "Raspberry Pi 4 Model B",
    "bcm2711-rpi-400.dtb": "Raspberry Pi 400",
}
REQUIRED_DTBS = ("bcm2837-rpi-3-b.dtb", "bcm2837-rpi-3-b-plus.dtb", "bcm2711-rpi-4-b.dtb")
SPI_NODE = "/soc/spi@7e204000"
OVERLAY = "landsend-spi"

#: Kernel modules the daemon's hardware needs, by what for (``check-root`` finds each in the image).
MODULES = {
    "spidev": "/dev/spidev0.0 (the strip)",
    "spi-bcm2835": "the SPI0 controller",
    "brcmfmac": "the Pi's Wi-Fi (the board's own Wi-Fi and joining networks)",
    "snd-bcm2835": "the Pi's headphone jack (the voice)",
    "vc4": "HDMI sound (the voice through a screen's speakers)",
    "virtio_blk": "the disk of scripts/boot-check.sh (qemu virt)",
}

FSTAB = f"""# Land's End board (firmware/image.py). Labels, so the same card boots as /dev/mmcblk0 on a Pi and
# /dev/vda in scripts/boot-check.sh.
LABEL={ROOT_LABEL}  /                  ext4  rw,noatime,errors=remount-ro,commit=5  0 1
LABEL={DATA_LABEL}  /var/lib/landsend  ext4  rw,noatime,nodev,nosuid,noexec,commit=5  0 2
# read-only: the setup unit remounts it for the moment it writes the table card (a power cut then can only
# lose that file, never the boot files)
LABEL={BOOT_LABEL}       /boot/firmware     vfat  ro,noatime,umask=0022,fmask=0133,dmask=0022,nofail  0 2
"""

#: Appended to config.txt by raspi-firmware (``/etc/default/raspi-firmware-custom``).
CONFIG_TXT = f"""# Land's End: SPI0 for the LED strip (Debian's kernel uses the upstream device trees, where
# dtparam=spi=on does nothing: this overlay enables the controller and makes /dev/spidev0.0)
dtoverlay={OVERLAY}
# the headphone jack and HDMI sound for the board's voice
dtparam=audio=on
# a steady core clock, so the SPI clock (the LED timing) does not drift when the CPU scales
[pi3]
core_freq=250
[pi4]
core_freq_min=500
[all]
"""

#: /etc/default/raspi-firmware: where the kernel finds the root (by label) and its consoles.
RASPI_FIRMWARE = f"""# Land's End board (firmware/image.py): raspi-firmware writes cmdline.txt and config.txt from this.
ROOTPART=LABEL={ROOT_LABEL}
# the serial console of the Pi 3 and 4 (GPIO 14/15) and the screen, the screen last (boot messages)
CONSOLES="ttyS1,115200 tty1"
KERNEL_ARCH="arm64"
# no cma= on the command line: one image for the Pi 3 and the Pi 4, where cma=64M keeps it from booting; the
# upstream device trees reserve the CMA pool themselves
CMA=0
"""

#: udev rules: Debian has no Raspberry Pi OS rules, so the spi and gpio groups get their devices here.
UDEV_RULES = """# Land's End: the service user (groups spi, gpio, audio) opens the strip, the buttons and the sound card
# on Debian's kernel as it does on Raspberry Pi OS. Installed by scripts/build-image.sh.
SUBSYSTEM=="spidev", KERNEL=="spidev*", GROUP="spi", MODE="0660"
SUBSYSTEM=="gpio", KERNEL=="gpiochip*", GROUP="gpio", MODE="0660"
SUBSYSTEM=="sound", GROUP="audio", MODE="0660"
"""
UDEV_FILE = "etc/udev/rules.d/60-landsend-hardware.rules"

#: Modules in the initrd beside Debian's "most": the virtio disk and PCI of qemu's virt machine.
INITRAMFS_MODULES = "# Land's End: qemu virt (scripts/boot-check.sh)\nvirtio_pci\nvirtio_blk\n"

#: landsend.service waits for the setup unit (settings file applied, Wi-Fi made) on the image.
SERVICE_DROPIN = """# Land's End image: the settings file on the boot partition is applied before the daemon starts
[Unit]
Wants=landsend-setup.service
After=landsend-setup.service

[Service]
# a first start with cold caches on a Zero 2 W (or in qemu, scripts/boot-check.sh) takes longer than 30 s
TimeoutStartSec=300
"""

JOURNALD = """# Land's End image: keep the journal small on the card
[Journal]
SystemMaxUse=64M
"""

#: Files made per board at first boot, never shipped in the image: removed by ``clean-root``.
PER_BOARD = (
    "etc/landsend/wifi.toml",
    "etc/NetworkManager/system-connections/landsend-hotspot.nmconnection",
    "etc/NetworkManager/dnsmasq-shared.d/landsend.conf",
    "var/lib/dbus/machine-id",
    "etc/ssl/certs/build-host-ca.crt",
    "etc/resolv.conf",                      # the build machine's; NetworkManager writes the board's
    "usr/sbin/policy-rc.d",
    "tmp/landsend-src",
    "root/.cache",
)
SSH_HOST_KEYS = "etc/ssh/ssh_host_*"

#: Files of the checkout copied into the root: {path under the root: path in the checkout}.
COPIED_FILES = {"etc/systemd/system/landsend-setup.service": "systemd/landsend-setup.service"}

#: Files the image adds to the boot partition beside the packages' (kernel, initrd, DTBs, config.txt and
#: cmdline.txt from raspi-firmware's hook): {path on the partition: path in the checkout}.
BOOT_FILES = {
    "landsend.toml": "scripts/image/landsend.toml",          # the owner's settings, all commented
    f"overlays/{OVERLAY}.dtbo": f"scripts/image/{OVERLAY}.dts",   # compiled with dtc -@
}

#: The units the image enables (install.sh enables landsend.service too; enabling twice does nothing).
UNITS = ("landsend-setup.service", "landsend.service", "NetworkManager.service", "avahi-daemon.service",
         "ssh.service")


def root_files() -> dict[str, tuple[str, int]]:
    """Return ``{path under the root: (text, mode)}`` of every file :func:`write_root` writes."""
    return {
        "etc/fstab": (FSTAB, 0o644),
        "etc/hostname": ("landsend\n", 0o644),
        "etc/hosts": ("127.0.0.1\tlocalhost\n127.0.1.1\tlandsend\n::1\tlocalhost ip6-localhost ip6-loopback\n", 0o644),
        "etc/default/raspi-firmware": (RASPI_FIRMWARE, 0o644),
        "etc/default/raspi-firmware-custom": (CONFIG_TXT, 0o644),
        UDEV_FILE: (UDEV_RULES, 0o644),
        "etc/initramfs-tools/modules": (INITRAMFS_MODULES, 0o644),
        "etc/systemd/system/landsend.service.d/image.conf": (SERVICE_DROPIN, 0o644),
        "etc/systemd/journald.conf.d/landsend.conf": (JOURNALD, 0o644),
        "etc/landsend/image": ("This root was built by scripts/build-image.sh: the settings file is "
                               "/boot/firmware/landsend.toml (docs/operation.md).\n", 0o644),
    }


def write_root(root: Path, checkout: Path = CHECKOUT) -> list[str]:
    """Write :func:`root_files` and :data:`COPIED_FILES` under ``root``; return one line per file."""
    said = []
    files = dict(root_files())
    files.update({rel: ((checkout / src).read_text(encoding="utf-8"), 0o644) for rel, src in COPIED_FILES.items()})
    for rel, (text, mode) in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.chmod(path, mode)
        said.append(f"wrote /{rel}")
    return said


def write_boot(bootfs: Path, checkout: Path = CHECKOUT) -> list[str]:
    """Put :data:`BOOT_FILES` on the boot partition's directory ``bootfs`` (the overlay compiled with dtc);
    return one line per file."""
    said = []
    for rel, src in BOOT_FILES.items():
        path = bootfs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if src.endswith(".dts"):
            subprocess.run([_tool("dtc"), "-q", "-@", "-I", "dts", "-O", "dtb", "-o", str(path), str(checkout / src)],
                           check=True)
        else:
            shutil.copyfile(checkout / src, path)
        os.chmod(path, 0o644)
        said.append(f"wrote /boot/firmware/{rel}")
    return said


def clean_root(root: Path) -> list[str]:
    """Remove what the build left and what each board makes for itself (Wi-Fi password, machine id, SSH host
    keys); empty ``etc/machine-id`` (systemd makes it at first boot). Return one line per change."""
    said = []
    for rel in PER_BOARD:
        path = root / rel
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
            said.append(f"removed /{rel}/")
        elif path.exists() or path.is_symlink():
            path.unlink()
            said.append(f"removed /{rel}")
    for key in sorted(root.glob(SSH_HOST_KEYS)):
        key.unlink()
        said.append(f"removed /{key.relative_to(root)}")
    machine_id = root / "etc/machine-id"
    machine_id.write_text("", encoding="ascii")      # empty: systemd makes one at first boot
    said.append("emptied /etc/machine-id")
    apt_lists = root / "var/lib/apt/lists"
    if apt_lists.is_dir():
        for p in apt_lists.iterdir():
            if p.is_file():
                p.unlink()
        said.append("emptied /var/lib/apt/lists")
    return said


@dataclass(frozen=True)
class Partition:
    """One partition of the card: its number, file system label, type, mount point and what it holds."""

    number: int
    label: str
    fs: str
    mbr_type: str
    mount: str
    holds: str


PARTITIONS = (
    Partition(1, BOOT_LABEL, "FAT32", "c", "/boot/firmware",
              "the Pi's firmware, kernel, DTBs, config.txt, landsend.toml, the table card (mounted read-only)"),
    Partition(2, DATA_LABEL, "ext4", "83", "/var/lib/landsend", "the table's database, nothing else"),
    Partition(3, ROOT_LABEL, "ext4", "83", "/", "the system, grown to the card at first boot"),
)


@dataclass(frozen=True)
class Layout:
    """Partition sizes and starts in MiB (the image is ``total_mib`` long)."""

    boot_start_mib: int
    boot_mib: int
    data_start_mib: int
    data_mib: int
    root_start_mib: int
    root_mib: int

    @property
    def total_mib(self) -> int:
        return self.root_start_mib + self.root_mib

    def shell(self) -> str:
        """Return the layout as shell assignments (``boot_mib=256`` ...)."""
        names = ("boot_start_mib", "boot_mib", "data_start_mib", "data_mib", "root_start_mib", "root_mib")
        return "\n".join(f"{n}={getattr(self, n)}" for n in names) + f"\ntotal_mib={self.total_mib}\n"

    def spans(self) -> list[tuple[int, int]]:
        """Return (start, size) in MiB of each of :data:`PARTITIONS`, in order."""
        return [(self.boot_start_mib, self.boot_mib), (self.data_start_mib, self.data_mib),
                (self.root_start_mib, self.root_mib)]

    def sfdisk(self) -> str:
        """Return the MBR partition table as an sfdisk script (sectors of 512 bytes)."""
        mib = 2048
        return "label: dos\nunit: sectors\n\n" + "".join(
            f"start={start * mib}, size={size * mib}, type={p.mbr_type}{', bootable' if p.number == 1 else ''}\n"
            for p, (start, size) in zip(PARTITIONS, self.spans()))


def layout(root_used_mib: float) -> Layout:
    """Return the layout for a root of ``root_used_mib`` MiB: ext4 overhead (about 6 %) and
    :data:`ROOT_SPARE_MIB` free on top, rounded up to :data:`ALIGN_MIB`."""
    if root_used_mib <= 0:
        raise ValueError(f"the root is empty ({root_used_mib} MiB): nothing was built")
    root = math.ceil((root_used_mib * 1.06 + ROOT_SPARE_MIB) / ALIGN_MIB) * ALIGN_MIB
    data_start = START_MIB + BOOT_MIB
    return Layout(START_MIB, BOOT_MIB, data_start, DATA_MIB, data_start + DATA_MIB, root)


def used_mib(root: Path) -> float:
    """Return the size of the files under ``root`` in MiB (blocks used, as du counts, hard links once)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            st = os.lstat(os.path.join(dirpath, name))
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            total += st.st_blocks * 512 or 4096
    return total / 1048576


# ---------------------------------------------------------------- the plan

def plan(checkout: Path = CHECKOUT, root: Path | None = None) -> str:
    """Return the whole image as one listing: the build's stages, the Debian root and its packages, what
    install.sh does in it, every file the build writes or removes, the units and the partitions. Read from the
    data the build itself reads (this module, ``packages.txt``, the two scripts' numbered steps); with ``root``
    (a built root), the partition sizes are the ones the build would give it."""
    spec = root_spec(checkout)
    version = re.search(r'^version = "(.*)"$', (checkout / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    out = [f"Land's End SD-card image: build/landsend-{version[1] if version else '?'}-{spec.arch}.img, "
           f"made by {BUILD_SCRIPT}", ""]

    def section(title: str, lines: list[str]) -> None:
        out.extend([title, *(f"  {line}" for line in lines), ""])

    section(f"Stages ({BUILD_SCRIPT})",
            [f"{n}. {what}" for n, what in script_steps((checkout / BUILD_SCRIPT).read_text(encoding="utf-8"))])
    section("Debian root (scripts/lib/debian-root.sh, shared with scripts/pi-check.sh)",
            [f"debootstrap {spec.suite} {spec.arch}, variant {spec.variant}, components {' '.join(spec.components)}, "
             f"with {' '.join(spec.include)}",
             f"then {len(spec.names)} packages ({PACKAGES_FILE}) without recommends, one initrd made after them"])
    section(f"Packages ({PACKAGES_FILE})",
            [f"{what or '(no comment)'}: {' '.join(names)}" for what, names in spec.packages])
    section(f"The project ({INSTALL_SCRIPT}, run in the root as on a Pi)",
            [f"{n}. {what}" for n, what in script_steps((checkout / INSTALL_SCRIPT).read_text(encoding="utf-8"))])
    files = [f"/{rel}  ({mode:04o})" for rel, (_, mode) in root_files().items()]
    files += [f"/{rel}  (0644, from {src})" for rel, src in COPIED_FILES.items()]
    section("Files written into the root (write-root)", files)
    section("Units enabled", [" ".join(UNITS)])
    section("Files added to the boot partition (write-boot), beside the kernel, initrd, DTBs, config.txt and "
            "cmdline.txt of raspi-firmware's hook",
            [f"/boot/firmware/{rel}  (from {src})" for rel, src in BOOT_FILES.items()])
    section("Removed before the image is made: made per board at first boot (clean-root)",
            [f"/{rel}" for rel in PER_BOARD] + [f"/{SSH_HOST_KEYS}", "/etc/machine-id emptied",
                                                  "/var/lib/apt/lists emptied"])
    if root is not None:
        lay = layout(used_mib(root))
        size = f"{lay.total_mib} MiB for a root of {used_mib(root):.0f} MiB"
        spans = [f"{start} MiB, {mib} MiB" for start, mib in lay.spans()]
    else:
        lay = layout(1)
        size = (f"{lay.root_start_mib} MiB + the root: its files x 1.06 + {ROOT_SPARE_MIB} MiB free, "
                f"rounded up to {ALIGN_MIB} MiB")
        spans = [f"{start} MiB, {mib} MiB" for start, mib in lay.spans()[:2]] + [f"{lay.root_start_mib} MiB, (the root)"]
    section(f"Partitions (MBR; the image is {size})",
            [f"{p.number}. {p.label}  {p.fs} (type {p.mbr_type})  at {span}  -> {p.mount}: {p.holds}"
             for p, span in zip(PARTITIONS, spans)])
    return "\n".join(out).rstrip() + "\n"


# ---------------------------------------------------------------- static checks

_UDEV_KEY = re.compile(r'^(?P<key>[A-Z_]+)(\{(?P<attr>[^}]+)\})?(?P<op>==|!=|\+=|-=|:=|=)"(?P<value>[^"]*)"$')
_UDEV_MATCH = {"SUBSYSTEM", "KERNEL", "ACTION", "DRIVER", "ATTR", "ATTRS", "ENV", "SUBSYSTEMS", "KERNELS"}
_UDEV_ASSIGN = {"GROUP", "MODE", "OWNER", "SYMLINK", "TAG", "RUN", "ENV"}


def udev_errors(text: str) -> list[str]:
    """Return what is wrong in udev rules ``text`` (the subset these rules use: matches and assignments);
    an empty list when every line parses."""
    errors = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        matched = assigned = False
        for part in (p.strip() for p in line.split(",")):
            m = _UDEV_KEY.match(part)
            if not m:
                errors.append(f"line {n}: cannot parse {part!r}")
                continue
            key, op = m["key"], m["op"]
            if op in ("==", "!="):
                if key not in _UDEV_MATCH:
                    errors.append(f"line {n}: {key} is not a match key")
                matched = True
            else:
                if key not in _UDEV_ASSIGN:
                    errors.append(f"line {n}: {key} cannot be assigned")
                if key == "MODE" and not re.fullmatch(r"0[0-7]{3}", m["value"]):
                    errors.append(f"line {n}: MODE must be four octal digits, got {m['value']!r}")
                assigned = True
        if not (matched and assigned):
            errors.append(f"line {n}: a rule needs a match and an assignment")
    return errors


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise SystemExit(f"image check: {name} is missing (apt-get install device-tree-compiler)")
    return path


def check_dtb(dtb: Path, overlay: Path, scratch: Path) -> str | None:
    """Return None when ``overlay`` applies to ``dtb`` and leaves SPI0 enabled with its spidev node,
    else the reason."""
    merged = scratch / (dtb.stem + ".merged.dtb")
    r = subprocess.run([_tool("fdtoverlay"), "-i", str(dtb), "-o", str(merged), str(overlay)],
                       capture_output=True, text=True)
    if r.returncode:
        return f"the overlay does not apply: {r.stderr.strip()}"

    def get(node: str, prop: str) -> str:
        out = subprocess.run([_tool("fdtget"), "-t", "s", str(merged), node, prop], capture_output=True, text=True)
        return out.stdout.strip() if out.returncode == 0 else ""
    before = subprocess.run([_tool("fdtget"), "-t", "s", str(dtb), SPI_NODE, "status"], capture_output=True, text=True)
    if get(SPI_NODE, "status") != "okay":
        return f"{SPI_NODE} status is {get(SPI_NODE, 'status')!r} after the overlay"
    if get(SPI_NODE + "/spidev@0", "compatible") != "rohm,dh2228fv":
        return "no spidev@0 node under SPI0 after the overlay"
    merged.unlink()
    return None if before.returncode == 0 else f"{SPI_NODE} is not in the base tree"


def check_root(root: Path, bootfs: Path) -> list[str]:
    """Check the built root and boot files statically; return the report, raise SystemExit on a failure."""
    report, problems = [], []
    overlay = bootfs / "overlays" / f"{OVERLAY}.dtbo"
    if not overlay.is_file():
        problems.append(f"no {overlay.name} on the boot partition")
    boards = []
    for name, board in BOARD_DTBS.items():
        dtb = bootfs / name
        if not dtb.is_file():
            (problems if name in REQUIRED_DTBS else report).append(f"no {name} ({board})")
            continue
        if overlay.is_file():
            why = check_dtb(dtb, overlay, Path("/tmp"))
            if why:
                problems.append(f"{name}: {why}")
                continue
        boards.append(board)
    report.append(f"SPI0 enabled with /dev/spidev0.0 by the overlay on: {', '.join(boards)}")
    config = (bootfs / "config.txt").read_text(encoding="utf-8", errors="replace") if (bootfs / "config.txt").is_file() else ""
    for line in (f"dtoverlay={OVERLAY}", "upstream_kernel=1"):
        if not re.search(rf"^{re.escape(line)}\s*$", config, re.M):
            problems.append(f"config.txt lacks {line}")
    cmdline = (bootfs / "cmdline.txt").read_text(encoding="utf-8", errors="replace") if (bootfs / "cmdline.txt").is_file() else ""
    if f"root=LABEL={ROOT_LABEL}" not in cmdline:
        problems.append(f"cmdline.txt does not name root=LABEL={ROOT_LABEL}: {cmdline.strip()!r}")
    kernels = sorted(bootfs.glob("vmlinuz-*"))
    initrds = sorted(bootfs.glob("initrd.img-*"))
    if not kernels or not initrds:
        problems.append("no kernel or initrd on the boot partition")
    report.append(f"config.txt loads {OVERLAY} and the upstream DTBs; cmdline.txt: {cmdline.strip()}")
    found = {}
    for path in root.glob("lib/modules/*/kernel/**/*.ko*"):
        stem = path.name.split(".ko")[0]
        for mod in MODULES:
            if stem.replace("_", "-") == mod.replace("_", "-"):
                found[mod] = path
    builtin = "".join(p.read_text(errors="replace") for p in root.glob("lib/modules/*/modules.builtin"))
    for mod, what in MODULES.items():
        if mod in found:
            continue
        if re.search(rf"/{re.escape(mod).replace('-', '[-_]')}\.ko$", builtin, re.M):
            found[mod] = Path("built-in")
            continue
        (report if mod in ("snd-bcm2835",) else problems).append(f"kernel module {mod} ({what}) is not in the image")
    report.append("kernel modules: " + ", ".join(f"{m} ({'built in' if str(p) == 'built-in' else 'module'})"
                                                 for m, p in sorted(found.items())))
    rules = root / UDEV_FILE
    errors = udev_errors(rules.read_text(encoding="utf-8")) if rules.is_file() else [f"no /{UDEV_FILE}"]
    problems += [f"{UDEV_FILE}: {e}" for e in errors]
    report.append(f"udev rules parse: {UDEV_FILE} ({len([x for x in UDEV_RULES.splitlines() if x and not x.startswith('#')])} rules)")
    for group in ("spi", "gpio", "audio"):
        if not re.search(rf"^{group}:", (root / "etc/group").read_text(), re.M):
            problems.append(f"no group {group} in /etc/group")
    if problems:
        for p in problems:
            print(f"FAILED: {p}", file=sys.stderr)
        print("\n".join(report))
        raise SystemExit(1)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m firmware.image", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("plan", help="the whole image as one listing").add_argument("--root", type=Path)
    sub.add_parser("root-spec", help="the Debian root as shell assignments")
    sub.add_parser("units", help="the units the image enables")
    for name in ("write-root", "clean-root", "layout", "sfdisk"):
        sub.add_parser(name).add_argument("root", type=Path)
    sub.add_parser("write-boot").add_argument("bootfs", type=Path)
    c = sub.add_parser("check-root")
    c.add_argument("root", type=Path)
    c.add_argument("bootfs", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "plan":
        print(plan(root=args.root), end="")
    elif args.cmd == "root-spec":
        print(root_spec().shell(), end="")
    elif args.cmd == "units":
        print(" ".join(UNITS))
    elif args.cmd == "write-boot":
        print("\n".join(write_boot(args.bootfs)))
    elif args.cmd == "write-root":
        print("\n".join(write_root(args.root)))
    elif args.cmd == "clean-root":
        print("\n".join(clean_root(args.root)))
    elif args.cmd == "check-root":
        print("\n".join(check_root(args.root, args.bootfs)))
    elif args.cmd == "layout":
        print(layout(used_mib(args.root)).shell(), end="")
    else:
        print(layout(used_mib(args.root)).sfdisk(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
