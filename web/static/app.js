/* Land's End phone page. No framework, no external request: everything comes from the Pi. */
(function () {
  "use strict";
  var L = window.LandsEnd;      // dom.js: the DOM builder and the card names, shared with practice.js
  var h = L.h, clear = L.clear, split = L.split, pretty = L.pretty, cardName = L.cardName, cardLabel = L.cardLabel;
  var SYM = L.SYM, SUIT_NAME = L.SUIT_NAME, RANK_NAME = L.RANK_NAME;

  var boot = JSON.parse(document.getElementById("boot").textContent);
  var S = {
    table: boot.table, session: boot.session, presets: boot.presets,
    view: "table", picked: null, player: null, pegSide: null, tray: [], trayFor: null,
    gridSel: null, layout: null, layoutCrib: [], qc: { kind: "hand", cards: [], starter: null },
    history: null, lastSaid: null, es: null, lastMsg: 0, board: null, boardMissing: false,
    wake: null, queue: [], whose: null, lanes: null, gone: {}
  };
  var RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
  var SUITS = ["S", "H", "D", "C"];
  var DIRECTIONS = { cw: "clockwise", ccw: "counter-clockwise" };
  function stored(key) { try { return localStorage.getItem(key); } catch (e) { return null; } }
  function store(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } }
  var pref = { four: stored("le.four") === "1", speak: stored("le.speak") === "1", awake: stored("le.awake") !== "0" };

  // ---- small DOM helpers (textContent only: names are user input) ----
  function $(id) { return document.getElementById(id); }
  function show(el, on) { el.hidden = !on; }

  // ---- cards ----
  function cardEl(card, extra) {
    var c = split(card);
    return h("span", { cls: "card " + c.suit + (c.suit === "H" || c.suit === "D" ? " red" : "") + (extra ? " " + extra : ""),
      title: cardName(card), role: "img", "aria-label": cardName(card) }, pretty(card));
  }
  // the rules' messages name cards by code (KS): the page says K♠
  function cardWords(text) {
    return String(text).replace(/\b(10|[2-9AJQK])([SHDC])\b/g, function (m, r, su) { return r + SYM[su]; });
  }
  function cardValue(card) { var r = split(card).rank; return r === "A" ? 1 : "JQK".indexOf(r) >= 0 ? 10 : Number(r); }
  function cardsEl(list) { return h("div", { cls: "cards" }, (list || []).map(function (c) { return cardEl(c); })); }

  // ---- talking to the Pi ----
  function newId() {
    var a = new Uint8Array(12);
    (window.crypto || window.msCrypto).getRandomValues(a);
    return Array.prototype.map.call(a, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }
  function toast(msg, kind) {
    var t = $("toast");
    t.textContent = cardWords(msg);
    t.className = "toast" + (kind ? " " + kind : "");
    t.hidden = false;
    t.onclick = function () { t.hidden = true; };       // tap to dismiss
    clearTimeout(toast.timer);
    // a refusal that names the event to undo back to (a card credited to the wrong player) offers to do it
    var back = kind ? null : /undo back to (?:the go \()?event (\d+)/.exec(msg);
    if (back) {
      t.appendChild(h("button", { type: "button", id: "undo-back", cls: "primary",
        onclick: function (ev) { ev.stopPropagation(); t.hidden = true; undoBackTo(Number(back[1])); } },
        "Undo back to event " + back[1]));
    }
    toast.timer = setTimeout(function () { t.hidden = true; }, kind === "info" ? 2500 : back ? 30000 : 6000);
  }
  // undo every entry from event n on: one undo per live event, each made on top of the one before it
  function undoBackTo(n) {
    return call("GET", "/api/history").then(function (d) {
      var k = (d.events || []).filter(function (e) { return !e.undone && e.type !== "undo" && e.seq >= n; }).length;
      for (var i = 0; i < k; i++) command({ type: "undo" }).catch(function () {});
      if (k) toast("Undoing " + k + (k > 1 ? " entries" : " entry") + ", back to before event " + n, "info");
    }, function (e) { toast(e.message); });
  }
  function call(method, path, body, tries) {
    var opts = { method: method, headers: { "Accept": "application/json" }, credentials: "same-origin" };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.headers["X-CSRF-Token"] = S.session.csrf;
      opts.body = JSON.stringify(body);
    }
    tries = tries || 0;
    return fetch(path, opts).then(function (r) {
      return r.json().catch(function () { return { error: r.status + " " + r.statusText }; }).then(function (data) {
        if (!r.ok) { var e = new Error(data.error || ("error " + r.status)); e.status = r.status; e.data = data; throw e; }
        return data;
      });
    }, function (netErr) {
      // the network dropped: retry the same request (same client id, so it never scores twice)
      if (tries < 4) {
        return new Promise(function (res) { setTimeout(res, 400 * Math.pow(2, tries)); })
          .then(function () { return call(method, path, body, tries + 1); });
      }
      var e = new Error("no connection to the table");
      e.network = true;
      throw e;
    });
  }
  // Every command carries the state it was made from (if_seq): the table refuses it when it has moved on
  // (another phone entered something meanwhile), so a tap is never applied to a state its phone did not
  // show. Commands go out one at a time, in order; one tapped while an earlier one is still on its way was
  // made on top of it, so it carries the seq of that earlier command's event. An entry that cannot be sent
  // stays in the header as "not sent" with Send again / Drop: never silently lost, never re-aimed, and a
  // resend keeps its client id, so it never scores twice.
  function describe(cmd) {
    var c = cmd.card ? pretty(cmd.card) : "";
    switch (cmd.type) {
      case "play": return c + (cmd.player ? " for " + cmd.player : "");
      case "go": return (cmd.player ? cmd.player + "'s " : "") + "go";
      case "peg": return "+" + cmd.points + " for " + sideName(cmd.side);
      case "turnup": return "the turn-up " + c;
      case "show": return (cmd.player || S.table.hand && S.table.hand.expect_player || "the") + "'s hand";
      case "pocket": return "the " + (S.table.pocket_name || "pocket");
      case "place": return c + (cmd.crib ? " into the crib" : " on the grid");
      case "new_match": return "the new game";
      case "new_game": return "the next game";
      default: return cmd.type.replace("_", " ");
    }
  }
  function command(cmd) {
    cmd.client_id = cmd.client_id || newId();
    var entry = { cmd: cmd, label: describe(cmd), chained: S.queue.length > 0, state: "waiting" };
    if (!entry.chained) cmd.if_seq = S.table.seq;
    var done = new Promise(function (resolve, reject) { entry.resolve = resolve; entry.reject = reject; });
    S.queue.push(entry);
    if (S.queue.length === 1) sendHead(); else renderPending();
    return done;
  }
  function sendHead() {
    var e = S.queue[0];
    if (!e || e.state === "sending") return;
    e.state = "sending";
    renderPending();
    call("POST", "/api/command", e.cmd).then(function (data) {
      S.queue.shift();
      var t = $("toast");
      if (!t.hidden && !t.classList.contains("info")) t.hidden = true;   // the refusal was dealt with: clear it
      var next = S.queue[0];
      if (next && next.chained) next.cmd.if_seq = data.event.seq;       // made on top of this one
      take(data.table);
      renderPending();
      e.resolve(data);
      if (next) sendHead();
    }, function (err) {
      if (err.network) { e.state = "failed"; renderPending(); return; }
      // refused: this entry, and those made on top of it, are not entered; the phone shows the table as it is
      var dropped = S.queue.splice(0, S.queue.length);
      var after = dropped.length - 1;
      var more = after ? " (nor the " + (after > 1 ? after + " entries" : "entry") + " made after it)" : "";
      if (err.data && err.data.stale) {
        toast("Not entered: " + e.label + more + ". The table changed before it arrived (another phone or the " +
          "board entered something): look again, and enter it if it still stands.");
      } else {
        toast(err.message + (more ? " \u2014 not entered: " + e.label + more : ""));
      }
      if (err.data && err.data.table) take(err.data.table);
      S.whose = null;
      render();                      // back to a clean picker: the refused card is not half-entered
      renderPending();
      if (err.status === 403) refreshSession();
      dropped.forEach(function (d) { d.reject(err); });
    });
  }
  function retryPending() { if (S.queue.length && S.queue[0].state === "failed") sendHead(); }
  function dropPending() {
    var dropped = S.queue.splice(0, S.queue.length);
    renderPending();
    if (dropped.length) toast("Not entered: " + dropped.map(function (d) { return d.label; }).join(", "), "info");
    dropped.forEach(function (d) { var e = new Error("dropped"); e.dropped = true; d.reject(e); });
  }
  function renderPending() {
    var box = clear($("pending")), q = S.queue;
    show(box, q.length > 0);
    // card entry waits for the answer: the next card's player depends on it, so a card tapped on a screen
    // that is about to change is never sent (a manual peg or an undo may still queue up behind it)
    ["entry", "picker", "grid-box", "shows"].forEach(function (id) {
      $(id).inert = q.length > 0;
      $(id).classList.toggle("busy", q.length > 0);
    });
    if (!q.length) return;
    var failed = q[0].state === "failed", labels = q.map(function (d) { return d.label; }).join(", ");
    box.className = "pending" + (failed ? " failed" : "");
    box.appendChild(h("span", { id: "pending-text", text: failed
      ? "Not sent yet: " + labels + " (no connection to the table)"
      : "Sending " + labels + "\u2026" }));
    if (failed) {
      box.appendChild(h("button", { type: "button", id: "pending-retry", onclick: retryPending }, "Send again"));
      box.appendChild(h("button", { type: "button", id: "pending-drop", onclick: dropPending }, "Drop"));
    }
  }
  // the session as the server sees it; a claim or join in flight wins over a refresh that started before it
  var sessionGen = 0, sessionBusy = 0;
  function setSession(s) { sessionGen++; S.session = s; render(); }
  function refreshSession() {
    if (sessionBusy) return Promise.resolve();
    var gen = sessionGen;
    return call("GET", "/api/session").then(function (s) { if (gen === sessionGen && !sessionBusy) setSession(s); });
  }
  function changeSession(path, body) {
    sessionBusy++;
    return call("POST", path, body).then(function (s) { sessionBusy--; setSession(s); return s; },
      function (e) { sessionBusy--; throw e; });
  }

  // ---- live updates: SSE with heartbeat watchdog, reconnect and catch-up ----
  function connect() {
    if (S.es) S.es.close();
    var es = new EventSource("/api/events" + (S.table && S.table.match_id ? "?last=" + encodeURIComponent(S.table.match_id + ":" + S.table.seq) : ""));
    S.es = es;
    S.lastMsg = Date.now();
    es.onopen = function () { S.lastMsg = Date.now(); S.esTries = 0; setConn(true); };
    es.onmessage = function () { S.lastMsg = Date.now(); };
    es.addEventListener("state", function (ev) { S.lastMsg = Date.now(); setConn(true); take(JSON.parse(ev.data)); retryPending(); });
    es.addEventListener("access", function () { S.lastMsg = Date.now(); refreshSession(); });
    // a fault came or went (the table's store refused a write: a full disk...): the banner shows it
    es.addEventListener("faults", function () { S.lastMsg = Date.now(); refreshSession(); });
    es.addEventListener("ping", function () { S.lastMsg = Date.now(); setConn(true); });
    es.onerror = function () { setConn(false); };
  }
  var connTimer = null;
  function setConn(ok) {
    if (!ok && $("conn").textContent === "live") {
      // a stream that ends on schedule reconnects within its retry time: only say so if it takes longer
      if (!connTimer) connTimer = setTimeout(function () { connTimer = null; showConn(false); }, 2500);
      return;
    }
    clearTimeout(connTimer);
    connTimer = null;
    showConn(ok);
  }
  function showConn(ok, text) {
    var c = $("conn");
    c.textContent = ok ? "live" : (text || "reconnecting");
    c.className = "pill " + (ok ? "ok" : "warn");
  }
  setInterval(function () {
    if (S.es && S.es.readyState === 2) {
      // the stream was refused (503: every live stream of the table is taken) or failed: read the table
      // every 5 s meanwhile, and ask for a stream again after 5, 10, 15... up to 30 s (jittered)
      call("GET", "/api/table").then(function (t) { take(t); showConn(false, "polling"); }, function () {});
      if (Date.now() < (S.esNext || 0)) return;
      S.esTries = (S.esTries || 0) + 1;
      S.esNext = Date.now() + Math.min(30000, 5000 * S.esTries) * (0.8 + 0.4 * Math.random());
      connect();
    } else if (Date.now() - S.lastMsg > 40000) {
      // heartbeats arrive every 15 s; a silent minute means a dead connection the browser has not noticed
      setConn(false); connect();
    }
  }, 5000);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      if (!S.es || S.es.readyState === 2) connect();
      keepAwake();
      pollBoard();
    }
  });
  window.addEventListener("online", function () { connect(); retryPending(); });

  function take(snap) {
    if (!snap) return;
    var old = S.table;
    if (old && old.match_id === snap.match_id && snap.seq < old.seq) return;   // stale
    // a replaced match never comes back: an answer about it that arrives late (a POST answered after the
    // stream already brought the new match) must not put the old match back on the screen
    if (S.gone[snap.match_id]) return;
    if (old && old.match_id !== snap.match_id) S.gone[old.match_id] = true;
    S.table = snap;
    if (!old || old.seq !== snap.seq || old.match_id !== snap.match_id) {
      S.history = null;
      S.whose = null;                // a "whose card" question belongs to the state it was asked on,
      S.player = null;               // and so does a player picked by hand
      if (old && old.expect !== snap.expect) { S.tray = []; S.picked = null; S.gridSel = null; }
    }
    render();
    announce(old);
    pollBoard();
    if (S.view === "history") loadHistory();
  }

  // ---- board mirror ----
  var boardTimer = null, boardBusy = false;
  function pollBoard() {
    if (!S.session.board || S.boardMissing) return;
    clearTimeout(boardTimer);
    if (boardBusy) { boardTimer = setTimeout(pollBoard, 150); return; }
    boardBusy = true;
    fetch("/api/board", { credentials: "same-origin" }).then(function (r) {
      if (r.status === 404) { S.boardMissing = true; return null; }
      return r.ok ? r.json() : null;
    }).then(function (f) {
      boardBusy = false;
      clearTimeout(boardTimer);
      if (f) drawBoard(f);
      // the board draws a new state a moment after the page hears of it: look again soon until it has
      var behind = f && typeof f.seq === "number" && S.table && f.seq < S.table.seq;
      if (!S.boardMissing && document.visibilityState === "visible") boardTimer = setTimeout(pollBoard, behind || (f && f.animating) ? 150 : 1000);
    }, function () {
      boardBusy = false;
      clearTimeout(boardTimer);
      if (document.visibilityState === "visible") boardTimer = setTimeout(pollBoard, 2000);
    });
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
  function drawBoard(frame) {
    var b = $("board");
    var key = JSON.stringify(frame);
    if (key === S.board) return;
    S.board = key;
    clear(b);
    b.removeAttribute("hidden");          // an <svg> has no .hidden property
    var names = {};
    (frame.sides || []).forEach(function (sd) { names[sd.lane] = sd.name; });
    var laneKey = JSON.stringify(frame.sides || null);
    if (laneKey !== JSON.stringify(S.lanes)) { S.lanes = frame.sides || null; renderSides(); }
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

  // ---- announcements ----
  function sideName(id) {
    var s = (S.table.sides || []).filter(function (x) { return x.id === id; })[0];
    return s ? s.name : id;
  }
  // What was just said at the table: every score step of the newest event (a card can make a run and
  // then the point for last: two steps), and who said go. One phone hears of a change through its own
  // command, the others through the live stream: both go through take(), so every phone says the same.
  function newGos(oh, nh) {
    if (!oh || !nh || oh.hand_no !== nh.hand_no) return [];
    return (nh.gone || []).filter(function (n) { return (oh.gone || []).indexOf(n) < 0; });
  }
  function announce(old) {
    var t = S.table, key = t.match_id + ":" + t.seq;
    if (!S.ann || S.ann.key !== key) {
      var fresh = old && old.match_id === t.match_id && old.seq < t.seq;
      S.ann = { key: key, gos: fresh ? newGos(old.hand, t.hand) : [], steps: null };
      // a pegging event may have scored more than the one step the snapshot carries as "last"
      if (t.last && t.last.seq === t.seq && t.last.step === "pegging" && !(t.said && t.said.seq === t.seq)) {
        call("GET", "/api/history?since=" + t.seq).then(function (d) {
          var ev = (d.events || []).filter(function (e) { return e.seq === t.seq; })[0];
          if (ev && S.ann.key === key && (ev.steps || []).length > 1) { S.ann.steps = ev.steps; drawAnnounce(); }
        }, function () { /* the one step already shown stands */ });
      }
    }
    var said = drawAnnounce();
    if (old && key !== S.lastSaid && pref.speak && window.speechSynthesis && said) {
      try { speechSynthesis.cancel(); speechSynthesis.speak(new SpeechSynthesisUtterance(said)); } catch (e) { /* no voice */ }
    }
    S.lastSaid = key;
  }
  function stepWho(st) {
    var side = sideName(st.side), who = st.player && st.player !== side ? st.player : "";
    var by = !who ? "" : st.kind === "go" ? who + "'s go: " : st.kind === "last" ? who + "'s last card: "
      : st.kind === "play" ? who + " played: " : who + ": ";
    return st.points ? by + "+" + st.points + " to " + side : "";
  }
  function drawAnnounce() {
    var t = S.table, a = S.ann, el = clear($("announce")), lines = [];
    var current = t.last && t.last.seq === t.seq;
    var steps = a.steps || (t.last ? [t.last] : []);
    if (t.said && t.said.seq === t.seq) {
      lines = t.said.lines.slice();       // the table's own words (companion/announce.py), as the board speaks them
    } else if (a.gos.length && !(current && steps.some(function (st) { return st.kind === "go"; }))) {
      lines.push({ text: "go", who: a.gos.join(" and ") + " said go" });
    }
    if (!(t.said && t.said.seq === t.seq) && (current || !a.gos.length)) {
      steps.forEach(function (st) {
        var text = st.text || (st.points ? st.points + " points" : "");
        if (text) lines.push({ text: text, who: stepWho(st) });
      });
    }
    if (!lines.length) return "";
    var said = lines.map(function (l) { return l.text; }).join(", ");
    el.appendChild(document.createTextNode(said));
    var who = lines.map(function (l) { return l.who; }).filter(Boolean).join(" \u00b7 ");
    if (who) el.appendChild(h("span", { cls: "who", text: who }));
    return said + (who ? ". " + who.replace(/\+/g, "plus ") : "");
  }

  // ---- rendering ----
  function joined() { return S.session.role !== "visitor"; }
  function preset(name) { return S.presets.filter(function (p) { return p.name === name; })[0] || S.presets[0]; }

  function render() {
    var t = S.table, s = S.session;
    document.body.classList.toggle("four", pref.four);
    $("game-title").textContent = t.title || "Land's End";
    $("hand-no").textContent = t.game ? "game " + (t.game_no || 1) + (t.hand_no ? " \u00b7 hand " + t.hand_no : "") : "";
    $("role").textContent = s.role === "visitor" ? "watching" : s.role;
    var faults = s.faults || [];
    $("faults").textContent = faults.join(" \u00b7 ");
    show($("faults"), faults.length > 0);
    show($("claim-box"), s.role === "visitor" && s.claimable);
    show($("join-box"), s.role === "visitor" && !s.claimable);
    if (boot.prefill && !$("join-code").value) $("join-code").value = boot.prefill;
    renderSides();
    renderResult();
    renderEntry();
    $("undo").disabled = !joined() || t.can_undo === false;
    show($("undo"), joined());
    $("h-undo").disabled = $("undo").disabled;
    // the host sees the join code in the header until a second phone has joined
    show($("host-code"), s.role === "host" && !!s.join_code && (s.phones || 1) < 2);
    $("host-code").textContent = s.join_code ? "Join code " + s.join_code + " \u00b7 QR under More" : "";
    show($("h-import-label"), joined());
    show($("h-undo"), joined());
    show($("next-game"), joined() && !!t.result);   // inside the result, so it is in view with it
    $("next-game").textContent = t.result && t.series && t.series.kind !== "single" && t.series.over ? "New series" : "Next game";
    renderMore();
    $("ng-start").disabled = !joined();
    $("ng-start").textContent = joined() ? "Start" : "Join the table to start a game";
    if (S.view === "history" && S.history) renderHistory();
    keepAwake();
  }

  function renderSides() {
    var t = S.table, box = clear($("sides"));
    // the panels in the board's lane order (lane 1 first), so the mirror and the panels read alike
    var lane = {};
    (S.lanes || []).forEach(function (l) { lane[l.id] = l.lane; });
    var order = (t.sides || []).map(function (side, i) { return i; });
    order.sort(function (a, b) { return (lane[t.sides[a].id] || a) - (lane[t.sides[b].id] || b) || a - b; });
    order.forEach(function (i) {
      var side = t.sides[i];
      var chips = h("div", { cls: "chips" },
        t.dealer_side === i ? h("span", { cls: "chip dealer", text: "deals" }) : null,
        t.pocket_owner === i && t.pocket_owner !== t.dealer_side ? h("span", { cls: "chip", text: t.pocket_name || "pocket" }) : null,
        t.turn_side === i && t.turn ? h("span", { cls: "chip", text: t.turn + (t.expect === "place" ? " to place" : " to play") }) : null,
        side.house ? h("span", { cls: "chip", text: "house" }) : null,
        t.series && t.series.kind !== "single" ? h("span", { cls: "chip", text: (t.series.wins[side.id] || 0) + " won" }) : null);
      var pegs = null;
      if (joined() && !t.result) {
        pegs = h("div", { cls: "pegs" },
          h("button", { type: "button", "data-peg": side.id, onclick: function () { peg(side.id, 1); }, "aria-label": "peg 1 for " + side.name }, "+1"),
          h("button", { type: "button", "data-peg-2": side.id, onclick: function () { peg(side.id, 2); }, "aria-label": "peg 2 for " + side.name }, "+2"),
          h("button", { type: "button", "data-peg-n": side.id, onclick: function () { askN(side); }, "aria-label": "+N: peg a chosen number of points for " + side.name }, "+N"));
      }
      box.appendChild(h("div", { cls: "side" + (t.turn_side === i ? " turn" : ""), "data-side": side.id },
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
  function peg(side, n) { return command({ type: "peg", side: side, points: n }); }
  function askN(side) {
    S.pegSide = side.id;
    $("peg-n-label").textContent = "Points for " + side.name;
    show($("peg-n"), true);
    $("peg-n-value").focus();
  }

  function renderResult() {
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
    box.appendChild(h("table", null, h("tr", null, h("th", { text: "" }), h("th", { cls: "num", text: "score" }),
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

  // what card-entry step comes next, from the snapshot
  function hand() { return S.table.hand || {}; }
  function seenCards() {
    var t = S.table, hd = hand(), seen = {};
    (hd.seen || []).forEach(function (c) { seen[c] = 1; });
    if (t.turnup) seen[t.turnup] = 1;
    (t.count_cards || []).forEach(function (c) { seen[c] = 1; });
    S.tray.forEach(function (c) { seen[c] = 1; });
    return seen;
  }

  function renderEntry() {
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
    if (hd.muggins_open) {
      box.appendChild(h("button", { type: "button", id: "muggins", cls: "big",
        onclick: function () { command({ type: "muggins" }).catch(function () {}); } },
        "Muggins! " + hd.muggins_open.who + " under-claimed"));
    }
    playClaimRow(box);
    box.appendChild(stepEl(exp));
    if (exp === "turnup") {
      picker(function (card) { command({ type: "turnup", card: card }).catch(function () {}); });
      if (preset(t.game).grid) renderGrid(box);
    } else if (exp === "play") {
      box.appendChild(countEl());
      var turn = hd.expect_player || t.turn;
      if (!S.player || (hd.cards_left || {})[S.player] === 0) S.player = null;
      var who = S.player || turn;
      // near 31 the player to play may be unable to play: then their go comes first, and a card tapped without
      // a player picked asks whose it is (one tap), so a forgotten go never credits the card to the wrong player
      var mightGo = !S.player && hd.can_go === true;
      var row = h("div", { cls: "row seg", role: "group", "aria-label": "who plays" });
      var goBtn = h("button", { type: "button", id: "go", cls: "go" + (mightGo ? " primary" : ""),
        disabled: !S.player && hd.can_go === false ? true : null,
        onclick: function () {
          command({ type: "go", player: who }).then(function () { S.player = null; }, function () {});
        } }, who + " says go");
      if (mightGo) row.appendChild(goBtn);
      (t.players || []).forEach(function (p) {
        var left = (hd.cards_left || {})[p];
        row.appendChild(h("button", { type: "button", "data-player": p, cls: p === who ? "on" : null, disabled: left === 0 ? true : null,
          onclick: function () { S.player = p === turn ? null : p; S.whose = null; render(); } }, p + (left !== undefined ? " (" + left + ")" : "")));
      });
      if (!mightGo) row.appendChild(goBtn);
      var play = function (card, player) {
        S.whose = null;
        command({ type: "play", card: card, player: player }).then(function () { S.player = null; render(); }, function () {});
      };
      // the row rides on top of the picker (fixed above the tab bar), so go is always in reach beside the cards
      if (S.whose && mightGo) { whoseEl(S.whose, turn, play, row); return; }
      picker(function (card) {
        if (mightGo) { S.whose = card; render(); return; }
        play(card, who);
      }, null, null, 31 - (t.count || 0), row);
    } else if (exp === "show" || exp === "pocket") {
      var need = exp === "pocket" ? 4 : (preset(t.game).held || 4);
      var name = hd.expect_player;
      var played = exp === "show" ? ((hd.plays || {})[name] || []) : [];
      var claim = (t.options || {}).claim_mode;
      var withClaim = function (cmd) {
        if (claim) cmd.claimed = Number($("claimed").value);
        return cmd;
      };
      if (claim) {
        box.appendChild(h("label", null, name + " claims", claimInput("claimed"), "points"));
      }
      if (exp === "show" && played.length === need) {
        box.appendChild(cardsEl(played));
        box.appendChild(h("button", { type: "button", cls: "big primary", id: "count-known",
          onclick: function () { command(withClaim({ type: "show" })).catch(function () {}); } }, "Count " + name + "'s hand"));
        picker(null);
        return;
      }
      if (S.trayFor !== exp + name) { S.tray = played.slice(); S.trayFor = exp + name; }
      box.appendChild(trayEl(need));
      box.appendChild(h("div", { cls: "row" },
        h("button", { type: "button", onclick: function () { S.tray = played.slice(); render(); } }, "Clear"),
        h("button", { type: "button", cls: "primary", id: "tray-go", disabled: S.tray.length !== need ? true : null,
          onclick: function () {
            command(withClaim({ type: exp, cards: S.tray.slice() })).then(function () { S.tray = []; S.trayFor = null; render(); }, function () {});
          } }, exp === "show" ? "Count " + name + "'s hand" : "Count the " + (t.pocket_name || "pocket"))));
      picker(function (card) { if (S.tray.length < need) { S.tray.push(card); render(); } });
    } else if (exp === "place") {
      renderGrid(box);
    } else if (exp === "claim") {
      // claim mode on a tabletop grid: the next line, claimed by its owner (L8)
      var line = (hd.to_claim || [])[0] || {};
      box.appendChild(claimEl("line-claimed", (hd.expect_player || "") + " claims", "for " + (line.label || "the next line"),
        "line-claim", function (n) { return { type: "claim", points: n }; }));
      renderGrid(box);
      picker(null);
    } else {
      picker(null);
    }
  }
  // claim mode: a number box that keeps what was typed while the table stays at the same seq (a snapshot
  // arriving from the live stream redraws the page and must not put a half-typed claim back to 0)
  function claimInput(inputId) {
    var key = inputId + ":" + S.table.match_id + ":" + S.table.seq;
    var input = h("input", { id: inputId, type: "number", min: "0", max: "29", inputmode: "numeric",
      value: S.claimDraft && S.claimDraft.key === key ? S.claimDraft.value : "0" });
    input.addEventListener("input", function () { S.claimDraft = { key: key, value: input.value }; });
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
  // claim mode in the matching phase: after every card or go, whoever is credited with what it made claims it
  // (the row is there whether the card made points or not: the page never says that points are due)
  function playClaimRow(box) {
    var co = hand().claim_open;
    if (!co) return;
    var next = (co.sides || []).filter(function (x) { return x.claimed === null && !x.called; })[0];
    if (!next) return;
    box.appendChild(claimEl("play-claimed", next.who + " claims", "for " + (co.after === "go" ? "the go" : pretty(co.after)),
      "play-claim", function (n) { return { type: "claim", side: next.side, points: n }; }));
  }
  // "whose card is it?": the player to play first, then each later player still in the count (those between
  // said go); one tap enters the card for that player
  function whoseEl(card, turn, play, head) {
    var t = S.table, hd = hand(), box = $("picker"), players = (t.players || []).slice();
    if ((t.options || {}).direction === "ccw") players.reverse();
    var i0 = players.indexOf(turn), order = players.slice(i0).concat(players.slice(0, i0));
    var between = [];
    clear(box);
    show(box, true);
    if (head) box.appendChild(head);
    box.appendChild(h("p", { cls: "whose-q", id: "whose-q" }, "Whose card is ", cardEl(card), "?"));
    var row = h("div", { cls: "whose", id: "whose" });
    order.forEach(function (p) {
      if ((hd.cards_left || {})[p] === 0 || (hd.gone || []).indexOf(p) >= 0) return;
      var note = between.length ? " (" + between.join(" and ") + " said go)" : "";
      // both answers look alike: neither is offered as the default, since the default was the silent mistake
      row.appendChild(h("button", { type: "button", "data-whose": p,
        onclick: function () { play(card, p); } }, p + "'s" + note));
      between.push(p);
    });
    row.appendChild(h("button", { type: "button", id: "whose-cancel", onclick: function () { S.whose = null; render(); } }, "Cancel"));
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
  function countEl() {
    var t = S.table;
    return h("div", { cls: "countrow" }, h("div", { cls: "count", id: "count", text: String(t.count || 0) }), cardsEl(t.count_cards));
  }
  function trayEl(need) {
    var tray = h("div", { cls: "tray", id: "tray" });
    S.tray.forEach(function (c, i) {
      var b = h("button", { type: "button", cls: "card", title: "remove", "aria-label": "remove " + cardLabel(c), onclick: function () { S.tray.splice(i, 1); render(); } }, pretty(c));
      var sp = split(c); if (sp.suit === "H" || sp.suit === "D") b.classList.add("red");
      tray.appendChild(b);
    });
    for (var i = S.tray.length; i < need; i++) tray.appendChild(h("span", { cls: "slot" + (i === S.tray.length ? " target" : ""), text: "?" }));
    return tray;
  }

  // ---- the card picker: rank, then suit (two taps, each at least 44 px) ----
  function picker(onPick, target, seenOverride, room, head) {
    var box = target || $("picker");
    clear(box);
    if (!onPick) { show(box, false); if (!target) padForPicker(); return; }
    show(box, true);
    if (head) box.appendChild(head);
    var seen = seenOverride || seenCards();
    var sel = target ? box._picked : S.picked;
    if (sel && room !== undefined && cardValue(sel + "S") > room) sel = null;
    var ranks = h("div", { cls: "ranks" });
    RANKS.forEach(function (r) {
      // a card that would take the count past 31 is greyed like a card already out
      var all = SUITS.every(function (s) { return seen[r + s]; }) || (room !== undefined && cardValue(r + "S") > room);
      ranks.appendChild(h("button", { type: "button", "data-rank": r, cls: sel === r ? "sel" : null, disabled: all ? true : null,
        "aria-label": all && room !== undefined && cardValue(r + "S") > room ? r + ": over 31" : RANK_NAME[r] ? r + ", " + RANK_NAME[r] : null,
        "aria-pressed": sel === r ? "true" : "false",
        onclick: function () { if (target) box._picked = r; else S.picked = r; picker(onPick, target, seenOverride, room, head); } }, r));
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
        onclick: function () { if (target) box._picked = null; else S.picked = null; onPick(card); } }, sel + SYM[s]));
    });
    box.appendChild(suits);
    if (!target) padForPicker();
  }
  // the table's picker is fixed above the tab bar (the thumb's reach, and still while the page above it changes);
  // the page gets room at the bottom so nothing hides under it
  function padForPicker() {
    var p = $("picker"), on = S.view === "table" && !p.hidden;
    document.body.style.paddingBottom = on ? "calc(" + (p.offsetHeight + 72) + "px + env(safe-area-inset-bottom))" : "";
  }

  // ---- tabletop: the 5x5 grid ----
  function flatGrid(g) { var out = []; (g || []).forEach(function (row) { out = out.concat(row); }); while (out.length < 25) out.push(null); return out; }
  function touches(cells, i) {
    var r = Math.floor(i / 5), c = i % 5;
    for (var dr = -1; dr <= 1; dr++) for (var dc = -1; dc <= 1; dc++) {
      var rr = r + dr, cc = c + dc;
      if ((dr || dc) && rr >= 0 && rr < 5 && cc >= 0 && cc < 5 && cells[rr * 5 + cc]) return true;
    }
    return false;
  }
  function renderGrid(box) {
    var t = S.table, hd = hand(), g = $("grid-box"), p = preset(t.game);
    var grid = flatGrid(hd.grid);
    var layoutMode = !!S.layout;
    var cells = layoutMode ? S.layout : grid;
    var placing = t.expect === "place" && !layoutMode;
    clear(g);
    show(g, true);
    // who owns what: the non-dealer the rows, the dealer the columns (T1, G3)
    var ds = t.dealer_side, sides = t.sides || [];
    var colOwner = sides[ds] ? sides[ds].name : "", rowOwner = sides.filter(function (sd, i) { return i !== ds; }).map(function (sd) { return sd.name; }).join(", ");
    g.appendChild(h("div", { cls: "owners", id: "grid-owners" },
      h("span", { id: "rows-owner" }, "Rows \u2192 ", h("strong", { text: rowOwner })),
      h("span", { id: "cols-owner" }, "Columns \u2193 ", h("strong", { text: colOwner }))));
    var el = h("div", { cls: "grid5", id: "grid" });
    for (var i = 0; i < 25; i++) {
      (function (i) {
        var c = cells[i];
        var legal = layoutMode || (placing && !c && !hd.must_crib && (hd.placement !== "adjacent" || touches(cells, i)));
        var cls = (c ? "filled" + (/[HD]$/.test(c) ? " red" : "") : "") + (S.gridSel === i ? " sel" : "") + (i === 12 ? " center" : "");
        el.appendChild(h("button", { type: "button", cls: cls, "data-cell": i, disabled: legal ? null : true,
          "aria-label": "row " + (Math.floor(i / 5) + 1) + " (" + rowOwner + "), column " + (i % 5 + 1) + " (" + colOwner + ")" + (c ? ": " + cardLabel(c) : ""),
          onclick: function () {
            S.gridSel = i; render();
            // keep the chosen cell in sight above the card picker that has just opened over the grid's foot
            var cell = document.querySelector("[data-cell='" + i + "']");
            if (cell && cell.scrollIntoView) cell.scrollIntoView({ block: "nearest" });
          } }, c ? pretty(c) : ""));
      })(i);
    }
    g.appendChild(el);
    if (p.grid_crib) {
      var crib = layoutMode ? S.layoutCrib : [];
      g.appendChild(h("div", { cls: "row" },
        h("span", { text: "Crib: " + (layoutMode ? "" : (hd.crib_count || 0) + " of " + p.grid_crib) }), layoutMode ? cardsEl(crib) : null,
        (placing || layoutMode) ? h("button", { type: "button", id: "to-crib", cls: S.gridSel === "crib" || hd.must_crib ? "on" : null,
          onclick: function () { S.gridSel = "crib"; render(); } }, "Into the crib") : null));
    }
    var canLayout = layoutMode || (!(hd.places || []).length && (t.expect === "place" || t.expect === "turnup"));
    g.appendChild(h("div", { cls: "row" },
      canLayout ? h("button", { type: "button", id: "layout-toggle", onclick: function () {
        S.layout = layoutMode ? null : grid.slice();
        S.layoutCrib = []; S.gridSel = null; render();
      } }, layoutMode ? "Card by card" : "Enter the final layout") : null,
      layoutMode ? h("button", { type: "button", cls: "primary", id: "layout-go",
        disabled: S.layout.filter(Boolean).length !== 25 || S.layoutCrib.length !== (p.grid_crib || 0) ? true : null,
        onclick: function () {
          command({ type: "layout", cards: S.layout, crib: S.layoutCrib }).then(function () { S.layout = null; render(); }, function () {});
        } }, "Count the layout") : null));
    if (hd.must_crib && placing) S.gridSel = "crib";
    var seen = seenCards();
    (layoutMode ? S.layout.concat(S.layoutCrib) : []).forEach(function (c) { if (c) seen[c] = 1; });
    if (S.gridSel === null || S.gridSel === undefined) {
      if (t.expect !== "turnup" || layoutMode) picker(null);
      return;
    }
    picker(function (card) {
      if (layoutMode) {
        if (S.gridSel === "crib") S.layoutCrib.push(card); else S.layout[S.gridSel] = card;
        S.gridSel = null; render();
      } else {
        var cmd = S.gridSel === "crib" ? { type: "place", card: card, crib: true }
          : { type: "place", card: card, row: Math.floor(S.gridSel / 5), col: S.gridSel % 5 };
        command(cmd).then(function () { S.gridSel = null; render(); }, function () {});
      }
    }, null, seen);
  }

  // ---- more: share, ledger, simulator, settings ----
  function renderMore() {
    var s = S.session, t = S.table;
    show($("share"), joined() && !!s.join_code);
    if (joined() && s.join_code) {
      $("share-code").textContent = s.join_code;
      var src = "/qr.svg?e=" + s.epoch + "-" + s.join_code;
      if ($("share-qr").getAttribute("src") !== src) $("share-qr").setAttribute("src", src);
    }
    var led = clear($("ledger")), here = t.players || [];
    var names = Object.keys(t.ledger || {}).filter(function (n) { return t.ledger[n] || here.indexOf(n) >= 0; });
    if (!names.length) led.appendChild(h("tr", null, h("td", { cls: "muted", text: "No stakes settled yet." })));
    names.forEach(function (n) {
      var v = t.ledger[n];
      led.appendChild(h("tr", null, h("td", { text: n }), h("td", { cls: "num " + (v > 0 ? "plus" : v < 0 ? "minus" : ""), "data-ledger": n, text: (v > 0 ? "+" : "") + v })));
    });
    show($("sim"), !!s.sim);
  }

  // ---- history ----
  function loadHistory() {
    call("GET", "/api/history").then(function (d) { S.history = d.events; renderHistory(); }, function (e) { toast(e.message); });
  }
  function renderHistory() {
    var box = clear($("h-list")), evs = S.history || [], keys = [], groups = [], cur = null, next = null, game = 1;
    // an event belongs to the hand of its score steps; one without steps (a turn-up, a go) to the next that has them
    for (var i = evs.length - 1; i >= 0; i--) {
      var st = evs[i].steps || [];
      if (evs[i].type === "new_match" || evs[i].type === "new_game") { keys[i] = null; next = null; continue; }
      if (st.length) next = "Game " + st[0].game + ", hand " + st[0].hand;
      keys[i] = next;
    }
    evs.forEach(function (ev, i) {
      if (ev.type === "new_match") game = 1;
      if (ev.type === "new_game" && !ev.undone) game += 1;
      var key = keys[i] || (ev.type === "new_match" ? "New match" : ev.type === "new_game" ? "Game " + game : "Game " + game + ", next hand");
      if (!cur || cur.key !== key) { cur = { key: key, items: [] }; groups.push(cur); }
      cur.items.push(ev);
    });
    groups.forEach(function (g) {
      box.appendChild(h("div", { cls: "hist-hand" }, h("h3", { text: g.key }), g.items.map(histEvent)));
    });
    if (!groups.length) box.appendChild(h("p", { cls: "muted", text: "Nothing yet." }));
  }
  function histEvent(ev) {
    var what = ev.type.replace("_", " ");
    if (ev.card) what += " " + pretty(ev.card);
    if (ev.cards && ev.cards.length) what += " " + ev.cards.filter(Boolean).map(pretty).join(" ");
    if (ev.player && ev.type !== "new_match") what = ev.player + ": " + what;
    if (ev.gos && ev.gos.length) what = ev.gos.join(", ") + " said go; " + what;
    if (ev.type === "peg") what = sideName(ev.side) + " pegs " + ev.points;
    if (ev.type === "new_match") what = "new match: " + (ev.players || []).join(", ") + (ev.stake ? " \u00b7 stake " + ev.stake : "");
    if (ev.type === "undo") what = "undo (event " + ev.undoes + ")";
    if (ev.type === "layout") what = "layout of 25 cards" + (ev.crib && ev.crib.length ? " and the crib" : "");
    // each event with its number: the table names them when a card must be undone back to
    var el = h("div", { cls: "hist-ev" + (ev.undone ? " undone" : ""), "data-seq": ev.seq },
      h("div", null, h("span", { cls: "seq muted", text: "#" + ev.seq + " " }), cardWords(what)));
    (ev.steps || []).forEach(function (st) {
      var line = h("div", { cls: "breakdown" },
        st.points ? h("span", { cls: "pts", text: "+" + st.points + " " + sideName(st.side) }) : null,
        h("span", { cls: "said", text: st.text || st.kind }));
      if (st.items && st.items.length) {
        line.appendChild(h("ol", null, st.items.map(function (it) {
          return h("li", null, it.kind + " " + (it.cards || []).map(pretty).join(" ") + " \u2014 " + it.points);
        })));
      }
      el.appendChild(line);
    });
    return el;
  }

  // ---- new game form ----
  function fillGames(sel) {
    S.presets.forEach(function (p) { sel.appendChild(h("option", { value: p.name, text: p.title })); });
  }
  function ngPreset() { return preset($("ng-game").value); }
  function ngSeats() {
    var p = ngPreset(), n = Number($("ng-players").value) || p.players;
    return n - (p.house && p.house_plays ? 1 : 0);
  }
  function renderNew() {
    var p = ngPreset();
    $("ng-start").disabled = !joined();
    $("ng-start").textContent = joined() ? "Start" : "Join the table to start a game";
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
  function renderDealer() {
    var sel = $("ng-dealer"), keep = sel.value, p = ngPreset();
    clear(sel);
    if (p.house) { sel.appendChild(h("option", { value: "", text: "The house deals" })); sel.disabled = true; return; }
    sel.disabled = false;
    sel.appendChild(h("option", { value: "", text: "Cut for it" }));
    ngNames().forEach(function (n) { sel.appendChild(h("option", { value: n, text: n, selected: n === keep ? true : null })); });
  }
  function ngNames() { return Array.prototype.map.call($("ng-names").querySelectorAll("input"), function (i) { return i.value.trim(); }); }
  function submitNew(ev) {
    ev.preventDefault();
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
      S.tray = []; S.layout = null; go("table");
      var cut = d.event && d.event.cut;
      // a cut the companion made lists the cards; with a named first dealer in five-card it only says who cut high (F1)
      toast(!cut ? "New game: " + p.title : cut.cards ? "Cut for deal: " + Object.keys(cut.cards).map(function (n) {
        return n + " " + pretty(cut.cards[n]); }).join(", ") + " \u2014 " + cut.dealer + " deals"
        : cut.dealer + " deals; " + cut.high + " cut high", "info");
    }, function () {});
  }

  // ---- quick count ----
  function renderQuick() {
    var q = S.qc, p = preset($("qc-game").value);
    // a tabletop game's "hand" is one row or column: 5 cards, no turn-up, counted by the line rules
    var line = p.grid && q.kind === "hand";
    if (p.grid && !p.grid_crib && q.kind === "crib") q.kind = "hand", line = true;
    Array.prototype.forEach.call(document.querySelectorAll("[data-qc-kind]"), function (b) {
      b.classList.toggle("on", b.dataset.qcKind === q.kind);
      if (b.dataset.qcKind === "hand") b.textContent = p.grid ? "Row / column" : "Hand";
      else show(b, !p.grid || !!p.grid_crib);
    });
    var need = line ? 5 : q.kind === "crib" ? 4 : (p.held || 4);
    var slots = clear($("qc-slots"));
    q.cards.forEach(function (c, i) {
      slots.appendChild(h("button", { type: "button", cls: "card" + (/[HD]$/.test(c) ? " red" : ""), "aria-label": "remove " + cardLabel(c), onclick: function () { q.cards.splice(i, 1); renderQuick(); } }, pretty(c)));
    });
    for (var i = q.cards.length; i < need; i++) slots.appendChild(h("span", { cls: "slot" + (i === q.cards.length ? " target" : ""), text: "?" }));
    if (line) q.starter = null;
    else {
      slots.appendChild(h("span", { cls: "muted", text: " turn-up " }));
      slots.appendChild(q.starter ? h("button", { type: "button", cls: "card" + (/[HD]$/.test(q.starter) ? " red" : ""), id: "qc-starter",
        "aria-label": "turn-up " + cardLabel(q.starter) + ": remove",
        onclick: function () { q.starter = null; renderQuick(); } }, pretty(q.starter)) : h("span", { cls: "slot" + (q.cards.length >= need ? " target" : ""), text: "?" }));
    }
    var seen = {}, ready = function () { return q.cards.length === need && (line || q.starter); };
    q.cards.concat(q.starter ? [q.starter] : []).forEach(function (c) { seen[c] = 1; });
    $("qc-go").disabled = !ready();
    picker(function (card) {
      if (q.cards.length < need) q.cards.push(card); else if (!line && !q.starter) q.starter = card;
      renderQuick();
      if (ready()) quickCount();
    }, $("qc-picker"), seen);
  }
  function quickCount() {
    var q = S.qc, p = preset($("qc-game").value), params = "game=" + encodeURIComponent(p.name);
    if (p.grid && q.kind === "hand") params += "&line=" + encodeURIComponent(q.cards.join(","));
    else params += "&hand=" + encodeURIComponent(q.cards.join(",")) + "&starter=" + encodeURIComponent(q.starter) + "&crib=" + (q.kind === "crib" ? "1" : "0");
    call("GET", "/api/quick?" + params).then(function (b) {
      var r = clear($("qc-result"));
      r.appendChild(h("div", { cls: "total", id: "qc-total", text: b.total + " points" }));
      r.appendChild(h("div", { cls: "said", text: b.text }));
      r.appendChild(h("ol", null, b.items.map(function (it) {
        return h("li", null, it.kind + " ", it.cards.map(function (c) { return cardEl(c); }), " \u2014 " + it.points);
      })));
    }, function (e) { toast(e.message); });
  }

  // ---- wake lock: keep the screen on during a game where the browser allows it ----
  function keepAwake() {
    var want = pref.awake && document.visibilityState === "visible" && S.table.game && !S.table.result;
    if (!("wakeLock" in navigator)) {
      $("awake-note").textContent = pref.awake ? "This browser does not let pages keep the screen on over plain http; set the phone's screen timeout longer." : "";
      return;
    }
    if (want && !S.wake) {
      navigator.wakeLock.request("screen").then(function (l) { S.wake = l; l.addEventListener("release", function () { S.wake = null; }); }, function () {});
    } else if (!want && S.wake) { S.wake.release(); S.wake = null; }
  }

  // ---- navigation ----
  function go(view) {
    S.view = view;
    Array.prototype.forEach.call(document.querySelectorAll("[data-view]"), function (sec) { sec.hidden = sec.dataset.view !== view; });
    Array.prototype.forEach.call(document.querySelectorAll("[data-tab]"), function (b) { b.classList.toggle("on", b.dataset.tab === view); });
    if (view === "history") loadHistory();
    if (view === "count") renderQuick();
    if (view === "new") renderNew();
    padForPicker();
    window.scrollTo(0, 0);
  }

  // ---- wiring ----
  Array.prototype.forEach.call(document.querySelectorAll("[data-tab]"), function (b) { b.addEventListener("click", function () { go(b.dataset.tab); }); });
  $("claim").addEventListener("click", function () {
    changeSession("/api/claim", {}).then(function (s) { go("new"); toast("You host this table. Join code " + s.join_code, "info"); }, function (e) { toast(e.message); refreshSession(); });
  });
  function joinWith(code) {
    return changeSession("/api/join", { code: code }).then(function () { toast("Joined: you can enter cards now", "info"); }, function (e) { toast(e.message); });
  }
  $("join-form").addEventListener("submit", function (ev) { ev.preventDefault(); joinWith($("join-code").value.trim()); });
  // the QR code's link carries the code: scanning it joins at once, with no code to type or button to find
  if (boot.prefill && S.session.role === "visitor" && !S.session.claimable) joinWith(boot.prefill);
  if (boot.prefill && window.history && history.replaceState) history.replaceState(null, "", "/");
  $("undo").addEventListener("click", function () { command({ type: "undo" }).catch(function () {}); });
  $("h-undo").addEventListener("click", function () { command({ type: "undo" }).catch(function () {}); });
  $("next-game").addEventListener("click", function () { command({ type: "new_game" }).catch(function () {}); });
  $("peg-n-go").addEventListener("click", function () {
    var n = Number($("peg-n-value").value);
    peg(S.pegSide, n).then(function () { show($("peg-n"), false); }, function () {});
  });
  $("peg-n-cancel").addEventListener("click", function () { show($("peg-n"), false); });
  $("new-form").addEventListener("submit", submitNew);
  $("ng-game").addEventListener("change", renderNew);
  $("ng-players").addEventListener("change", renderNew);
  $("ng-series").addEventListener("change", function () { show($("ng-n-wrap"), $("ng-series").value !== "single"); });
  fillGames($("ng-game"));
  fillGames($("qc-game"));
  if (S.table.game) { $("ng-game").value = S.table.game; $("qc-game").value = S.table.game; }
  $("qc-game").addEventListener("change", function () { S.qc.cards = []; S.qc.starter = null; clear($("qc-result")); renderQuick(); });
  Array.prototype.forEach.call(document.querySelectorAll("[data-qc-kind]"), function (b) {
    b.addEventListener("click", function () {
      S.qc.kind = b.dataset.qcKind; S.qc.cards = []; S.qc.starter = null; clear($("qc-result"));
      renderQuick();
    });
  });
  $("qc-clear").addEventListener("click", function () { S.qc.cards = []; S.qc.starter = null; clear($("qc-result")); renderQuick(); });
  $("qc-go").addEventListener("click", quickCount);
  $("h-import").addEventListener("change", function () {
    var f = this.files[0];
    if (!f) return;
    f.text().then(function (txt) {
      var rec;
      try { rec = JSON.parse(txt); } catch (e) { toast("that file is not JSON"); return; }
      return call("POST", "/api/import", { record: rec }).then(function (d) { take(d.table); toast("Record imported", "info"); });
    }).catch(function (e) { toast(e.message); });
    this.value = "";
  });
  function simPress(body, done) {
    fetch("/api/sim/press", { method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body) })
      .then(function (r) { return r.json(); }).then(function (d) {
        if (d.error) toast(d.error); else { if (d.table) take(d.table); if (done) done(); }
      }, function () { toast("no connection to the table"); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("[data-sim]"), function (b) {
    b.addEventListener("click", function () { simPress({ button: b.dataset.sim, hold: $("sim-hold").checked }); });
  });
  // the board's root of trust, simulated: the menu button held 5 s makes every phone join again
  $("sim-release").addEventListener("click", function () {
    simPress({ button: "menu", seconds: 5.5 }, function () { refreshSession(); toast("Table released: the next phone to host it takes it", "info"); });
  });
  [["set-four", "four"], ["set-speak", "speak"], ["set-awake", "awake"]].forEach(function (pair) {
    var el = $(pair[0]);
    el.checked = pref[pair[1]];
    el.addEventListener("change", function () { pref[pair[1]] = el.checked; store("le." + pair[1], el.checked ? "1" : "0"); render(); });
  });

  render();
  announce(null);
  connect();
  pollBoard();
})();
