/* Shared by the page's scripts (app.js, practice.js): the DOM builder, and how a card is drawn and named.
   Loaded first; each script takes what it needs from window.LandsEnd. */
(function () {
  "use strict";

  var SYM = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  // ranks as a screen reader should say them; number cards keep their digits ("5 of hearts" is read "five of
  // hearts"), so a card's name still contains the text it shows (WCAG 2.5.3, label in name)
  var RANK_NAME = { A: "ace", J: "jack", Q: "queen", K: "king" };

  // an element with attributes (text: textContent only, since names are user input) and children
  function h(tag, attrs) {
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
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); return el; }

  function split(card) { var s = card.slice(-1); return { rank: card.slice(0, -1), suit: s }; }
  function pretty(card) { var c = split(card); return c.rank + SYM[c.suit]; }
  // what a screen reader says for a card: "5 of hearts", "king of spades" (the symbol reads as "5 black heart suit")
  function cardName(card) { var c = split(card); return (RANK_NAME[c.rank] || c.rank) + " of " + SUIT_NAME[c.suit]; }
  // the same for a button showing the card: a face card's letter leads, so the name holds the text shown
  // (voice control: "tap K"): "K, king of hearts", "5 of hearts"
  function cardLabel(card) { var c = split(card); return (RANK_NAME[c.rank] ? c.rank + ", " : "") + cardName(card); }

  window.LandsEnd = { h: h, clear: clear, SYM: SYM, SUIT_NAME: SUIT_NAME, RANK_NAME: RANK_NAME,
                      split: split, pretty: pretty, cardName: cardName, cardLabel: cardLabel };
})();
