// The live game page of `roundtable serve` (ui/server.py): the start form, then the table as
// your seat sees it (drawn by table.js, like the replay viewer), your legal moves as buttons,
// the opponents' moves one at a time, and at the end the scores and the record.
// It talks only to its own server's JSON API (docs/serve.md).
"use strict";
let CATALOG = null, GAME = null, VIEW = null;

function $(id) { return document.getElementById(id); }
function setState(state) { document.body.dataset.state = state; }
function showError(message) {
  $("error").textContent = message;
  $("error").classList.toggle("hidden", !message);
}
async function api(method, path, body) {
  const init = {method, headers: {}};
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({error: "the server answered " + response.status}));
  if (!response.ok) throw new Error(data.error || ("the server answered " + response.status));
  return data;
}
function sleep(ms) { return new Promise(resolve => setTimeout(resolve, ms)); }

// -- the start form ---------------------------------------------------------------------------
function gameEntry() { return CATALOG.games.find(g => g.game === $("game").value); }
/** The seats as the person sitting at ``me`` names them (the catalog's words): "West"… */
function positions(n, me) {
  const words = CATALOG.positions[String(n)];
  return Array.from({length: n}, (_, s) => words[(s - me + n) % n]);
}
function ordinalWord(k) {
  return ["first", "second", "third", "fourth", "fifth", "sixth"][k] || ("number " + (k + 1));
}
/** The start page's list of games: what each is, how long it takes, a link to its rules. */
function drawGames() {
  const list = $("games");
  list.replaceChildren();
  CATALOG.games.forEach(g => {
    const li = el("li");
    li.appendChild(el("b", null, g.title));
    li.appendChild(document.createTextNode(" \u2014 " + g.about + " "));
    li.appendChild(el("span", "length", "(" + g.length + ") "));
    const rules = el("a", null, "rules");
    rules.href = g.rules;
    rules.target = "_blank";
    rules.rel = "noopener";
    rules.setAttribute("aria-label", "the rules of " + g.title);
    li.appendChild(rules);
    list.appendChild(li);
  });
}
function fillSizes() {
  const entry = gameEntry(), select = $("numPlayers"), keep = Number(select.value);
  select.replaceChildren();
  entry.players.forEach(n => select.appendChild(new Option(String(n), String(n))));
  select.value = String(entry.players.includes(keep) ? keep : entry.default_players);
  fillSeats();
}
function fillSeats() {
  const n = Number($("numPlayers").value), seat = $("seat"), keep = Number(seat.value || 0);
  seat.replaceChildren();
  for (let s = 0; s < n; s++) {
    seat.appendChild(new Option(s === 0 ? "first to play" : ordinalWord(s) + " to play", String(s)));
  }
  seat.value = String(Math.min(keep, n - 1));
  fillOpponents();
}
function fillOpponents() {
  const n = Number($("numPlayers").value), me = Number($("seat").value);
  const box = $("opponents"), entry = gameEntry();
  const old = [...box.querySelectorAll("select")].map(s => s.value);
  box.querySelectorAll("label").forEach(l => l.remove());
  for (let k = 1; k < n; k++) {
    const label = el("label", null, positions(n, me)[(me + k) % n]);
    const select = el("select", "opponent");
    entry.opponents.forEach(o => select.appendChild(new Option(o.label, o.id)));
    select.value = old[k - 1] && entry.opponents.some(o => o.id === old[k - 1])
      ? old[k - 1] : entry.opponents[0].id;
    label.appendChild(select);
    box.appendChild(label);
  }
}
async function start(ev) {
  ev.preventDefault();
  showError("");
  const body = {
    game: $("game").value, num_players: Number($("numPlayers").value),
    seat: Number($("seat").value),
    opponents: [...document.querySelectorAll("#opponents select")].map(s => s.value),
  };
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  setState("busy");
  try {
    const created = await api("POST", "/api/games", body);
    GAME = created.id;
    history.replaceState(null, "", "#" + GAME);
    $("start").classList.add("hidden");
    $("board").classList.remove("hidden");
    $("log").replaceChildren();
    await showView(created.view);
  } catch (err) {
    showError(err.message);
    setState("start");
  }
}

// -- the game -----------------------------------------------------------------------------------
function logEntry(text, events, cls) {
  const li = el("li", cls || "");
  if (text) li.appendChild(el("span", "mv", text));
  events.forEach(e => li.appendChild(el("div", "ev" + (e.private ? " private" : ""), e.text)));
  $("log").prepend(li);
  while ($("log").children.length > 300) $("log").lastChild.remove();
}
async function showView(view) {
  VIEW = view;
  setState("busy");
  const game = CATALOG.games.find(g => g.game === view.game);
  $("title").textContent = game ? game.title : view.game;
  $("sub").textContent = view.num_players + " players \u00b7 you against " +
    view.players.filter((_, s) => s !== view.seat).join(", ");
  $("moves").replaceChildren(el("div", "waiting", "the others are playing\u2026"));
  $("hint").classList.add("hidden");
  // what happened since the last view, one move at a time
  const pace = Number($("pace").value);
  for (const m of view.moves) {  // the deal (player null), then every move since
    logEntry(m.text,
             m.events.map(text => ({text, private: false})),
             m.player === view.seat ? "mine" : "");
    if (m.player !== null && m.player !== view.seat && pace > 0) {
      drawTable(m.table, view.players, view.seat);
      await sleep(pace);
    }
  }
  drawTable(view.table, view.players, view.seat);
  document.body.dataset.step = view.step;
  if (view.phase_about) logEntry("", [{text: "New: " + view.phase_about, private: false}], "phase");
  $("phaseAbout").textContent = view.phase_about ? "New: " + view.phase_about : "";
  $("phaseAbout").classList.toggle("hidden", !view.phase_about);
  if (view.over) { showEnd(view); return; }
  drawMoves(view);
  setState("mine");
  if ($("hintToggle").checked) await showHint();
}
function drawMoves(view) {
  const box = $("moves");
  box.replaceChildren();
  $("turnTitle").textContent = "Your move";
  view.legal.forEach(a => {
    const button = el("button", "move");
    button.type = "button";
    button.dataset.action = a.id;
    button.appendChild(el("span", "name", a.name));
    if (a.explain) button.appendChild(el("span", "explain", a.explain));
    button.onclick = () => play(a.id, a.name);
    box.appendChild(button);
  });
  // the moves under the thumb: the panel (a desktop) or the move bar (a phone) shows its top,
  // wherever the last move was picked from
  document.querySelector("aside").scrollTop = 0;
  $("turn").scrollTop = 0;
}
async function play(action, name) {
  if (document.body.dataset.state !== "mine") return;
  setState("busy");
  document.querySelectorAll("#moves button").forEach(b => { b.disabled = true; });
  showError("");
  try {
    const view = await api("POST", "/api/games/" + GAME + "/moves", {step: VIEW.step, action});
    await showView(view);
  } catch (err) {
    showError(err.message + " (" + name + ")");
    await showView(await api("GET", "/api/games/" + GAME));
  }
}
async function showHint() {
  const list = $("hint");
  list.replaceChildren();
  list.classList.remove("hidden");
  document.querySelectorAll("#moves button.best").forEach(b => {
    b.classList.remove("best");
    b.querySelectorAll(".suggested").forEach(s => s.remove());
  });
  if (!VIEW || VIEW.over || document.body.dataset.state !== "mine") return;
  try {
    const hint = await api("GET", "/api/games/" + GAME + "/hint");
    if (hint.step !== VIEW.step) return;
    hint.moves.forEach((m, i) => {
      const li = el("li", null, m.name + " \u2014 " + (100 * m.p).toFixed(1) + "%");
      const bar = el("span", "bar");
      bar.style.width = Math.round(80 * m.p) + "px";
      li.appendChild(bar);
      list.appendChild(li);
      if (i === 0) {
        const button = document.querySelector('#moves button[data-action="' + m.id + '"]');
        if (button) {
          button.classList.add("best");
          button.prepend(el("span", "suggested", "\u2605 the checkpoint's choice"));
        }
      }
    });
  } catch (err) {
    list.appendChild(el("li", null, err.message));
  }
}
function showEnd(view) {
  $("turn").classList.add("hidden");
  $("results").classList.remove("hidden");
  $("verdict").textContent = view.final.verdict;
  $("verdictTop").textContent = view.final.verdict;
  $("verdictTop").classList.remove("hidden");
  drawResults($("resultsTable"), view.final, view.players);
  $("scoring").textContent = view.final.scoring +
    (view.final.truncated ? " The game hit its turn limit and was cut short." : "");
  const how = $("scoreTexts");
  how.replaceChildren();
  view.final.score_texts.forEach((text, s) => {
    if (text) how.appendChild(el("li", null, view.players[s] + ": " + text));
  });
  $("download").href = "/api/games/" + GAME + "/record";
  $("download").setAttribute("download", view.game + "-" + GAME.slice(0, 8) + ".json");
  $("replay").href = "/games/" + GAME + "/replay";
  setState("over");
}
function newGame() {
  GAME = null; VIEW = null;
  history.replaceState(null, "", location.pathname);
  $("results").classList.add("hidden");
  $("verdictTop").classList.add("hidden");
  $("turn").classList.remove("hidden");
  $("board").classList.add("hidden");
  $("start").classList.remove("hidden");
  $("title").textContent = "RoundTable Gym";
  $("sub").textContent = "play against the agents";
  setState("start");
}

async function init() {
  installIcons();
  try {
    CATALOG = await api("GET", "/api/catalog");
  } catch (err) {
    showError(err.message);
    return;
  }
  CATALOG.games.forEach(g => $("game").appendChild(new Option(g.title, g.game)));
  drawGames();
  $("game").onchange = fillSizes;
  $("numPlayers").onchange = fillSeats;
  $("seat").onchange = fillOpponents;
  fillSizes();
  $("startForm").onsubmit = start;
  $("again").onclick = newGame;
  $("hintToggle").onchange = () => {
    if ($("hintToggle").checked) showHint(); else $("hint").classList.add("hidden");
  };
  const resume = location.hash.slice(1);
  if (resume) {
    try {
      GAME = resume;
      $("start").classList.add("hidden");
      $("board").classList.remove("hidden");
      await showView(await api("GET", "/api/games/" + resume));
      return;
    } catch (err) {
      showError(err.message);
      GAME = null;
      $("board").classList.add("hidden");
    }
  }
  $("start").classList.remove("hidden");
  setState("start");
}
init();
