"""systemd/: the unit passes `systemd-analyze verify`, its keys say what the daemon needs, avahi and install agree."""

import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from firmware.daemon import _parser, run
from firmware.wifi import Hotspot, hotspot_profile

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "systemd" / "landsend.service"
AVAHI = ROOT / "systemd" / "landsend.avahi.service"
INSTALL = ROOT / "systemd" / "install.sh"
POLKIT = ROOT / "systemd" / "landsend-wifi.rules"


def parse_unit(text):
    sections, current = {}, None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        m = re.fullmatch(r"\[(\w+)\]", line)
        if m:
            current = sections.setdefault(m.group(1), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


UNIT_KEYS = parse_unit(UNIT.read_text())
SERVICE = {k: v[-1] for k, v in UNIT_KEYS["Service"].items()}


def verify(unit_text, tmp_path, name):
    # verify checks that ExecStart's binary exists: point it at this venv's python for the check
    path = tmp_path / name
    path.write_text(unit_text.replace("/opt/landsend/current/bin/python", sys.executable))
    return subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_passes_without_a_warning(tmp_path):
    out = verify(UNIT.read_text(), tmp_path, "landsend.service")
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")
    # the check is live: a unit with a typo in a key is reported
    broken = verify(UNIT.read_text().replace("ProtectSystem=strict", "ProtectSytem=strict"), tmp_path,
                    "broken.service")
    assert "Unknown key" in broken.stderr and "ProtectSytem" in broken.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_update_units_verify_and_run_the_release_that_runs_now_as_root(tmp_path):
    names = ("landsend-update.path", "landsend-update.service", "landsend-update-boot.service")
    for name in names:
        text = (ROOT / "systemd" / name).read_text()
        (tmp_path / name).write_text(text)
    out = subprocess.run(["systemd-analyze", "verify", *(str(tmp_path / n) for n in names)],
                         capture_output=True, text=True, timeout=60)
    assert (out.returncode, out.stderr) == (0, "")
    path = parse_unit((ROOT / "systemd/landsend-update.path").read_text())
    assert path["Path"] == {"PathExists": ["/var/lib/landsend/update/request.json"], "Unit": ["landsend-update.service"]}
    from firmware.update import Layout
    assert str(Layout().request) == "/var/lib/landsend/update/request.json"
    for name, cmd in (("landsend-update.service", "run"), ("landsend-update-boot.service", "boot")):
        unit = parse_unit((ROOT / "systemd" / name).read_text())
        assert "User" not in unit["Service"]                          # root: it writes /opt and restarts the daemon
        assert unit["Service"]["ExecStart"] == [
            """/bin/sh -c 'exec "$(readlink -f /opt/landsend/current)/bin/python" -P -m firmware.update """ + cmd + "'"]
    boot = parse_unit((ROOT / "systemd/landsend-update-boot.service").read_text())
    assert "landsend.service" in boot["Unit"]["Before"][0].split()
    # never before a path unit: path units come before paths.target, so before basic.target, and the setup unit
    # (which the boot step waits for) after it; that cycle made systemd skip the setup at boot
    assert "landsend-setup.service" in boot["Unit"]["After"][0].split()
    assert not any(u.endswith(".path") for u in " ".join(boot["Unit"]["Before"]).split())
    service = parse_unit((ROOT / "systemd/landsend-update.service").read_text())
    assert "landsend-update-boot.service" in service["Unit"]["After"][0].split()


def test_unit_runs_the_daemon_as_a_notify_service_with_a_watchdog():
    assert SERVICE["Type"] == "notify" and SERVICE["NotifyAccess"] == "main"
    assert int(SERVICE["WatchdogSec"]) >= 10                       # pings every WatchdogSec/2 from the main loop
    assert SERVICE["Restart"] == "on-failure"
    assert (SERVICE["User"], SERVICE["Group"]) == ("landsend", "landsend")
    assert set(SERVICE["SupplementaryGroups"].split()) == {"gpio", "spi", "audio"}      # audio: the voice
    assert SERVICE["StateDirectory"] == "landsend"
    # lgpio creates .lgd-nfy* pipes in the working directory (gpiozero issue 1106): it must be writable
    assert SERVICE["WorkingDirectory"] == "/var/lib/landsend"
    assert UNIT_KEYS["Install"]["WantedBy"] == ["multi-user.target"]


def test_unit_runs_the_daemon_without_the_allocators_per_thread_caches():
    # issue 25 item 5: with glibc's per-thread caches the daemon grew 0.5 MB per 10,000 events of one match
    # (bench/bench_memory.py, which runs the daemon with this unit's environment); without them it stays flat
    assert "GLIBC_TUNABLES=glibc.malloc.tcache_count=0" in UNIT_KEYS["Service"]["Environment"]
    import sys
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_streams import unit_environment
    assert unit_environment(ROOT)["GLIBC_TUNABLES"] == "glibc.malloc.tcache_count=0"


def test_a_refused_config_is_not_restarted_in_a_loop(tmp_path):
    # the daemon exits 2 on a refused config (tests/test_firmware_daemon.py checks the message)
    bad = tmp_path / "bad.toml"
    bad.write_text("[strip]\nbrightness = 2\n")
    args = _parser().parse_args(["--config", str(bad), "--db", str(tmp_path / "x.db")])
    assert run(args, stderr=io.StringIO()) == 2
    assert SERVICE["RestartPreventExitStatus"].split() == ["2"]
    assert not (tmp_path / "x.db").exists()


def test_unit_exec_start_is_a_command_line_the_daemon_accepts():
    argv = shlex.split(SERVICE["ExecStart"])
    # -P: the working directory (the writable state dir) stays off sys.path, so nothing there shadows a module
    # current: the release folder the update switches (a symlink replaced by rename, firmware/update.py)
    assert argv[:4] == ["/opt/landsend/current/bin/python", "-P", "-m", "firmware.daemon"]
    args = _parser().parse_args(argv[4:])
    assert (args.config, args.port, args.sim, args.db) == ("/etc/landsend/config.toml", 80, False, None)
    # port 80 as an unprivileged user
    assert SERVICE["AmbientCapabilities"] == "CAP_NET_BIND_SERVICE"


def test_unit_hardening_keeps_spi_and_gpio_reachable():
    for key, value in {"ProtectSystem": "strict", "ProtectHome": "yes", "NoNewPrivileges": "yes",
                       "PrivateTmp": "yes", "ProtectKernelModules": "yes", "RestrictRealtime": "yes"}.items():
        assert SERVICE[key] == value, key
    # PrivateDevices hides /dev/spidev* and /dev/gpiochip*; PrivateUsers drops the gpio/spi groups;
    # a closed device policy would need the exact device classes of every Pi model
    # ProtectClock implies DeviceAllow=char-rtc r, which with the default DevicePolicy=auto closes every
    # other device on systemd versions without the fix of systemd issue 18142
    for key in ("PrivateDevices", "PrivateUsers", "DevicePolicy", "DeviceAllow", "DynamicUser", "ProtectClock"):
        assert key not in SERVICE, key
    # the clock is protected anyway: the only capability the daemon may hold is binding port 80
    assert SERVICE["CapabilityBoundingSet"] == "CAP_NET_BIND_SERVICE"


def test_avahi_advertises_the_port_the_unit_serves():
    root = ET.parse(AVAHI).getroot()
    service = root.find("service")
    assert root.findtext("name") == "Land's End"
    assert service.findtext("type") == "_http._tcp"
    assert service.findtext("port") == "80" == str(_parser().parse_args(shlex.split(SERVICE["ExecStart"])[4:]).port)


def stage(root, *args, path="/usr/bin:/bin"):
    """Return the finished run of install.sh staged under ``root`` (no system change, no root needed)."""
    return subprocess.run(["bash", str(INSTALL), "--root", str(root), *args], capture_output=True, text=True,
                          timeout=120, env={"PATH": path, "PYTHON": sys.executable})


def fake_apt(bin_dir, *, lgpio_candidate):
    """Put ``dpkg-query`` (nothing installed) and ``apt-cache`` (python3-lgpio's candidate) in ``bin_dir``."""
    bin_dir.mkdir()
    (bin_dir / "dpkg-query").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "apt-cache").write_text(
        "#!/bin/sh\necho 'python3-lgpio:'\necho '  Installed: (none)'\n"
        f"echo '  Candidate: {lgpio_candidate}'\necho '  Version table:'\n")
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    return f"{bin_dir}:/usr/bin:/bin"


def test_install_script_on_plain_debian_says_where_lgpio_comes_from_and_takes_the_pip_wheel(tmp_path):
    # plain Debian or Ubuntu: apt has no python3-lgpio (it is in Raspberry Pi OS's own repository only)
    out = stage(tmp_path / "pi", path=fake_apt(tmp_path / "bin", lgpio_candidate="(none)"))
    assert out.returncode == 0, out.stderr
    assert "note: python3-lgpio is not in this system's apt sources (it comes from Raspberry Pi OS's own" in out.stderr
    would = [line for line in out.stdout.splitlines() if line.startswith("would run: ")]
    assert ("would run: apt-get install -y -q python3-venv python3-dev build-essential avahi-daemon espeak-ng "
            "alsa-utils network-manager") in would
    pip = f"would run: {tmp_path / 'pi'}/opt/landsend/releases/0.1.0/bin/pip install -q lgpio"
    assert pip in would
    assert would.index(pip) > would.index("would run: apt-get install -y -q python3-venv python3-dev "
                                          "build-essential avahi-daemon espeak-ng alsa-utils network-manager")


def test_install_script_on_raspberry_pi_os_takes_python3_lgpio_from_apt(tmp_path):
    out = stage(tmp_path / "pi", path=fake_apt(tmp_path / "bin", lgpio_candidate="2.2-1~rpt1"))
    assert out.returncode == 0, out.stderr
    assert "python3-lgpio is not" not in out.stderr
    would = [line for line in out.stdout.splitlines() if line.startswith("would run: ")]
    assert ("would run: apt-get install -y -q python3-venv python3-dev build-essential python3-lgpio "
            "avahi-daemon espeak-ng alsa-utils network-manager") in would
    assert not any(line.endswith("pip install -q lgpio") for line in would)


def test_install_script_stages_every_file_and_a_second_run_changes_nothing(tmp_path):
    root = tmp_path / "pi"
    boot = root / "boot" / "firmware" / "config.txt"
    boot.parent.mkdir(parents=True)
    boot.write_text("arm_64bit=1\n")
    first = stage(root)
    assert first.returncode == 0, first.stderr
    assert boot.read_text() == "arm_64bit=1\n\n# Land's End LED strip on SPI MOSI (GPIO10)\ndtparam=spi=on\n"
    config = root / "etc" / "landsend" / "config.toml"
    assert config.read_text() == (ROOT / "firmware" / "default_config.toml").read_text()
    assert (root / "etc/systemd/system/landsend.service").read_text() == UNIT.read_text()
    assert (root / "etc/avahi/services/landsend.service").read_text() == AVAHI.read_text()
    code = root / "opt" / "landsend" / "src"
    assert (code / "firmware" / "daemon.py").read_bytes() == (ROOT / "firmware" / "daemon.py").read_bytes()
    assert not (code / ".git").exists() and not (code / ".venv").exists()
    assert not list(code.rglob("__pycache__"))
    # the system is only told what would change, in order: user and groups, venv, then the service
    would = [line for line in first.stdout.splitlines() if line.startswith("would run: ")]
    assert "would run: usermod --append --groups gpio,spi,audio landsend" in would
    # the board's own Wi-Fi: its name and password once, the NetworkManager profile, and the polkit rule
    wifi = root / "etc" / "landsend" / "wifi.toml"
    spot = Hotspot.load(wifi)
    assert re.fullmatch(r"Lands End [0-9A-F]{4}", spot.ssid) and len(spot.password) == 12
    profile = root / "etc/NetworkManager/system-connections/landsend-hotspot.nmconnection"
    assert profile.read_text() == hotspot_profile(spot) and profile.stat().st_mode & 0o777 == 0o600
    assert (root / "etc/NetworkManager/dnsmasq-shared.d/landsend.conf").read_text().endswith("address=/#/10.42.0.1\n")
    rule = root / "etc/polkit-1/rules.d/50-landsend-wifi.rules"
    assert rule.read_text() == POLKIT.read_text() and rule.stat().st_mode & 0o777 == 0o644
    # the D-Bus policy that lets the daemon ask avahi for the board's own name again (firmware/mdns.py)
    policy = root / "etc/dbus-1/system.d/landsend-avahi.conf"
    assert policy.read_text() == (ROOT / "systemd" / "landsend-avahi.conf").read_text()
    assert policy.stat().st_mode & 0o777 == 0o644
    assert f"would run: chgrp landsend {wifi}" in would                  # the daemon reads it, nobody else
    assert would.index("would run: nmcli connection reload") < would.index("would run: systemctl restart landsend.service landsend-update.path")
    assert would[-4:] == ["would run: systemctl daemon-reload",
                          "would run: systemctl enable landsend.service landsend-update.path landsend-update-boot.service",
                          "would run: systemctl restart landsend.service landsend-update.path",
                          "would run: systemctl reload-or-restart avahi-daemon.service"]
    # the release layout: the project in releases/<version>, whole (its marker), current -> it by a relative link
    prefix = root / "opt" / "landsend"
    assert "would run: python3 -m venv --system-site-packages " + str(prefix / "releases/0.1.0") in would
    assert f"would run: {prefix}/releases/0.1.0/bin/pip install -q --upgrade {prefix}/src" in would
    # and the compiled play-out (native/, pegwalk: the three- and four-hand advice), built from its copied source
    native = f"would run: {prefix}/releases/0.1.0/bin/pip install -q --force-reinstall --no-deps {prefix}/src/native"
    assert would.index(native) == would.index(f"would run: {prefix}/releases/0.1.0/bin/pip install -q --upgrade {prefix}/src") + 1
    assert (prefix / "src/native/pegwalk.c").is_file() and not (prefix / "src/native/build").exists()
    assert os.readlink(prefix / "current") == "releases/0.1.0" and not (prefix / "current.new").exists()
    marker = json.loads((prefix / "releases/0.1.0/landsend-release.json").read_text())
    from companion.store import SCHEMA_VERSION
    assert (marker["version"], marker["schema"], marker["signer"]) == ("0.1.0", SCHEMA_VERSION, "install.sh")
    from firmware.update import Layout
    assert Layout(root).versions() == ["0.1.0"] and Layout(root).running() == "0.1.0"
    # the update's units and the key it checks signatures with
    for unit in ("landsend-update.service", "landsend-update.path", "landsend-update-boot.service"):
        assert (root / "etc/systemd/system" / unit).read_text() == (ROOT / "systemd" / unit).read_text()
    assert (root / "usr/share/keyrings/landsend-release.gpg").read_bytes() == (ROOT / "keys/landsend-release.gpg").read_bytes()

    # the owner edits the config and a file disappears from the checkout's copy; install again
    config.write_text("[strip]\nbrightness = 0.3\n")
    (code / "stale.py").write_text("old = True\n")
    second = stage(root)
    assert second.returncode == 0, second.stderr
    assert config.read_text() == "[strip]\nbrightness = 0.3\n"                      # never overwritten
    assert boot.read_text().count("dtparam=spi=on") == 1                          # enabled once
    assert not (code / "stale.py").exists()                                        # the copy is replaced whole
    assert "enabling SPI" not in second.stdout and "writing " + str(config) not in second.stdout
    assert Hotspot.load(wifi) == spot and "a new password" not in second.stdout       # made once, kept
    assert profile.read_text() == hotspot_profile(spot)
    assert not (root / "opt" / "landsend" / "src.new").exists() and not (root / "opt" / "landsend" / "src.old").exists()
    assert os.readlink(root / "opt/landsend/current") == "releases/0.1.0"            # the same release, again


def test_install_script_stops_before_restarting_the_daemon_on_a_refused_config(tmp_path):
    config = tmp_path / "pi" / "etc" / "landsend" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[strip]\ntype = \"GRBX\"\n")
    out = stage(tmp_path / "pi")
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        f"install.sh: config refused: {config}, line 2, strip.type: must be one of GRB, RGB, BRG, RBG, GBR, BGR, "
        "GRBW, RGBW, got 'GRBX'")
    assert "systemctl restart" not in out.stdout
    assert not (tmp_path / "pi" / "etc" / "systemd").exists()


def test_install_script_refuses_unknown_options_and_needs_root_to_install_for_real():
    out = subprocess.run(["bash", str(INSTALL), "--frobnicate"], capture_output=True, text=True)
    assert (out.returncode, out.stderr) == (2, "install.sh: unknown option --frobnicate (see --help)\n")
    text = INSTALL.read_text()
    assert 'python3 -m venv --system-site-packages "$release"' in text and 'release="$prefix/releases/$version"' in text
    # pip compiles spidev and rpi-ws281x on the Pi (no wheels there): the compiler and headers are installed
    # and the voice's speech engine and player (espeak-ng, aplay from alsa-utils)
    assert ("for pkg in python3-venv python3-dev build-essential python3-lgpio avahi-daemon espeak-ng alsa-utils "
            "network-manager; do" in text)
    assert "for group in gpio spi audio; do" in text
    assert (ROOT / "firmware" / "default_config.toml").exists()


def test_the_polkit_rule_grants_the_service_user_its_wifi_and_clock_actions_and_nothing_else():
    # polkitd itself loads it in scripts/pi-check.sh (and pkcheck asks it); here: what it says
    text = POLKIT.read_text()
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    assert re.findall(r'action\.id === "([^"]+)"', code) == [
        "org.freedesktop.NetworkManager.network-control", "org.freedesktop.NetworkManager.wifi.scan",
        "org.freedesktop.NetworkManager.settings.modify.system",
        # the hotspot is a shared connection: bringing it back after a join needs the share actions
        "org.freedesktop.NetworkManager.wifi.share.protected", "org.freedesktop.NetworkManager.wifi.share.open",
        # the board's clock from a phone's (firmware/clock.py): timedated, never a capability of the daemon's
        "org.freedesktop.timedate1.set-time", "org.freedesktop.timedate1.set-ntp"]
    assert re.findall(r"polkit\.Result\.(\w+)", code) == ["NOT_HANDLED", "YES", "NOT_HANDLED"]
    assert 'subject.user !== "landsend"' in code and SERVICE["User"] == "landsend"
    assert code.count("{") == code.count("}") and code.count("(") == code.count(")")
