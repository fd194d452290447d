/* The header's messages (toast), with the offer to undo back to an event a refusal names. The header's other
   lines are drawn by render() in app.js; its "sending" line belongs to the command queue (state.js). */
import { h, $, cardWords } from "./dom.js";
import { call, command } from "./state.js";

// data: a refusal's fields (undo_to, or a bare number; amend): offers the amend, else the undo back
export function toast(msg, kind, data) {
  var undoTo = typeof data === "number" ? data : data ? data.undo_to : null;
  var t = $("toast");
  t.textContent = cardWords(msg);
  t.className = "toast" + (kind ? " " + kind : "");
  t.hidden = false;
  t.onclick = function () { t.hidden = true; };       // tap to dismiss
  clearTimeout(toast.timer);
  var fix = data && data.amend;
  if (fix) {
    t.appendChild(h("button", { type: "button", id: "amend-fix", cls: "primary",
      onclick: function (ev) {
        ev.stopPropagation(); t.hidden = true;
        command(fix).then(function (d) { toast(d.event.text || "Amended", "info"); }, function () {});
      } }, cardWords(amendWords(fix))));
    toast.timer = setTimeout(function () { t.hidden = true; }, 30000);
    return;
  }
  // a refusal that names the event to undo back to (a card credited to the wrong player) offers to do it
  var back = kind ? null : undoTo;
  if (back != null) {
    t.appendChild(h("button", { type: "button", id: "undo-back", cls: "primary",
      onclick: function (ev) { ev.stopPropagation(); t.hidden = true; undoBackTo(Number(back)); } },
      "Undo back to event " + back));
  }
  toast.timer = setTimeout(function () { t.hidden = true; }, kind === "info" ? 2500 : back ? 30000 : 6000);
}
// undo every entry from event n on: one undo per live event, each made on top of the one before it
function undoBackTo(n) {
  return call("GET", "/api/history").then(function (d) {
    var k = (d.events || []).filter(function (e) { return !e.undone && e.type !== "undo" && e.seq >= n; }).length;
    for (var i = 0; i < k; i++) command({ type: "undo" }).catch(function () {});
    if (k) toast("Undoing " + k + (k > 1 ? " entries" : " entry") + ", back to before event " + n, "info");
  }, function (e) { toast(e.message); });
}

// the button of an offered amend: what it will do
function amendWords(a) {
  if (a.remove) return "Fix: remove event " + a.seq;
  if (a.insert) {
    var i = a.insert;
    return "Fix: enter " + (i.card ? i.card + (i.player ? " for " + i.player : "") : (i.player ? i.player + "'s " : "") + i.type)
      + " before event " + a.seq;
  }
  if (a.player) return "Fix: event " + a.seq + " was " + a.player + "'s";
  return "Fix event " + a.seq;
}
