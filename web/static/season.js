/* The night and the season, and a game's score race (loaded the first time the More tab, a result's or History's
   score race is opened: tests/test_web_assets.py counts it apart from what every phone loads). Every chart is a
   small SVG drawn here from the table's numbers, with a table of the same numbers beside it (what a screen reader
   reads); its lines differ by dash and marker as well as colour, in the board's palette. */
import { h, clear, $ } from "./dom.js";
import { S, call } from "./state.js";
import { toast } from "./header.js";
import { followJob } from "./jobs.js";

var NS = "http://www.w3.org/2000/svg";
var COLOURS = { standard: ["#f0b429", "#6cb4ff", "#5ad48a", "#ff6b6b"],
  "colour-blind": ["#e69f00", "#56b4e9", "#009e73", "#cc79a7"] };       // Okabe-Ito
var DASH = [null, "7 4", "2 3", "9 3 2 3"];
var palette = null, seen = null;

// a view of the season; while the season is first worked out from the games kept (an old database, a restart)
// the board answers with that job (202): its progress and Cancel in `box`, then the view is asked again
function view(path, box) {
  return call("GET", path).then(function (d) {
    if (d && d.kind === "season" && d.url && d.state) return followJob(clear(box), d).then(function () { return view(path, box); });
    return d;
  });
}

function colours() { return COLOURS[palette] || COLOURS.standard; }
function usePalette() {
  if (palette) return Promise.resolve();
  return call("GET", "/api/settings").then(function (d) { palette = d.palette || "standard"; },
    function () { palette = "standard"; });
}
function el(tag, attrs, kids) {
  var e = document.createElementNS(NS, tag);
  for (var k in attrs) if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
  (kids || []).forEach(function (c) { e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
  return e;
}
function signed(v) { return (v > 0 ? "+" : "") + v; }
function cells(tag, list, cls) { return list.map(function (x) { return h(tag, { cls: cls, text: String(x) }); }); }
function table(caption, head, rows, cls) {
  // wide tables scroll sideways on a small phone: focusable, so a keyboard can scroll them too
  return scrolls(h("table", { cls: "ledger chart-table" + (cls ? " " + cls : ""), tabindex: "0" }, h("caption", { text: caption }),
    h("thead", null, h("tr", null, cells("th", head))),
    h("tbody", null, rows.map(function (r) { return h("tr", null, cells("td", r)); }))));
}
// a table wider than the screen says so until its last column is in view: "scroll →" and a fading edge (app.css)
function scrolls(tbl) {
  var box = h("div", { cls: "scroll-box" }, h("p", { cls: "scroll-hint muted", "aria-hidden": "true", text: "scroll \u2192" }), tbl);
  box.look = function () {
    var over = tbl.scrollWidth > tbl.clientWidth + 1;
    box.classList.toggle("scrolls", over);
    box.classList.toggle("at-end", over && tbl.scrollLeft + tbl.clientWidth >= tbl.scrollWidth - 1);
  };
  tbl.addEventListener("scroll", box.look, { passive: true });
  requestAnimationFrame(box.look);
  return box;
}
window.addEventListener("resize", function () {
  Array.prototype.forEach.call(document.querySelectorAll(".scroll-box"), function (b) { b.look(); });
});

var W = 320, H = 190, L = 34, R = 8;      // a chart's units, scaled to the phone's width
// the y axis from T to H - B units down, from the lowest value to the highest (0 always shown): [y(value), its lines]
function yAxis(series, T, B) {
  var all = [0];
  series.forEach(function (s) { all = all.concat(s.values); });
  var lo = Math.min.apply(null, all), hi = Math.max.apply(null, all);
  if (hi === lo) hi = lo + 1;
  function y(v) { return T + (H - T - B) * (hi - v) / (hi - lo); }
  return [y, [el("line", { x1: L, x2: W - R, y1: y(0), y2: y(0), stroke: "#5b6675", "stroke-width": 1 })].concat([lo, hi].map(function (v) {
    return el("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end", "font-size": 11, fill: "#9aa5b1" }, [String(v)]);
  }))];
}
// a line chart: labels along x, one line per series ({name, values, marks: [shape per point]})
export function lineChart(title, labels, series) {
  var a = yAxis(series, 10, 26), y = a[0], g = a[1];
  var n = Math.max(labels.length - 1, 1);
  function x(i) { return L + (W - L - R) * i / n; }
  var step = Math.ceil(labels.length / 8);
  labels.forEach(function (lab, i) {
    if (i % step === 0 || i === labels.length - 1) {
      g.push(el("text", { x: x(i), y: H - 8, "text-anchor": "middle", "font-size": 11, fill: "#9aa5b1" }, [String(lab)]));
    }
  });
  series.forEach(function (s, k) {
    var c = colours()[k % 4];
    var pts = s.values.map(function (v, i) { return x(i).toFixed(1) + "," + y(v).toFixed(1); }).join(" ");
    g.push(el("polyline", { points: pts, fill: "none", stroke: c, "stroke-width": 2.5, "stroke-dasharray": DASH[k % 4],
      "data-series": s.name, "data-values": s.values.join(",") }));
    s.values.forEach(function (v, i) {
      var m = (s.marks || [])[i];
      if (m === "square") g.push(el("rect", { x: x(i) - 3.5, y: y(v) - 3.5, width: 7, height: 7, fill: c }));
      else if (m === "circle") g.push(el("circle", { cx: x(i), cy: y(v), r: 3.5, fill: "#101317", stroke: c, "stroke-width": 2 }));
    });
  });
  var svg = el("svg", { viewBox: "0 0 " + W + " " + H, width: "100%", role: "img", "aria-label": title +
    " (the table below has the same numbers)", "class": "chart" }, g);
  var legend = h("div", { cls: "row chart-legend", "aria-hidden": "true" }, series.map(function (s, k) {
    var c = colours()[k % 4];
    return h("span", null, svgSwatch(c, DASH[k % 4]), " " + s.name);
  }));
  return h("figure", { cls: "chart-box" }, h("figcaption", { text: title }), svg, legend);
}
// one night: a bar per player, its value over it (or under it) and its name under the chart
function nightBars(title, label, series) {
  var a = yAxis(series, 18, 40), y = a[0], g = a[1], slot = (W - L - R) / series.length, bw = Math.min(44, slot * 0.6);
  series.forEach(function (s, k) {
    var c = colours()[k % 4], v = s.values[0], mid = L + slot * (k + 0.5), top = Math.min(y(v), y(0)), tall = Math.max(Math.abs(y(v) - y(0)), 2);
    g.push(el("rect", { x: mid - bw / 2, y: top, width: bw, height: tall, fill: c, "data-series": s.name, "data-values": v }),
      el("text", { x: mid, y: v < 0 ? top + tall + 12 : top - 4, "text-anchor": "middle", "font-size": 11, fill: "#e9ecef" }, [signed(v)]),
      el("text", { x: mid, y: H - 8, "text-anchor": "middle", "font-size": 11, fill: "#9aa5b1" }, [s.name]));
  });
  return h("figure", { cls: "chart-box" }, h("figcaption", { text: title + ": one night so far (" + label + ")" }),
    el("svg", { viewBox: "0 0 " + W + " " + H, width: "100%", role: "img", "aria-label": title + ", " + label +
      ": one night so far (the table below has the same numbers)", "class": "chart" }, g));
}
function svgSwatch(c, dash) {
  return el("svg", { viewBox: "0 0 24 8", width: 24, height: 8 },
    [el("line", { x1: 0, x2: 24, y1: 4, y2: 4, stroke: c, "stroke-width": 3, "stroke-dasharray": dash })]);
}

// ---- the score race of a game: each side's score after the pegging (circle) and after the shows (square) ----
export function showRace(box, game, match) {
  clear(box).appendChild(h("p", { cls: "muted", text: "Loading the score race\u2026" }));
  var q = [];
  if (match) q.push("match=" + encodeURIComponent(match));
  if (game) q.push("game=" + game);
  var gen = box.raceGen = (box.raceGen || 0) + 1;      // the race last asked for is the one drawn
  Promise.all([usePalette(), view("/api/race" + (q.length ? "?" + q.join("&") : ""), box)]).then(function (r) {
    if (box.raceGen !== gen) return;
    var d = r[1], labels = ["0"], series = d.sides.map(function (name) { return { name: name, values: [0], marks: [null] }; });
    d.hands.forEach(function (hd) {
      labels.push(hd.hand + "p", String(hd.hand));
      series.forEach(function (s, i) {
        s.values.push(hd.after_pegging[i], hd.scores[i]);
        s.marks.push("circle", "square");
      });
    });
    var rows = d.hands.map(function (hd) {
      return [hd.hand].concat(d.sides.map(function (_, i) {
        return hd.pegging[i] + hd.other[i] + " + " + hd.shows[i] + " = " + hd.scores[i];
      }));
    });
    clear(box).append(
      lineChart("Score race, " + d.title + " game " + d.game + " (to " + d.target + "): after the pegging (circles) and the shows (squares)",
        labels, series),
      table("Each hand: pegging (and pegs by hand) + shows = score", ["hand"].concat(d.sides), rows, "race-table"));
  }, function (e) { clear(box).appendChild(h("p", { cls: "muted", text: e.message })); });
}

// ---- every game kept (History): pick one, see its score race ----
export function showGames(box) {
  clear(box).appendChild(h("p", { cls: "muted", text: "Loading the games\u2026" }));
  view("/api/games?limit=100", box).then(function (d) {
    if (!d.games.length) { clear(box).appendChild(h("p", { cls: "muted", text: "No game has scored yet." })); return; }
    var race = h("div", { id: "h-games-race" });
    var pick = h("select", { id: "h-games-pick", "aria-label": "Game" }, d.games.map(function (g, i) {
      return h("option", { value: String(i), text: g.end.slice(0, 10) + " \u00b7 " + g.title + " game " + g.game + ": " +
        g.sides.map(function (s) { return s.name + " " + s.score; }).join(", ") + (g.finished ? "" : " (in play)") });
    }));
    function draw() { var g = d.games[+pick.value]; showRace(race, g.game, g.match_id); }
    pick.addEventListener("change", draw);
    clear(box).appendChild(h("div", { cls: "stack" }, h("label", null, "Game ", pick),
      d.total > d.games.length ? h("p", { cls: "muted", text: "The latest " + d.games.length + " of " + d.total + " games." }) : null, race));
    draw();
  }, function (e) { clear(box).appendChild(h("p", { cls: "muted", text: e.message })); });
}

// ---- the night: standing and settle up; the host settles it (or any earlier night still open) or starts a
// new evening ----
var shown = null;          // the night on view (null: tonight's)
var nightGen = 0;         // only the answer to the last question about the night is drawn
export function renderNight(force) {
  var key = S.table.match_id + ":" + S.table.seq;
  if (!force && key === seen) return;
  seen = key;
  var gen = ++nightGen;
  view("/api/night" + (shown ? "?night=" + shown : ""), $("night")).then(function (n) { if (gen === nightGen) drawNight(n); }, function (e) {
    if (e.cancelled) { seen = null; return; }
    if (gen !== nightGen) return;
    shown = null; clear($("night")).appendChild(h("p", { cls: "muted", text: e.message })); });
}
function viewNight(k) { shown = k; renderNight(true); }
function drawNight(n) {
  var box = clear($("night"));
  if (!n.night) { box.appendChild(h("p", { cls: "muted", text: "No game has ended yet tonight." })); return; }
  var latest = n.night === n.nights, mine = latest ? "Tonight" : "Night " + n.night;
  box.appendChild(h("p", { cls: "muted", id: "night-head", text: "Night " + n.night + " \u00b7 " + n.start.slice(0, 10) + " \u00b7 " +
    (n.settled ? "settled" : "open") + (n.in_play ? " \u00b7 a game in play" : "") }));
  box.appendChild(table(mine + ", per player", ["player", "won", "games", "W", "L"], n.players.map(function (p) {
    return [p.name, signed(p.money), p.games, p.wins, p.losses];
  }), "night-table"));
  box.appendChild(h("h3", { text: "Settle up" }));
  box.appendChild(n.payments.length ? h("ul", { cls: "payments" }, n.payments.map(function (p) {
    return h("li", { text: p.from + " pays " + p.to + " " + p.amount });
  })) : h("p", { cls: "muted", text: "Nobody owes anything." }));
  var row = h("div", { cls: "row" }, h("a", { cls: "button", href: "/api/night.csv?night=" + n.night, download: true, text: "Night as CSV" }));
  if (S.session.role === "host") {
    if (n.open && n.players.length) row.appendChild(h("button", { type: "button", id: "night-settle", text: "Mark settled", onclick: function () {
      hostEvent(latest ? { type: "settle" } : { type: "settle", night: n.night }).catch(function () {}); } }));
    if (latest) row.appendChild(h("button", { type: "button", id: "night-new", text: "New evening", onclick: function () { hostEvent({ type: "new_evening" }).catch(function () {}); } }));
  }
  box.appendChild(row);
  // the earlier nights still open (not settled): each may be viewed and settled
  var others = (n.open_nights || []).filter(function (k) { return k !== n.night && k !== n.nights; });
  if (others.length || !latest) {
    box.appendChild(h("div", { cls: "row", id: "open-nights" }, [h("span", { cls: "muted", text: others.length ? "Still open:" : "" })].concat(
      others.map(function (k) { return h("button", { type: "button", "data-night": k, text: "Night " + k, onclick: function () { viewNight(k); } }); }),
      latest ? [] : [h("button", { type: "button", id: "night-tonight", text: "Tonight", onclick: function () { viewNight(null); } })])));
  }
}
function hostEvent(body) {
  var gen = ++nightGen;
  return call("POST", "/api/season/event", body).then(function (d) { toast(d.event.text, "info"); if (gen === nightGen) drawNight(d.night); },
    function (e) { toast(e.message); throw e; });
}

// ---- the season: per player, money over the nights (a chart and its table), head to head ----
export function renderSeason() {
  var box = clear($("season"));
  box.appendChild(h("p", { cls: "muted", text: "Loading the season\u2026" }));
  Promise.all([usePalette(), view("/api/season", box)]).then(function (r) { drawSeason(r[1]); },
    function (e) { clear(box).appendChild(h("p", { cls: "muted", text: e.message })); });
}
function drawSeason(d) {
  var box = clear($("season")), people = d.players.filter(function (p) { return !p.house; });
  if (!people.length) { box.appendChild(h("p", { cls: "muted", text: "No game has ended yet." })); return; }
  box.appendChild(table("The season, per player", ["player", "won", "nights", "games", "W", "L", "skunks", "avg hand",
    "avg pocket", "best", "29s", "zero hands"], people.map(function (p) {
    return [p.name, signed(p.money), p.nights, p.games, p.wins, p.losses, p.skunks_won + "/" + p.skunked,
      p.average_hand === null ? "-" : p.average_hand, p.average_pocket === null ? "-" : p.average_pocket,
      p.best_hand ? p.best_hand.points : "-", p.twenty_nines, p.zero_hands];
  }), "season-table"));
  var nights = d.nights.map(function (n) { return n.night; });
  var series = people.slice(0, 4).map(function (p) {
    var total = 0, by = {};
    p.by_night.forEach(function (x) { by[x.night] = x.total; });
    return { name: p.name, values: nights.map(function (k) { if (by[k] !== undefined) total = by[k]; return total; }) };
  });
  var money = "Money over the nights (running total" + (people.length > 4 ? ", the top four" : "") + ")";
  box.appendChild(nights.length === 1 ? nightBars(money, "N" + nights[0], series)
    : lineChart(money, nights.map(function (k) { return "N" + k; }), series));
  box.appendChild(table("Running total after each night", ["night"].concat(series.map(function (s) { return s.name; })),
    nights.map(function (k, i) { return ["N" + k + " " + d.nights[i].date].concat(series.map(function (s) { return signed(s.values[i]); })); }),
    "money-table"));
  var pick = h("select", { id: "h2h-player", "aria-label": "Head to head of" }, people.map(function (p) {
    return h("option", { value: p.name, text: p.name });
  }));
  var h2h = h("div", { id: "h2h" });
  function drawH2h() {
    var p = people.filter(function (x) { return x.name === pick.value; })[0];
    clear(h2h).appendChild(table("Head to head: " + p.name, ["against", "games", "W", "L", "won"], p.head_to_head.map(function (o) {
      return [o.opponent, o.games, o.wins, o.losses, signed(o.money)];
    })));
  }
  pick.addEventListener("change", drawH2h);
  box.append(h("label", null, "Head to head of ", pick), h2h,
    h("a", { cls: "button", href: "/api/season.csv", download: true, text: "Season as CSV" }));
  drawH2h();
  if (S.session.role === "host") box.appendChild(renameForm(people));
}

// the host renames a player, or merges two names of one person: every game follows (undo takes it back)
function renameForm(people) {
  var who = h("select", { id: "rn-name", "aria-label": "Player" }, people.map(function (p) {
    return h("option", { value: p.name, text: p.name });
  }));
  var to = h("input", { id: "rn-to", type: "text", maxlength: "24", "aria-label": "New name, or the other name of the same player" });
  function send(body) {
    hostEvent(body).then(function () { renderSeason(); }, function () { /* said in the toast */ });
  }
  return h("div", { cls: "stack" }, h("h3", { text: "Rename or merge a player" }),
    h("div", { cls: "row" }, who, to),
    h("div", { cls: "row" },
      h("button", { type: "button", id: "rn-rename", text: "Rename", onclick: function () { send({ type: "rename", name: who.value, to: to.value }); } }),
      h("button", { type: "button", id: "rn-merge", text: "Merge into", onclick: function () { send({ type: "merge", name: who.value, into: to.value }); } })));
}
