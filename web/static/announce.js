/* What was just said at the table, in words, under the scores (and spoken where the phone is asked to). */
import { h, clear, $ } from "./dom.js";
import { S, pref, call, sideName } from "./state.js";

// What was just said at the table: every score step of the newest event (a card can make a run and
// then the point for last: two steps), and who said go. Every phone, the one that entered it too, hears of
// a change on the live stream, through take(), so every phone says the same.
function newGos(oh, nh) {
  if (!oh || !nh || oh.hand_no !== nh.hand_no) return [];
  return (nh.gone || []).filter(function (n) { return (oh.gone || []).indexOf(n) < 0; });
}
var ann = null, lastSaid = null;   // what the newest event said (its key, gos, steps); the key last spoken
export function announce(old) {
  var t = S.table, key = t.match_id + ":" + t.seq;
  if (!ann || ann.key !== key) {
    var fresh = old && old.match_id === t.match_id && old.seq < t.seq;
    ann = { key: key, gos: fresh ? newGos(old.hand, t.hand) : [], steps: null };
    // a pegging event may have scored more than the one step the snapshot carries as "last"
    if (t.last && t.last.seq === t.seq && t.last.step === "pegging" && !(t.said && t.said.seq === t.seq)) {
      call("GET", "/api/history?since=" + t.seq).then(function (d) {
        var ev = (d.events || []).filter(function (e) { return e.seq === t.seq; })[0];
        if (ev && ann.key === key && (ev.steps || []).length > 1) { ann.steps = ev.steps; drawAnnounce(); }
      }, function () { /* the one step already shown stands */ });
    }
  }
  var said = drawAnnounce();
  if (old && key !== lastSaid && pref.speak && window.speechSynthesis && said) {
    try { speechSynthesis.cancel(); speechSynthesis.speak(new SpeechSynthesisUtterance(said)); } catch (e) { /* no voice */ }
  }
  lastSaid = key;
}
function stepWho(st) {
  var side = sideName(st.side), who = st.player && st.player !== side ? st.player : "";
  var by = !who ? "" : st.kind === "go" ? who + "'s go: " : st.kind === "last" ? who + "'s last card: "
    : st.kind === "play" ? who + " played: " : who + ": ";
  return st.points ? by + "+" + st.points + " to " + side : "";
}
function drawAnnounce() {
  var t = S.table, a = ann, el = clear($("announce")), lines = [];
  var current = t.last && t.last.seq === t.seq;
  var steps = a.steps || (t.last ? [t.last] : []);
  if (t.said && t.said.seq === t.seq) {
    lines = t.said.lines.slice();       // the table's own words (companion/announce.py), as the board speaks them
  } else if (a.gos.length && !(current && steps.some(function (st) { return st.kind === "go"; }))) {
    lines.push({ text: "go", who: a.gos.join(" and ") + " said go" });
  }
  if (!(t.said && t.said.seq === t.seq) && (current || !a.gos.length)) {
    steps.forEach(function (st) {
      var text = st.text || (st.points ? st.points + " points" : "");
      if (text) lines.push({ text: text, who: stepWho(st) });
    });
  }
  if (!lines.length) return "";
  var said = lines.map(function (l) { return l.text; }).join(", ");
  el.appendChild(document.createTextNode(said));
  var who = lines.map(function (l) { return l.who; }).filter(Boolean).join(" \u00b7 ");
  if (who) el.appendChild(h("span", { cls: "who", text: who }));
  return said + (who ? ". " + who.replace(/\+/g, "plus ") : "");
}
