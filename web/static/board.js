/* The board mirror: the peg board's LEDs as the board shows them, below the card picker. */
import { clear, $ } from "./dom.js";
import { S, call, render } from "./state.js";

// The board's frame arrives on the live stream (a "board" event after every frame it draws): the page
// never polls it. Only while there is no stream (refused, or down) is it read with the table.
var shown = null, missing = false, lanes = null;   // the frame drawn; no board (404); the lanes' sides
export function boardLanes() { return lanes; }
export function readBoard() {
  if (!S.session.board || missing) return;
  call("GET", "/api/board").then(drawBoard, function (e) { if (e.status === 404) missing = true; /* else the next look */ });
}
function ledColour(rgb, gamma) {
  // show an LED as it looks: undo the strip's gamma if the board says it, then lift dim ones to read on a phone
  var m = Math.max(rgb[0], rgb[1], rgb[2]);
  if (!m) return "#1c2128";
  var c = rgb.map(function (v) { return gamma ? 255 * Math.pow(v / 255, 1 / gamma) : v; });
  var k = Math.max(1, 150 / Math.max(c[0], c[1], c[2]));
  return "rgb(" + c.map(function (v) { return Math.min(255, Math.round(v * k)); }).join(",") + ")";
}
var SVGNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs) { var e = document.createElementNS(SVGNS, tag); for (var k in attrs) e.setAttribute(k, attrs[k]); return e; }
export function drawBoard(frame) {
  var b = $("board");
  var key = JSON.stringify(frame);
  if (key === shown) return;
  shown = key;
  clear(b);
  b.removeAttribute("hidden");          // an <svg> has no .hidden property
  $("board-legend").hidden = false;     // what its status lights mean, in the colours of its palette
  Array.prototype.forEach.call($("board-legend").querySelectorAll("[data-palette]"), function (p) {
    p.hidden = p.dataset.palette !== (frame.palette || "standard");
  });
  var names = {};
  (frame.sides || []).forEach(function (sd) { names[sd.lane] = sd.name; });
  var laneKey = JSON.stringify(frame.sides || null);
  // the panels and the who-plays chips follow the lanes: redraw both when they change
  if (laneKey !== JSON.stringify(lanes)) { lanes = frame.sides || null; render(); }
  (frame.lanes || []).forEach(function (lane, li) {
    // each lane is labelled with the side it shows (panels above are in the same order)
    var name = names[li + 1] || "";
    var label = svg("text", { x: 4, y: 18 + li * 22, fill: "#c3ccd6", "font-size": 12, "data-lane-label": li + 1 });
    label.textContent = name.length > 9 ? name.slice(0, 8) + "\u2026" : name;
    b.appendChild(label);
    lane.forEach(function (rgb, hi) {
      var c = svg("circle", { cx: 70 + hi * 20.8, cy: 14 + li * 22, r: 7.5, fill: ledColour(rgb, frame.gamma), "data-lane": li + 1, "data-hole": hi + 1, "data-rgb": rgb.join(",") });
      if (!Math.max(rgb[0], rgb[1], rgb[2])) { c.setAttribute("stroke", "#39424e"); c.setAttribute("stroke-width", "1"); }
      b.appendChild(c);
    });
  });
  (frame.status || []).forEach(function (rgb, i) {
    b.appendChild(svg("rect", { x: 8 + i * 16, y: 74, width: 11, height: 6, rx: 2, fill: ledColour(rgb, frame.gamma), "data-status": i }));
  });
}
