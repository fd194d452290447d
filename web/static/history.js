/* The History tab: every event with its number and score steps, grouped by hand; import of a record. */
import { h, clear, $, pretty, cardWords } from "./dom.js";
import { call, sideName, onNewState } from "./state.js";
import { toast } from "./header.js";

// ---- history ----
var events = null;                 // the events last read, until the table changes
onNewState(function () { events = null; });
export function loadHistory() {
  call("GET", "/api/history").then(function (d) { events = d.events; renderHistory(); }, function (e) { toast(e.message); });
}
export function renderHistory() {
  if (!events) return;
  var box = clear($("h-list")), evs = events, keys = [], groups = [], cur = null, next = null, game = 1;
  // an event belongs to the hand of its score steps; one without steps (a turn-up, a go) to the next that has them
  for (var i = evs.length - 1; i >= 0; i--) {
    var st = evs[i].steps || [];
    if (evs[i].type === "new_match" || evs[i].type === "new_game") { keys[i] = null; next = null; continue; }
    if (st.length) next = "Game " + st[0].game + ", hand " + st[0].hand;
    keys[i] = next;
  }
  evs.forEach(function (ev, i) {
    if (ev.type === "new_match") game = 1;
    if (ev.type === "new_game" && !ev.undone) game += 1;
    var key = keys[i] || (ev.type === "new_match" ? "New match" : ev.type === "new_game" ? "Game " + game : "Game " + game + ", next hand");
    if (!cur || cur.key !== key) { cur = { key: key, items: [] }; groups.push(cur); }
    cur.items.push(ev);
  });
  groups.forEach(function (g) {
    box.appendChild(h("div", { cls: "hist-hand" }, h("h3", { text: g.key }), g.items.map(histEvent)));
  });
  if (!groups.length) box.appendChild(h("p", { cls: "muted", text: "Nothing yet." }));
}
function histEvent(ev) {
  var what = ev.type.replace("_", " ");
  if (ev.card) what += " " + pretty(ev.card);
  if (ev.cards && ev.cards.length) what += " " + ev.cards.filter(Boolean).map(pretty).join(" ");
  if (ev.player && ev.type !== "new_match") what = ev.player + ": " + what;
  if (ev.gos && ev.gos.length) what = ev.gos.join(", ") + " said go; " + what;
  if (ev.type === "peg") what = sideName(ev.side) + " pegs " + ev.points;
  if (ev.type === "new_match") what = "new match: " + (ev.players || []).join(", ") + (ev.stake ? " \u00b7 stake " + ev.stake : "");
  if (ev.type === "undo") what = "undo (event " + ev.undoes + ")";
  if (ev.type === "layout") what = "layout of 25 cards" + (ev.crib && ev.crib.length ? " and the crib" : "");
  // the host's events about people and nights (rename, merge, new evening, settle) say themselves
  if (["rename", "merge", "new_evening", "settle"].indexOf(ev.type) >= 0) what = ev.text || what;
  // each event with its number: the table names them when a card must be undone back to
  var el = h("div", { cls: "hist-ev" + (ev.undone ? " undone" : ""), "data-seq": ev.seq },
    h("div", null, h("span", { cls: "seq muted", text: "#" + ev.seq + " " }), cardWords(what)));
  (ev.steps || []).forEach(function (st) {
    var line = h("div", { cls: "breakdown" },
      st.points ? h("span", { cls: "pts", text: "+" + st.points + " " + sideName(st.side) }) : null,
      h("span", { cls: "said", text: st.text || st.kind }));
    if (st.items && st.items.length) {
      line.appendChild(h("ol", null, st.items.map(function (it) {
        return h("li", null, it.kind + " " + (it.cards || []).map(pretty).join(" ") + " \u2014 " + it.points);
      })));
    }
    el.appendChild(line);
  });
  return el;
}

export function init() {
  $("h-import").addEventListener("change", function () {
    var f = this.files[0];
    if (!f) return;
    f.text().then(function (txt) {
      var rec;
      try { rec = JSON.parse(txt); } catch (e) { toast("that file is not JSON"); return; }
      return call("POST", "/api/import", { record: rec }).then(function () { toast("Record imported", "info"); });   // its state comes on the stream
    }).catch(function (e) { toast(e.message); });
    this.value = "";
  });
}
