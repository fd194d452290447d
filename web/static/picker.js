/* The card picker: rank, then suit (two taps, each at least 44 px). */
import { h, clear, $, show, RANK_NAME, SUIT_NAME, SYM, RANKS, SUITS, cardLabel } from "./dom.js";
import { seenCards, onNewState } from "./state.js";

var picked = null;                 // the rank tapped on the table's picker, waiting for its suit
onNewState(function (old, snap) { if (old && old.expect !== snap.expect) picked = null; });

// ---- the card picker: rank, then suit (two taps, each at least 44 px) ----
// playable: the ranks that may be played now (the snapshot's hand.playable_ranks: the page restates no rule);
// undefined: any rank. A rank not in it is greyed "over 31" like a card already out.
export function picker(onPick, target, seenOverride, playable, head) {
  var box = target || $("picker");
  clear(box);
  if (!onPick) { show(box, false); if (!target) padForPicker(); return; }
  show(box, true);
  if (head) box.appendChild(head);
  var seen = seenOverride || seenCards();
  var sel = target ? box._picked : picked;
  var over = function (r) { return playable !== undefined && playable.indexOf(r) < 0; };
  if (sel && over(sel)) sel = null;
  var ranks = h("div", { cls: "ranks" });
  RANKS.forEach(function (r) {
    // a card that would take the count past 31 is greyed like a card already out
    var all = SUITS.every(function (s) { return seen[r + s]; }) || over(r);
    ranks.appendChild(h("button", { type: "button", "data-rank": r, cls: sel === r ? "sel" : null, disabled: all ? true : null,
      "aria-label": over(r) ? r + ": over 31" : RANK_NAME[r] ? r + ", " + RANK_NAME[r] : null,
      "aria-pressed": sel === r ? "true" : "false",
      onclick: function () { if (target) box._picked = r; else picked = r; picker(onPick, target, seenOverride, playable, head); } }, r));
  });
  box.appendChild(ranks);
  // the suit row is always there (greyed until a rank is picked): the picker never changes height,
  // so nothing under a thumb moves between the two taps
  var suits = h("div", { cls: "suits" });
  SUITS.forEach(function (s) {
    if (!sel) { suits.appendChild(h("button", { type: "button", cls: "s-" + s, disabled: true, "aria-label": SUIT_NAME[s] + ": pick a rank first" }, SYM[s])); return; }
    var card = sel + s;
    suits.appendChild(h("button", { type: "button", "data-card": card, cls: "s-" + s, disabled: seen[card] ? true : null,
      "aria-label": cardLabel(card),
      onclick: function () { if (target) box._picked = null; else picked = null; onPick(card); } }, sel + SYM[s]));
  });
  box.appendChild(suits);
  if (!target) padForPicker();
}
// keep ``sel`` (down to ``last``) in sight between the sticky header and the picker; scrolls only when hidden
export function keepInSight(sel, last) {
  var el = document.querySelector(sel), end = last ? document.querySelector(last) : el, p = $("picker");
  if (!el || !end) return;
  var top = el.getBoundingClientRect().top, bottom = end.getBoundingClientRect().bottom;
  var floor = p.hidden ? window.innerHeight : p.getBoundingClientRect().top;
  var ceiling = $("top").getBoundingClientRect().bottom;
  if (bottom > floor - 8) window.scrollBy(0, Math.min(bottom - floor + 8, top - ceiling - 8));
  else if (top < ceiling + 8) window.scrollBy(0, top - ceiling - 8);
}
// the table's picker is fixed above the tab bar (the thumb's reach, and still while the page above it changes);
// the page gets room at the bottom so nothing hides under it
export function padForPicker() {
  var p = $("picker"), on = !$("view-table").hidden && !p.hidden;
  document.body.style.paddingBottom = on ? "calc(" + (p.offsetHeight + 72) + "px + env(safe-area-inset-bottom))" : "";
}

