/* Discard and lead practice (Count tab), live advice where allowed, the review of the hand shown
   (History), loaded only when one of them is first opened (app.js withPractice): asks /api/advise, /api/lead, /api/review, /api/table; changes nothing at the table.
   What may take long on the board (the discards with the pegging, a lead, the review with the pegging) is asked
   as a job (jobs.js longAnswer: its progress and a Cancel button). */
import { h, clear, pretty, cardName, cardLabel, SYM, SUIT_NAME, RANK_NAME, RANKS, SUITS, $ } from "./dom.js";
import { S, call } from "./state.js";
import { longAnswer } from "./jobs.js";

var boot = JSON.parse(document.getElementById("boot").textContent);
var SVGNS = "http://www.w3.org/2000/svg";
var P = { discards: 2, hand: null, on: false, cards: [], rank: null, result: null, sel: 0, seat: null, owner: null, live: false, thrown: {}, reviewGen: 0 };

function cardEl(card) {
  var s = card.slice(-1);
  return h("span", { cls: "card " + s + (s === "H" || s === "D" ? " red" : ""), title: cardName(card), role: "img",
    "aria-label": cardName(card) }, pretty(card));
}
function cards(list) { return h("span", { cls: "pr-cards" }, list.map(cardEl)); }
function num(x) { return (Math.round(x * 100) / 100).toFixed(2); }

// ---- the game and the seat ----
var games = (boot.presets || []).filter(function (p) { return !p.grid; });
function game() { var v = $("pr-game").value; return games.filter(function (p) { return p.name === v; })[0] || games[0]; }
function dealt(p) { return p.held + Math.floor(4 / p.players); }     // 2 thrown in two-hand, 1 with three or four
function seatChoices(p) {
  // seats from the dealer in the direction of play; a house that deals without cards sits at 0 (four-hand casino)
  var low = p.house && !p.house_plays ? 1 : 0, out = [];
  for (var s = low; s <= (low ? p.players : p.players - 1); s++) {
    out.push({ value: s, text: s === 0 ? (p.house ? "the house (deals)" : "you deal") : s === 1 ? "dealer's left (you lead)" : s + " after the dealer" });
  }
  return out;
}
function rotates(p) { return p.house && p.house_plays && p.players === 3; }

function build() {
  var box = $("practice");
  var sel = h("select", { id: "pr-game", "aria-label": "game" });
  games.forEach(function (p) { sel.appendChild(h("option", { value: p.name, text: p.title })); });
  if (boot.table && games.some(function (p) { return p.name === boot.table.game; })) sel.value = boot.table.game;
  sel.addEventListener("change", function () { P.cards = []; P.result = null; P.seat = null; P.owner = null; render(); });
  box.appendChild(h("h2", { text: "Which cards to throw" }));
  box.appendChild(h("label", null, "Game ", sel));
  box.appendChild(h("div", { id: "pr-seat", cls: "row seg", role: "group", "aria-label": "your seat" }));
  box.appendChild(h("label", { id: "pr-owner-wrap", hidden: true }, "Pocket owner ", h("select", { id: "pr-owner" })));
  box.appendChild(h("label", null, "Scores, yours first ", h("input", { id: "pr-scores", type: "text", inputmode: "numeric", placeholder: "7,3", maxlength: "12" })));
  box.appendChild(h("div", { id: "pr-live", cls: "muted" }));
  box.appendChild(h("div", { id: "pr-slots", cls: "tray" }));
  box.appendChild(h("div", { cls: "row" }, h("button", { id: "pr-clear", type: "button", onclick: function () { P.cards = []; P.result = null; render(); } }, "Clear")));
  box.appendChild(h("div", { id: "pr-picker", cls: "picker" }));
  box.appendChild(h("div", { id: "pr-job" }));
  box.appendChild(h("div", { id: "pr-result" }));
  $("pr-owner").addEventListener("change", function () { P.owner = $("pr-owner").value; ask(); });
  $("pr-scores").addEventListener("change", ask);
}
// the Count tab's two modes (buttons in index.html): counting a shown hand (the quick count), practising a discard
export function mode(on) {
  P.on = on;
  Array.prototype.forEach.call(document.querySelectorAll("[data-pr-mode]"), function (b) { b.classList.toggle("on", (b.dataset.prMode === "practice") === on); });
  Array.prototype.forEach.call($("view-count").children, function (el) {
    if (el.classList.contains("pr-mode")) return;
    el.hidden = on ? el.id !== "practice" : el.id === "practice";
  });
  if (on) { loadTable(); render(); }
}

function render() {
  var p = game(), need = dealt(p);
  // seat buttons
  var seats = clear($("pr-seat")), choices = seatChoices(p);
  if (P.seat === null || !choices.some(function (c) { return c.value === P.seat; })) P.seat = choices[0].value;
  choices.forEach(function (c) {
    seats.appendChild(h("button", { type: "button", "data-seat": c.value, cls: c.value === P.seat ? "on" : null,
      onclick: function () { P.seat = c.value; render(); ask(); } }, c.text));
  });
  var ow = $("pr-owner");
  $("pr-owner-wrap").hidden = !rotates(p);
  if (rotates(p) && !ow.options.length) {
    seatChoices(p).forEach(function (c) { ow.appendChild(h("option", { value: c.value, text: c.value === 0 ? "the house" : "seat " + c.value })); });
  }
  if (!rotates(p)) clear(ow);
  P.owner = rotates(p) ? ow.value : null;
  liveNote();
  // the dealt cards
  var slots = clear($("pr-slots"));
  P.cards.forEach(function (c, i) {
    slots.appendChild(h("button", { type: "button", cls: "card" + (/[HD]$/.test(c) ? " red" : ""), "aria-label": "remove " + cardLabel(c),
      onclick: function () { P.cards.splice(i, 1); P.result = null; render(); } }, pretty(c)));
  });
  for (var i = P.cards.length; i < need; i++) slots.appendChild(h("span", { cls: "slot" + (i === P.cards.length ? " target" : ""), text: "?" }));
  picker(need);
  draw();
}
function picker(need) {
  var box = clear($("pr-picker")), seen = {};
  box.hidden = P.cards.length >= need;          // all dealt: fold the picker away (tap a card to change it)
  P.cards.forEach(function (c) { seen[c] = 1; });
  var full = P.cards.length >= need;
  var ranks = h("div", { cls: "ranks" });
  RANKS.forEach(function (r) {
    ranks.appendChild(h("button", { type: "button", "data-rank": r, cls: P.rank === r ? "sel" : null,
      "aria-label": RANK_NAME[r] ? r + ", " + RANK_NAME[r] : null, "aria-pressed": P.rank === r ? "true" : "false",
      disabled: full || SUITS.every(function (s) { return seen[r + s]; }) ? true : null,
      onclick: function () { P.rank = r; picker(need); } }, r));
  });
  var suits = h("div", { cls: "suits" });
  SUITS.forEach(function (s) {
    var card = P.rank + s;
    suits.appendChild(h("button", { type: "button", "data-card": P.rank ? card : null, cls: "s-" + s,
      disabled: !P.rank || full || seen[card] ? true : null, "aria-label": P.rank ? cardLabel(card) : SUIT_NAME[s] + ": pick a rank first",
      onclick: function () { P.cards.push(card); P.rank = null; render(); if (P.cards.length === need) ask(); } }, (P.rank || "") + SYM[s]));
  });
  box.appendChild(ranks);
  box.appendChild(suits);
}

// ---- live advice: only for a hand in progress at a table that allows it ----
// the table as the live stream brought it (state.js): practice keeps no copy of its own
function loadTable() { liveNote(); }
function inProgress(t) {
  var hd = t && t.hand;
  return !!(t && t.game && !t.result && hd && hd.kind === "cards" && ["cut", "pegging", "show", "pocket"].indexOf(hd.stage) >= 0);
}
function liveNote() {
  var box = clear($("pr-live")), t = S.table;
  if (!inProgress(t)) { P.live = false; return; }
  if (!(t.options && t.options.live_advice)) {
    P.live = false;
    box.appendChild(h("span", { text: "No advice on the hand in progress at this table (table talk): practise, or review it after the show." }));
    return;
  }
  var sel = h("select", { id: "pr-player", "aria-label": "advise me as" }, h("option", { value: "", text: "practice (no table)" }));
  (t.players || []).forEach(function (n) { if (!(n === "House" && t.game === "lands-end-casino-4")) sel.appendChild(h("option", { value: n, text: n })); });
  sel.value = P.player || "";
  sel.addEventListener("change", function () { P.player = sel.value; if (P.player) $("pr-game").value = t.game; P.cards = []; P.result = null; render(); });
  box.appendChild(h("label", null, "This table allows advice: advise me as ", sel));
  P.live = true;
  if (t.hand.stage === "pegging" && P.player) {
    var input = h("input", { id: "pr-peg-cards", placeholder: "9C JD KS", maxlength: "20" });
    box.appendChild(h("div", { cls: "row" }, h("label", null, "Your cards left ", input),
      h("button", { type: "button", id: "pr-peg-ask", onclick: function () { askPeg(input.value); } }, "Advise my next card")));
    box.appendChild(h("div", { id: "pr-peg-live", "aria-live": "polite" }));
  }
}
// a job cancelled or failed: its progress line in `box` says which (`rest`: what the answer shown leaves out)
function stopped(box, e, rest) {
  clear(box).appendChild(e.cancelled
    ? h("p", { cls: "muted pr-stopped", role: "status", text: "Cancelled" + (rest || "") + "." })
    : h("p", { cls: "pr-error", role: "alert", text: e.message + (rest || "") }));
}
function askPeg(text) {
  var box = clear($("pr-peg-live"));
  longAnswer(box, "lead", "cards=" + encodeURIComponent(text.trim()) + "&player=" + encodeURIComponent(P.player))
    .then(function (a) { drawPlays(clear(box), a, a.played.length); }, function (e) { stopped(box, e); });
}

function ask() {
  var p = game();
  if (P.cards.length !== dealt(p)) return;
  var q = "cards=" + encodeURIComponent(P.cards.join(","));
  if (P.live && P.player) q += "&player=" + encodeURIComponent(P.player);
  else {
    q += "&game=" + encodeURIComponent(p.name) + "&seat=" + P.seat;
    if (P.owner !== null && P.owner !== "") q += "&owner=" + encodeURIComponent(P.owner);
    var sc = $("pr-scores").value.replace(/\s/g, "");
    if (sc) q += "&scores=" + encodeURIComponent(sc);
  }
  var box = clear($("pr-result"));
  box.appendChild(h("p", { cls: "muted", text: "counting every turn-up\u2026" }));
  var token = P.asked = (P.asked || 0) + 1;
  // show and pocket at once, then with the matching phase
  longAnswer(clear($("pr-job")), "advise", q + "&pegging=0").then(function (d) {
    if (token !== P.asked) return;
    P.result = d; P.sel = 0; draw();
    // the dealt cards at the top of the screen, the ranking under them (the picker is folded away)
    window.scrollTo(0, Math.max(0, $("pr-slots").getBoundingClientRect().top + window.pageYOffset - 64));
    if (!p.pegging) return;
    clear($("pr-job"));
    return longAnswer($("pr-job"), "advise", q).then(function (full) {
      if (token !== P.asked) return;
      var sel = P.result.discards[P.sel].discard.join(",");
      P.result = full;
      P.sel = Math.max(0, full.discards.map(function (x) { return x.discard.join(","); }).indexOf(sel));
      draw();
    }, function (e) {
      if (token === P.asked) stopped($("pr-job"), e, ": the ranking above leaves out the matching phase");
    });
  }).catch(function (e) {
    if (token === P.asked) stopped(box, e);    // "counting every turn-up…" goes: cancelled, or why it failed
  });
}

function chart(dist, id) {
  var pts = Object.keys(dist).map(Number).sort(function (a, b) { return a - b; });
  var hi = Math.max.apply(null, pts), top = Math.max.apply(null, pts.map(function (k) { return dist[k]; }));
  var w = 330, bw = w / (hi + 1), s = document.createElementNS(SVGNS, "svg");
  s.setAttribute("viewBox", "0 0 " + w + " 96"); s.setAttribute("class", "pr-chart"); s.setAttribute("id", id);
  s.setAttribute("role", "img"); s.setAttribute("aria-label", "how often the kept hand scores each number of points");
  for (var k = 0; k <= hi; k++) {
    var v = dist[k] || 0, bh = top ? 70 * v / top : 0;
    var r = document.createElementNS(SVGNS, "rect");
    [["x", k * bw + 1], ["y", 76 - bh], ["width", Math.max(1, bw - 2)], ["height", bh], ["data-points", k], ["data-p", v]].forEach(function (a) { r.setAttribute(a[0], a[1]); });
    var tip = document.createElementNS(SVGNS, "title"); tip.textContent = k + " points: " + (100 * v).toFixed(1) + "%";
    r.appendChild(tip); s.appendChild(r);
    if (v || k === hi || k % 4 === 0) {
      var t = document.createElementNS(SVGNS, "text");
      t.setAttribute("x", k * bw + bw / 2); t.setAttribute("y", 92); t.setAttribute("text-anchor", "middle"); t.textContent = k;
      s.appendChild(t);
    }
  }
  return s;
}

function draw() {
  var box = clear($("pr-result")), d = P.result;
  if (!d) return;
  var pocket = d.pocket_name || "pocket";
  box.appendChild(h("p", { cls: "muted", id: "pr-summary" },
    d.title + ": hand points " + (d.goal === "avoid" ? "push you toward " + d.target + " (fewer is better)" : "take you toward " + d.target + " (more is better)")
    + "; the " + pocket + " is " + (d.pocket_owner === "you" ? "yours" : d.pocket_owner === "your partner" ? "your side's" : d.pocket_owner + "'s")
    + ". Ranked by " + (d.rank_by === "reach" ? "the chance of reaching " + d.target + " this hand" : "net value") + "."));
  var best = d.discards[0];
  box.appendChild(netHelp("pr-net-help", d.goal === "avoid", d.target, !!d.pegging));
  var list = h("ol", { cls: "pr-list", id: "pr-list" });
  d.discards.forEach(function (x, i) {
    var row = h("li", { cls: "pr-row" + (i === P.sel ? " sel" : ""), "data-place": i + 1 },
      h("button", { type: "button", cls: "pr-pick", "aria-pressed": i === P.sel ? "true" : "false", onclick: function () { P.sel = i; draw(); } },
        h("span", { cls: "pr-throw" }, "throw ", cards(x.discard)),
        h("span", { cls: "pr-figs" },
          netFig(total(x)),
          h("small", { text: "hand " + num(x.hand_mean) + " \u00b7 " + pocket + " " + num(x.pocket_mean)
            + (x.pegging ? " \u00b7 pegging " + signed(x.pegging.net) : "")
            + (x.reach_probability !== undefined ? " \u00b7 reach " + (100 * x.reach_probability).toFixed(1) + "%" : "") }))));
    list.appendChild(row);
    if (i === P.sel) {
      list.appendChild(h("li", { cls: "pr-detail", id: "pr-detail" },
        h("div", null, "keep ", cards(x.keep), " \u2014 average " + num(x.hand_mean) + " points"
          + (i ? "; net " + signed(total(x)) + ", " + below(total(best) - total(x)) : "; the best discard")),
        chart(x.hand_distribution, "pr-chart"),
        x.pegging ? h("div", { cls: "pr-peg" }, "matching phase: you " + num(x.pegging.you) + ", other "
          + num(x.pegging.other) + " points (" + signed(x.pegging.net) + ")") : null,
        x.pegging ? h("div", { id: "pr-leads" }) : null));
    }
  });
  box.appendChild(list);
  if (d.discards[P.sel] && d.discards[P.sel].pegging) leads(d, d.discards[P.sel]);
  box.appendChild(h("p", { cls: "muted small", text: "The " + pocket + ": " + d.assumption + "." }));
  if (d.pegging) box.appendChild(h("p", { cls: "muted small", text: "The matching phase: " + d.pegging_assumption + "." }));
}
// "net", explained where it is shown: one convention for every player and seat (docs/advice.md)
function netHelp(id, avoid, target, pegging) {
  return h("p", { cls: "muted small pr-help", id: id },
    h("strong", { text: "Net" }), ": what a throw is worth to you, in points. Points that take you toward "
    + (avoid ? "losing" : "winning") + " count " + (avoid ? "minus" : "plus") + ", points that take another side there count "
    + (avoid ? "plus" : "minus") + (pegging ? ", the matching phase's included" : "") + ". Higher is better for you"
    + (avoid ? " (here hand points push you toward " + target + ", so most nets are below zero)" : "") + ".");
}
function netFig(x) { return h("span", { cls: "pr-net" }, h("small", { text: "net " }), signed(x)); }
// the gap to the best discard in points (ranked by the chance of reaching the target, the first may have less net)
function below(gap) {
  return gap >= 0 ? num(gap) + " points below the best discard" : num(-gap) + " points more than the first, ranked first by its chance";
}
function pct(x) { return (100 * x).toFixed(0) + "%"; }
function signed(x) { return (x >= 0 ? "+" : "\u2212") + num(Math.abs(x)); }
function total(x) { return x.pegging ? x.net_with_pegging : x.net; }

// ---- the kept hand's leads, with the reply's chances ----
function leads(d, x) {
  var box = $("pr-leads");
  if (d.seat !== 1) return box.appendChild(h("p", { cls: "muted", text: d.dealer ? "The other player leads." : "The dealer's left leads." }));
  longAnswer(box, "lead", "cards=" + x.keep.join(",") + "&game=" + d.game + "&seat=1&seen=" + x.discard.join(","))
    .then(function (a) { if ($("pr-leads") === box) drawPlays(box, a); }, function (e) { if ($("pr-leads") === box) stopped(box, e); });
}
function drawPlays(box, a, mid) {
  box.appendChild(h("h3", { text: mid ? "Your next card, best first" : "Your leads, best first" }));
  var list = h("ol", { cls: "pr-list" });
  a.plays.forEach(function (p) {
    var chances = p.reply ? ["fifteen", "pair", "run", "thirty-one"].filter(function (k) { return p.reply[k] > 0; })
      .map(function (k) { return k + " " + pct(p.reply[k]); }) : [];
    list.appendChild(h("li", { cls: "pr-play", "data-card": p.card },
      cardEl(p.card), netFig(p.net), p.stderr ? h("small", { cls: "pr-se", text: " \u00b1" + num(p.stderr) }) : null,
      h("small", { text: " you " + num(p.points_you) + " \u00b7 other " + num(p.points_other)
        + (p.reply ? " \u00b7 reply scores " + pct(p.reply.scores) + (chances.length ? " (" + chances.join(", ") + ")" : "") : "") })));
  });
  box.appendChild(list);
  box.appendChild(h("p", { cls: "muted small", text: a.assumption + "." }));
}

// ---- the review of the hand just shown (History tab) ----
function review() {
  var box = $("review");
  // only whole throws go to the Pi; a half-tapped one stays on this phone until it is complete
  var q = Object.keys(P.thrown).filter(function (n) { return P.thrown[n].length === P.discards; }).map(function (n) {
    return "thrown=" + encodeURIComponent(n + ":" + P.thrown[n].join(","));
  }).join("&");
  var gen = ++P.reviewGen;    // a tap makes every answer to an earlier query stale
  // the throws, then each card played against the best: both jobs (long on a Pi)
  longAnswer(clear($("review-job")), "review", q).then(function (r) {
    if (gen !== P.reviewGen) return;
    var key = r.hand_no + ":" + r.pocket.join(",");
    if (P.hand !== null && P.hand !== key && Object.keys(P.thrown).length) { P.hand = key; P.thrown = {}; review(); return; }
    P.hand = key;
    P.discards = r.discards;
    drawReview(r);
    var job = clear($("review-job"));
    longAnswer(job, "review", (q ? q + "&" : "") + "pegging=1").then(function (r2) {
      if (gen === P.reviewGen && r2.hand_no === r.hand_no) drawReview(r2);
    }, function (e) {
      if (gen === P.reviewGen) stopped(job, e, ": the review above leaves out the matching phase");
    });
  }, function (e) {
    if (gen !== P.reviewGen) return;
    if (e.cancelled) { stopped($("review-job"), e); return; }
    if (e.status === 400 && q) { P.thrown = {}; review(); return; }     // taps from an earlier hand: start again
    clear(box).hidden = true;
  });
}
function drawReview(r) {
  var box = clear($("review"));
  box.hidden = false;
  box.appendChild(h("h2", { text: "Review of hand " + r.hand_no }));
  var p = games.filter(function (g) { return g.name === r.game; })[0] || {};
  box.appendChild(netHelp("rv-net-help", p.reach === "loses", p.target, false));
  box.appendChild(h("p", { cls: "muted", text: r.dealer + " dealt; the " + r.pocket_name + " held the cards below. Tap which were yours (" + r.discards + " each) to see what your throw was worth." }));
  r.players.forEach(function (pl) {
    var mine = P.thrown[pl.player] || pl.thrown;
    var row = h("div", { cls: "rv-player", "data-player": pl.player }, h("h3", { text: pl.player }));
    row.appendChild(h("div", null, "kept ", cards(pl.kept)));
    var taps = h("div", { cls: "row rv-taps" });
    r.pocket.forEach(function (c) {
      var on = mine.indexOf(c) >= 0;
      taps.appendChild(h("button", { type: "button", cls: "card" + (/[HD]$/.test(c) ? " red" : "") + (on ? " on" : ""), "data-card": c, "aria-pressed": on ? "true" : "false",
        "aria-label": cardLabel(c) + ", thrown by " + pl.player + "?",
        onclick: function () {
          // read at the tap: a second tap before the first's answer keeps both
          var now = P.thrown[pl.player] || pl.thrown, list = now.filter(function (x) { return x !== c; });
          if (list.length === now.length) list = list.concat([c]).slice(-r.discards);
          P.thrown[pl.player] = list;
          Object.keys(P.thrown).forEach(function (n) { if (n !== pl.player) P.thrown[n] = P.thrown[n].filter(function (x) { return list.indexOf(x) < 0; }); });
          review();
        } }, pretty(c)));
    });
    row.appendChild(taps);
    (pl.pegging || []).forEach(function (pg) {
      row.appendChild(h("p", { cls: "rv-peg" + (pg.rank === 1 ? "" : " off"), "data-card": pg.card, text: pg.text }));
    });
    if (pl.known && pl.best) {
      row.appendChild(h("p", { cls: "rv-figs" },
        "threw ", cards(pl.thrown), ": kept hand " + num(pl.hand_mean) + " on average, net " + signed(pl.net)
        + " (" + (pl.rank === 1 ? "the best of " + pl.of : "#" + pl.rank + " of " + pl.of + ", " + below(pl.best.net - pl.net)) + ")"));
      if (pl.rank !== 1) {
        row.appendChild(h("p", { cls: "rv-best" }, "best: throw ", cards(pl.best.discard), ", keep ", cards(pl.best.keep),
          " \u2014 hand " + num(pl.best.hand_mean) + ", net " + signed(pl.best.net)));
      }
    }
    box.appendChild(row);
  });
}

// loaded lazily (app.js withPractice) the first time the practice or the History tab is opened
export function init() { build(); render(); }
// a tab was opened: the History tab reviews the hand shown; the practice view rereads the table
export function opened(view) {
  if (view === "history") review();
  if (view === "count" && P.on) loadTable();
}
