/* The live stream: SSE with heartbeat watchdog, reconnect and catch-up; polling while no stream is to be had. */
import { $ } from "./dom.js";
import { S, call, take, retryPending, refreshSession, stalled } from "./state.js";
import { drawBoard, readBoard } from "./board.js";
import { keepAwake } from "./more.js";

// ---- live updates: SSE with heartbeat watchdog, reconnect and catch-up ----
var opened = 0, es = null, lastMsg = 0, asked = 0, tries = 0, next = 0;
export function connect() {
  if (es) es.close();
  es = new EventSource("/api/events" + (S.table && S.table.match_id ? "?last=" + encodeURIComponent(S.table.match_id + ":" + S.table.seq) : ""));
  lastMsg = Date.now();
  // reconnected: the session's notes may have come meanwhile
  es.onopen = function () { lastMsg = Date.now(); tries = 0; setConn(true); if (opened++) refreshSession(); };
  es.onmessage = function () { lastMsg = Date.now(); };
  // the stream is the one source of the table's state on every phone, the one that sent a command too
  es.addEventListener("state", function (ev) { lastMsg = Date.now(); setConn(true); take(JSON.parse(ev.data)); retryPending(); });
  // the frame the board has just drawn (and on connect, the one it shows)
  es.addEventListener("board", function (ev) { lastMsg = Date.now(); drawBoard(JSON.parse(ev.data)); });
  es.addEventListener("access", function () { lastMsg = Date.now(); refreshSession(); });
  // a fault came or went (the table's store refused a write: a full disk...): the banner shows it
  es.addEventListener("faults", function () { lastMsg = Date.now(); refreshSession(); });
  // an amend moved some phone's entries: that phone finds it in its session's notes
  es.addEventListener("moved", function () { lastMsg = Date.now(); refreshSession(); });
  es.addEventListener("ping", function () { lastMsg = Date.now(); setConn(true); });
  // the host restored a backup: the board starts again on it, and every phone reloads when it is back
  es.addEventListener("restoring", function () { lastMsg = Date.now(); restoring(); });
  es.onerror = function () { setConn(false); };
}
// the board is about to start again on a restored table: say so, and reload once it answers again
var waiting = false;
export function restoring() {
  if (waiting) return;
  waiting = true;
  $("restoring").hidden = false;
  var was = S.session.boot;
  setTimeout(function poll() {
    // the board answers again once it has started anew (its boot differs): only then is the page whole there
    fetch("/api/session", { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      return r.ok ? r.json() : null;
    }).then(function (s) {
      if (s && s.boot !== was) location.reload();
      else setTimeout(poll, 1000);
    }, function () { setTimeout(poll, 1000); });
  }, 1000);
}
var connTimer = null;
function setConn(ok) {
  if (!ok && $("conn").textContent === "live") {
    // a stream ending on schedule reconnects at once: "offline" if not back within 1.5 s
    if (!connTimer) connTimer = setTimeout(function () { connTimer = null; showConn(false); }, 1500);
    return;
  }
  clearTimeout(connTimer);
  connTimer = null;
  showConn(ok);
}
function showConn(ok, text) {
  var c = $("conn");
  c.textContent = ok ? "live" : (text || "offline");
  c.className = "pill " + (ok ? "ok" : "warn");
}
// a heartbeat comes every second: after 3 s of silence the phone is out of reach, closed connection or not: it
// says "offline", offers Send again / Drop for what it holds, and asks for a stream again every 5 s
var SILENT_MS = 3000;
export function init() {
  setInterval(function () {
    if (!es || es.readyState === 2 || Date.now() - lastMsg <= SILENT_MS) return;
    clearTimeout(connTimer);
    connTimer = null;
    showConn(false);
    stalled();
    if (Date.now() - asked > 5000) { asked = Date.now(); connect(); lastMsg = Date.now() - SILENT_MS - 1; }
  }, 1000);
  setInterval(function () {
    if (es && es.readyState === 2) {
      // the stream was refused (503: every live stream of the table is taken) or failed: read the table
      // every 5 s meanwhile, and ask for a stream again after 5, 10, 15... up to 30 s (jittered)
      call("GET", "/api/table").then(function (t) { take(t); showConn(false, "polling"); }, function () {});
      readBoard();
      if (Date.now() < next) return;
      tries = tries + 1;
      next = Date.now() + Math.min(30000, 5000 * tries) * (0.8 + 0.4 * Math.random());
      connect();
    }
  }, 5000);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      if (!es || es.readyState === 2) connect();
      keepAwake();
    }
  });
  window.addEventListener("online", function () { connect(); retryPending(); });
}
