/* Update the board (the host's More tab, after Keep the season): the version it runs, what the last update did, an
   update file sent in pieces (the board checks its signature, keeps a backup, installs it beside the running
   version and starts again on it, or goes back by itself), and going back to the previous version. /api/update
   (docs/api.md). Loaded by backup.js, on the host's phone alone. */
import { h, $, show } from "./dom.js";
import { S, call } from "./state.js";
import { send } from "./backup.js";

var U = { info: null, file: null, busy: false, polling: false };
var DID = { installed: "installed", "rolled back": "not kept: the board went back", refused: "refused, nothing changed",
  interrupted: "cut short by a power cut, nothing changed", "went back": "went back" };

function say(text, bad) { var m = $("upd-msg"); m.textContent = text || ""; m.className = bad ? "bad-text" : "muted"; }

function draw() {
  var i = U.info;
  show($("upd"), !!i);
  if (!i) return;
  $("upd-version").textContent = "This board runs version " + i.version + ".";
  var l = i.last;
  show($("upd-last"), !!(l && l.outcome));
  if (l && l.outcome) $("upd-last").textContent = "Last update (" + (l.to || "?") + "): " + (DID[l.outcome] || l.outcome) +
    (l.reason ? " (" + l.reason + ")" : "") + ".";
  var busy = U.busy || i.busy;
  $("upd-go").disabled = busy || !U.file;
  $("upd-file").disabled = busy;
  show($("upd-back"), !!i.previous && !busy);
  $("upd-back").textContent = "Go back to version " + i.previous;
  if (i.busy) say("An update is under way: the board starts again on it, or goes back by itself.");
}

// while an update runs the board restarts: ask until it answers and the update is done
function poll() {
  if (U.polling) return;
  U.polling = true;
  (function again() {
    call("GET", "/api/update").then(function (i) {
      U.info = i;
      if (i.busy) { draw(); setTimeout(again, 3000); return; }
      U.polling = false; U.busy = false; say(""); draw();
    }, function () { setTimeout(again, 3000); });
  })();
}

export function renderUpdate() {
  if (S.session.role !== "host") { show($("upd"), false); return; }
  call("GET", "/api/update").then(function (i) { U.info = i; draw(); if (i.busy) poll(); },
    function () { U.info = null; draw(); });
}

function install() {
  var file = U.file;
  if (!file || U.busy) return;
  U.busy = true;
  draw();
  send(file, U.info.piece, "/api/update/upload", function (pc) { say("Sending the update: " + pc + " % …"); }).then(function () {
    say("Checking the update …");
    return call("POST", "/api/update", { bytes: file.size, allow_older: $("upd-older").checked });
  }).then(function (r) { say(r.text); U.file = null; $("upd-file").value = ""; poll(); }, function (e) {
    U.busy = false;
    say("Not installed, nothing changed: " + e.message, true);
    draw();
  });
}

function build() {
  var box = h("div", { id: "upd", cls: "panel stack", hidden: true },
    h("h2", { text: "Update the board" }),
    h("p", { id: "upd-version", cls: "muted" }),
    h("p", { id: "upd-last", cls: "muted", hidden: true }),
    h("label", null, "Update file (.update) ", h("input", { id: "upd-file", type: "file", accept: ".update" })),
    h("label", null, h("input", { id: "upd-older", type: "checkbox" }), " Go back to an older version"),
    h("div", { cls: "row" }, h("button", { id: "upd-go", cls: "primary", type: "button", text: "Install it" }),
      h("button", { id: "upd-back", type: "button", hidden: true })),
    h("p", { id: "upd-msg", cls: "muted", role: "status" }));
  $("keep").after(box);
}

export function init() {
  build();
  $("upd-file").addEventListener("change", function () {
    U.file = this.files && this.files[0] ? this.files[0] : null;
    say(U.file ? "Install " + U.file.name + "? The board keeps a backup first and goes back by itself if it fails." : "");
    draw();
  });
  $("upd-go").addEventListener("click", install);
  $("upd-back").addEventListener("click", function () {
    U.busy = true;
    draw();
    call("POST", "/api/update/previous", {}).then(function () { poll(); },
      function (e) { U.busy = false; say(e.message, true); draw(); });
  });
}
