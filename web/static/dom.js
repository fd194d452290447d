/* Shared by the page's modules (the table's views, practice.js): the DOM builder, and how a card is drawn
   and named. */
export var SYM = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
export var SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
// ranks as a screen reader should say them; number cards keep their digits ("5 of hearts" is read "five of
// hearts"), so a card's name still contains the text it shows (WCAG 2.5.3, label in name)
export var RANK_NAME = { A: "ace", J: "jack", Q: "queen", K: "king" };
export var RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
export var SUITS = ["S", "H", "D", "C"];

// an element with attributes (text: textContent only, since names are user input) and children
export function h(tag, attrs) {
  var el = document.createElement(tag);
  for (var k in attrs || {}) {
    var v = attrs[k];
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") el.textContent = v;
    else if (k === "cls") el.className = v;
    else if (k.slice(0, 2) === "on") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (var i = 2; i < arguments.length; i++) {
    var c = arguments[i];
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) c.forEach(function (x) { if (x) el.appendChild(x); });
    else el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return el;
}
export function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }

export function split(card) { var s = card.slice(-1); return { rank: card.slice(0, -1), suit: s }; }
export function pretty(card) { var c = split(card); return c.rank + SYM[c.suit]; }
// what a screen reader says for a card: "5 of hearts", "king of spades" (the symbol reads as "5 black heart suit")
export function cardName(card) { var c = split(card); return (RANK_NAME[c.rank] || c.rank) + " of " + SUIT_NAME[c.suit]; }
// the same for a button showing the card: a face card's letter leads, so the name holds the text shown
// (voice control: "tap K"): "K, king of hearts", "5 of hearts"
export function cardLabel(card) { var c = split(card); return (RANK_NAME[c.rank] ? c.rank + ", " : "") + cardName(card); }

// ---- small DOM helpers (textContent only: names are user input) ----
export function $(id) { return document.getElementById(id); }
export function show(el, on) { el.hidden = !on; }
// this phone's own settings (large text, four-colour deck...), kept where the browser allows it
export function stored(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }
export function store(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } }

// ---- cards ----
export function cardEl(card, extra) {
  var c = split(card);
  return h("span", { cls: "card " + c.suit + (c.suit === "H" || c.suit === "D" ? " red" : "") + (extra ? " " + extra : ""),
    title: cardName(card), role: "img", "aria-label": cardName(card) }, pretty(card));
}
// the rules' messages name cards by code (KS): the page says K♠
export function cardWords(text) {
  return String(text).replace(/\b(10|[2-9AJQK])([SHDC])\b/g, function (m, r, su) { return r + SYM[su]; });
}
export function cardsEl(list) { return h("div", { cls: "cards" }, (list || []).map(function (c) { return cardEl(c); })); }
