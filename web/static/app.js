/* Land's End phone page. No framework, no build step, no external request: everything comes from the Pi.
   This module starts the page: it draws the whole page from the state (render), switches tabs (go) and
   wires the header. The state and the command queue are state.js; each view is its own module. */
import { $, show } from "./dom.js";
import { S, boot, pref, ui, joined, command, changeSession, refreshSession } from "./state.js";
import { toast, intercept, renderNotes, recalled } from "./header.js";
import { connect, init as initLive } from "./live.js";
import { announce } from "./announce.js";
import { renderSides, renderResult, pegN } from "./sides.js";
import { renderEntry, forget } from "./entry.js";
import { padForPicker, keepInSight } from "./picker.js";
import { loadHistory, renderHistory, init as initHistory } from "./history.js";
import { fillGames, renderNew, renderStart, init as initNew } from "./newgame.js";
import { renderQuick, init as initQuick } from "./quick.js";
import { renderMore, keepAwake, init as initMore } from "./more.js";
import { renderJoinSeat, renderSeat, joinSeat } from "./seat.js";
// drops the page's jobs when it goes
import "./jobs.js";

function render() {
  var t = S.table, s = S.session;
  document.body.classList.toggle("four", pref.four);
  $("game-title").textContent = t.title || "Land's End";
  $("hand-no").textContent = t.game ? "game " + (t.game_no || 1) + (t.hand_no ? " \u00b7 hand " + t.hand_no : "") : "";
  $("role").textContent = s.role === "visitor" ? "watching" : s.role;
  var faults = s.faults || [];
  $("faults").textContent = faults.join(" \u00b7 ");
  show($("faults"), faults.length > 0);
  show($("claim-box"), s.role === "visitor" && s.claimable);
  show($("join-box"), s.role === "visitor" && !s.claimable);
  renderJoinSeat();
  renderSeat();
  renderNotes();
  if (boot.prefill && !$("join-code").value) $("join-code").value = boot.prefill;
  renderSides();
  renderResult();
  renderEntry();
  $("undo").disabled = !joined() || t.can_undo === false;
  show($("undo"), joined());
  $("h-undo").disabled = $("undo").disabled;
  // the host sees the join code in the header until a second phone has joined
  show($("host-code"), s.role === "host" && !!s.join_code && (s.phones || 1) < 2);
  $("host-code").textContent = s.join_code ? "Join code " + s.join_code + " \u00b7 QR under More" : "";
  show($("h-import-label"), joined());
  show($("h-undo"), joined());
  show($("next-game"), joined() && !!t.result);   // inside the result, so it is in view with it
  $("next-game").textContent = t.result && t.series && t.series.kind !== "single" && t.series.over ? "New series" : "Next game";
  renderMore();
  renderStart();
  if (view === "history") renderHistory();
  // the matching phase: whose turn, the count and its cards stay above the picker (four players, large text)
  if (view === "table" && t.expect === "play" && joined()) keepInSight("#step", "#entry .countrow");
  keepAwake();
}


// a new snapshot was taken (from the stream, or read while there is no stream): draw it and say it
function taken(old) {
  render();
  announce(old);
  if (view === "history") loadHistory();
}

// practice.js and practice.css (discard practice, live advice, the hand review) load the first time the Count tab's
// practice or the History tab is opened: a phone that only plays never needs them, so they stay out of what every
// phone downloads (tests/test_web_assets.py counts the two apart)
var practice = null;
function withPractice(fn) {
  if (!practice) {
    var css = document.createElement("link");
    var styled = new Promise(function (done) { css.onload = css.onerror = done; });
    css.rel = "stylesheet";
    css.href = "/static/practice.css";
    document.head.appendChild(css);
    practice = Promise.all([import("./practice.js"), styled]).then(function (m) { m[0].init(); return m[0]; });
  }
  practice.then(fn, function () {});
}

// ---- navigation ----
var view = "table";                // the tab on screen
function go(to) {
  view = to;
  Array.prototype.forEach.call(document.querySelectorAll("[data-view]"), function (sec) { sec.hidden = sec.dataset.view !== view; });
  Array.prototype.forEach.call(document.querySelectorAll("[data-tab]"), function (b) { b.classList.toggle("on", b.dataset.tab === view); });
  if (view === "history") loadHistory();
  if (view === "count") renderQuick();
  if (view === "new") renderNew();
  if (view === "more") renderMore();           // the night's standing is read when the tab opens
  if (view === "history" || (view === "count" && practice)) withPractice(function (m) { m.opened(view); });
  padForPicker();
  window.scrollTo(0, 0);
}

ui.render = render;
ui.taken = taken;
ui.toast = toast;
ui.intercept = intercept;
ui.recalled = recalled;
ui.refused = forget;
ui.go = go;

// ---- wiring ----
Array.prototype.forEach.call(document.querySelectorAll("[data-tab]"), function (b) { b.addEventListener("click", function () { go(b.dataset.tab); }); });
Array.prototype.forEach.call(document.querySelectorAll("[data-pr-mode]"), function (b) {
  b.addEventListener("click", function () {
    var on = b.dataset.prMode === "practice";
    if (on || practice) withPractice(function (m) { m.mode(on); });
  });
});
$("claim").addEventListener("click", function () {
  changeSession("/api/claim", {}).then(function (s) { go("new"); toast("You host this table. Join code " + s.join_code, "info"); }, function (e) { toast(e.message); refreshSession(); });
});
function joinWith(code) {
  var body = { code: code }, seat = joinSeat();
  if (seat) body.seat = seat;
  return changeSession("/api/join", body).then(function () { toast("Joined: you can enter cards now", "info"); }, function (e) { toast(e.message); });
}
$("join-form").addEventListener("submit", function (ev) { ev.preventDefault(); joinWith($("join-code").value.trim()); });
// the QR code's link carries the code: nothing to type, and the one question left is whose phone this is
// (issue 26: the whole table's is a choice, never a default): answering it joins
$("join-seat").addEventListener("change", function () {
  var code = $("join-code").value.trim();
  if (boot.prefill && code === boot.prefill && $("join-seat").value) joinWith(code);
});
if (boot.prefill && S.session.role === "visitor" && !S.session.claimable) {
  show($("join-asks"), true);
  show($("join-watch"), false);      // the link brought the code: nothing to find on the host's phone
  $("join-seat").focus();
}
if (boot.prefill && window.history && history.replaceState) history.replaceState(null, "", "/");
$("undo").addEventListener("click", function () { command({ type: "undo" }).catch(function () {}); });
$("h-undo").addEventListener("click", function () { command({ type: "undo" }).catch(function () {}); });
$("next-game").addEventListener("click", function () { command({ type: "new_game" }).catch(function () {}); });
$("peg-n-go").addEventListener("click", function () {
  var n = Number($("peg-n-value").value);
  pegN(n).then(function () { show($("peg-n"), false); }, function () {});
});
$("peg-n-cancel").addEventListener("click", function () { show($("peg-n"), false); });
initNew();
fillGames($("ng-game"));
fillGames($("qc-game"));
if (S.table.game) { $("ng-game").value = S.table.game; $("qc-game").value = S.table.game; }
initQuick();
initHistory();
initMore();
initLive();

render();
announce(null);
connect();
