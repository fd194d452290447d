"""Boot the board's SD-card image the Pi's own way, on qemu's Raspberry Pi 3 (raspi3b), and check its clock.

scripts/raspi-check.sh runs this. Standard library only (the build machine's python3); qemu-system-aarch64,
mtools, sfdisk, ssh and the device-tree tools (fdtoverlay, fdtput, fdtget) do the rest. Every figure is
printed; the exit status is 1 at the first check that fails (the console logs are kept in --work).

What the Pi's firmware does before Debian's kernel starts, the check does from the image's own boot partition:
  - the kernel and initrd that config.txt names (``kernel=``, ``initramfs``), the kernel command line of
    cmdline.txt as it is (its console ``ttyS1`` is the Pi 3's mini UART: qemu's second serial port);
  - the Pi 3's device tree, ``bcm2837-rpi-3-b.dtb`` (``upstream_kernel=1``), with every ``dtoverlay=`` of
    config.txt for the Pi 3 applied by ``fdtoverlay`` (ours: landsend-spi, SPI0 and /dev/spidev0.0);
  - what the firmware adds to that tree: ``/system/linux,revision`` (a Pi 3 Model B's code) and
    ``/system/linux,serial``.
Two changes are qemu's, not the Pi's, made in the check's copy of the tree only:
  - qemu 7.2's bcm2835 DMA model trips its re-entrancy guard ("Blocked re-entrant IO on MemoryRegion:
    bcm2835-dma") when SPI uses DMA, and the guest stops: ``dmas``/``dma-names`` go from the SPI node (PIO);
  - qemu's model of the Pi's SD host (``sdhost``, mmc@7e202000) loses interrupts in PIO: reads of the root
    failed after 10 s each ("timeout waiting for hardware interrupt", I/O errors in libnm) on one of two boots.
    The card goes on the Pi's other SD controller (the Arasan SDHCI, mmc@7e300000, pins 48-53 in ALT3), as
    Raspberry Pi's ``sdio``/``mmc`` overlays do on a real board; it is still the only card, ``mmcblk0``, and
    the Wi-Fi it serves on a real Pi 3 is absent in qemu anyway.
A real Pi keeps its DMA and its sdhost.

Then, on the booted machine: the root and the table's data from the SD card (mmcblk0), the daemon READY, the
board identified as a Pi 3 and the buttons built on its GPIO chip through lgpio (no fault), /dev/spidev0.0
held open by the daemon as the service user, the page over qemu's USB networking and a whole hand through it;
what qemu's Pi model lacks (SPI signals, the Wi-Fi chip, sound) is named from the journal. Then the clock, as a
Pi has none that runs while it is off: the board comes up on the time systemd-timesyncd last saved; a joined
phone whose clock is ahead sets it; timesyncd keeps it in its clock file; after a power cut of hours the board
comes up behind, the phone sets it again and the next game starts a new night with the right date; a clock set
back by the host never stamps an event before the one it follows.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from boot_check import Api, CheckFailed, Disk, Machine, check, fresh_work, run, say, whole_hand  # noqa: E402

NAME = "Raspi Check"
PI3_REVISION = 0xA02082          # Raspberry Pi 3 Model B rev 1.2, made by Sony UK
PI3_SERIAL = (0x0, 0x4C454E44)
PI3_DTB = "bcm2837-rpi-3-b.dtb"
SPI_NODE = "/soc/spi@7e204000"
SDHOST, SDHCI, SDHCI_PINS = "/soc/mmc@7e202000", "/soc/mmc@7e300000", "/soc/gpio@7e200000/emmc_gpio48"


def config_txt(text: str, model: str = "pi3") -> dict:
    """What the Pi firmware reads of config.txt for ``model``: kernel, initramfs, dtoverlays, dtparams.

    Sections ``[all]`` and ``[<model>]`` apply, others (``[pi4]``...) do not; the first ``kernel=`` and
    ``initramfs`` win as the firmware's do, and overlays apply in their order."""
    out: dict = {"kernel": None, "initramfs": None, "dtoverlay": [], "dtparam": []}
    applies = True
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if line.startswith("[") and line.endswith("]"):
            applies = line[1:-1].strip() in ("all", model)
            continue
        if not applies:
            continue
        if line.startswith("initramfs "):
            out["initramfs"] = out["initramfs"] or line.split()[1]
            continue
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if key == "kernel":
            out["kernel"] = out["kernel"] or value
        elif key in ("dtoverlay", "dtparam"):
            out[key].append(value)
    return out


def pi3_tree(work: Path, disk: Disk, cfg: dict) -> tuple[Path, list[str]]:
    """The device tree the Pi 3's firmware would hand the kernel, with qemu's one change; return it and the
    list of what was done to it."""
    base = work / PI3_DTB
    disk.fat_get(PI3_DTB, base)
    done = [f"{PI3_DTB} from the boot partition"]
    tree = work / "raspi3b.dtb"
    shutil.copy(base, tree)
    for overlay in cfg["dtoverlay"]:
        name = overlay.split(",")[0]
        dtbo = work / f"{name}.dtbo"
        disk.fat_get(f"overlays/{name}.dtbo", dtbo)
        out = work / "raspi3b-next.dtb"
        r = run(["fdtoverlay", "-i", str(tree), "-o", str(out), str(dtbo)])
        check(r.returncode == 0, f"fdtoverlay {name}: {r.stderr.strip()}")
        out.replace(tree)
        done.append(f"dtoverlay={overlay} applied (fdtoverlay)")
    fdt = [["fdtput", "-d", str(tree), SPI_NODE, "dmas"], ["fdtput", "-d", str(tree), SPI_NODE, "dma-names"],
           ["fdtput", "-t", "s", str(tree), SDHOST, "status", "disabled"],
           ["fdtput", "-t", "x", str(tree), SDHCI_PINS, "phandle", "7001"],
           ["fdtput", "-t", "x", str(tree), SDHCI, "pinctrl-0", "7001"],
           ["fdtput", "-d", str(tree), SDHCI, "mmc-pwrseq"], ["fdtput", "-r", str(tree), f"{SDHCI}/wifi@1"]]
    for cmd in fdt:
        r = run(cmd)
        check(r.returncode == 0, f"{' '.join(cmd[:1] + cmd[2:])}: {r.stderr.strip()}")
    done.append(f"qemu only: no DMA for SPI ({SPI_NODE}); the card on the SDHCI ({SDHCI}, pins 48-53 ALT3) "
                f"instead of the sdhost ({SDHOST})")
    for cmd in (["fdtput", "-c", str(tree), "/system"],
                ["fdtput", "-t", "x", str(tree), "/system", "linux,revision", f"{PI3_REVISION:x}"],
                ["fdtput", "-t", "x", str(tree), "/system", "linux,serial", *(f"{x:x}" for x in PI3_SERIAL)]):
        r = run(cmd)
        check(r.returncode == 0, f"{' '.join(cmd)}: {r.stderr.strip()}")
    done.append(f"the firmware's /system/linux,revision {PI3_REVISION:06x} and linux,serial")
    if cfg["dtparam"]:
        done.append(f"not applied: dtparam={', '.join(cfg['dtparam'])} (the firmware's parameters of its own trees;"
                    " Debian's upstream tree has none)")
    return tree, done


class Raspi3b(Machine):
    """qemu's Raspberry Pi 3 Model B: SD card, the mini UART's console, USB networking (the page and SSH)."""

    def start(self) -> None:
        self.boots += 1
        a = self.args
        console = self.work / f"console-{Path(self.disk).stem}-{self.boots}.log"
        cmd = ["qemu-system-aarch64", "-M", "raspi3b", "-kernel", str(self.kernel), "-initrd", str(self.initrd),
               "-dtb", str(self.dtb), "-append", self.cmdline,
               # cache=writeback: qemu's SD model moves 512 bytes a request, and a synchronous write of each
               # (boot-check's directsync) makes the first boot's resize take most of an hour; a SIGKILL of qemu
               # loses nothing the guest wrote either way (it is in the host's page cache), so a cut stays real
               "-drive", f"file={self.work / self.disk},format=raw,if=sd,cache=writeback",
               "-usb", "-device", "usb-net,netdev=n0",
               # restrict=on: no way out but the check's own forwards, as at a pub with no internet (on the first
               # run the board took this machine's network time through qemu's NAT and came up right)
               "-netdev", f"user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:{a.port}-:80,"
                          f"hostfwd=tcp:127.0.0.1:{a.ssh_port}-:22",
               "-nographic", "-no-reboot", "-monitor", "none", "-serial", "null", "-serial", f"file:{console}"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=open(self.work / "qemu.log", "a"),
                                     stderr=subprocess.STDOUT)
        self.started = time.monotonic()


def card_size(size: int) -> int:
    """qemu's SD card is a power of two in size: the next one that leaves the first boot room to grow."""
    want, card = size + 512 * 1048576, 1 << 30
    while card < want:
        card <<= 1
    return card


def board_time(m: Machine) -> float:
    return float(m.ssh("date +%s.%N").strip())


def offer_clock(api: Api, when: float, force: bool = False) -> dict:
    body = {"now": int(when * 1000)}
    if force:
        body["force"] = True
    t0 = time.monotonic()
    code, answer = api.request("POST", "/api/clock", body, timeout=300)
    check(code == 200, f"POST /api/clock {body}: {code} {answer}")
    answer["took"] = time.monotonic() - t0      # timedated's set-ntp off, set-time, set-ntp on, under emulation
    return answer


def season(api: Api) -> list[dict]:
    """The season's nights, once worked out (the view answers 202 with its job until then)."""
    deadline = time.monotonic() + 300
    while True:
        code, body = api.request("GET", "/api/season", timeout=120)
        if code == 200:
            return body["nights"]
        check(code == 202 and time.monotonic() < deadline, f"GET /api/season: {code} {str(body)[:200]}")
        time.sleep(2)


def day(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def pi_checks(m: Machine, api: Api) -> list[str]:
    """The Pi's own parts on qemu's Pi 3; return the figure lines."""
    lines = []
    root = m.ssh("findmnt -n -o SOURCE /; findmnt -n -o SOURCE /var/lib/landsend; findmnt -n -o SOURCE /boot/firmware")
    check(root.split() == ["/dev/mmcblk0p3", "/dev/mmcblk0p2", "/dev/mmcblk0p1"], f"mounts: {root.split()}")
    lines.append("root, table data and boot partition from the SD card (/dev/mmcblk0p3, p2, p1)")
    pid = m.ssh("systemctl show landsend -P MainPID").strip()
    journal = m.ssh("journalctl -b -q -u landsend -o cat")
    said = re.search(r"board: (.*)", journal)
    check(said is not None and said.group(1).startswith("Raspberry Pi 3 Model B") and "revision a02082" in said.group(1),
          f"the daemon did not identify the Pi 3: {said.group(0) if said else journal[-600:]}")
    lines.append(f"the daemon says 'board: {said.group(1)}'")
    faults = api.get("/api/session")["faults"]
    check(not [f for f in faults if "buttons" in f], f"the buttons failed on the Pi 3: {faults}")
    fds = m.ssh(f"ls -l /proc/{pid}/fd | sed 's/.*-> //' | sort -u")
    check("/dev/gpiochip0" in fds.split(), f"the daemon holds no /dev/gpiochip0: {fds}")
    factory = m.ssh(f"grep -o '[^/]*lgpio[^ ]*' /proc/{pid}/maps | sort -u")
    check("lgpio" in factory, f"lgpio is not loaded in the daemon: {factory[-300:]}")
    lines.append("the buttons built on the Pi's GPIO chip through lgpio (the daemon holds /dev/gpiochip0), "
                 "no fault on the page")
    user = m.ssh(f"stat -c %U /proc/{pid}; ls -l /dev/spidev0.0").split()
    check(user[0] == "landsend", f"the daemon runs as {user[0]}")
    check("/dev/spidev0.0" in fds.split(), f"the daemon (user landsend) does not hold /dev/spidev0.0 open: {fds}")
    lines.append(f"/dev/spidev0.0 ({' '.join(user[1:5])}) opened by the daemon as the user landsend")
    # what qemu's Pi 3 lacks, named from what the kernel and the daemon said
    kernel = m.ssh("journalctl -b -q -k -o cat")
    missing = []
    if "SPI transfer timed out" in kernel or any(f.startswith("LED strip") for f in faults):
        missing.append("SPI signals (qemu has no model of the Pi's SPI controller: its transfers time out, so the "
                       "strip's frames go nowhere)")
    wifi = m.ssh("nmcli -t -f TYPE device | grep -c '^wifi$' || true").strip()
    if wifi == "0":
        missing.append("the Wi-Fi chip (no SDIO radio in qemu's model: no wlan device, so no hotspot)")
    sound = m.ssh("cat /proc/asound/cards 2>/dev/null | head -1 || true").strip()
    if not sound or "no soundcards" in sound:
        missing.append("sound (no audio device in qemu's model)")
    others = [f for f in faults if not f.startswith("LED strip") and "voice" not in f.lower()]
    check(not others, f"faults on the page besides what qemu lacks: {others}")
    lines.append("qemu's Pi 3 lacks, so this check cannot show: " + "; ".join(missing))
    failed = m.ssh("systemctl --failed --no-legend --plain").strip()
    check(failed == "", f"systemctl --failed: {failed}")
    return lines


class Said(list):
    """The figure lines, each also printed as it comes (a later failure leaves the ones before on the screen)."""

    def append(self, line: str) -> None:
        say(line)
        super().append(line)


def clock_checks(m: Machine, api: Api) -> list[str]:
    """The board's clock with no RTC: set from a phone, kept across a power cut, a new night after hours off."""
    lines = Said()
    api.host()
    synced = m.ssh("timedatectl show -p NTPSynchronized --value").strip()
    check(synced == "no", f"the board has network time (NTPSynchronized={synced}): the check needs a pub's, none")
    now = time.time()
    came = board_time(m)
    lines.append(f"first boot: the board's clock read {day(came)}, {(now - came) / 86400:.1f} days behind")
    check(now - came > 120, "the board's clock was right at boot: this check needs one that is behind (no RTC)")
    answer = offer_clock(api, time.time())
    check(answer.get("set") is True, f"a joined phone ahead of the board did not set its clock: {answer}")
    skew = board_time(m) - time.time()
    check(abs(skew) < 10, f"the board's clock is {skew:.1f} s off the phone's after the set")
    lines.append(f"a joined phone set it in {answer['took']:.1f} s (board {skew:+.1f} s off the phone after)")
    behind = offer_clock(api, time.time() - 3600)
    check(behind.get("set") is False, f"a phone whose clock is behind moved the board's: {behind}")
    say(f"a whole two-hand hand over USB networking: {whole_hand(api)}")
    set_at = time.time()
    deadline = time.monotonic() + 150
    while True:          # systemd-timesyncd saves the time in its clock file (SaveIntervalSec, 60 s)
        saved = float(m.ssh("stat -c %Y /var/lib/systemd/timesync/clock").strip())
        if saved >= set_at - 5:
            break
        check(time.monotonic() < deadline, f"timesyncd's clock file still says {day(saved)}")
        time.sleep(10)
    lines.append(f"systemd-timesyncd kept it in its clock file ({day(saved)})")
    first = season(api)
    check(len(first) == 1 and first[0]["date"] == day(set_at)[:10], f"the first night: {first}")
    # a power cut of hours: the board comes up on the saved time; the phone's clock is hours ahead
    m.cut()
    m.start()
    page_s = m.wait_page(api)
    api.host()
    came = board_time(m)
    check(came >= saved - 1, f"after the cut the board's clock went back before the saved time: {day(came)}")
    # hours off, longer than a night's break (companion.season: 4 h), ending on the next day's morning
    hours_off = 30 - dt.datetime.now(dt.timezone.utc).hour
    lines.append(f"after a power cut (page after {page_s:.0f} s) the board came up on {day(came)}, not before the "
                 "saved time")
    answer = offer_clock(api, time.time() + hours_off * 3600)
    check(answer.get("set") is True, f"the phone {hours_off} h ahead did not set the board's clock: {answer}")
    skew = board_time(m) - (time.time() + hours_off * 3600)
    check(abs(skew) < 10, f"the board is {skew:.1f} s off the phone after the second set")
    for c in ({"type": "new_match", "game": "five-card", "players": ["Ann", "Bob"], "first_dealer": "Bob"},
              {"type": "turnup", "card": "KC"}):
        code, body = api.cmd(c)
        check(code == 200, f"{c}: {code} {body}")
    nights = season(api)
    want = day(time.time() + hours_off * 3600)[:10]
    check(len(nights) == 2 and nights[1]["date"] == want and nights[0]["date"] == first[0]["date"],
          f"the nights after {hours_off} h off: {nights} (want a second night dated {want})")
    lines.append(f"a phone {hours_off} h ahead set it; the next game started night 2, dated {nights[1]['date']} "
                 f"(night 1: {nights[0]['date']})")
    # the host sets the clock a day back: no event is stamped before the one it follows
    last = api.get("/api/history")["events"][-1]["at"]
    answer = offer_clock(api, time.time() + hours_off * 3600 - 86400, force=True)
    check(answer.get("set") is True, f"the host could not set the clock back: {answer}")
    code, body = api.cmd({"type": "play", "card": "9C"})
    check(code == 200, f"a play after the clock went back: {code} {body}")
    events = api.get("/api/history")["events"]
    stamps = [dt.datetime.fromisoformat(e["at"]) for e in events]
    check(all(a <= b for a, b in zip(stamps, stamps[1:])) and stamps[-1] >= dt.datetime.fromisoformat(last),
          f"an event stamped before the one it follows: {[e['at'] for e in events]}")
    lines.append(f"the host set the clock a day back: the next event is stamped {events[-1]['at']}, not before "
                 f"{last}")
    offer_clock(api, time.time(), force=True)       # leave the board on the real time
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(prog="scripts/raspi-check.sh")
    ap.add_argument("image", type=Path)
    ap.add_argument("--port", type=int, default=8790)
    ap.add_argument("--ssh-port", type=int, default=8732)
    ap.add_argument("--boot-timeout", type=int, default=1500)
    ap.add_argument("--work", type=Path, default=Path("/var/tmp/landsend-raspi-check"))
    ap.add_argument("--no-clock", action="store_true", help="the Pi's boot only")
    args = ap.parse_args()
    work = fresh_work(args.work)
    check(args.image.is_file(), f"no image {args.image}")
    disk_path = work / "sd.img"
    run(["cp", "--sparse=always", str(args.image), str(disk_path)])
    size0 = disk_path.stat().st_size
    card = card_size(size0)
    with open(disk_path, "r+b") as f:
        f.truncate(card)
    disk = Disk(disk_path)
    disk.fat_get("config.txt", work / "config.txt")
    disk.fat_get("cmdline.txt", work / "cmdline.txt")
    cfg = config_txt((work / "config.txt").read_text())
    check(cfg["kernel"] and cfg["initramfs"], f"config.txt names no kernel or initramfs: {cfg}")
    disk.fat_get(cfg["kernel"], work / "kernel")
    disk.fat_get(cfg["initramfs"], work / "initrd")
    cmdline = " ".join((work / "cmdline.txt").read_text().split())
    tree, done = pi3_tree(work, disk, cfg)
    say(f"image {args.image.name} on a {card >> 30} GiB SD card: config.txt's {cfg['kernel']} and "
        f"{cfg['initramfs']}, cmdline.txt '{cmdline}'")
    for line in done:
        say(f"  device tree: {line}")
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "raspi-check", "-f", str(work / "id")])
    pub = (work / "id.pub").read_text().strip()
    settings = work / "landsend.toml"         # the board's defaults (the SPI strip, the buttons) and SSH for the check
    settings.write_text(f'# raspi-check\nname = "{NAME}"\n[ssh]\nenabled = true\nauthorized_keys = ["{pub}"]\n')
    disk.fat_put(settings, "landsend.toml")
    m = Raspi3b(args, work, work / "kernel", work / "initrd", cmdline, disk=disk_path.name)
    m.dtb = tree
    api = Api(args.port)
    figures = []
    try:
        m.start()
        page_s = m.wait_page(api)
        state = m.ssh("systemctl is-system-running --wait || true", timeout=900).strip()
        check(state == "running", f"the system is {state!r} after booting: "
                                  f"{m.ssh('systemctl --failed --no-legend --plain')}")
        ready = m.ssh("systemctl show landsend -P ActiveEnterTimestampMonotonic; systemd-analyze time | head -1",
                      timeout=300).split("\n")
        figures.append(f"raspi3b: page after {page_s:.0f} s from power-on; landsend READY "
                       f"{int(ready[0]) / 1e6:.0f} s after the kernel started ({ready[1].strip()})")
        say(figures[-1])
        api.host()
        for line in pi_checks(m, api):
            say(line)
        if args.no_clock:
            say(f"a whole two-hand hand over USB networking: {whole_hand(api)}")
        else:
            figures.extend(clock_checks(m, api))
        m.shutdown()
    except CheckFailed as exc:
        say(f"FAILED: {exc}")
        try:
            say("the daemon's journal:\n" + m.ssh("journalctl -b -q -u landsend -o short-monotonic | tail -40"))
        except (CheckFailed, subprocess.TimeoutExpired):
            pass
        return 1
    finally:
        m.stop()
    say("raspi-check passed: " + "; ".join(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
