/* Keep the season (the host's More tab): download a backup of the whole table, the board's own kept
   backups, and restore from a backup file (uploaded in pieces; the board checks it whole, then starts again
   on it and every phone reloads). Everything goes through /api/backups, /api/backup and /api/restore
   (docs/api.md). Host only: loaded by more.js on the host's phone alone. */
import { h, clear, $, show } from "./dom.js";
import { S, call } from "./state.js";
import { restoring } from "./live.js";

var B = { info: null, busy: false, file: null, loading: false };

function say(text, bad) {
  var m = $("keep-msg");
  m.textContent = text || "";
  m.className = bad ? "bad-text" : "muted";
}

function size(n) {
  return n >= 1048576 ? (n / 1048576).toFixed(1) + " MB" : Math.max(1, Math.round(n / 1024)) + " KB";
}
function when(iso) { return (iso || "").replace("T", " ").replace(/:\d\d\+00:00$/, " UTC"); }
var REASON = { settle: "at a settle-up", nightly: "nightly", "before-restore": "before a restore", phone: "from a phone", console: "from the console" };

function draw() {
  var info = B.info;
  show($("keep"), !!info);
  if (!info) return;
  $("keep-version").textContent = "Software " + info.version + ", table schema " + info.schema + ".";
  var last = info.last_restore;
  show($("keep-last"), !!last);
  if (last) {
    $("keep-last").textContent = "Restored " + when(last.restored_at) + " from " + (last.board || "a backup") +
      " (taken " + when(last.taken_at) + ")" + (last.kept_before ? "; the table before it is kept as " + last.kept_before : "") + ".";
  }
  var list = clear($("keep-list"));
  (info.kept || []).forEach(function (k) {
    list.appendChild(h("li", null,
      h("a", { href: "/api/backups/" + encodeURIComponent(k.file), download: k.file,
               text: when(k.taken_at) + ", " + (REASON[k.reason] || k.reason) }),
      h("span", { cls: "muted", text: " " + k.matches + " matches, " + size(k.bytes) })));
  });
  if (!(info.kept || []).length) list.appendChild(h("li", { cls: "muted", text: "None yet: the board keeps one at every settle-up and once a night." }));
  show($("keep-restore"), !!info.can_restore);
  $("keep-go").disabled = B.busy || !B.file;
  $("keep-file").disabled = B.busy;
  show($("keep-confirm"), !!B.file && !B.busy);
  if (info.error) say(info.error, true);
}

// the board's time (the nights are dated by it): what it says, and the host may set it to this phone's
function drawClock(c) {
  show($("clock-box"), !!c);
  if (!c) return;
  $("clock-now").textContent = "The board's time: " + when(c.board) + (c.synced ? " (from the network)" : "") +
    (c.last ? "; set from " + c.last.by + "'s clock at " + when(c.last.to) : "") + (c.reason && c.set === false ? " (" + c.reason + ")" : "");
}

// the board's software (update.js): loaded with this panel, on the host's phone only
var upd = null;

export function renderBackup() {
  if (upd) upd.then(function (m) { m.renderUpdate(); });
  if (S.session.role !== "host") { show($("keep"), false); return; }
  if (B.loading) return;
  call("GET", "/api/clock").then(drawClock, function () { drawClock(null); });
  B.loading = true;
  call("GET", "/api/backups").then(function (info) { B.info = info; B.loading = false; draw(); },
    function () { B.loading = false; show($("keep"), false); });
}

// the file goes up in pieces (each under the page's request limit); a piece that finds the upload elsewhere
// (a dropped connection) goes on from where the board says it stands (update.js sends an update file so too)
export function send(file, piece, url, progress) {
  var at = 0;
  function next() {
    if (at >= file.size) return Promise.resolve();
    progress(Math.floor(100 * at / file.size));
    return fetch(url + "?offset=" + at, {
      method: "POST", credentials: "same-origin", body: file.slice(at, Math.min(file.size, at + piece)),
      headers: { "Content-Type": "application/octet-stream", "X-CSRF-Token": S.session.csrf, "Accept": "application/json" }
    }).then(function (r) {
      return r.json().then(function (d) {
        if (r.status === 409 && typeof d.have === "number") { at = d.have; return next(); }
        if (!r.ok) throw new Error(d.error || ("error " + r.status));
        at = d.have;
        return next();
      });
    });
  }
  return next();
}

function restore() {
  var file = B.file;
  if (!file || B.busy) return;
  B.busy = true;
  draw();
  send(file, B.info.piece, "/api/restore/upload", function (pc) { say("Sending the backup: " + pc + " % …"); }).then(function () {
    say("Checking the backup …");
    return call("POST", "/api/restore", { bytes: file.size });
  }).then(function (r) {
    say("Restoring " + r.text + ": the board starts again on it and this page reloads.");
    restoring();
  }, function (e) {
    B.busy = false;
    say("Not restored, nothing changed: " + e.message, true);
    draw();
  });
}

// the panel is the host's alone: built here, so no other phone downloads its markup
function build() {
  var box = $("keep");
  box.appendChild(h("h2", { text: "Keep the season" }));
  box.appendChild(h("p", { text: "A backup holds the whole table: every match, night and payment. Keep it off the board " +
    "(on a phone or a computer) and restore it here, or on a new board." }));
  box.appendChild(h("div", { cls: "row" }, h("a", { id: "keep-download", cls: "button", href: "/api/backup", download: true,
    text: "Download a backup" })));
  box.appendChild(h("h3", { text: "Kept on the board" }));
  box.appendChild(h("ul", { id: "keep-list", cls: "keep-list", "aria-label": "backups kept on the board" }));
  box.appendChild(h("div", { id: "keep-restore", cls: "stack" },
    h("label", null, "Restore from a backup file ", h("input", { id: "keep-file", type: "file", accept: ".landsend" })),
    h("div", { id: "keep-confirm", cls: "row", hidden: true },
      h("button", { id: "keep-go", cls: "primary", type: "button", text: "Restore it" }),
      h("button", { id: "keep-cancel", type: "button", text: "Cancel" }))));
  box.appendChild(h("p", { id: "keep-msg", cls: "muted", role: "status" }));
  box.appendChild(h("p", { id: "keep-last", cls: "muted", hidden: true }));
  box.appendChild(h("p", { id: "keep-version", cls: "muted" }));
  box.appendChild(h("div", { id: "clock-box", cls: "row", hidden: true },
    h("p", { id: "clock-now", cls: "muted" }),
    h("button", { id: "clock-set", type: "button", text: "Set the board's time to this phone's" })));
}

export function init() {
  build();
  upd = import("./update.js").then(function (m) { m.init(); m.renderUpdate(); return m; });
  $("keep-file").addEventListener("change", function () {
    B.file = this.files && this.files[0] ? this.files[0] : null;
    if (B.file) say("Restore " + B.file.name + " (" + size(B.file.size) + ")? It replaces every match, night and payment on this board with the backup's; the table now is kept as a backup first.");
    else say("");
    draw();
  });
  $("keep-go").addEventListener("click", restore);
  $("clock-set").addEventListener("click", function () {
    call("POST", "/api/clock", { now: Date.now(), force: true }).then(drawClock, function (e) { say(e.message, true); });
  });
  $("keep-cancel").addEventListener("click", function () { $("keep-file").value = ""; B.file = null; say(""); draw(); });
}
