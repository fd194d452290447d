/* The live stream: SSE with heartbeat watchdog, reconnect and catch-up; polling while no stream is to be had. */
import { $ } from "./dom.js";
import { S, call, take, retryPending, refreshSession, stalled } from "./state.js";
import { drawBoard, readBoard } from "./board.js";
import { keepAwake } from "./more.js";
import { moved } from "./header.js";

// ---- live updates: SSE with heartbeat watchdog, reconnect and catch-up ----
export function connect() {
  if (S.es) S.es.close();
  var es = new EventSource("/api/events" + (S.table && S.table.match_id ? "?last=" + encodeURIComponent(S.table.match_id + ":" + S.table.seq) : ""));
  S.es = es;
  S.lastMsg = Date.now();
  es.onopen = function () { S.lastMsg = Date.now(); S.esTries = 0; setConn(true); };
  es.onmessage = function () { S.lastMsg = Date.now(); };
  // the stream is the one source of the table's state on every phone, the one that sent a command too
  es.addEventListener("state", function (ev) { S.lastMsg = Date.now(); setConn(true); take(JSON.parse(ev.data)); retryPending(); });
  // the frame the board has just drawn (and on connect, the one it shows)
  es.addEventListener("board", function (ev) { S.lastMsg = Date.now(); drawBoard(JSON.parse(ev.data)); });
  es.addEventListener("access", function () { S.lastMsg = Date.now(); refreshSession(); });
  // a fault came or went (the table's store refused a write: a full disk...): the banner shows it
  es.addEventListener("faults", function () { S.lastMsg = Date.now(); refreshSession(); });
  // an amend moved cards to other players: the phone that had entered one is told (header.js)
  es.addEventListener("moved", function (ev) { S.lastMsg = Date.now(); moved(JSON.parse(ev.data)); });
  es.addEventListener("ping", function () { S.lastMsg = Date.now(); setConn(true); });
  es.onerror = function () { setConn(false); };
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
    if (!S.es || S.es.readyState === 2 || Date.now() - S.lastMsg <= SILENT_MS) return;
    clearTimeout(connTimer);
    connTimer = null;
    showConn(false);
    stalled();
    if (Date.now() - (S.esAsked || 0) > 5000) { S.esAsked = Date.now(); connect(); S.lastMsg = Date.now() - SILENT_MS - 1; }
  }, 1000);
  setInterval(function () {
    if (S.es && S.es.readyState === 2) {
      // the stream was refused (503: every live stream of the table is taken) or failed: read the table
      // every 5 s meanwhile, and ask for a stream again after 5, 10, 15... up to 30 s (jittered)
      call("GET", "/api/table").then(function (t) { take(t); showConn(false, "polling"); }, function () {});
      readBoard();
      if (Date.now() < (S.esNext || 0)) return;
      S.esTries = (S.esTries || 0) + 1;
      S.esNext = Date.now() + Math.min(30000, 5000 * S.esTries) * (0.8 + 0.4 * Math.random());
      connect();
    }
  }, 5000);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      if (!S.es || S.es.readyState === 2) connect();
      keepAwake();
    }
  });
  window.addEventListener("online", function () { connect(); retryPending(); });
}
