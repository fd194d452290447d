/* The host's Wi-Fi panel on the More tab: the board's own Wi-Fi with the code that joins it, scanning and
   joining a network, the hotspot switch, and the table card. Everything goes through the daemon
   (/api/wifi, docs/api.md): the board tries a network, comes back to its own Wi-Fi and says whether it
   worked and its address there; "Move" then switches for good. Host only; the Wi-Fi part hides when the
   board has no Wi-Fi control (404: no NetworkManager, or the simulator). */
import { h, clear, $, show } from "./dom.js";
import { S, call } from "./state.js";

var W = { state: null, role: null, chosen: null, timer: null, scanning: false, message: "", since: 0 };
var TRY_S = 45;          // the board's own limit for joining a network (firmware.wifi.JOIN_WAIT_S)

// the page is served over plain http on the table's network: an address there is this page's scheme
function site(address) { return location.protocol + "//" + address + "/"; }
function shortName(connection) { return (connection || "").replace(/^landsend /, ""); }
function say(text) { W.message = text || ""; $("wifi-msg").textContent = W.message; }

function bars(signal) { return signal >= 67 ? "strong" : signal >= 34 ? "fair" : "weak"; }

function nowText(s) {
  var spot = s.hotspot;
  if (s.busy === "join") {
    var name = s.trial && s.trial.ssid ? s.trial.ssid : "the network";
    return "The board is trying " + name + ": its own Wi-Fi is off for up to " + TRY_S + " s. " +
      "This phone finds it again when it comes back.";
  }
  if (s.busy === "move") return "The board is moving to " + (s.trial ? s.trial.ssid : "the new network") + " …";
  if (s.busy) return "The board is busy (" + s.busy + ") …";
  if (s.mode === "hotspot" && spot) return "The board runs its own Wi-Fi, " + spot.ssid + ": phones open " + site(spot.address) + "." + waitText(s);
  if (s.mode === "client") return "The board is on " + shortName(s.connection) + (s.address ? ", at " + site(s.address) : "") + ".";
  return "The board is on no Wi-Fi network" + (spot ? ": turn its own Wi-Fi on below." : ".") + waitText(s);
}

// saved networks it is not on (docs/operation.md): it stays on its own Wi-Fi when one comes back
function waitText(s) {
  var w = (s.waiting || []).join(", ");
  return w ? " It does not reach " + w + ": it joins " + w + " at its next start when in reach, or now with Scan and Try it." : "";
}

function trialEl(s) {
  var t = s.trial;
  if (!t || s.busy === "join" || t.ok === null) return null;
  if (!t.ok) return h("p", { cls: "bad-text", text: t.error });
  if (t.moved) {
    return h("p", { text: "The board is on " + t.ssid + " now: phones join " + t.ssid + " and open " +
      site(t.address) + " (or " + site("landsend.local") + ")." });
  }
  var move = h("button", { type: "button", cls: "primary", id: "wifi-move", text: "Move the board to " + t.ssid });
  move.addEventListener("click", function () {
    change("/api/wifi/move", {}, "Moving the board to " + t.ssid + ": phones join " + t.ssid + " and open " + site(t.address) + ".");
  });
  return h("div", { cls: "stack" },
    h("p", { id: "wifi-works", text: t.ssid + " works: the board will be at " + site(t.address) + " there." }),
    h("p", { cls: "muted", text: "It is back on its own Wi-Fi now. Move it when the phones are ready to join " + t.ssid + "." }),
    move);
}

function draw() {
  var s = W.state, host = S.session.role === "host";
  show($("card-box"), host);
  if (host && !$("card-open").getAttribute("href")) {
    $("card-open").setAttribute("href", "/card.svg");
    $("card-download").setAttribute("href", "/card.svg?download=1");
  }
  show($("wifi"), host && !!s);
  if (!host || !s) return;
  var spot = s.hotspot, busy = !!s.busy;
  $("wifi-now").textContent = nowText(s);
  show($("wifi-own"), !!spot);
  if (spot) {
    $("wifi-ssid").textContent = spot.ssid;
    $("wifi-pass").textContent = spot.password;
    var src = "/qr/wifi.svg?s=" + encodeURIComponent(spot.ssid);
    if ($("wifi-qr").getAttribute("src") !== src) $("wifi-qr").setAttribute("src", src);
  }
  var hs = $("wifi-hotspot");
  show(hs, !!spot);
  hs.textContent = s.mode === "hotspot" ? "Turn the board's Wi-Fi off" : "Turn the board's Wi-Fi on";
  hs.disabled = busy;
  $("wifi-scan").disabled = busy || W.scanning;
  $("wifi-scan").textContent = W.scanning ? "Scanning …" : "Scan for networks";
  var list = clear($("wifi-list"));
  s.networks.forEach(function (n) {
    var b = h("button", { type: "button", "data-ssid": n.ssid, "aria-pressed": W.chosen && W.chosen.ssid === n.ssid ? "true" : "false" },
      h("span", { cls: "wifi-name", text: n.ssid }),
      h("span", { cls: "muted", text: bars(n.signal) + (n.secure ? ", password" : ", open") + (n.in_use ? ", in use" : "") }));
    b.disabled = busy;
    b.addEventListener("click", function () { choose(n); });
    list.appendChild(h("li", null, b));
  });
  var form = $("wifi-join");
  show(form, !!W.chosen && !busy);
  if (W.chosen) {
    $("wifi-join-ssid").textContent = W.chosen.ssid;
    show($("wifi-password-box"), W.chosen.secure);
  }
  var trial = clear($("wifi-trial")), el = trialEl(s);
  if (el) trial.appendChild(el);
  var err = s.error && !busy ? s.error : "";
  $("wifi-error").textContent = err;
  show($("wifi-error"), !!err);
}

function poll(delay) {
  clearTimeout(W.timer);
  W.timer = setTimeout(refresh, delay);
}

function refresh() {
  return call("GET", "/api/wifi").then(function (d) {
    W.state = d;
    draw();
    if (d.busy) poll(1500);
  }, function (e) {
    if (e.network && W.state && W.state.busy && Date.now() - W.since < 180000) {
      poll(2000);                 // the board is away trying a network: keep looking until it is back
      return;
    }
    if (e.status === 403 || e.status === 404) W.state = null;
    draw();
  });
}

function change(path, body, message) {
  say(message || "");
  W.since = Date.now();
  return call("POST", path, body).then(function (d) {
    W.state = d;
    W.chosen = null;
    draw();
    poll(1000);
  }, function (e) { say(e.message); });
}

function choose(net) {
  W.chosen = net;
  say("");
  $("wifi-password").value = "";
  draw();
  (net.secure ? $("wifi-password") : $("wifi-try")).focus();
}

// called by the More tab on every render: loads the state once the phone is the host
export function renderWifi() {
  var role = S.session.role;
  if (role !== W.role) {
    W.role = role;
    W.state = null;
    if (role === "host") refresh();
  }
  draw();
}

export function init() {
  $("wifi-scan").addEventListener("click", function () {
    W.scanning = true;
    say("");
    draw();
    call("POST", "/api/wifi/scan", {}).then(function (d) {
      W.scanning = false;
      W.state.networks = d.networks;
      if (!d.networks.length) say("No network in reach.");
      draw();
    }, function (e) { W.scanning = false; say(e.message); draw(); });
  });
  $("wifi-hotspot").addEventListener("click", function () {
    var on = !(W.state && W.state.mode === "hotspot");
    change("/api/wifi/hotspot", { on: on }, on ? "Turning the board's Wi-Fi on …"
      : "Turning the board's Wi-Fi off: phones on it lose the page until the board is on another network.");
  });
  $("wifi-join").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var net = W.chosen;
    if (!net) return;
    var pw = net.secure ? $("wifi-password").value : "";
    if (net.secure && (pw.length < 8 || pw.length > 63)) { say("A Wi-Fi password is 8 to 63 characters."); return; }
    change("/api/wifi/join", { ssid: net.ssid, password: pw });
  });
  $("wifi-join-cancel").addEventListener("click", function () { W.chosen = null; say(""); draw(); });
}
