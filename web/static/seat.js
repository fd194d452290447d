/* Whose phone this is (issue 14): chosen at join and under More; the server makes its cards the seat's. */
import { h, clear, $, show } from "./dom.js";
import { S, joined, changeSession, render } from "./state.js";
import { toast } from "./header.js";

export function mySeat() {
  var s = S.session || {}, players = S.table.players || [];
  return s.seat && players.indexOf(s.seat) >= 0 ? s.seat : null;
}
// joining asks whose phone this is: the seats not yet taken, or the whole table's; nothing is chosen for you
export function renderJoinSeat() {
  var sel = $("join-seat"), taken = (S.session || {}).seats || {}, shared = (S.session || {}).shared_seats;
  var free = (S.table.players || []).filter(function (p) { return shared || !taken[p]; }), want = free.join("|");
  if (sel.dataset.players === want) return;
  var keep = sel.value;
  clear(sel);
  sel.appendChild(h("option", { value: "", disabled: true }, "Whose phone is this?"));
  free.forEach(function (p) { sel.appendChild(h("option", { value: p }, p + "'s phone")); });
  sel.appendChild(h("option", { value: "*" }, "This phone enters for the whole table"));
  sel.value = free.indexOf(keep) >= 0 || keep === "*" ? keep : "";
  sel.dataset.players = want;
}
export function joinSeat() { var v = $("join-seat").value; return v && v !== "*" ? v : null; }
export function renderSeat() {
  var box = $("seat-box"), players = S.table.players || [], s = S.session || {};
  show(box, joined() && players.length > 0);
  if (!joined()) return;
  var row = clear($("seat-choice")), mine = mySeat(), taken = s.seats || {};
  var pick = function (seat) {
    changeSession("/api/seat", { seat: seat }).then(function () {
      toast(seat ? "This phone is " + seat + "'s: a card entered here without picking a player is " + seat + "'s"
        : "This phone belongs to nobody: it enters for the whole table", "info");
    }, function (e) { toast(e.message); });
  };
  row.appendChild(h("button", { type: "button", "data-seat": "", "aria-pressed": mine ? "false" : "true",
    cls: mine ? null : "on", onclick: function () { pick(null); } }, "Nobody's"));
  players.forEach(function (p) {
    var other = (taken[p] || 0) - (p === mine ? 1 : 0);
    row.appendChild(h("button", { type: "button", "data-seat": p, "aria-pressed": p === mine ? "true" : "false",
      cls: p === mine ? "on" : null, disabled: other > 0 && !s.shared_seats && p !== mine ? true : null,
      onclick: function () { pick(p); } }, p + "'s" + (other > 0 && p !== mine ? " (taken)" : "")));
  });
  $("seat-now").textContent = mine ? "This is " + mine + "'s phone." : "This phone enters for the whole table.";
  // the host hands a seat to each other phone, or takes it back
  var list = clear($("seat-phones"));
  (s.phone_list || []).slice(1).forEach(function (ph) {
    var sel = h("select", { "data-phone": ph.phone },
      [h("option", { value: "" }, "the whole table's")].concat(players.map(function (p) { return h("option", { value: p }, p + "'s"); })));
    sel.value = ph.seat || "";
    sel.onchange = function () {
      changeSession("/api/seat", { phone: ph.phone, seat: sel.value || null }).catch(function (e) { toast(e.message); render(); });
    };
    list.appendChild(h("label", null, "Phone " + ph.phone + " is ", sel));
  });
}
