/* The page's state and the command queue: the one place that holds what the phone knows of the table
   (S), talks to the Pi (call), sends commands one at a time (command), and takes each new snapshot (take).
   It draws nothing but the header's "sending" line; the views register how to draw through ui. */
import { h, clear, $, show, pretty, stored } from "./dom.js";

export var boot = JSON.parse(document.getElementById("boot").textContent);
// the table, the session, the presets and the queue: each view keeps its own UI state
export var S = { table: boot.table, session: boot.session, presets: boot.presets, queue: [] };
var gone = {};                     // the match ids replaced on this phone: never shown again
export var pref = { four: stored("le.four") === "1", speak: stored("le.speak") === "1", awake: stored("le.awake") !== "0" };

// how the views are drawn, registered by app.js (this module imports no view)
export var ui = {
  render: function () {}, taken: function (old) {}, toast: function (msg, kind, data, cmd) {}, go: function (view) {},
  intercept: function (cmd) { return false; },    // true: the entry is held (header.js asks about it)
  recalled: function (r, d) {},                    // a dropped entry the table had stored: offer its undo
  refused: function () {}                          // an entry was refused (entry.js drops its question)
};
// draw the page again from S (after a change of S made here or by a view)
export function render() { ui.render(); }
// each view forgets what belonged to the state before: fn(old, snap), before the new state is drawn
var resets = [];
export function onNewState(fn) { resets.push(fn); }
export function go(view) { ui.go(view); }

// ---- reading the state ----
export function joined() { return S.session.role !== "visitor"; }
export function preset(name) { return S.presets.filter(function (p) { return p.name === name; })[0] || S.presets[0]; }
export function sideName(id) {
  var s = (S.table.sides || []).filter(function (x) { return x.id === id; })[0];
  return s ? s.name : id;
}
// what card-entry step comes next, from the snapshot
export function hand() { return S.table.hand || {}; }
export function seenCards() {
  var t = S.table, hd = hand(), seen = {};
  (hd.seen || []).forEach(function (c) { seen[c] = 1; });
  if (t.turnup) seen[t.turnup] = 1;
  (t.count_cards || []).forEach(function (c) { seen[c] = 1; });
  return seen;
}

// ---- talking to the Pi ----
function newId() {
  var a = new Uint8Array(12);
  (window.crypto || window.msCrypto).getRandomValues(a);
  return Array.prototype.map.call(a, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
}
// signal: ends the request (a command sent again or dropped): it rejects with .aborted; keepalive: sent as the
// page goes, once
export function call(method, path, body, tries, signal, keepalive) {
  var opts = { method: method, headers: { "Accept": "application/json" }, credentials: "same-origin" };
  if (signal) opts.signal = signal;
  if (keepalive) { opts.keepalive = true; tries = 4; }
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.headers["X-CSRF-Token"] = S.session.csrf;
    opts.body = JSON.stringify(body);
  }
  tries = tries || 0;
  return fetch(path, opts).then(function (r) {
    return r.json().catch(function () { return { error: r.status + " " + r.statusText }; }).then(function (data) {
      if (!r.ok) { var e = new Error(data.error || ("error " + r.status)); e.status = r.status; e.data = data; throw e; }
      return data;
    });
  }, function (netErr) {
    if (signal && signal.aborted) { var a = new Error("not sent"); a.aborted = true; throw a; }
    // the network dropped: retry the same request (same client id, so it never scores twice)
    if (tries < 4) {
      return new Promise(function (res) { setTimeout(res, 400 * Math.pow(2, tries)); })
        .then(function () { return call(method, path, body, tries + 1, signal); });
    }
    var e = new Error("no connection to the table");
    e.network = true;
    throw e;
  });
}
// Every command carries the seq it was made from (if_seq; one tapped behind another: that one's event), so
// the table never applies a tap to a state its phone did not show. Commands go one at a time; one that cannot
// be sent waits with Send again / Drop, never lost or re-aimed, and a resend keeps its client id.
// whose a play or go is: the player picked, else this phone's seat, else the player to play (as the table takes it)
function defaultPlayer(cmd) {
  var seat = S.session && S.session.seat, t = S.table;
  return cmd.player || (seat && (t.players || []).indexOf(seat) >= 0 ? seat : t.turn) || "";
}
function describe(cmd) {
  var c = cmd.card ? pretty(cmd.card) : "";
  switch (cmd.type) {
    case "play": return c + (defaultPlayer(cmd) ? " for " + defaultPlayer(cmd) : "");
    case "go": return (defaultPlayer(cmd) ? defaultPlayer(cmd) + "'s " : "") + "go";
    case "peg": return "+" + cmd.points + " for " + sideName(cmd.side);
    case "turnup": return "the turn-up " + c;
    case "show": return (cmd.player || S.table.hand && S.table.hand.expect_player || "the") + "'s hand";
    case "pocket": return "the " + (S.table.pocket_name || "pocket");
    case "place": return c + (cmd.crib ? " into the crib" : " on the grid");
    case "new_match": return "the new game";
    case "new_game": return "the next game";
    case "doubt": return cmd.settle != null ? "the entries as they stand" : "the fix, kept in doubt";
    default: return cmd.type.replace("_", " ");
  }
}
export function command(cmd) {
  if (ui.intercept(cmd)) { var held = new Error("held"); held.held = true; return Promise.reject(held); }
  cmd.client_id = cmd.client_id || newId();
  var entry = { cmd: cmd, label: describe(cmd), chained: S.queue.length > 0, state: "waiting" };
  if (!entry.chained) cmd.if_seq = S.table.seq;
  var done = new Promise(function (resolve, reject) { entry.resolve = resolve; entry.reject = reject; });
  S.queue.push(entry);
  if (S.queue.length === 1) sendHead(); else renderPending();
  return done;
}
function sendHead() {
  var e = S.queue[0];
  if (!e || e.state === "sending" || e.state === "answered") return;
  e.state = "sending";
  e.match = S.table.match_id;        // the match it was made in (if_seq is a seq of this match)
  if (e.ctrl) e.ctrl.abort();        // sent again: the earlier request is ended (same client id: never twice)
  var ctrl = e.ctrl = window.AbortController ? new AbortController() : null;
  renderPending();
  call("POST", "/api/command", e.cmd, 0, ctrl && ctrl.signal).then(function (data) {
    if (e.ctrl !== ctrl) return;
    // the answer is the event and its seq; the state comes on the stream, so a late answer never reverts it
    e.state = "answered";
    e.answer = data;
    var t = $("toast");
    if (!t.hidden && !t.classList.contains("info")) t.hidden = true;   // the refusal was dealt with: clear it
    var next = S.queue[1];
    if (next && next.chained) next.cmd.if_seq = data.seq;              // made on top of this one
    settle();
    if (S.queue[0] === e) lookAgain(e);
  }, function (err) {
    if (e.ctrl !== ctrl || err.aborted) return;
    if (err.network) { e.state = "failed"; renderPending(); return; }
    // refused: this entry, and those made on top of it, are not entered; the phone shows the table as it is
    var dropped = S.queue.splice(0, S.queue.length);
    var after = dropped.length - 1;
    var more = after ? " (nor the " + (after > 1 ? after + " entries" : "entry") + " made after it)" : "";
    if (err.data && err.data.stale) {
      var mean = (err.data.meanwhile || []).map(function (m) { return m.text + (m.by ? " (from " + m.by + ")" : ""); });
      ui.toast("Not entered: " + e.label + more + ". " + (mean.length ? "Meanwhile " + mean.join(", ") +
        (mean.length > 1 ? " were" : " was") + " entered." : "The table changed before it arrived (another phone or the " +
        "board entered something).") + (err.data.amend ? "" : " Look again, and enter it if it still stands."), null, err.data, e.cmd);
    } else {
      ui.toast(err.message + (more ? " \u2014 not entered: " + e.label + more : ""), null, err.data, e.cmd);
    }
    ui.refused();                  // back to a clean picker: the refused card is not half-entered
    render();
    renderPending();
    if (err.status === 403) refreshSession();
    dropped.forEach(function (d) { d.reject(err); });
  });
}
// has the stream brought the state an answered command made (or a later one)?
function shown(e) {
  var t = S.table, ev = e.answer.event || {};
  if (ev.match_id) return t.match_id === ev.match_id || !!gone[ev.match_id];   // a new match
  return t.match_id !== e.match || t.seq >= e.answer.seq;
}
// the head of the queue is done once its state is on the screen: then the next entry goes out
function settle() {
  var e = S.queue[0];
  if (!e || e.state !== "answered" || !shown(e)) return;
  clearTimeout(e.timer);
  S.queue.shift();
  renderPending();
  e.resolve(e.answer);
  if (S.queue.length) sendHead();
}
// a stream that is down or slow: read the table itself after a while, until the state is there
function lookAgain(e) {
  clearTimeout(e.timer);
  e.timer = setTimeout(function () {
    if (S.queue[0] !== e) return;
    call("GET", "/api/table").then(take, function () {}).then(function () { if (S.queue[0] === e) lookAgain(e); });
  }, 3000);
}
export function retryPending() { if (S.queue.length && S.queue[0].state === "failed") sendHead(); }
// 3 s without a heartbeat (live.js): an entry on its way may never arrive: Send again / Drop at once
export function stalled() {
  var e = S.queue[0];
  if (e && e.state === "sending") { e.state = "failed"; renderPending(); }
}
// Drop cannot recall a request already sent: once in reach, the page asks the table about it (its client id)
// and, if it was stored, offers its undo (ui.recalled)
var recall = [], recalling = false;
function dropPending() {
  var dropped = S.queue.splice(0, S.queue.length);
  dropped.forEach(function (d) { if (d.ctrl) d.ctrl.abort(); d.ctrl = null; });
  var sent = dropped.filter(function (d) { return d.state === "sending" || d.state === "failed"; });
  sent.forEach(function (d) { recall.push({ cid: d.cmd.client_id, label: d.label, ifSeq: d.cmd.if_seq }); });
  renderPending();
  if (dropped.length) ui.toast("Not entered: " + dropped.map(function (d) { return d.label; }).join(", ") +
    (sent.length ? " (if it reached the table before the connection went, you will be offered its undo)" : ""), "info");
  dropped.forEach(function (d) { var e = new Error("dropped"); e.dropped = true; d.reject(e); });
  recheck();
}
// forget a dropped request the table can no longer take (it is past its if_seq); else ask at each new state
function recheck() {
  if (!recall.length || recalling) return;
  var r = recall[0];
  recalling = true;
  call("GET", "/api/entered/" + encodeURIComponent(r.cid)).then(function (d) {
    recalling = false;
    recall.shift();
    if (d.live) ui.recalled(r, d);
    recheck();
  }, function (e) {
    recalling = false;
    if (e.status === 404 && e.data && (r.ifSeq === undefined || e.data.seq > r.ifSeq)) { recall.shift(); recheck(); }
  });
}
function renderPending() {
  var box = clear($("pending")), q = S.queue;
  show(box, q.length > 0);
  // card entry waits for the answer (the next card's player depends on it); a peg or undo may queue behind
  ["entry", "picker", "grid-box", "shows"].forEach(function (id) {
    $(id).inert = q.length > 0;
    $(id).classList.toggle("busy", q.length > 0);
  });
  if (!q.length) return;
  var failed = q[0].state === "failed", labels = q.map(function (d) { return d.label; }).join(", ");
  box.className = "pending" + (failed ? " failed" : "");
  box.appendChild(h("span", { id: "pending-text", text: failed
    ? "Not sent yet: " + labels + " (no connection to the table)"
    : "Sending " + labels + "\u2026" }));
  if (failed) {
    box.appendChild(h("button", { type: "button", id: "pending-retry", onclick: retryPending }, "Send again"));
    box.appendChild(h("button", { type: "button", id: "pending-drop", onclick: dropPending }, "Drop"));
    box.appendChild(h("small", { id: "pending-note", text: "Drop: if it already reached the table, you will be offered its undo." }));
  }
}
// the session as the server sees it; a claim or join in flight wins over a refresh that started before it
var sessionGen = 0, sessionBusy = 0;
function setSession(s) { sessionGen++; S.session = s; render(); }
export function refreshSession() {
  if (sessionBusy) return Promise.resolve();
  var gen = sessionGen;
  return call("GET", "/api/session").then(function (s) { if (gen === sessionGen && !sessionBusy) setSession(s); });
}
export function changeSession(path, body) {
  sessionBusy++;
  return call("POST", path, body).then(function (s) { sessionBusy--; setSession(s); return s; },
    function (e) { sessionBusy--; throw e; });
}

export function take(snap) {
  if (!snap) return;
  var old = S.table;
  if (old && old.match_id === snap.match_id && snap.seq < old.seq) return;   // stale
  // a replaced match never comes back (a late answer about it after the stream brought the new match)
  if (gone[snap.match_id]) return;
  if (old && old.match_id !== snap.match_id) gone[old.match_id] = true;
  S.table = snap;
  if (!old || old.seq !== snap.seq || old.match_id !== snap.match_id) {
    resets.forEach(function (fn) { fn(old, snap); });
  }
  ui.taken(old);                   // the page draws it and says it
  settle();                        // and the command that made it is done
  recheck();                       // a dropped request may have arrived meanwhile
}
