/* The sides' panels (score, chips, peg buttons) and the result of a game. */
import { h, clear, $, show } from "./dom.js";
import { S, joined, command, sideName } from "./state.js";
import { boardLanes } from "./board.js";

var pegSide = null;                // the side whose +N is being asked

// the panels' order: the board's lane order (lane 1 first), so the mirror and the panels read alike
function panelOrder() {
  var t = S.table, lane = {};
  (boardLanes() || []).forEach(function (l) { lane[l.id] = l.lane; });
  var order = (t.sides || []).map(function (side, i) { return i; });
  return order.sort(function (a, b) { return (lane[t.sides[a].id] || a) - (lane[t.sides[b].id] || b) || a - b; });
}
// the players in the panels' order, each side's players under its panel (the who-plays chips read the same)
export function panelPlayers() {
  var t = S.table, out = [];
  panelOrder().forEach(function (i) {
    var side = t.sides[i];
    (side.players || [side.name]).forEach(function (p) { if ((t.players || []).indexOf(p) >= 0) out.push(p); });
  });
  (t.players || []).forEach(function (p) { if (out.indexOf(p) < 0) out.push(p); });
  return out;
}

export function renderSides() {
  var t = S.table, box = clear($("sides"));
  panelOrder().forEach(function (i) {
    var side = t.sides[i];
    var chips = h("div", { cls: "chips" },
      t.dealer_side === i ? h("span", { cls: "chip dealer", text: "deals" }) : null,
      t.pocket_owner === i && t.pocket_owner !== t.dealer_side ? h("span", { cls: "chip", text: t.pocket_name || "pocket" }) : null,
      t.turn_side === i && t.turn ? h("span", { cls: "chip", text: ((side.players || [side.name]).length > 1 ? t.turn + " " : "")
        + (t.expect === "place" ? "to place" : "to play") }) : null,     // a partner's name only where it says whose
      side.house ? h("span", { cls: "chip", text: "house" }) : null,
      t.series && t.series.kind !== "single" ? h("span", { cls: "chip", text: (t.series.wins[side.id] || 0) + " won" }) : null);
    var pegs = null;
    if (joined() && !t.result) {
      pegs = h("div", { cls: "pegs" },
        h("button", { type: "button", "data-peg": side.id, onclick: function () { peg(side.id, 1); }, "aria-label": "peg 1 for " + side.name }, "+1"),
        h("button", { type: "button", "data-peg-2": side.id, onclick: function () { peg(side.id, 2); }, "aria-label": "peg 2 for " + side.name }, "+2"),
        h("button", { type: "button", "data-peg-n": side.id, onclick: function () { askN(side); }, "aria-label": "+N: peg a chosen number of points for " + side.name }, "+N"));
    }
    // read score first: "Bob, 13, previous 8, to 16, deals"
    var said = [side.name, String(side.score), "previous " + side.previous, "to " + t.target].concat(
      Array.prototype.map.call(chips.childNodes, function (c) { return c.textContent; })).join(", ");
    box.appendChild(h("div", { cls: "side" + (t.turn_side === i ? " turn" : ""), "data-side": side.id,
      role: "group", "aria-label": said },
      h("div", { cls: "info" },
        h("div", { cls: "name", text: side.name }),
        h("div", { cls: "prev", text: "previous " + side.previous + " \u00b7 to " + t.target }),
        chips),
      h("div", { cls: "score", "data-score": side.id, text: String(side.score) }),
      pegs));
  });
  // three sides side by side do not fit a small phone: one slim row each keeps the card picker on screen
  box.classList.toggle("rows", (t.sides || []).length > 2);
}
export function peg(side, n) { return command({ type: "peg", side: side, points: n }); }
export function pegN(n) { return peg(pegSide, n); }
function askN(side) {
  pegSide = side.id;
  $("peg-n-label").textContent = "Points for " + side.name;
  show($("peg-n"), true);
  $("peg-n-value").focus();
}

export function renderResult() {
  var t = S.table, r = t.result, box = clear($("result-body"));
  show($("result"), !!r);
  if (!r) return;
  // R1: winner and loser are one side, or the list of every side that receives / pays
  var names = function (v) { return v == null ? null : [].concat(v).map(sideName).join(" and "); };
  var loser = names(r.loser), winner = names(r.winner), oneLoser = r.loser != null && !Array.isArray(r.loser);
  var headline = t.reach === "loses" && oneLoser ? loser + " fell off the end of the world"
    : (winner ? winner + ([].concat(r.winner).length > 1 ? " win" : " wins") : "Game over");
  box.appendChild(h("h2", { text: headline }));
  if (t.reach === "loses" && oneLoser && r.winners && r.winners.length) {
    var plural = r.winners.length > 1 || (t.sides || []).some(function (sd) { return sd.id === r.winners[0] && (sd.players || []).length > 1; });
    box.appendChild(h("p", { text: r.winners.map(sideName).join(" and ") + (plural ? " win" : " wins") +
      " \u00b7 " + (loser || "the loser") + " reached " + t.target }));
  }
  var lk = (r.skunk || 0) + 1;
  if (t.reach !== "loses" && oneLoser && lk > 1) {
    // cribbage's skunk (S1): the winner receives x2 / x3 because of the loser's score
    box.appendChild(h("p", { text: loser + (lk > 2 ? " was double-skunked" : " was skunked") + ": the game counts \u00d7" + lk }));
  }
  box.appendChild(h("p", { cls: "pays", id: "pays", text: paysText(t, r) }));
  var rows = (t.sides || []).map(function (side) {
    var pay = (r.settlement || {})[side.id] || 0, k = (r.multipliers || {})[side.id];
    return h("tr", null,
      h("td", { text: side.name }),
      h("td", { cls: "num", text: String(side.score) }),
      h("td", { cls: "num", text: k ? "\u00d7" + k : "" }),
      h("td", { cls: "num " + (pay > 0 ? "plus" : pay < 0 ? "minus" : ""), "data-pay": side.id, text: (pay > 0 ? "+" : "") + pay }));
  });
  box.appendChild(h("table", null, h("tr", null, h("th", { scope: "col", text: "side" }), h("th", { cls: "num", text: "score" }),
    h("th", { cls: "num", text: "mult." }), h("th", { cls: "num", text: "won / paid" })), rows));
  if (t.series && t.series.kind !== "single") {
    box.appendChild(h("p", { cls: "muted", text: "Series (" + t.series.kind.replace("_", " ") + " " + t.series.n + "): " +
      (t.sides || []).map(function (s) { return s.name + " " + (t.series.wins[s.id] || 0); }).join(", ") +
      (t.series.over ? " \u2014 series over" : "") }));
  }
}

// the settlement in words: "Ann pays Bob 2: \u00d71, Bob had 13" (each payment, payer to receiver)
function paysText(t, r) {
  var st = r.settlement || {}, ids = Object.keys(st), lines = [];
  var payers = ids.filter(function (id) { return st[id] < 0; }), takers = ids.filter(function (id) { return st[id] > 0; });
  var score = {};
  (t.sides || []).forEach(function (sd) { score[sd.id] = sd.score; });
  var pay = function (from, to, amount) {
    // the receiver's multiplier (R2) and the score it comes from: the receiver's own (L6, M5, H5, S2),
    // or the payer's when the receiver won by reaching the target (the cribbage skunk, S1; the house, H5)
    var k = (r.multipliers || {})[to], by = !k ? null : score[to] >= t.target ? from : to;
    lines.push(sideName(from) + (isPlural(from) ? " pay " : " pays ") + sideName(to) + " " + amount +
      (by ? ": \u00d7" + k + ", " + sideName(by) + " had " + score[by] : ""));
  };
  if (payers.length === 1) takers.forEach(function (to) { pay(payers[0], to, st[to]); });
  else if (takers.length === 1) payers.forEach(function (from) { pay(from, takers[0], -st[from]); });
  else payers.forEach(function (from) { lines.push(sideName(from) + (isPlural(from) ? " pay " : " pays ") + (-st[from])); });
  return lines.length ? lines.join(". ") + "." : "Nothing to pay: the stake is 0.";
}
function isPlural(id) {
  return (S.table.sides || []).some(function (sd) { return sd.id === id && (sd.players || []).length > 1; });
}
