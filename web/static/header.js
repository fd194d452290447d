/* The header's messages (toast), with the offer to undo back to an event a refusal names. The header's other
   lines are drawn by render() in app.js; its "sending" line belongs to the command queue (state.js). */
import { h, $, clear, show, cardWords } from "./dom.js";
import { S, call, command } from "./state.js";

// a refusal's fix stays until taken, replaced or dismissed (issue 26): {msg, amend or back (undo back to),
// cmd: the refused entry, again: it tapped again; take/keep: the buttons' words}
var pending = null;

// data: a refusal's fields (undo_to, or a bare number; amend): offers the amend, else the undo back; cmd: the entry
export function toast(msg, kind, data, cmd) {
  var undoTo = typeof data === "number" ? data : data ? data.undo_to : null;
  var t = $("toast");
  // a refusal the table can repair (its amend, else the undo back to the event it names) waits as a fix
  var back = kind ? null : undoTo;
  if ((data && data.amend) || back != null) {
    t.hidden = true;
    pending = { msg: msg, amend: data.amend || null, back: data.amend ? null : Number(back), cmd: cmd || null, again: null };
    // a fix kept with the hand (issue 36) asked again: the same card (sent as it stands) or the show (kept as entered)
    if (data.doubt != null) {
      pending.kept = true;
      if (data.again && cmd) pending.again = Object.assign({}, cmd, { doubt: data.doubt, client_id: null, if_seq: undefined });
      if (data.settle) pending.settle = data.doubt;
    }
    renderFix();
    return;
  }
  t.textContent = cardWords(msg);
  t.className = "toast" + (kind ? " " + kind : "");
  t.hidden = false;
  t.onclick = function () { t.hidden = true; };       // tap to dismiss
  clearTimeout(toast.timer);
  toast.timer = setTimeout(function () { t.hidden = true; }, kind === "info" ? 2500 : 6000);
}
// the refused entry tapped again while its fix waits is held (state.js asks first), and the page asks which was meant
export function intercept(cmd) {
  var r = pending && pending.cmd;
  if (!r || cmd.type !== r.type || cmd.card !== r.card || cmd.player !== r.player || !/^(play|go|place)$/.test(cmd.type)) return false;
  pending.again = cmd;
  renderFix();
  return true;
}
// a dropped entry the table had taken after all: its undo waits like a fix (not the newest: amended away)
export function recalled(r, d) {
  var seq = d.event.seq;
  pending = { msg: r.label + " had reached the table before it was dropped: it is entered (event " + seq + ").",
    amend: d.top ? { type: "undo" } : { type: "amend", seq: seq, remove: true }, cmd: null, again: null,
    take: "Undo " + r.label, keep: "Keep it" };
  renderFix();
}
function btn(id, text, fn) { return h("button", { type: "button", id: id, onclick: fn }, text); }
function renderFix() {
  var box = clear($("fix")), p = pending;
  show(box, !!p);
  if (!p) return;
  var what = cardWords(p.cmd && p.cmd.card || "it"), send = function (cmd, then) {
    pending = null; renderFix(); command(cmd).then(then, function () {});
  };
  box.appendChild(h("p", { id: "fix-text" }, p.again && !p.kept ? "You entered " + what + " again while its fix is waiting. Which did you mean?" : cardWords(p.msg)));
  var take = p.amend ? btn("amend-fix", cardWords(p.take || amendWords(p.amend)), function () {
    send(p.amend, function (d) { toast(d.event.text || (d.event.type === "undo" ? "Undone" : "Amended"), "info"); });
  }) : btn("undo-back", "Undo back to event " + p.back, function () { var n = p.back; pending = null; renderFix(); undoBackTo(n); });
  take.className = "primary";
  box.appendChild(h("div", { cls: "row" }, take,
    p.again ? btn("fix-again", "Enter " + what + " now, as it stands", function () { send(p.again); }) : null,
    p.settle != null ? btn("fix-stands", "Keep the entries as they stand", function () {
      send({ type: "doubt", settle: p.settle });
    }) : null,
    btn("fix-dismiss", p.keep || "Dismiss", function () {
      // a refusal's fix dismissed is kept with the hand (not the undo of an entry this phone dropped)
      var keep = p.amend && p.amend.type === "amend" && !p.kept && !p.keep ? p.amend : null;
      pending = null; renderFix();
      if (keep) command({ type: "doubt", fix: keep }).catch(function () {});
    })));
}
// what other phones' amends moved of this phone's entries: the session's notes, kept by the Pi until OK
export function renderNotes() {
  var notes = (S.session || {}).notes || [], box = $("moved");
  var want = notes.map(function (n) { return n.id; }).join(",");
  if (box.dataset.notes === want) return;
  box.dataset.notes = want;
  clear(box);
  show(box, notes.length > 0);
  if (!notes.length) return;
  box.appendChild(h("p", { id: "moved-text" }, cardWords(notes.map(function (n) { return n.text; }).join(" "))));
  box.appendChild(h("div", { cls: "row" }, btn("moved-ok", "OK", function () {
    var upto = notes[notes.length - 1].id;
    show(box, false);
    S.session.notes = notes.filter(function (n) { return n.id > upto; });
    box.dataset.notes = "";
    call("POST", "/api/notes/read", { upto: upto }).catch(function () {});
  })));
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
