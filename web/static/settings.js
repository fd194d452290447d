/* Land's End phone page: the board's settings (its voice and palette) and the page's large-text mode.
   Kept apart from app.js: it only talks to /api/settings, through the page's one HTTP client (state.call). */
import { $, stored, store } from "./dom.js";
import { call } from "./state.js";

// ---- large text: a page setting kept on this phone ----
function applyLarge(on) { document.documentElement.classList.toggle("large", on); }
applyLarge(stored("le.large") === "1");

var state = null, busy = false;

function request(method, path, body) { return call(method, path, body); }

function say(msg) { $("bs-state").textContent = msg; }

function draw(s) {
  state = s;
  var v = s.voice, box = $("board-settings");
  box.hidden = !v && !s.palette;
  if (box.hidden) return;
  $("bs-voice-box").hidden = !v;
  if (v) {
    $("bs-voice").checked = v.enabled;
    $("bs-volume").value = String(v.volume);
    $("bs-speed").value = String(v.speed);
    var sel = $("bs-voice-name");
    if (![].some.call(sel.options, function (o) { return o.value === v.voice; })) {
      var o = document.createElement("option");
      o.value = v.voice; o.textContent = v.voice;
      sel.appendChild(o);
    }
    sel.value = v.voice;
    $("bs-volume-out").textContent = Math.round(v.volume * 100) + "%";
    $("bs-speed-out").textContent = v.speed + " words a minute";
    say(v.fault ? v.fault : v.enabled ? "The board speaks every announcement." : "The board is silent.");
    $("bs-state").className = v.fault ? "bad-text" : "muted";
  }
  $("bs-palette-box").hidden = !s.palette;
  if (s.palette) $("bs-palette").value = s.palette;
}

function load() {
  return request("GET", "/api/settings").then(draw, function () { /* no settings: the panel stays hidden */ });
}

function change(body) {
  if (busy) return;
  busy = true;
  request("POST", "/api/settings", body).then(function (s) { busy = false; draw(s); }, function (e) {
    busy = false;
    say(e.message);
    $("bs-state").className = "bad-text";
    load();
  });
}

function init() {
  var large = $("set-large");
  large.checked = stored("le.large") === "1";
  large.addEventListener("change", function () { store("le.large", large.checked ? "1" : "0"); applyLarge(large.checked); });

  $("bs-voice").addEventListener("change", function () { change({ voice: { enabled: $("bs-voice").checked } }); });
  $("bs-volume").addEventListener("change", function () { change({ voice: { volume: parseFloat($("bs-volume").value) } }); });
  $("bs-volume").addEventListener("input", function () { $("bs-volume-out").textContent = Math.round(parseFloat($("bs-volume").value) * 100) + "%"; });
  $("bs-speed").addEventListener("change", function () { change({ voice: { speed: parseInt($("bs-speed").value, 10) } }); });
  $("bs-speed").addEventListener("input", function () { $("bs-speed-out").textContent = $("bs-speed").value + " words a minute"; });
  $("bs-voice-name").addEventListener("change", function () { change({ voice: { voice: $("bs-voice-name").value } }); });
  $("bs-palette").addEventListener("change", function () { change({ palette: $("bs-palette").value }); });
  $("bs-test").addEventListener("click", function () {
    request("POST", "/api/settings/voice/test", {}).then(function (d) {
      draw({ voice: d.voice, palette: state && state.palette, palettes: state && state.palettes });
      if (d.queued) say("Saying \u201cfifteen two, fifteen four, and a pair is six\u201d on the board.");
      else if (!d.voice.fault) say("Turn the voice on first.");
    }, function (e) { say(e.message); $("bs-state").className = "bad-text"; });
  });
  // another phone may change them: look again whenever the More tab is opened
  document.addEventListener("click", function (ev) {
    var t = ev.target && ev.target.closest && ev.target.closest("[data-tab=more]");
    if (t) load();
  });
  load();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
else init();
