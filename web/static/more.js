/* The More tab: the page's address and its QR code, the host's Wi-Fi and table card (wifi.js), invite (join
   code and QR), ledger, the simulator's board buttons, this phone's settings,
   and the wake lock. The board's own settings are in settings.js. */
import { h, clear, $, show, store } from "./dom.js";
import { S, pref, joined, render, refreshSession, call } from "./state.js";
import { toast } from "./header.js";

// the host's Wi-Fi panel (wifi.js) is loaded only on the host's phone: no other phone needs it, so it
// stays out of what every phone downloads (tests/test_web_assets.py counts the two apart)
var wifi = null;
function withWifi(fn) {
  if (!wifi) wifi = import("./wifi.js").then(function (m) { m.init(); return m; });
  wifi.then(fn, function () {});
}

// the host's backups of the whole table (backup.js): likewise on the host's phone only
var keep = null;
function withBackup(fn) {
  if (!keep) keep = import("./backup.js").then(function (m) { m.init(); return m; });
  keep.then(fn, function () {});
}

// the night and the season (season.js) load the first time the More tab or a score race is opened
var season = null;
export function withSeason(fn) {
  if (!season) season = import("./season.js");
  season.then(fn, function () {});
}
// a score race opens under its button, and closes again
export function toggleRace(button, box, game) {
  var open = button.getAttribute("aria-expanded") !== "true";
  button.setAttribute("aria-expanded", String(open));
  if (!open) { clear(box); return; }
  withSeason(function (m) { m.showRace(box, game); });
}

// a joined phone offers its clock once: a board with no clock of its own (a Pi after a power cut, at a pub with no
// network) takes it when it is behind (firmware/clock.py's rules), so the nights are dated right
var clockOffered = false;

// ---- more: share, ledger, simulator, settings ----
export function renderMore() {
  var s = S.session, t = S.table;
  if (!clockOffered && joined()) { clockOffered = true; call("POST", "/api/clock", { now: Date.now() }).catch(function () {}); }
  // the page's address, as this phone opened it (its QR code is /qr/page.svg, made for the same address)
  var here = location.origin + "/";
  if ($("address-url").textContent !== here) { $("address-url").textContent = here; $("address-url").setAttribute("href", here); }
  if (wifi || s.role === "host") withWifi(function (m) { m.renderWifi(); });
  if (keep || s.role === "host") withBackup(function (m) { m.renderBackup(); });
  show($("share"), joined() && !!s.join_code);
  if (joined() && s.join_code) {
    $("share-code").textContent = s.join_code;
    var src = "/qr.svg?e=" + s.epoch + "-" + s.join_code;
    if ($("share-qr").getAttribute("src") !== src) $("share-qr").setAttribute("src", src);
  }
  var led = clear($("ledger")), here = t.players || [];
  var names = Object.keys(t.ledger || {}).filter(function (n) { return t.ledger[n] || here.indexOf(n) >= 0; });
  if (!names.length) led.appendChild(h("tr", null, h("td", { cls: "muted", text: "No stakes settled yet." })));
  names.forEach(function (n) {
    var v = t.ledger[n];
    led.appendChild(h("tr", null, h("td", { text: n }), h("td", { cls: "num " + (v > 0 ? "plus" : v < 0 ? "minus" : ""), "data-ledger": n, text: (v > 0 ? "+" : "") + v })));
  });
  show($("sim"), !!s.sim);
  if (!$("view-more").hidden) withSeason(function (m) { m.renderNight(); });
}


// ---- wake lock: keep the screen on during a game where the browser allows it ----
var wake = null;
export function keepAwake() {
  var want = pref.awake && document.visibilityState === "visible" && S.table.game && !S.table.result;
  if (!("wakeLock" in navigator)) {
    $("awake-note").textContent = pref.awake ? "This browser does not let pages keep the screen on over plain http; set the phone's screen timeout longer." : "";
    return;
  }
  if (want && !wake) {
    navigator.wakeLock.request("screen").then(function (l) { wake = l; l.addEventListener("release", function () { wake = null; }); }, function () {});
  } else if (!want && wake) { wake.release(); wake = null; }
}

function simPress(body, done) {
  call("POST", "/api/sim/press", body).then(function () { if (done) done(); },   // the new state comes on the stream
    function (e) { toast(e.message); });
}
export function init() {
  $("season-open").addEventListener("click", function () {
    var open = this.getAttribute("aria-expanded") !== "true";
    this.setAttribute("aria-expanded", String(open));
    if (open) withSeason(function (m) { m.renderSeason(); }); else clear($("season"));
  });
  $("result-race").addEventListener("click", function () { toggleRace(this, $("result-race-box"), S.table.game_no); });
  $("h-race").addEventListener("click", function () { toggleRace(this, $("h-race-box"), S.table.game_no); });
  $("h-games").addEventListener("click", function () {
    var open = this.getAttribute("aria-expanded") !== "true", box = $("h-games-box");
    this.setAttribute("aria-expanded", String(open));
    if (open) withSeason(function (m) { m.showGames(box); }); else clear(box);
  });
  Array.prototype.forEach.call(document.querySelectorAll("[data-sim]"), function (b) {
    b.addEventListener("click", function () { simPress({ button: b.dataset.sim, hold: $("sim-hold").checked }); });
  });
  // the board's root of trust, simulated: the menu button held 5 s makes every phone join again
  $("sim-release").addEventListener("click", function () {
    simPress({ button: "menu", seconds: 5.5 }, function () { refreshSession(); toast("Table released: the next phone to host it takes it", "info"); });
  });
  [["set-four", "four"], ["set-speak", "speak"], ["set-awake", "awake"]].forEach(function (pair) {
    var el = $(pair[0]);
    el.checked = pref[pair[1]];
    el.addEventListener("change", function () { pref[pair[1]] = el.checked; store("le." + pair[1], el.checked ? "1" : "0"); render(); });
  });
}
