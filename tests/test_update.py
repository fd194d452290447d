"""Signed updates (firmware/update.py, web/update.py): the bundle and its manifest, every refusal (nothing changed),
the switch, the rollback and the recovery after a power cut at each step, on a fake root in tmp_path. Real gpg
makes the keys and signatures, real gpgv checks them. The booted image's run is scripts/update-check.sh."""

import io
import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from companion import backup as bk
from companion.table import Table
from firmware import update as up
from firmware.settings_file import SettingsError, parse
from web import create_app

pytestmark = pytest.mark.skipif(shutil.which("gpg") is None or shutil.which("gpgv") is None,
                                reason="gpg and gpgv are needed to make and check signatures")
ROOT = Path(__file__).resolve().parents[1]
ORIGIN = "http://localhost"


def make_key(home: Path, name: str) -> tuple[bytes, str]:
    home.mkdir(mode=0o700)
    gpg = ["gpg", "--homedir", str(home), "--batch", "--pinentry-mode", "loopback", "--passphrase", ""]
    subprocess.run([*gpg, "--quick-gen-key", f"{name} <{name}@check.invalid>", "ed25519", "sign", "never"],
                   check=True, capture_output=True)
    binary = subprocess.run([*gpg, "--export"], check=True, capture_output=True).stdout
    armored = subprocess.run([*gpg, "--armor", "--export"], check=True, capture_output=True, text=True).stdout
    return binary, armored


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    base = tmp_path_factory.mktemp("keys")
    out = {}
    for name in ("release", "owner", "stranger"):
        binary, armored = make_key(base / name, name)
        out[name] = {"home": str(base / name), "binary": binary, "armored": armored}
    yield out
    for key in out.values():           # gpg started an agent per home: it would outlive the suite
        subprocess.run(["gpgconf", "--homedir", key["home"], "--kill", "gpg-agent"], capture_output=True)


def wheels(folder: Path, version: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    made = [folder / f"landsend-{version}-py3-none-any.whl", folder / "flask-3.0.0-py3-none-any.whl"]
    for i, w in enumerate(made):
        w.write_bytes(bytes([i]) * (3000 + i))
    return made


def bundle(tmp: Path, keys, version="0.1.1", arch="arm64", signer="release") -> Path:
    out = tmp / f"landsend-{version}-{arch}-{signer}.update"
    up.pack(wheels(tmp / f"w-{version}-{arch}", version), out, version=version, arch=arch,
            sign=up.gpg_signer(keys[signer]["home"], None))
    return out


def fake_root(tmp: Path, keys, *, running="0.1.0", owner=False) -> up.Layout:
    lay = up.Layout(tmp / "root")
    (lay.root / up.RELEASE_KEY).parent.mkdir(parents=True)
    (lay.root / up.RELEASE_KEY).write_bytes(keys["release"]["binary"])
    if owner:
        (lay.root / up.OWNER_KEYS).parent.mkdir(parents=True)
        (lay.root / up.OWNER_KEYS).write_bytes(keys["owner"]["binary"])
    lay.releases.mkdir(parents=True)
    lay.spool.mkdir(parents=True)
    for v in (running,) if running else ():
        (lay.release(v) / "bin").mkdir(parents=True)
        (lay.release(v) / up.MARKER).write_text(json.dumps({"version": v, "schema": 4}))
        up.switch(lay, v)
    return lay


# ------------------------------------------------------------------ the bundle and its manifest

def test_a_bundle_holds_the_signed_payload_and_its_manifest_lists_every_wheel_with_its_sha256(tmp_path, keys):
    path = bundle(tmp_path, keys)
    with tarfile.open(path) as t:
        assert t.getnames() == ["payload.tar", "payload.tar.sig"]
        payload = t.extractfile("payload.tar").read()
    with tarfile.open(fileobj=io.BytesIO(payload)) as p:
        assert p.getnames() == ["manifest.json", "wheels/flask-3.0.0-py3-none-any.whl",
                                "wheels/landsend-0.1.1-py3-none-any.whl"]
        manifest = json.loads(p.extractfile("manifest.json").read())
    import hashlib
    assert {k: manifest[k] for k in ("product", "format", "version", "arch")} == \
        {"product": "landsend", "format": 1, "version": "0.1.1", "arch": "arm64"}
    assert manifest["wheels"] == [{"file": w.name, "sha256": hashlib.sha256(w.read_bytes()).hexdigest()}
                                  for w in sorted((tmp_path / "w-0.1.1-arm64").glob("*.whl"))]
    work = tmp_path / "work"
    work.mkdir()
    got = up.read_bundle(path, work, [tmp_path / "absent.gpg", _ring(tmp_path, keys["release"]["binary"])])
    assert got.version == "0.1.1" and len(got.signer) == 40
    assert sorted(p.name for p in got.wheels.iterdir()) == ["flask-3.0.0-py3-none-any.whl",
                                                            "landsend-0.1.1-py3-none-any.whl"]
    assert (got.wheels / "flask-3.0.0-py3-none-any.whl").read_bytes() == bytes([1]) * 3001
    assert sorted(p.name for p in work.iterdir()) == ["wheels"]          # payload and signature gone


def _ring(tmp: Path, data: bytes, name="ring.gpg") -> Path:
    (tmp / name).write_bytes(data)
    return tmp / name


def test_the_release_key_in_the_repository_is_one_gpgv_reads():
    r = subprocess.run(["gpg", "--show-keys", "--with-colons", str(ROOT / "keys" / "landsend-release.gpg")],
                       capture_output=True, text=True)
    assert r.returncode == 0
    fprs = [line.split(":")[9] for line in r.stdout.splitlines() if line.startswith("fpr:")]
    assert fprs[0] == "B9A6D6A44514DD805E52B333F2A8508219857E41"
    assert "B9A6 D6A4 4514 DD80 5E52  B333 F2A8 5082 1985 7E41" in (ROOT / "keys" / "README.md").read_text()


def refusal(tmp_path, keys, path, rings=None):
    work = tmp_path / "work-refused"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    with pytest.raises(up.UpdateError) as e:
        up.read_bundle(path, work, rings or [_ring(tmp_path, keys["release"]["binary"])])
    assert list(work.iterdir()) == []                     # nothing unpacked, nothing left
    return str(e.value)


def test_every_bad_file_is_refused_with_its_reason_before_anything_is_unpacked(tmp_path, keys):
    good = bundle(tmp_path, keys)
    data = good.read_bytes()
    assert "does not trust" in refusal(tmp_path, keys, bundle(tmp_path, keys, signer="stranger"))
    cut = tmp_path / "cut.update"
    cut.write_bytes(data[: len(data) // 2])
    assert "cut short" in refusal(tmp_path, keys, cut)
    cut.write_bytes(data[:700])
    assert "cut short" in refusal(tmp_path, keys, cut)
    cut.write_bytes(data[:-1000])                           # only the end's padding missing: cut short all the same
    assert "cut short" in refusal(tmp_path, keys, cut)
    other = tmp_path / "junk.update"
    other.write_bytes(b"PK\x03\x04 a zip, or anything else" * 40)
    assert refusal(tmp_path, keys, other).startswith("this file is not a Land's End update")
    # the payload changed after signing (a byte of a wheel): gpgv says BADSIG
    with tarfile.open(good) as t:
        payload = bytearray(t.extractfile("payload.tar").read())
        sig = t.extractfile("payload.tar.sig").read()
    payload[5000] ^= 0xFF
    tampered = tmp_path / "tampered.update"
    with tarfile.open(tampered, "w") as t:
        for name, blob in (("payload.tar", bytes(payload)), ("payload.tar.sig", sig)):
            info = tarfile.TarInfo(name)
            info.size = len(blob)
            t.addfile(info, io.BytesIO(blob))
    assert "does not match its contents" in refusal(tmp_path, keys, tampered)
    # another architecture, checked after the signature
    assert refusal(tmp_path, keys, bundle(tmp_path, keys, arch="amd64")) == \
        "this update is for amd64 boards; this board is arm64: not installed"
    # no key on the board at all
    assert "no release key" in refusal(tmp_path, keys, good, rings=[tmp_path / "none.gpg"])


def test_versions_older_and_equal_are_refused_unless_the_host_asks_to_go_back():
    m = {"version": "0.1.0"}
    with pytest.raises(up.UpdateError, match=r"older than the version the board runs \(0.1.10\)"):
        up.check_version(m, "0.1.10")
    up.check_version(m, "0.1.10", allow_older=True)
    with pytest.raises(up.UpdateError, match="already runs 0.1.0"):
        up.check_version(m, "0.1.0", allow_older=True)
    up.check_version({"version": "0.1.10"}, "0.1.9")            # numbers, not text: 10 > 9
    with pytest.raises(up.UpdateError, match="not a version"):
        up.version_key("1.0rc1")


def test_an_owner_key_in_landsend_toml_is_dearmoured_to_the_keyring_gpgv_reads(tmp_path, keys):
    armored = keys["owner"]["armored"]
    assert up.dearmor(armored) == keys["owner"]["binary"]
    s = parse(f"[update]\nkeys = ['''{armored.strip()}''']\n")
    assert s.update_keys == (keys["owner"]["binary"],)
    with pytest.raises(SettingsError, match=r"line 2, update.keys: key 1: not an OpenPGP public key block"):
        parse("[update]\nkeys = ['ssh-ed25519 AAAA']\n")
    with pytest.raises(SettingsError, match="update.keys: must be a list"):
        parse("[update]\nkeys = 'x'\n")
    # the board then trusts the owner's signature as it trusts the release key's
    from firmware.firstboot import apply
    root = tmp_path / "root"
    apply(root, _boot(tmp_path, f"[update]\nkeys = ['''{armored.strip()}''']\n"))
    assert (root / up.OWNER_KEYS).read_bytes() == keys["owner"]["binary"]
    lay = up.Layout(root)
    work = tmp_path / "w"
    work.mkdir()
    assert up.read_bundle(bundle(tmp_path, keys, signer="owner"), work, lay.keyrings).version == "0.1.1"
    apply(root, _boot(tmp_path, "name = \"Pub\"\n"))
    assert not (root / up.OWNER_KEYS).exists()                  # listed no more: trusted no more


def _boot(tmp: Path, text: str) -> Path:
    boot = tmp / "boot"
    boot.mkdir(exist_ok=True)
    (boot / "landsend.toml").write_text(text)
    return boot


def test_the_board_installs_every_wheel_of_the_bundle_not_only_landsend_and_its_dependencies(tmp_path, monkeypatch):
    """The release folder gets every wheel the update carries, offline: the compiled play-out (pegwalk, native/:
    no dependency of landsend's, an aarch64 wheel of its own) and lgpio as well as the project's."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    names = ["landsend-0.2.0-py3-none-any.whl", "flask-3.1.0-py3-none-any.whl",
             "pegwalk-0.1.0-cp311-cp311-linux_aarch64.whl", "lgpio-0.2.2.0-cp311-cp311-manylinux_2_34_aarch64.whl"]
    for name in names:
        (wheels / name).write_bytes(b"PK")
    ran = []
    monkeypatch.setattr(up.subprocess, "run", lambda args, **kw: ran.append(args) or
                        subprocess.CompletedProcess(args, 0, "", ""))
    up.System(up.Layout(tmp_path)).make_release(tmp_path / "rel", wheels, "0.2.0")
    pip = ran[1]
    assert pip[:8] == [str(tmp_path / "rel/bin/python"), "-m", "pip", "install", "-q", "--no-index", "--find-links",
                       str(wheels)]
    assert pip[9:] == [str(wheels / n) for n in sorted(names)]


# ------------------------------------------------------------------ the root unit's steps on a fake root

class FakeSystem:
    """The venv, pip and systemctl of a board, played: ``starts`` says how each start of the daemon goes."""

    def __init__(self, starts=(True,), *, state=None, schema_before=4, cut_at=None):
        self.starts = list(starts)
        self.state, self.schema_before, self.cut_at = state, schema_before, cut_at
        self.calls = []

    def make_release(self, folder, wheels, version):
        self.calls.append(("make_release", version))
        (folder / "bin").mkdir(parents=True)
        (folder / "wheels.txt").write_text("\n".join(sorted(p.name for p in wheels.iterdir())))
        if self.cut_at == "install":
            raise Cut()

    def selfcheck(self, folder, scratch):
        self.calls.append(("selfcheck", folder.name))
        if self.cut_at == "check":
            raise Cut()
        said = {"version": folder.name, "schema": 4}
        if scratch is not None:
            said.update(up.table_state(scratch))
            said["schema_before"] = self.schema_before
            if self.state is not None:
                said["state"] = self.state
        return said

    def stop(self):
        self.calls.append(("stop",))

    def start(self):
        self.calls.append(("start",))
        if self.cut_at == "start":
            raise Cut()
        ok = self.starts.pop(0)
        return (True, "", 3.5) if ok else (False, "the new daemon exited at start (failed/failed)", 0.0)


class Cut(BaseException):
    """The power goes: nothing after this line runs."""


def board_db(lay: up.Layout) -> dict:
    lay.db.parent.mkdir(parents=True, exist_ok=True)
    t = Table.open(lay.db)
    t.submit({"type": "new_match", "game": "cribbage", "players": ["Ann", "Bob"]})
    t.submit({"type": "peg", "side": "p1", "points": 5})
    snap = t.snapshot()
    t.close()
    return snap


def test_a_good_update_is_backed_up_installed_checked_switched_and_the_old_release_kept(tmp_path, keys):
    lay = fake_root(tmp_path, keys)
    board_db(lay)
    shutil.copy(bundle(tmp_path, keys), lay.bundle)
    system = FakeSystem()
    out = up.install(lay, lay.bundle, system, log=lambda _: None)
    assert (out["outcome"], out["from"], out["to"], out["step"]) == ("installed", "0.1.0", "0.1.1", "done")
    assert out["ready_s"] == 3.5 and out["migrated"] is False
    assert lay.running() == "0.1.1" and lay.versions() == ["0.1.1", "0.1.0"] and lay.previous() == "0.1.0"
    assert (lay.release("0.1.1") / "wheels.txt").read_text().split() == ["flask-3.0.0-py3-none-any.whl",
                                                                         "landsend-0.1.1-py3-none-any.whl"]
    assert [c[0] for c in system.calls] == ["make_release", "selfcheck", "start"]
    kept = bk.Kept(lay.backups, board="b").list()
    assert [k["reason"] for k in kept] == ["before-update"] and out["backup"] == kept[0]["file"]
    assert lay.read_status() == out and not lay.bundle.exists()
    assert not (lay.prefix / "current.new").exists()
    # a third release: the oldest goes, the running one and the one before it stay
    shutil.copy(bundle(tmp_path, keys, version="0.2.0"), lay.bundle)
    assert up.install(lay, lay.bundle, FakeSystem(), log=lambda _: None)["outcome"] == "installed"
    assert sorted(p.name for p in lay.releases.iterdir()) == ["0.1.1", "0.2.0"]


def test_the_new_release_is_synced_to_the_card_before_it_is_marked_whole_and_switched_to(tmp_path, keys, monkeypatch):
    # a power cut after the switch once left a third of the new release's files empty (pip does not sync)
    lay = fake_root(tmp_path, keys)
    shutil.copy(bundle(tmp_path, keys), lay.bundle)
    seen = []
    monkeypatch.setattr(up.os, "sync", lambda: seen.append(
        ((lay.release("0.1.1") / "wheels.txt").exists(), lay.whole("0.1.1"), lay.running())))
    assert up.install(lay, lay.bundle, FakeSystem(), log=lambda _: None)["outcome"] == "installed"
    assert seen == [(True, None, "0.1.0")]


def test_both_releases_replay_one_moment_of_the_table_while_the_board_keeps_playing(tmp_path, keys, monkeypatch):
    # the qemu check's tenth cut: commands acknowledged between two copies made the states differ (refused)
    lay = fake_root(tmp_path, keys)
    board_db(lay)
    shutil.copy(bundle(tmp_path, keys), lay.bundle)
    real = bk.copy_database

    def copy_then_play(source, target):
        real(source, target)
        t = Table.open(lay.db)
        t.submit({"type": "peg", "side": "p2", "points": 1})
        t.close()
    monkeypatch.setattr(bk, "copy_database", copy_then_play)
    assert up.install(lay, lay.bundle, FakeSystem(), log=lambda _: None)["outcome"] == "installed"


def test_a_new_daemon_that_fails_to_start_is_rolled_back_to_the_release_that_ran(tmp_path, keys):
    lay = fake_root(tmp_path, keys)
    board_db(lay)
    shutil.copy(bundle(tmp_path, keys), lay.bundle)
    system = FakeSystem(starts=(False, True))
    out = up.install(lay, lay.bundle, system, log=lambda _: None)
    assert out["outcome"] == "rolled back"
    assert out["reason"] == "the new daemon exited at start (failed/failed); the board runs 0.1.0 again"
    assert lay.running() == "0.1.0" and not lay.release("0.1.1").exists() and lay.versions() == ["0.1.0"]
    assert [c[0] for c in system.calls] == ["make_release", "selfcheck", "start", "stop", "start"]
    assert not bk.staged_path(lay.db).exists()                 # no migration ran: the table stays as it is


def test_a_rollback_after_a_migration_restores_the_backup_taken_before_the_update(tmp_path, keys):
    lay = fake_root(tmp_path, keys)
    before = board_db(lay)
    shutil.copy(bundle(tmp_path, keys), lay.bundle)
    out = up.install(lay, lay.bundle, FakeSystem(starts=(False, True), schema_before=3), log=lambda _: None)
    assert out["outcome"] == "rolled back" and out["migrated"] is True
    assert f"the table from before the update is restored ({out['backup']})" in out["reason"]
    # the old daemon switches to it at its next start (companion.backup.apply_staged), as after a restore
    assert bk.staged_path(lay.db).exists()
    bk.apply_staged(lay.db, bk.Kept(lay.backups, board="b"))
    t = Table.open(lay.db)
    assert t.snapshot()["sides"] == before["sides"]
    t.close()


def test_a_release_that_replays_the_match_to_another_state_is_refused_and_nothing_changes(tmp_path, keys):
    lay = fake_root(tmp_path, keys)
    board_db(lay)
    shutil.copy(bundle(tmp_path, keys), lay.bundle)
    system = FakeSystem(state={"sides": "not the same"})
    out = up.install(lay, lay.bundle, system, log=lambda _: None)
    assert (out["outcome"], out["reason"]) == (
        "refused", "the new release does not replay the table's current match to the same state")
    assert lay.running() == "0.1.0" and sorted(p.name for p in lay.releases.iterdir()) == ["0.1.0"]
    assert ("start",) not in system.calls


def test_a_refused_bundle_changes_nothing_on_the_board(tmp_path, keys):
    lay = fake_root(tmp_path, keys)
    board_db(lay)
    for path, says in ((bundle(tmp_path, keys, signer="stranger"), "does not trust"),
                       (bundle(tmp_path, keys, version="0.0.9"), "older than the version the board runs (0.1.0)")):
        shutil.copy(path, lay.bundle)
        system = FakeSystem()
        out = up.install(lay, lay.bundle, system, log=lambda _: None)
        assert out["outcome"] == "refused" and says in out["reason"]
        assert system.calls == [] and lay.running() == "0.1.0" and not lay.bundle.exists()
        assert bk.Kept(lay.backups, board="b").list() == []           # not even a backup taken
    shutil.copy(bundle(tmp_path, keys, version="0.0.9"), lay.bundle)
    assert up.install(lay, lay.bundle, FakeSystem(), allow_older=True, log=lambda _: None)["outcome"] == "installed"
    assert lay.running() == "0.0.9"


@pytest.mark.parametrize("cut_at, outcome", [
    ("backup", "interrupted"), ("install", "interrupted"), ("check", "interrupted"),
    ("before-rename", "rolled back"), ("after-rename", "rolled back"), ("start", "rolled back")])
def test_a_power_cut_at_any_step_boots_into_the_release_that_ran(tmp_path, keys, monkeypatch, cut_at, outcome):
    lay = fake_root(tmp_path, keys)
    board_db(lay)
    shutil.copy(bundle(tmp_path, keys), lay.bundle)
    if cut_at == "backup":
        monkeypatch.setattr(up, "_take_backup", lambda _lay: (_ for _ in ()).throw(Cut()))
    if cut_at in ("before-rename", "after-rename"):
        real = up.os.replace

        def replace(a, b):
            if Path(b) == lay.current:
                if cut_at == "after-rename":
                    real(a, b)
                raise Cut()
            real(a, b)
        monkeypatch.setattr(up.os, "replace", replace)
    with pytest.raises(Cut):
        up.install(lay, lay.bundle, FakeSystem(cut_at=cut_at), log=lambda _: None)
    monkeypatch.undo()
    said = up.recover(lay, log=lambda _: None)                 # the next boot, before the daemon
    assert lay.running() == "0.1.0" and lay.whole("0.1.0") is not None
    assert sorted(p.name for p in lay.releases.iterdir()) == ["0.1.0"]
    assert not (lay.prefix / "current.new").exists()
    st = lay.read_status()
    assert (st["step"], st["outcome"]) == ("done", outcome) and said.startswith(outcome)
    assert up.recover(lay, log=lambda _: None) is None          # and the boot after that has nothing to do


def test_going_back_switches_to_the_previous_release_and_undoes_itself_when_it_fails(tmp_path, keys):
    lay = fake_root(tmp_path, keys)
    shutil.copy(bundle(tmp_path, keys), lay.bundle)
    up.install(lay, lay.bundle, FakeSystem(), log=lambda _: None)
    out = up.go_back(lay, FakeSystem(starts=(False, True)), log=lambda _: None)
    assert out["outcome"] == "rolled back" and lay.running() == "0.1.1"
    out = up.go_back(lay, FakeSystem(), log=lambda _: None)
    assert (out["outcome"], out["to"], lay.running(), lay.previous()) == ("went back", "0.1.0", "0.1.0", "0.1.1")


def test_an_update_dropped_on_the_boot_partition_is_queued_at_the_next_start(tmp_path, keys):
    lay = fake_root(tmp_path, keys)
    lay.boot.mkdir(parents=True)
    shutil.copy(bundle(tmp_path, keys), lay.boot / "landsend-0.1.1-arm64.update")
    assert up.take_dropped(lay, log=lambda _: None) == \
        "landsend-0.1.1-arm64.update from the boot partition queued for installation"
    assert not list(lay.boot.glob("*.update")) and lay.bundle.exists()
    assert json.loads(lay.request.read_text())["action"] == "install"
    assert up.run_request(lay, FakeSystem(), log=lambda _: None)["outcome"] == "installed"
    assert not lay.request.exists() and lay.running() == "0.1.1"


# ------------------------------------------------------------------ the page's API

@pytest.fixture
def page(tmp_path, keys):
    lay = fake_root(tmp_path, keys, running=up.running_version())
    table = Table.memory()
    app = create_app({"TESTING": True, "STATE_DIR": str(tmp_path / "state"), "TRUSTED_HOSTS": ["localhost"]},
                     table=table)
    app.extensions["landsend.updates"] = up.Queue(lay)
    host = app.test_client()
    csrf = host.get("/api/session").get_json()["csrf"]
    headers = {"X-CSRF-Token": csrf, "Origin": ORIGIN}
    assert host.post("/api/claim", json={}, headers=headers).status_code == 200
    yield app, host, headers, lay
    table.close()


def send(host, headers, data: bytes, piece=64 * 1024, **extra):
    for at in range(0, len(data), piece):
        r = host.post(f"/api/update/upload?offset={at}", data=data[at: at + piece],
                      content_type="application/octet-stream", headers=headers)
        assert r.status_code == 200, r.get_json()
    return host.post("/api/update", json={"bytes": len(data), **extra}, headers=headers)


def newer(version: str) -> str:
    parts = [int(p) for p in version.split(".")]
    return ".".join(map(str, parts[:-1] + [parts[-1] + 1]))


def test_the_host_uploads_an_update_and_bad_files_get_a_4xx_with_nothing_changed(page, tmp_path, keys):
    app, host, headers, lay = page
    now = up.running_version()
    info = host.get("/api/update").get_json()
    assert (info["version"], info["current"], info["previous"], info["busy"], info["last"]) == (now, now, None, False, None)
    good = bundle(tmp_path, keys, version=newer(now)).read_bytes()
    bad = {"stranger": bundle(tmp_path, keys, version=newer(now), signer="stranger").read_bytes(),
           "cut": good[: len(good) // 2],
           "arch": bundle(tmp_path, keys, version=newer(now), arch="amd64").read_bytes(),
           "older": bundle(tmp_path, keys, version="0.0.1").read_bytes()}
    for name, data in bad.items():
        r = send(host, headers, data)
        assert r.status_code == 400, name
        assert sorted(p.name for p in lay.spool.iterdir()) == [], (name, list(lay.spool.iterdir()))
    assert "older than the version the board runs" in send(host, headers, bad["older"]).get_json()["error"]
    r = send(host, headers, good)
    assert r.status_code == 202 and r.get_json()["installing"] == newer(now)
    assert json.loads(lay.request.read_text()) == {"action": "install", "allow_older": False, "version": newer(now)}
    assert lay.bundle.read_bytes() == good
    assert host.get("/api/update").get_json()["busy"] is True
    r = send(host, headers, good)
    assert r.status_code == 409 and "already under way" in r.get_json()["error"]
    assert host.post("/api/update/previous", json={}, headers=headers).status_code == 409
    lay.request.unlink()
    assert host.post("/api/update/previous", json={}, headers=headers).get_json()["error"] == \
        "there is no previous release on this board to go back to"
    r = send(host, headers, bad["older"], allow_older=True)          # the host asks to go back
    assert r.status_code == 202 and json.loads(lay.request.read_text())["allow_older"] is True
    for body in ({"bytes": "1"}, {"bytes": 0}, {"bytes": 10, "allow_older": "yes"}):
        assert host.post("/api/update", json=body, headers=headers).status_code == 400


def test_only_the_host_may_update_the_board(page, tmp_path, keys):
    app, host, headers, lay = page
    code = host.get("/api/session").get_json()["join_code"]
    player = app.test_client()
    player.environ_base["REMOTE_ADDR"] = "10.0.0.7"
    ph = {"X-CSRF-Token": player.get("/api/session").get_json()["csrf"], "Origin": ORIGIN}
    assert player.post("/api/join", json={"code": code}, headers=ph).status_code == 200
    visitor = app.test_client()
    vh = {"X-CSRF-Token": visitor.get("/api/session").get_json()["csrf"], "Origin": ORIGIN}
    data = bundle(tmp_path, keys, version=newer(up.running_version())).read_bytes()
    table = app.extensions["landsend"].table
    before = (table.snapshot(), host.get("/api/session").get_json(), player.get("/api/session").get_json(),
              visitor.get("/api/session").get_json())
    for phone, h in ((player, ph), (visitor, vh)):
        assert phone.get("/api/update").status_code == 403
        r = phone.post("/api/update/upload?offset=0", data=data[:1000], content_type="application/octet-stream",
                       headers=h)
        assert r.status_code == 403
        assert phone.post("/api/update", json={"bytes": 1000}, headers=h).status_code == 403
        assert phone.post("/api/update/previous", json={}, headers=h).status_code == 403
    assert list(lay.spool.iterdir()) == []
    # every refusal left the table, each phone's session and seat, and the access state as they were
    assert (table.snapshot(), host.get("/api/session").get_json(), player.get("/api/session").get_json(),
            visitor.get("/api/session").get_json()) == before
    # a board that is not installed (a checkout) has no updates at all
    del app.extensions["landsend.updates"]
    assert host.get("/api/update").status_code == 404
