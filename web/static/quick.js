/* The Count tab's quick count: a hand, crib or grid line counted without touching the table. */
import { h, clear, $, show, pretty, cardLabel, cardEl } from "./dom.js";
import { preset, call } from "./state.js";
import { picker } from "./picker.js";
import { toast } from "./header.js";

// ---- quick count ----
var qc = { kind: "hand", cards: [], starter: null };    // what is being counted
export function renderQuick() {
  var q = qc, p = preset($("qc-game").value);
  // a tabletop game's "hand" is one row or column: 5 cards, no turn-up, counted by the line rules
  var line = p.grid && q.kind === "hand";
  if (p.grid && !p.grid_crib && q.kind === "crib") q.kind = "hand", line = true;
  Array.prototype.forEach.call(document.querySelectorAll("[data-qc-kind]"), function (b) {
    b.classList.toggle("on", b.dataset.qcKind === q.kind);
    if (b.dataset.qcKind === "hand") b.textContent = p.grid ? "Row / column" : "Hand";
    else show(b, !p.grid || !!p.grid_crib);
  });
  var need = line ? 5 : q.kind === "crib" ? 4 : (p.held || 4);
  var slots = clear($("qc-slots"));
  q.cards.forEach(function (c, i) {
    slots.appendChild(h("button", { type: "button", cls: "card" + (/[HD]$/.test(c) ? " red" : ""), "aria-label": "remove " + cardLabel(c), onclick: function () { q.cards.splice(i, 1); renderQuick(); } }, pretty(c)));
  });
  for (var i = q.cards.length; i < need; i++) slots.appendChild(h("span", { cls: "slot" + (i === q.cards.length ? " target" : ""), text: "?" }));
  if (line) q.starter = null;
  else {
    slots.appendChild(h("span", { cls: "muted", text: " turn-up " }));
    slots.appendChild(q.starter ? h("button", { type: "button", cls: "card" + (/[HD]$/.test(q.starter) ? " red" : ""), id: "qc-starter",
      "aria-label": "turn-up " + cardLabel(q.starter) + ": remove",
      onclick: function () { q.starter = null; renderQuick(); } }, pretty(q.starter)) : h("span", { cls: "slot" + (q.cards.length >= need ? " target" : ""), text: "?" }));
  }
  var seen = {}, ready = function () { return q.cards.length === need && (line || q.starter); };
  q.cards.concat(q.starter ? [q.starter] : []).forEach(function (c) { seen[c] = 1; });
  $("qc-go").disabled = !ready();
  picker(function (card) {
    if (q.cards.length < need) q.cards.push(card); else if (!line && !q.starter) q.starter = card;
    renderQuick();
    if (ready()) quickCount();
  }, $("qc-picker"), seen);
}
function quickCount() {
  var q = qc, p = preset($("qc-game").value), params = "game=" + encodeURIComponent(p.name);
  if (p.grid && q.kind === "hand") params += "&line=" + encodeURIComponent(q.cards.join(","));
  else params += "&hand=" + encodeURIComponent(q.cards.join(",")) + "&starter=" + encodeURIComponent(q.starter) + "&crib=" + (q.kind === "crib" ? "1" : "0");
  call("GET", "/api/quick?" + params).then(function (b) {
    var r = clear($("qc-result"));
    r.appendChild(h("div", { cls: "total", id: "qc-total", text: b.total + " points" }));
    r.appendChild(h("div", { cls: "said", text: b.text }));
    r.appendChild(h("ol", null, b.items.map(function (it) {
      return h("li", null, it.kind + " ", it.cards.map(function (c) { return cardEl(c); }), " \u2014 " + it.points);
    })));
  }, function (e) { toast(e.message); });
}

export function init() {
  $("qc-game").addEventListener("change", function () { qc.cards = []; qc.starter = null; clear($("qc-result")); renderQuick(); });
  Array.prototype.forEach.call(document.querySelectorAll("[data-qc-kind]"), function (b) {
    b.addEventListener("click", function () {
      qc.kind = b.dataset.qcKind; qc.cards = []; qc.starter = null; clear($("qc-result"));
      renderQuick();
    });
  });
  $("qc-clear").addEventListener("click", function () { qc.cards = []; qc.starter = null; clear($("qc-result")); renderQuick(); });
  $("qc-go").addEventListener("click", quickCount);
}
