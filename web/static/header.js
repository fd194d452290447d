/* The header's messages (toast), with the offer to undo back to an event a refusal names. The header's other
   lines are drawn by render() in app.js; its "sending" line belongs to the command queue (state.js). */
import { h, $, clear, show, cardWords } from "./dom.js";
import { S, call, command } from "./state.js";

// a refusal's fix stays until taken, replaced or dismissed (issue 26): {msg, amend, cmd: the refused entry, again}
var pending = null;

// data: a refusal's fields (undo_to, or a bare number; amend): offers the amend, else the undo back; cmd: the entry
export function toast(msg, kind, data, cmd) {
  var undoTo = typeof data === "number" ? data : data ? data.undo_to : null;
  var t = $("toast");
  if (data && data.amend) {
    t.hidden = true;
    pending = { msg: msg, amend: data.amend, cmd: cmd || null, again: null };
    renderFix();
    return;
  }
  t.textContent = cardWords(msg);
  t.className = "toast" + (kind ? " " + kind : "");
  t.hidden = false;
  t.onclick = function () { t.hidden = true; };       // tap to dismiss
  clearTimeout(toast.timer);
  // a refusal that names the event to undo back to (a card credited to the wrong player) offers to do it
  var back = kind ? null : undoTo;
  if (back != null) {
    t.appendChild(h("button", { type: "button", id: "undo-back", cls: "primary",
      onclick: function (ev) { ev.stopPropagation(); t.hidden = true; undoBackTo(Number(back)); } },
      "Undo back to event " + back));
  }
  toast.timer = setTimeout(function () { t.hidden = true; }, kind === "info" ? 2500 : back ? 30000 : 6000);
}
// the refused entry tapped again while its fix waits is held (state.js asks first), and the page asks which was meant
export function intercept(cmd) {
  var r = pending && pending.cmd;
  if (!r || cmd.type !== r.type || cmd.card !== r.card || cmd.player !== r.player || !/^(play|go|place)$/.test(cmd.type)) return false;
  pending.again = cmd;
  renderFix();
  return true;
}
function btn(id, text, fn) { return h("button", { type: "button", id: id, onclick: fn }, text); }
function renderFix() {
  var box = clear($("fix")), p = pending;
  show(box, !!p);
  if (!p) return;
  var what = cardWords(p.cmd && p.cmd.card || "it"), send = function (cmd, then) {
    pending = null; renderFix(); command(cmd).then(then, function () {});
  };
  box.appendChild(h("p", { id: "fix-text" }, p.again ? "You entered " + what + " again while its fix is waiting. Which did you mean?" : cardWords(p.msg)));
  var take = btn("amend-fix", cardWords(amendWords(p.amend)), function () { send(p.amend, function (d) { toast(d.event.text || "Amended", "info"); }); });
  take.className = "primary";
  box.appendChild(h("div", { cls: "row" }, take,
    p.again ? btn("fix-again", "Enter " + what + " now, as it stands", function () { send(p.again); }) : null,
    btn("fix-dismiss", "Dismiss", function () { pending = null; renderFix(); })));
}
// an amend moved cards (the stream's "moved"): the phone that had entered one is told, until it reads it
export function moved(d) {
  var me = (S.session || {}).phone, box = clear($("moved"));
  var mine = (d.moved || []).filter(function (m) { return m.phone === me && d.by !== me; });
  if (!me || !mine.length) return;
  box.appendChild(h("p", { id: "moved-text" }, cardWords(mine.map(function (m) {
    return "Your " + m.card + " is now " + m.to + "'s (it was " + m.from + "'s)"; }).join("; ") + ": " + d.by + " amended it (" + d.text + ").")));
  box.appendChild(h("div", { cls: "row" }, btn("moved-ok", "OK", function () { show(box, false); })));
  show(box, true);
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
