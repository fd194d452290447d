/* Card entry: what comes next and for whom, the play row, the tray of a show, claims, "whose card?",
   and the shows of this hand. The cards themselves are picked in picker.js, the grid in grid.js. */
import { h, clear, $, show, pretty, cardName, cardLabel, cardWords, split, cardEl, cardsEl } from "./dom.js";
import { S, joined, preset, command, render, hand, sideName, seenCards, onNewState } from "./state.js";
import { picker, padForPicker } from "./picker.js";
import { renderGrid } from "./grid.js";
import { mySeat } from "./seat.js";
import { panelPlayers } from "./sides.js";

// this view's own state (a player picked, the card asked "whose?", a show's tray, a half-typed claim)
var E = { player: null, whose: null, tray: [], trayFor: null, showEnter: null, showHere: null, claimDraft: null, named: null };
onNewState(function (old, snap) {
  E.whose = null;
  E.player = null;
  if (old && old.expect !== snap.expect) E.tray = [];
});
export function forget() { E.whose = null; E.named = null; }

export function renderEntry() {
  var t = S.table, box = clear($("entry")), exp = t.expect || "none", hd = hand();
  var canEnter = joined() && !t.result;
  show($("grid-box"), false);
  renderShows();
  if (exp === "none" || !canEnter) {
    show(box, exp !== "none" && !t.result && !joined());
    if (exp !== "none" && !joined()) box.appendChild(h("p", { cls: "muted" }, cardSpans(stepText(exp))));
    if (exp === "play" && !joined()) box.appendChild(countEl());
    picker(null);
    return;
  }
  show(box, true);
  mugginsRow(box, hd);
  playClaimRow(box);
  box.appendChild(stepEl(exp));
  (ENTRY[exp] || function () { picker(null); })(box, t, hd, exp);
}
// one view per entry the rules expect next (the snapshot's expect), as companion/commands.py picks verify/apply
var ENTRY = { turnup: turnupEntry, play: playEntry, show: showEntry, pocket: showEntry, place: placeEntry, claim: claimEntry };
function turnupEntry(box, t) {
  picker(function (card) { command({ type: "turnup", card: card }).catch(function () {}); });
  if (preset(t.game).grid) renderGrid(box);
}
function playEntry(box, t, hd) {
  box.appendChild(countEl());
  var turn = hd.expect_player || t.turn, seat = mySeat();
  if (!E.player || (hd.cards_left || {})[E.player] === 0) E.player = null;
  if (seat && (hd.cards_left || {})[seat] === 0) seat = null;
  // no player picked: sent for the player to play (or the seat's), so an amend re-derives it
  var who = E.player || seat || turn;
  // near 31 the player to play may have to say go: a card tapped with no player picked asks whose it is
  var mightGo = !E.player && !seat && hd.can_go === true;
  // the chips in the score panels' order, on one row; with three or four players the go gets its own row
  var row = h("div", { cls: "row seg" + ((t.players || []).length > 2 ? " many" : ""), role: "group", "aria-label": "who plays" });
  // a go or a card: when the rules leave it open, neither is pre-selected (no reflex decides a doubt)
  var goBtn = h("button", { type: "button", id: "go", cls: "go",
    disabled: !E.player && hd.can_go === false ? true : null,
    onclick: function () {
      command(E.player ? { type: "go", player: E.player } : { type: "go" }).then(function () { E.player = null; }, function () {});
    } }, who + " says go");
  if (mightGo) row.appendChild(goBtn);
  panelPlayers().forEach(function (p) {
    var left = (hd.cards_left || {})[p];
    // the cards left in small print after the name, so four chips fit one row at 360 px with large text
    row.appendChild(h("button", { type: "button", "data-player": p, cls: p === who ? "on" : null, disabled: left === 0 ? true : null,
      onclick: function () { E.player = p === turn ? null : p; E.whose = null; render(); } },
      p, left !== undefined ? h("small", { cls: "left" }, " " + left, h("span", { cls: "sr", text: left === 1 ? " card left" : " cards left" })) : null));
  });
  if (!mightGo) row.appendChild(goBtn);
  var play = function (card, player, answered) {
    E.whose = null;
    var cmd = { type: "play", card: card };
    if (player) cmd.player = player;
    if (answered) cmd.answered = true;      // the answer to "whose card?": in doubt till the show
    command(cmd).then(function () { E.player = null; render(); }, function () {});
  };
  // the row rides on top of the picker (fixed above the tab bar), so go is always in reach beside the cards
  if (E.whose && mightGo) { whoseEl(E.whose, turn, play, row); return; }
  picker(function (card) {
    if (mightGo && (hd.may_play || []).length > 1) { E.whose = card; render(); return; }
    play(card, E.player);
  }, null, null, hd.playable_ranks || [], row);   // what fits under 31: the snapshot says
}
function showEntry(box, t, hd, exp) {
  var need = exp === "pocket" ? 4 : (preset(t.game).held || 4);
  var name = hd.expect_player;
  var played = exp === "show" ? ((hd.plays || {})[name] || []) : [];
  var claim = (t.options || {}).claim_mode;
  var withClaim = function (cmd) {
    if (claim) cmd.claimed = Number($("claimed").value);
    return cmd;
  };
  var key = name + ":" + t.seq, confirm = exp === "show" && played.length === need && E.showEnter !== key;
  // the player's own phone confirms its hand; the others wait, or take over (a phone asleep or offline)
  if (confirm && ((S.session || {}).seats || {})[name] > 0 && mySeat() !== name && E.showHere !== key) {
    box.appendChild(h("p", { id: "show-q", cls: "whose-q" }, name + "'s phone confirms " + name + "'s cards"));
    box.appendChild(cardsEl(played));
    box.appendChild(h("button", { type: "button", id: "show-here",
      onclick: function () { E.showHere = key; render(); } }, "Confirm here instead"));
    picker(null);
    return;
  }
  if (claim) {
    box.appendChild(h("label", null, name + " claims", claimInput("claimed"), "points"));
  }
  if (confirm && (hd.in_doubt || []).length) {
    namedEntry(box, t, hd, name, key, withClaim);
    return;
  }
  if (confirm) {
    // a card the table had to guess is named in the question and marked; neither answer is pre-selected
    var guessed = (hd.credits || []).filter(function (c) { return c.guess; });
    var doubt = guessed.map(function (c) { return c.card + " went to " + c.player + " at " + c.at; }).join(", ");
    box.appendChild(h("p", { id: "show-q", cls: "whose-q" },
      cardWords((doubt ? doubt + ": are these " : "Are these ") + name + "'s cards?")));
    box.appendChild(showCards(played, guessed));
    box.appendChild(h("div", { cls: "row" }, noButton(name, exp, t),
      h("button", { type: "button", cls: "big" + (doubt ? "" : " primary"), id: "count-known",
        onclick: function () { command(withClaim({ type: "show" })).catch(function () {}); } },
        "Yes: count " + name + "'s hand")));
    picker(null);
    return;
  }
  if (E.trayFor !== exp + name) { E.tray = played.slice(); E.trayFor = exp + name; }
  box.appendChild(trayEl(need));
  box.appendChild(h("div", { cls: "row" },
    h("button", { type: "button", onclick: function () { E.tray = played.slice(); render(); } }, "Clear"),
    h("button", { type: "button", cls: "primary", id: "tray-go", disabled: E.tray.length !== need ? true : null,
      onclick: function () {
        command(withClaim({ type: exp, cards: E.tray.slice() })).then(function () { E.tray = []; E.trayFor = null; render(); }, function () {});
      } }, exp === "show" ? "Count " + name + "'s hand" : "Count the " + (t.pocket_name || "pocket"))));
  // a hand may hold a card credited to another player: played cards stay pickable
  var seen = seenCards();
  E.tray.forEach(function (c) { seen[c] = 1; });
  if (exp === "show") Object.keys(hd.plays || {}).forEach(function (p) {
    (hd.plays[p] || []).forEach(function (c) { if (E.tray.indexOf(c) < 0) delete seen[c]; });
  });
  picker(function (card) { if (E.tray.length < need) { E.tray.push(card); render(); } }, null, seen);
}
function showCards(played, guessed) {
  var doubted = guessed.map(function (c) { return c.card; });
  return h("div", { cls: "cards", id: "show-cards" }, played.map(function (c) {
    var el = cardEl(c, doubted.indexOf(c) >= 0 ? "doubt" : null);
    if (doubted.indexOf(c) >= 0) el.setAttribute("aria-label", cardName(c) + ", in doubt");
    return el;
  }));
}
function noButton(name, exp, t) {
  return h("button", { type: "button", id: "show-no",
    onclick: function () { E.showEnter = name + ":" + t.seq; E.tray = []; E.trayFor = exp + name; render(); } },
    "No: enter " + name + "'s cards");
}
// a card in doubt (issue 36) is settled by naming who played it, never by a yes: the table checks the name
function namedEntry(box, t, hd, name, key, withClaim) {
  if (!E.named || E.named.key !== key) E.named = { key: key, who: {} };
  var doubt = (hd.credits || []).filter(function (c) { return (hd.in_doubt || []).indexOf(c.card) >= 0; });
  var next = doubt.filter(function (c) { return !E.named.who[c.card]; })[0];
  box.appendChild(h("p", { id: "show-q", cls: "whose-q" }, "Before counting " + name + "'s hand: whose was ",
    cardEl(next.card, "doubt"), " at " + next.at + "?"));
  var row = h("div", { cls: "whose", id: "show-whose" }), players = S.table.players || [];
  var from = players.indexOf(next.player), btns = [];
  players.forEach(function (_, i) {
    var p = players[(from + i) % players.length];
    var note = p === next.player ? p + " played on " + next.at : next.player + " said go at " + next.at;
    btns.unshift(h("button", { type: "button", cls: "big", "data-named": p, onclick: function () {
      E.named.who[next.card] = p;
      var left = doubt.filter(function (c) { return !E.named.who[c.card]; });
      if (left.length) { render(); return; }
      var named = {};
      doubt.forEach(function (c) { named[c.card] = E.named.who[c.card]; });
      E.named = null;
      command(withClaim({ type: "show", named: named })).catch(function () {});
    } }, cardWords(p + "'s " + next.card + ": " + note)));
  });
  btns.forEach(function (b) { row.appendChild(b); });
  box.appendChild(row);
  box.appendChild(h("div", { cls: "row" }, noButton(name, "show", t)));
  picker(null);
}
function placeEntry(box) {
  renderGrid(box);
}
// claim mode on a tabletop grid: the next line, claimed by its owner (L8)
function claimEntry(box, t, hd) {
  var line = (hd.to_claim || [])[0] || {};
  box.appendChild(claimEl("line-claimed", (hd.expect_player || "") + " claims", "for " + (line.label || "the next line"),
    "line-claim", function (n) { return { type: "claim", points: n }; }));
  renderGrid(box);
  picker(null);
}
// claim mode: a call follows every claim open to muggins (L8), right or short alike: the page never tells
function mugginsRow(box, hd) {
  var seat = mySeat(), mine = seat && (S.table.sides || []).filter(function (x) {
    return (x.players || []).indexOf(seat) >= 0; })[0];
  var calls = (hd.muggins_calls || []).filter(function (c) { return !mine || c.side !== mine.id; });
  if (!calls.length) return;
  var row = h("div", { cls: "row", id: "muggins", role: "group", "aria-label": "muggins" });
  calls.forEach(function (c) {
    row.appendChild(h("button", { type: "button", "data-side": c.side, onclick: function () {
      var cmd = { type: "muggins", claimant: c.side };
      if (seat) cmd.player = seat;
      command(cmd).catch(function () {});
    } }, "Call muggins on " + c.who));
  });
  box.appendChild(row);
}

// claim mode: a number box that keeps what was typed while the seq stays (a redraw never resets it)
function claimInput(inputId) {
  var key = inputId + ":" + S.table.match_id + ":" + S.table.seq;
  var input = h("input", { id: inputId, type: "number", min: "0", max: "29", inputmode: "numeric",
    value: E.claimDraft && E.claimDraft.key === key ? E.claimDraft.value : "0" });
  input.addEventListener("input", function () { E.claimDraft = { key: key, value: input.value }; });
  return input;
}
// claim mode: a number box and its button (the command is sent with if_seq: a stale claim is refused)
function claimEl(inputId, before, after, buttonId, make) {
  var input = claimInput(inputId);
  return h("div", { cls: "row claim" },
    h("label", null, before, input, after),
    h("button", { type: "button", cls: "primary", id: buttonId,
      onclick: function () { command(make(Number(input.value))).catch(function () {}); } }, "Claim"));
}
// claim mode, matching phase: after every card or go its side claims (made points or not: nothing is told)
function playClaimRow(box) {
  var co = hand().claim_open;
  if (!co) return;
  var next = (co.sides || []).filter(function (x) { return x.claimed === null && !x.called; })[0];
  if (!next) return;
  box.appendChild(claimEl("play-claimed", next.who + " claims", "for " + (co.after === "go" ? "the go" : pretty(co.after)),
    "play-claim", function (n) { return { type: "claim", side: next.side, points: n }; }));
}
// "whose card is it?": who may have played it, as the snapshot says (may_play); one tap enters it for that
// player; no answer is pre-selected, each says what it means in the count
function whoseEl(card, turn, play, head) {
  var box = $("picker"), between = [], at = S.table.count || 0;
  clear(box);
  show(box, true);
  if (head) box.appendChild(head);
  box.appendChild(h("p", { cls: "whose-q", id: "whose-q" }, "Whose card is ", cardEl(card), "?"));
  var row = h("div", { cls: "whose", id: "whose" }), btns = [];
  (hand().may_play || []).forEach(function (p) {
    var note = between.length ? between.join(" and ") + " said go at " + at : p + " played on " + at;
    btns.unshift(h("button", { type: "button", "data-whose": p, cls: "big",
      onclick: function () { play(card, p, true); } }, cardWords(p + "'s " + card + ": " + note)));
    between.push(p);
  });
  row.appendChild(h("button", { type: "button", id: "whose-cancel", onclick: function () { E.whose = null; render(); } }, "Cancel"));
  btns.forEach(function (b) { row.appendChild(b); });
  box.appendChild(row);
  padForPicker();
}
function renderShows() {
  var t = S.table, hd = hand(), box = clear($("shows"));
  var cur = (hd.shows || []).length || hd.pocket || (hd.lines || []).length;
  var src = cur ? hd : (hd.previous || null);
  if (!src) { show(box, false); return; }
  var list = (src.shows || []).map(function (sh) { return { who: sh.player + "'s hand", sh: sh }; });
  if (src.pocket) list.push({ who: sideName(src.pocket.side) + "'s " + (t.pocket_name || "pocket"), sh: src.pocket });
  (src.lines || []).forEach(function (ln) {
    list.push({ who: sideName(ln.side) + ", " + ln.label, sh: { points: ln.points, cards: (ln.breakdown || {}).cards, breakdown: ln.breakdown } });
  });
  if (!list.length) { show(box, false); return; }
  show(box, true);
  box.appendChild(h("h2", { text: cur ? "Shows" : "Last hand" + (src.turnup ? " (turn-up " + pretty(src.turnup) + ")" : "") }));
  list.forEach(function (x) {
    var bd = x.sh.breakdown || {};
    box.appendChild(h("div", { cls: "breakdown", "data-show": x.who },
      h("div", null, h("strong", { text: x.who + ": " + x.sh.points }), " ", cardsEl(x.sh.cards)),
      h("div", { cls: "said", text: bd.text || "" }),
      h("ol", null, (bd.items || []).map(function (it) {
        return h("li", null, it.kind + " ", (it.cards || []).map(function (c) { return cardEl(c); }), " \u2014 " + it.points);
      }))));
  });
}
// what comes next and for whom, large enough to read at arm's length; the detail smaller beside it
function stepParts(exp) {
  var t = S.table, hd = hand(), who = hd.expect_player;
  if (exp === "turnup") return [preset(t.game).grid ? "Turn the centre card" : "Cut: enter the turn-up", who ? "(" + who + " cuts, " + (hd.dealer || t.dealer) + " deals)" : ""];
  if (exp === "play") return [who ? who + " to play" : "Next card", t.turnup ? "turn-up " + t.turnup : ""];
  if (exp === "show") return ["Show: " + (who ? who + "'s hand" : "the next hand"), t.turnup ? "with " + t.turnup : ""];
  if (exp === "pocket") return [(who ? who + "'s " : "The ") + (t.pocket_name || "pocket"), t.turnup ? "with " + t.turnup : ""];
  if (exp === "place") return ["Place the next card" + (who ? " (" + who + ")" : ""), ""];
  if (exp === "claim") return ["Count the grid: " + (who ? who + "'s " : "the next ") + (((hd.to_claim || [])[0] || {}).label || "line"), ""];
  return ["", ""];
}
function stepText(exp) { var p = stepParts(exp); return p[0] + (p[1] ? " " + p[1] : ""); }
// text with card codes in it: each card drawn K♦ and named "king of diamonds" for a screen reader
function cardSpans(text) {
  return String(text).split(/\b((?:10|[2-9AJQK])[SHDC])\b/).map(function (part, i) {
    return i % 2 ? h("span", { role: "img", "aria-label": cardName(part) }, pretty(part)) : document.createTextNode(part);
  });
}
function stepEl(exp) {
  var p = stepParts(exp);
  return h("p", { cls: "step", id: "step" }, h("span", { cls: "step-main", id: "step-main", text: p[0] }),
    p[1] ? h("span", { cls: "step-detail" }, cardSpans(" " + p[1])) : null);
}
export function countEl() {
  var t = S.table;
  return h("div", { cls: "countrow" }, h("div", { cls: "count", id: "count", text: String(t.count || 0) }), cardsEl(t.count_cards));
}
function trayEl(need) {
  var tray = h("div", { cls: "tray", id: "tray" });
  E.tray.forEach(function (c, i) {
    var b = h("button", { type: "button", cls: "card", title: "remove", "aria-label": "remove " + cardLabel(c), onclick: function () { E.tray.splice(i, 1); render(); } }, pretty(c));
    var sp = split(c); if (sp.suit === "H" || sp.suit === "D") b.classList.add("red");
    tray.appendChild(b);
  });
  for (var i = E.tray.length; i < need; i++) tray.appendChild(h("span", { cls: "slot" + (i === E.tray.length ? " target" : ""), text: "?" }));
  return tray;
}
