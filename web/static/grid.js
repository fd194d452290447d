/* Tabletop: the 5x5 grid, card by card or as a final layout. */
import { h, clear, $, show, pretty, cardLabel, cardsEl } from "./dom.js";
import { S, preset, command, render, hand, seenCards, sideName, onNewState } from "./state.js";
import { picker, keepInSight } from "./picker.js";

// ---- tabletop: the 5x5 grid ----
// this view's own state: the cell (or crib) picked, the layout being entered
var G = { sel: null, layout: null, layoutCrib: [] };
onNewState(function (old, snap) {
  if (!old || old.match_id !== snap.match_id) G.layout = null;
  if (old && old.expect !== snap.expect) G.sel = null;
});
function flatGrid(g) { var out = []; (g || []).forEach(function (row) { out = out.concat(row); }); while (out.length < 25) out.push(null); return out; }
function touches(cells, i) {
  var r = Math.floor(i / 5), c = i % 5;
  for (var dr = -1; dr <= 1; dr++) for (var dc = -1; dc <= 1; dc++) {
    var rr = r + dr, cc = c + dc;
    if ((dr || dc) && rr >= 0 && rr < 5 && cc >= 0 && cc < 5 && cells[rr * 5 + cc]) return true;
  }
  return false;
}
export function renderGrid(box) {
  var t = S.table, hd = hand(), g = $("grid-box"), p = preset(t.game);
  var grid = flatGrid(hd.grid);
  var layoutMode = !!G.layout;
  var cells = layoutMode ? G.layout : grid;
  var placing = t.expect === "place" && !layoutMode;
  clear(g);
  show(g, true);
  // who owns what this round, as the table says: the non-dealer the rows (T1), or in Table Top
  // Cribbage one side the rows for the whole game (G6)
  var rowOwner = sideName(hd.rows), colOwner = sideName(hd.columns);
  g.appendChild(h("div", { cls: "owners", id: "grid-owners" },
    h("span", { id: "rows-owner" }, "Rows \u2192 ", h("strong", { text: rowOwner })),
    h("span", { id: "cols-owner" }, "Columns \u2193 ", h("strong", { text: colOwner }))));
  if (placing && G.sel == null) {
    g.appendChild(h("p", { cls: "muted", id: "grid-hint" }, "Tap a square, then the card" + (p.grid_crib ? " (or Into the crib)" : "")));
  }
  var el = h("div", { cls: "grid5", id: "grid" });
  for (var i = 0; i < 25; i++) {
    (function (i) {
      var c = cells[i];
      var legal = layoutMode || (placing && !c && !hd.must_crib && (hd.placement !== "adjacent" || touches(cells, i)));
      var cls = (c ? "filled" + (/[HD]$/.test(c) ? " red" : "") : "") + (G.sel === i ? " sel" : "") + (i === 12 ? " center" : "");
      el.appendChild(h("button", { type: "button", cls: cls, "data-cell": i, disabled: legal ? null : true,
        "aria-label": "row " + (Math.floor(i / 5) + 1) + " (" + rowOwner + "), column " + (i % 5 + 1) + " (" + colOwner + ")" + (c ? ": " + cardLabel(c) : ""),
        onclick: function () { G.sel = i; render(); keepInSight("[data-cell='" + i + "']"); } }, c ? pretty(c) : ""));
    })(i);
  }
  g.appendChild(el);
  if (p.grid_crib) {
    var crib = layoutMode ? G.layoutCrib : [];
    g.appendChild(h("div", { cls: "row" },
      h("span", { text: "Crib: " + (layoutMode ? "" : (hd.crib_count || 0) + " of " + p.grid_crib) }), layoutMode ? cardsEl(crib) : null,
      (placing || layoutMode) ? h("button", { type: "button", id: "to-crib", cls: G.sel === "crib" || hd.must_crib ? "on" : null,
        onclick: function () { G.sel = "crib"; render(); keepInSight("#to-crib"); } }, "Into the crib") : null));
  }
  var canLayout = layoutMode || (!(hd.places || []).length && (t.expect === "place" || t.expect === "turnup"));
  g.appendChild(h("div", { cls: "row" },
    canLayout ? h("button", { type: "button", id: "layout-toggle", onclick: function () {
      G.layout = layoutMode ? null : grid.slice();
      G.layoutCrib = []; G.sel = null; render();
    } }, layoutMode ? "Card by card" : "Enter the final layout") : null,
    layoutMode ? h("button", { type: "button", cls: "primary", id: "layout-go",
      disabled: G.layout.filter(Boolean).length !== 25 || G.layoutCrib.length !== (p.grid_crib || 0) ? true : null,
      onclick: function () {
        command({ type: "layout", cards: G.layout, crib: G.layoutCrib }).then(function () { G.layout = null; render(); }, function () {});
      } }, "Count the layout") : null));
  if (hd.must_crib && placing) G.sel = "crib";
  var seen = seenCards();
  (layoutMode ? G.layout.concat(G.layoutCrib) : []).forEach(function (c) { if (c) seen[c] = 1; });
  if (G.sel === null || G.sel === undefined) {
    if (t.expect !== "turnup" || layoutMode) picker(null);
    return;
  }
  picker(function (card) {
    if (layoutMode) {
      if (G.sel === "crib") G.layoutCrib.push(card); else G.layout[G.sel] = card;
      G.sel = null; render();
    } else {
      var cmd = G.sel === "crib" ? { type: "place", card: card, crib: true }
        : { type: "place", card: card, row: Math.floor(G.sel / 5), col: G.sel % 5 };
      command(cmd).then(function () { G.sel = null; render(); }, function () {});
    }
  }, null, seen);
}

