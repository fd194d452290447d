/* The New tab: a new game from a preset, with names, stake, series, first dealer and house rules. */
import { h, clear, $, show, pretty } from "./dom.js";
import { S, preset, joined, command, go, changeSession } from "./state.js";
import { toast } from "./header.js";

var DIRECTIONS = { cw: "clockwise", ccw: "counter-clockwise" };
// ---- new game form ----
export function fillGames(sel) {
  S.presets.forEach(function (p) { sel.appendChild(h("option", { value: p.name, text: p.title })); });
}
function ngPreset() { return preset($("ng-game").value); }
function ngSeats() {
  var p = ngPreset(), n = Number($("ng-players").value) || p.players;
  return n - (p.house && p.house_plays ? 1 : 0);
}
export function renderNew() {
  var p = ngPreset();
  renderStart();
  $("ng-desc").textContent = p.description;
  var choices = [p.players].concat(p.player_choices || []);
  show($("ng-players-wrap"), choices.length > 1);
  var ps = $("ng-players");
  if (ps.options.length !== choices.length || ps.dataset.game !== p.name) {
    clear(ps); ps.dataset.game = p.name;
    choices.forEach(function (n) { ps.appendChild(h("option", { value: n, text: String(n) })); });
  }
  var names = $("ng-names"), n = ngSeats(), old = Array.prototype.map.call(names.querySelectorAll("input"), function (i) { return i.value; });
  clear(names);
  for (var i = 0; i < n; i++) {
    names.appendChild(h("label", null, "Player " + (i + 1),
      h("input", { type: "text", maxlength: "24", "data-name": i, value: old[i] || ["Ann", "Bob", "Cy", "Dee"][i] || "P" + (i + 1),
        oninput: renderDealer })));
  }
  var four = Number($("ng-players").value) === 4 && (p.partnerships || p.grid);
  $("ng-teams").textContent = four ? "Partners sit opposite: players 1 & 3 against 2 & 4." : (p.house ? "The house deals and plays as its own side." : "");
  show($("ng-n-wrap"), $("ng-series").value !== "single");
  renderDealer();
  var opts = clear($("ng-options")), dir = clear($("ng-direction"));
  show(dir, false);
  p.options.forEach(function (o) {
    if (o.name === "players") return;
    var input, text = h("span", { cls: "opt-text" }, o.name.replace(/_/g, " "), h("br"), h("small", { cls: "muted", text: o.help }));
    if (o.type === "bool") input = h("input", { type: "checkbox", "data-opt": o.name, "data-default": String(o.default), checked: o.default ? true : null });
    else if (o.type === "int") input = h("input", { type: "number", "data-opt": o.name, "data-default": String(o.default), value: String(o.default), min: "0", inputmode: "numeric" });
    else { input = h("select", { "data-opt": o.name, "data-default": String(o.default) }); o.choices.forEach(function (c) { input.appendChild(h("option", { value: c, text: DIRECTIONS[c] || String(c), selected: c === o.default ? true : null })); }); }
    if (o.name === "direction") {
      // casino: the direction of play is chosen at the start of every game (H1), not a buried house rule
      dir.appendChild(h("label", null, "Direction of play", input));
      show(dir, true);
      return;
    }
    // a box before its words; a number or a choice after them, so it is clear which words it belongs to
    opts.appendChild(o.type === "bool" ? h("label", { cls: "opt" }, input, text) : h("label", { cls: "opt" }, text, input));
  });
}
export function renderStart() {
  $("ng-start").disabled = !joined();
  $("ng-start").textContent = joined() ? "This phone enters for the whole table" : "Join the table to start a game";
  show($("ng-whose-q"), joined());
  renderWhose();
}
// the phone that starts a game says whose phone it is with the same tap (issue 36): a seat of the new game, or
// the whole table's; nothing is chosen for it (each answer is its own Start, none primary)
function renderWhose() {
  var box = $("ng-seats"), s = S.session || {}, taken = s.seats || {}, mine = s.seat;
  show(box, joined());
  // drawn again only when they change (a redraw under a finger loses its tap)
  var want = joined() + "|" + ngNames().join(",") + "|" + JSON.stringify(taken) + "|" + mine + "|" + s.shared_seats;
  if (box.dataset.drawn === want) return;
  box.dataset.drawn = want;
  clear(box);
  if (!joined()) return;
  ngNames().forEach(function (n) {
    if (!n) return;
    var other = (taken[n] || 0) - (n === mine ? 1 : 0) > 0 && !s.shared_seats;
    box.appendChild(h("button", { type: "button", cls: "big", "data-ng-seat": n, disabled: other ? true : null },
      n + "'s phone" + (other ? " (taken)" : "")));
  });
}
function renderDealer() {
  renderWhose();      // the names typed are the seats offered
  var sel = $("ng-dealer"), keep = sel.value, p = ngPreset();
  clear(sel);
  if (p.house) { sel.appendChild(h("option", { value: "", text: "The house deals" })); sel.disabled = true; return; }
  sel.disabled = false;
  sel.appendChild(h("option", { value: "", text: "Cut for it" }));
  ngNames().forEach(function (n) { sel.appendChild(h("option", { value: n, text: n, selected: n === keep ? true : null })); });
}
function ngNames() { return Array.prototype.map.call($("ng-names").querySelectorAll("input"), function (i) { return i.value.trim(); }); }
// only an answer starts (each is a plain button): the form has no submit button, so Enter starts nothing
function submitNew(ev) {
  ev.preventDefault();
  toast("Whose phone is this? Tap the answer below to start", "info");
}
function startAs(ev) {
  var by = ev.target.closest("[data-ng-seat]");
  if (!by || by.disabled) return;
  var seat = by.dataset.ngSeat === "*" ? null : by.dataset.ngSeat;
  var p = ngPreset(), names = ngNames(), options = {};
  Array.prototype.forEach.call($("new-form").querySelectorAll("[data-opt]"), function (el) {
    var v = el.type === "checkbox" ? el.checked : el.type === "number" ? Number(el.value) : el.value;
    if (String(v) !== el.dataset.default) options[el.dataset.opt] = v;
  });
  var np = Number($("ng-players").value);
  if (p.player_choices && p.player_choices.length && np !== p.players) options.players = np;
  var cmd = { type: "new_match", game: p.name, players: names, stake: Number($("ng-stake").value) || 0,
    options: options, first_dealer: $("ng-dealer").value || null,
    series: { kind: $("ng-series").value, n: $("ng-series").value === "single" ? 1 : Number($("ng-n").value) } };
  if (names.length === 4 && (p.partnerships || options.players === 4)) cmd.teams = [[names[0], names[2]], [names[1], names[3]]];
  command(cmd).then(function (d) {
    go("table");
    var cut = d.event && d.event.cut;
    // a cut the companion made lists the cards; with a named first dealer in five-card it only says who cut high (F1)
    var said = !cut ? "New game: " + p.title : cut.cards ? "Cut for deal: " + Object.keys(cut.cards).map(function (n) {
      return n + " " + pretty(cut.cards[n]); }).join(", ") + " \u2014 " + cut.dealer + " deals"
      : cut.dealer + " deals; " + cut.high + " cut high";
    toast(said, "info");
    if ((S.session.seat || null) === seat) return;
    changeSession("/api/seat", { seat: seat }).then(function () {
      toast(said + (seat ? ". This phone is " + seat + "'s" : ". This phone enters for the whole table"), "info");
    }, function (e) { toast(e.message); });
  }, function () {});
}

export function init() {
  $("new-form").addEventListener("submit", submitNew);
  $("ng-whose").addEventListener("click", startAs);
  $("ng-game").addEventListener("change", renderNew);
  $("ng-players").addEventListener("change", renderNew);
  $("ng-series").addEventListener("change", function () { show($("ng-n-wrap"), $("ng-series").value !== "single"); });
}
