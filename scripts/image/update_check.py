"""Update the board's SD-card image in qemu from the host's phone, and pull its power while it updates:
scripts/update-check.sh runs this (issue 35 item 5).

Boots the image (scripts/image/boot_check.py's Disk, Api and Machine), plays two matches and settles the night,
leaves a third in play; then, through the page's API as the host's phone does: a good update of the same code
with a bumped version (signed by a key this check makes and lists in landsend.toml), a bundle whose daemon exits
at start (rolled back by itself), four refusals with nothing changed, and power cuts at every stage of an update
(upload, unpack, install, switch, first start) while commands are being acknowledged. Every figure is printed;
the exit status is 1 at the first check that fails. Standard library only (with this checkout's firmware.update
to pack the check's bundles), gpg on this machine for the check's keys (never in the image).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.error
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(CHECKOUT))

from boot_check import (Api, CheckFailed, Disk, Machine, SEASON_VIEWS, check, fresh_work, hammer, run, say,  # noqa: E402
                        verify_acked, views)
from firmware import update as up  # noqa: E402

GOOD, FAILING, CUTS, OLDER = "0.1.1", "0.1.2", "0.1.3", "0.0.9"
STAGES = ("upload", "unpack", "install", "switch", "first start")


# ---------------------------------------------------------------- the check's bundles

def key_home(folder: Path, name: str) -> str:
    """Return the armoured public key of the gpg home ``folder`` (made once, kept for the next run)."""
    gpg = ["gpg", "--homedir", str(folder), "--batch", "--pinentry-mode", "loopback", "--passphrase", ""]
    if not folder.is_dir():
        folder.mkdir(mode=0o700, parents=True)
        subprocess.run([*gpg, "--quick-gen-key", f"Land's End {name} <{name}@check.invalid>", "ed25519", "sign",
                        "never"], check=True, capture_output=True)
    return subprocess.run([*gpg, "--armor", "--export"], check=True, capture_output=True, text=True).stdout


def payload_wheels(bundle: Path, dest: Path) -> list[Path]:
    """Unpack the wheels of a bundle (the check trusts its own file) into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(bundle) as outer:
        payload = outer.extractfile(up.PAYLOAD).read()
    import io
    with tarfile.open(fileobj=io.BytesIO(payload)) as inner:
        for m in inner.getmembers():
            if m.name.startswith("wheels/") and m.isfile():
                (dest / Path(m.name).name).write_bytes(inner.extractfile(m).read())
    return sorted(dest.glob("*.whl"))


def project_wheel(version: str, out: Path, *, exits_at_start: bool = False) -> Path:
    """Build landsend's own wheel (pure Python: the same on any machine) of this checkout at ``version``."""
    found = sorted(out.glob(f"landsend-{version}-*.whl"))
    if found:
        return found[0]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(CHECKOUT, src, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "build",
                                                                        "*.egg-info", ".pytest_cache", ".hypothesis"))
        pyproject = src / "pyproject.toml"
        pyproject.write_text(re.sub(r'^version = ".*"$', f'version = "{version}"', pyproject.read_text(), flags=re.M))
        if exits_at_start:
            daemon = src / "firmware" / "daemon.py"
            text = daemon.read_text()
            head = 'def run(args: argparse.Namespace, *, stderr: Any = None) -> int:\n'
            check(head in text, "firmware/daemon.py's run() moved: the failing bundle cannot be made")
            daemon.write_text(text.replace(head, head + '    raise SystemExit("update check: this release\'s daemon '
                                                        'exits at start")\n', 1))
        python = CHECKOUT / ".venv" / "bin" / "python"
        r = run([str(python if python.exists() else sys.executable), "-m", "pip", "wheel", "-q", "--no-deps",
                 "-w", str(out), str(src)])
        check(r.returncode == 0, f"pip wheel of landsend {version}: {r.stderr.strip()[-300:]}")
    return sorted(out.glob(f"landsend-{version}-*.whl"))[0]


def bundles(args, work: Path) -> dict[str, bytes]:
    """Return every bundle the check sends, made once in ``args.bundles`` (the good one by scripts/build-update.sh
    in the image's arm64 root; the others from its wheels with landsend's own wheel rebuilt here)."""
    b = args.bundles
    b.mkdir(parents=True, exist_ok=True)
    key_home(b / "check-key", "update check")
    key_home(b / "stranger-key", "stranger")
    good = b / f"landsend-{GOOD}-arm64.update"
    # the good bundle is kept between runs of the same checkout only: one made from older code would prove
    # nothing about this one (a run once reused a bundle of an earlier session's code)
    head = subprocess.run(["git", "-C", str(CHECKOUT), "describe", "--always", "--dirty"], text=True,
                          capture_output=True).stdout.strip()
    stamp = b / "good.made-from"
    if good.exists() and (not head or head.endswith("-dirty") or not stamp.exists() or stamp.read_text() != head):
        say(f"the kept {good.name} was made from {stamp.read_text() if stamp.exists() else 'unknown code'}, "
            f"not {head or 'this checkout'}: made again")
        good.unlink()
    if not good.exists():
        say(f"building {good.name} with scripts/build-update.sh (the image's arm64 root; minutes)")
        t0 = time.monotonic()
        r = subprocess.run([str(CHECKOUT / "scripts" / "build-update.sh"), "--version", GOOD, "--key-home",
                            str(b / "check-key"), "--out", str(b)], text=True)
        check(r.returncode == 0 and good.exists(), "scripts/build-update.sh failed")
        say(f"build-update.sh made {good.name} in {time.monotonic() - t0:.0f} s")
        stamp.write_text(head)
    deps = [w for w in payload_wheels(good, work / "wheels") if not w.name.startswith("landsend-")]
    sign = up.gpg_signer(str(b / "check-key"), None)
    made = {"good": good.read_bytes()}
    for name, version, kw in (("failing", FAILING, {"exits_at_start": True}), ("cuts", CUTS, {}),
                              ("older", OLDER, {})):
        wheel = project_wheel(version, b / f"project-{name}", **kw)
        out = work / f"{name}.update"
        up.pack([*deps, wheel], out, version=version, sign=sign)
        made[name] = out.read_bytes()
    cuts_wheel = sorted((b / "project-cuts").glob("*.whl"))
    out = work / "stranger.update"
    up.pack([*deps, *cuts_wheel], out, version=CUTS, sign=up.gpg_signer(str(b / "stranger-key"), None))
    made["stranger"] = out.read_bytes()
    out = work / "amd64.update"
    up.pack([*deps, *cuts_wheel], out, version=CUTS, arch="amd64", sign=sign)
    made["amd64"] = out.read_bytes()
    made["truncated"] = made["cuts"][: len(made["cuts"]) // 2]
    say("bundles: " + ", ".join(f"{k} {len(v) / 1048576:.1f} MB" for k, v in made.items()) +
        f"; {len(deps) + 1} wheels each")
    return made


# ---------------------------------------------------------------- talking to the board

def info(api: Api) -> dict | None:
    try:
        code, body = api.request("GET", "/api/update", timeout=10)
    except (OSError, urllib.error.URLError):
        return None
    return body if code == 200 else None


def send(api: Api, data: bytes, allow_older: bool = False) -> tuple[int, dict, float]:
    """Upload an update file in pieces and ask for it, as the page does; return (code, answer, upload seconds)."""
    piece = api.get("/api/update")["piece"]
    t0 = time.monotonic()
    api.upload(data, piece, path="/api/update/upload")
    upload_s = time.monotonic() - t0
    code, body = api.request("POST", "/api/update", {"bytes": len(data), "allow_older": allow_older}, timeout=180)
    return code, body, upload_s


def outcome(api: Api, started: str | None, timeout: float = 1500) -> tuple[dict, float]:
    """Wait for the update started after ``started`` (the last one's started_at before it) to finish."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        i = info(api)
        last = (i or {}).get("last") or {}
        if i and not i["busy"] and last.get("step") == "done" and last.get("started_at") != started:
            return i, time.monotonic() - t0
        time.sleep(2)
    raise CheckFailed(f"no outcome of the update within {timeout:.0f} s")


def layout_now(m: Machine) -> tuple[str, str, str]:
    """Return where current points, the release folders, and what is in the update's spool folder."""
    out = m.ssh("readlink /opt/landsend/current; ls /opt/landsend/releases | sort -V | tr '\\n' ' '; echo; "
                "ls -A /var/lib/landsend/update | tr '\\n' ' '").splitlines()
    return out[0].strip(), out[1].strip(), (out[2].strip() if len(out) > 2 else "")


def play(api: Api) -> str:
    """Two matches of cribbage, each won, the night settled; a third match in play."""
    for players, side in ((["Ann", "Bob"], "p1"), (["Ann", "Bob"], "p2")):
        for c in ({"type": "new_match", "game": "cribbage", "players": players, "stake": 1, "first_dealer": "Bob"},
                  *({"type": "peg", "side": side, "points": p} for p in (29, 29, 29, 29, 5))):
            code, body = api.cmd(c)
            check(code == 200, f"{c}: {code} {body}")
    code, body = api.request("POST", "/api/season/event", {"type": "settle"}, timeout=300)
    while code == 503 and "job" in body:              # the season is being worked out first
        time.sleep(2)
        code, body = api.request("POST", "/api/season/event", {"type": "settle"}, timeout=300)
    check(code == 200, f"settle: {code} {body}")
    for c in ({"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"], "stake": 1, "first_dealer": "Ann"},
              {"type": "peg", "side": "p1", "points": 7}, {"type": "peg", "side": "p2", "points": 4}):
        code, body = api.cmd(c)
        check(code == 200, f"{c}: {code} {body}")
    t = api.get("/api/table")
    return f"two matches won and the night settled; match 3 in play: " + \
        ", ".join(f"{s['name']} {s['score']}" for s in t["sides"])


def same_views(api: Api, before: dict, what: str) -> dict:
    after = views(api)
    for path in SEASON_VIEWS:
        check(after[path] == before[path], f"{path} differs {what}: {str(after[path])[:300]} against "
                                           f"{str(before[path])[:300]}")
    return after


# ---------------------------------------------------------------- the power cuts

def cut_during(m: Machine, api: Api, data: bytes, stage: str, rng: random.Random, upload_s: float) -> tuple[str, float]:
    """Start an update and pull the plug at ``stage``; return (where it was cut, seconds after the upload began)."""
    t0 = time.monotonic()
    if stage == "upload":
        thread = threading.Thread(target=lambda: _quiet(send, api, data), daemon=True)
        thread.start()
        time.sleep(rng.uniform(0.2, 0.8) * max(upload_s, 1.0))
        m.cut()
        return "upload", time.monotonic() - t0
    started = ((info(api) or {}).get("last") or {}).get("started_at")
    code, body, _ = send(api, data)
    check(code == 202, f"POST /api/update for the cut: {code} {body}")
    seen, gone_after_check = None, False
    delay = rng.uniform(2.0, 15.0)
    while time.monotonic() - t0 < 1500:
        i = info(api)
        last = (i or {}).get("last") or {}
        step = last.get("step") if last.get("started_at") != started else None
        if i is None:
            if seen in ("check", "switch", "start"):
                gone_after_check = True
        if stage == "unpack" and step in ("verify", "backup", "install"):
            m.cut()
            return f"unpack ({step})", time.monotonic() - t0
        if stage == "install" and step == "install":
            time.sleep(delay)
            m.cut()
            return f"install (+{delay:.0f} s)", time.monotonic() - t0
        if stage == "switch" and (step in ("switch", "start") or gone_after_check):
            m.cut()
            return f"switch ({step or 'the daemon stopping'})", time.monotonic() - t0
        if stage == "first start" and i is not None and i["version"] == CUTS:
            time.sleep(min(delay, 20))
            m.cut()
            return f"first start (new daemon up, +{min(delay, 20):.0f} s)", time.monotonic() - t0
        if step == "done":
            raise CheckFailed(f"the update finished before the cut at {stage}: {last}")
        seen = step or seen
        time.sleep(0.3)
    raise CheckFailed(f"never reached the stage {stage}")


def _quiet(fn, *a) -> None:
    try:
        fn(*a)
    except Exception:
        pass                                        # the plug was pulled under it


def main() -> int:
    ap = argparse.ArgumentParser(prog="scripts/update-check.sh")
    ap.add_argument("image", type=Path)
    ap.add_argument("--cuts", type=int, default=10)
    ap.add_argument("--port", type=int, default=8782)
    ap.add_argument("--ssh-port", type=int, default=8724)
    ap.add_argument("--mem", type=int, default=1024)
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--boot-timeout", type=int, default=900)
    ap.add_argument("--work", type=Path, default=Path("/var/tmp/landsend-update-check"))
    ap.add_argument("--bundles", type=Path, default=Path("/var/tmp/landsend-update-check-bundles"))
    ap.add_argument("--seed", type=int, default=35)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = fresh_work(args.work)
    check(args.image.is_file(), f"no image {args.image}")
    made = bundles(args, work)
    disk_path = work / "disk.img"
    run(["cp", "--sparse=always", str(args.image), str(disk_path)])
    size0 = disk_path.stat().st_size
    with open(disk_path, "r+b") as f:
        f.truncate(size0 + 1024 * 1048576)
    disk = Disk(disk_path)
    names = disk.fat_list()
    kernel = sorted(n for n in names if n.startswith("vmlinuz-"))[-1]
    initrd = sorted(n for n in names if n.startswith("initrd.img-"))[-1]
    for name, dest in ((kernel, "vmlinuz"), (initrd, "initrd.img"), ("cmdline.txt", "cmdline.txt")):
        disk.fat_get(name, work / dest)
    cmdline = " ".join([x for x in (work / "cmdline.txt").read_text().split() if not x.startswith("console=")] +
                       ["console=ttyAMA0"])
    run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "update-check", "-f", str(work / "id")])
    pub = (work / "id.pub").read_text().strip()
    owner_key = key_home(args.bundles / "check-key", "update check").strip()
    settings = work / "landsend.toml"
    settings.write_text(f'# update-check: the board trusts the check\'s key besides the release key\nname = "Update Check"\n'
                        f'[ssh]\nenabled = true\nauthorized_keys = ["{pub}"]\n[strip]\ndriver = "sim"\n'
                        f"[update]\nkeys = ['''{owner_key}''']\n")
    disk.fat_put(settings, "landsend.toml")
    m = Machine(args, work, work / "vmlinuz", work / "initrd.img", cmdline)
    figures: list[str] = []
    try:
        api = Api(args.port)
        m.start()
        page_s = m.wait_page(api)
        say(f"first boot: page after {page_s:.0f} s")
        current, releases, spool = layout_now(m)
        check(current == "releases/0.1.0" and releases == "0.1.0", f"the image's layout: {current}, {releases}")
        tools = m.ssh("command -v gpg || echo 'no gpg'; gpgv --version | head -1; "
                      "systemctl is-enabled landsend-update.path landsend-update-boot.service | tr '\\n' ' '; "
                      "systemctl is-active landsend-update.path; ls -l /etc/landsend/update-keys.gpg "
                      "/usr/share/keyrings/landsend-release.gpg | awk '{print $1, $NF}' | tr '\\n' ' '").splitlines()
        check(tools[0] == "no gpg" and tools[1].startswith("gpgv (GnuPG)"), f"gpg/gpgv on the image: {tools}")
        check(tools[2].split() == ["enabled", "enabled", "active"], f"the update units: {tools}")
        say(f"image: current -> {current}; {tools[1]}, no gpg; landsend-update.path active; keyrings: {tools[3]}")
        api.host()
        say(play(api))
        before = views(api)

        # 1. a good update of the same code, a bumped version
        started = ((info(api) or {}).get("last") or {}).get("started_at")
        code, body, upload_s = send(api, made["good"])
        check(code == 202 and body.get("installing") == GOOD, f"POST /api/update: {code} {body}")
        i, wait_s = outcome(api, started)
        last = i["last"]
        check(last["outcome"] == "installed" and i["version"] == GOOD, f"the good update: {i}")
        current, releases, spool = layout_now(m)
        check(current == f"releases/{GOOD}" and releases == f"0.1.0 {GOOD}", f"after the update: {current} {releases}")
        after = same_views(api, before, "after the update")
        # the new release runs the advice's compiled play-out from the update's own aarch64 wheel (native/)
        native = m.ssh(f"/opt/landsend/releases/{GOOD}/bin/python -c 'import pegwalk; from companion.advice import "
                       "pegging_multi as m; print(m._NATIVE is pegwalk, m._SAMPLE_IN_C, pegwalk.__file__)'").split()
        check(native[:2] == ["True", "True"] and f"releases/{GOOD}/" in native[2],
              f"the new release's compiled play-out: {native}")
        say(f"the new release's compiled play-out in use: {native[2]}")
        code, body = api.cmd({"type": "peg", "side": "p2", "points": 3})
        check(code == 200, f"the match in play does not go on: {code} {body}")
        line = (f"good update {GOOD}: {len(made['good']) / 1048576:.1f} MB uploaded in {upload_s:.1f} s, installed and "
                f"running {wait_s:.0f} s after the upload (install {last['install_s']} s, new "
                f"daemon READY in {last['ready_s']} s, then its first minute), every match, night and payment the "
                f"same, the match in play goes on (seq {body['seq']}); backup {last['backup']}")
        say(line)
        figures.append(f"good update: upload {upload_s:.1f} s, install {last['install_s']} s, total {wait_s:.0f} s")
        before = views(api)

        # 2. a bundle whose daemon exits at start: rolled back by itself
        started = last["started_at"]
        code, body, upload_s2 = send(api, made["failing"])
        check(code == 202, f"POST /api/update (failing): {code} {body}")
        i, wait_s = outcome(api, started)
        last = i["last"]
        check(last["outcome"] == "rolled back" and i["version"] == GOOD, f"the failing update: {i}")
        check("exited at start" in last["reason"] or "not READY" in last["reason"], f"why: {last['reason']}")
        current, releases, spool = layout_now(m)
        check(current == f"releases/{GOOD}" and releases == f"0.1.0 {GOOD}", f"after the rollback: {current} {releases}")
        same_views(api, before, "after the rollback")
        say(f"failing update {FAILING}: rolled back by itself {wait_s:.0f} s after the upload (rollback "
            f"{last['rollback_s']} s, the old daemon READY and through its first minute); {GOOD} runs, nothing lost; "
            f"the page says: {last['reason'][:200]!r}")
        figures.append(f"failing update rolled back: rollback {last['rollback_s']} s, total {wait_s:.0f} s")

        # 3. refusals, nothing changed
        for name, says in (("stranger", "does not trust"), ("truncated", "cut short"),
                           ("amd64", "for amd64 boards"), ("older", "older than the version the board runs")):
            t0 = time.monotonic()
            code, body, _ = send(api, made[name])
            check(code == 400 and says in body.get("error", ""), f"{name}: {code} {body}")
            now = layout_now(m)
            check(now == (f"releases/{GOOD}", f"0.1.0 {GOOD}", "status.json"), f"{name} changed the board: {now}")
            check((info(api) or {}).get("version") == GOOD, f"{name}: the version changed")
            say(f"refused in {time.monotonic() - t0:.1f} s, nothing changed: {name}: {body['error']!r}")
        same_views(api, before, "after the refusals")
        figures.append("4 refusals (bad signature, cut short, amd64, older): 400, nothing changed")

        # 4. power cuts at every stage of an update, commands acknowledged meanwhile
        acked: list[str] = []
        seqs: dict[str, int] = {}
        boots = []
        for n in range(args.cuts):
            stage = STAGES[n % len(STAGES)]
            stop, stats = threading.Event(), {}
            writer = threading.Thread(target=hammer, args=(api, f"cut{n}", acked, stop, stats, 0.5), daemon=True)
            writer.start()
            where, after_s = cut_during(m, api, made["cuts"], stage, rng, upload_s)
            stop.set()
            writer.join(timeout=15)
            check("refused" not in stats, f"a command was refused while updating: {stats.get('refused')}")
            m.start()
            page_s = m.wait_page(api)
            boots.append(page_s)
            api.host()
            i = info(api)
            check(i is not None and i["version"] == GOOD and not i["busy"], f"after the cut at {where}: {i}")
            current, releases, spool = layout_now(m)
            check(current == f"releases/{GOOD}" and releases == f"0.1.0 {GOOD}",
                  f"after the cut at {where}: {current} {releases}")
            check(m.ssh("systemctl is-active landsend").strip() == "active", "the daemon is not active")
            ok = verify_acked(api, acked, seqs, [stats["in_flight"]] if stats.get("in_flight") else [])
            last = i.get("last") or {}
            say(f"cut {n + 1}/{args.cuts} at {where}, {after_s:.0f} s into the update: booted, page after "
                f"{page_s:.0f} s, {GOOD} runs; the update says {last.get('outcome')!r} "
                f"({(last.get('reason') or '')[:90]}); {ok}")
        failed = m.ssh("systemctl --failed --no-legend --plain").strip()
        check(failed == "", f"systemctl --failed after the cuts: {failed}")
        if args.cuts:
            figures.append(f"{args.cuts} power cuts during updates ({', '.join(STAGES)}): booted into {GOOD} every "
                           f"time, page after {min(boots):.0f}-{max(boots):.0f} s, {len(acked)} acknowledged commands "
                           "all kept, none twice")
        m.shutdown()
    except CheckFailed as exc:
        say(f"FAILED: {exc}")
        return 1
    finally:
        m.stop()
    say("update-check passed: " + "; ".join(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
