# ruff: noqa: E501  (the page template holds long SVG paths and JavaScript lines)
"""The replay viewer's page: HTML, CSS, JavaScript and SVG icons in one template.

:func:`render_page` puts the replay data (see :mod:`training.replay_viewer`) into the page as
a JSON script block. Nothing is fetched: no fonts, images, scripts or styles from elsewhere (the
favicon link is an empty data URL so the browser does not ask for one). Text from the data is
inserted with ``textContent`` only, never as HTML.
"""

from __future__ import annotations

import html
import json
from typing import Any


def render_page(data: dict[str, Any]) -> str:
    """The complete HTML document of one replay."""
    payload = json.dumps(data, separators=(",", ":"))
    # inside <script> only "</" can end the block early; "<\/" reads the same in JSON
    payload = payload.replace("</", "<\\/")
    title = html.escape(f"{data['meta']['title']} — replay (seed {data['meta']['seed']})")
    return PAGE.replace("__TITLE__", title).replace("__DATA__", payload)


PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>__TITLE__</title>
<style>
:root { --felt: #1f5a3d; --felt-dark: #17452f; --panel: #f7f3e8; --ink: #1d1d1d; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.35 "DejaVu Sans", "Liberation Sans", Arial, sans-serif;
  color: var(--ink); background: #e9e4d6; }
header { padding: 10px 16px 4px; display: flex; gap: 16px; align-items: baseline;
  flex-wrap: wrap; }
header h1 { font-size: 20px; margin: 0; }
header .sub { color: #555; }
#controls { display: flex; gap: 8px; align-items: center; flex-wrap: wrap;
  padding: 6px 16px 10px; border-bottom: 1px solid #cfc6ae; }
#controls button { font-size: 15px; min-width: 36px; padding: 3px 8px; cursor: pointer;
  border: 1px solid #9a8f73; background: #fffdf6; border-radius: 5px; }
#controls button:hover { background: #fff3c9; }
#slider { flex: 1 1 260px; }
#stepLabel { font-variant-numeric: tabular-nums; min-width: 118px; font-weight: bold; }
#controls label { color: #444; }
main { display: flex; gap: 12px; padding: 12px 16px; align-items: flex-start; }
#table { flex: 1 1 auto; background: radial-gradient(circle at 50% 30%, var(--felt),
  var(--felt-dark)); border-radius: 14px; padding: 12px; color: #f3efe2; min-width: 0; }
#status { font-size: 15px; font-weight: bold; margin: 0 0 8px 2px; }
#notes { margin: -4px 0 8px 2px; color: #d9e8d0; font-size: 13px; }
.zones { display: flex; flex-wrap: wrap; gap: 10px; margin-bottom: 10px; }
.zone { background: rgba(0,0,0,.18); border: 1px solid rgba(255,255,255,.18);
  border-radius: 10px; padding: 6px 8px 8px; min-width: 150px; }
.zone.active { border-color: #ffd54f; box-shadow: 0 0 0 2px rgba(255,213,79,.45); }
.zone h3 { margin: 0; font-size: 14px; }
.zone .subtitle { font-size: 12px; color: #d7e4d2; margin-bottom: 4px; }
.group { margin-top: 4px; }
.group .glabel { font-size: 11px; color: #cfe0c8; margin-bottom: 2px; }
.cards { display: flex; flex-wrap: wrap; gap: 4px; min-height: 10px; }
.piles { display: flex; flex-wrap: wrap; gap: 10px; margin-bottom: 10px; }
.pile { background: rgba(0,0,0,.14); border-radius: 8px; padding: 5px 8px; }
.pile .plabel { font-size: 12px; color: #e5efe0; }
.pile .cards .card { width: 44px; height: 62px; }
.pile .cards .card .rank { font-size: 13px; }
.pile .cards .card .name { font-size: 7px; bottom: 1px; }
.pile .cards .card .tag { display: none; }
.pile .cards .card .count { top: 1px; bottom: auto; right: 1px; font-size: 9px; }
.pile .cards .card svg { width: 18px; height: 18px; margin-top: 16px; }
.players { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr));
  gap: 10px; }
.player { background: var(--panel); color: var(--ink); border-radius: 10px; padding: 8px;
  border: 3px solid transparent; }
.player.to-act { border-color: #ffb300; }
.player.me { box-shadow: 0 0 0 3px #64b5f6; }
.player.out { opacity: .6; }
.player .pname { font-weight: bold; font-size: 15px; }
.chip { display: inline-block; font-size: 11px; padding: 1px 6px; border-radius: 9px;
  background: #e0d7bd; margin-left: 4px; }
.chip.to-act { background: #ffb300; }
.chip.you { background: #64b5f6; }
.stats { font-size: 12px; color: #444; margin: 3px 0; display: flex; flex-wrap: wrap;
  gap: 2px 12px; }
.stats b { color: #111; }
.player .glabel { font-size: 11px; color: #6b604a; margin: 4px 0 2px; }
.card { width: 52px; height: 74px; border-radius: 6px; background: #fffef8;
  border: 1px solid #8d8468; position: relative; color: #222; text-align: center;
  box-shadow: 1px 2px 3px rgba(0,0,0,.25); flex: 0 0 auto; overflow: hidden; }
.card .rank { position: absolute; left: 4px; top: 1px; font-weight: bold; font-size: 17px; }
.card svg { width: 26px; height: 26px; margin-top: 20px; fill: currentColor; }
.card .name { position: absolute; left: 1px; right: 1px; bottom: 2px; font-size: 8.5px;
  line-height: 1.05; max-height: 18px; overflow: hidden; }
.card .tag { position: absolute; left: 0; right: 0; bottom: 0; font-size: 8.5px;
  background: #ffd54f; color: #222; padding: 1px 0; overflow: hidden; white-space: nowrap; }
.card .count { position: absolute; right: 2px; bottom: 1px; font-size: 11px; font-weight: bold;
  background: #333; color: #fff; border-radius: 6px; padding: 0 3px; }
.card.back { border-color: #222; }
.card.back .tag { background: #ffe082; }
.b-paladin { background: repeating-linear-gradient(45deg, #283593 0 5px, #3949ab 5px 10px); }
.b-attack { background: repeating-linear-gradient(45deg, #1b5e20 0 5px, #2e7d32 5px 10px); }
.b-adventure { background: repeating-linear-gradient(45deg, #6d1b1b 0 5px, #8e2b2b 5px 10px); }
.c-black { color: #1b1b1b; }
.c-red { color: #c62828; border-color: #c62828; }
.c-gold { color: #8a6400; background: #fff6d5; }
.c-steel { color: #1f4e79; }
.c-monster { color: #8e1b10; background: #fdecea; }
.c-city { color: #4e342e; background: #efe5d8; }
.c-weapon { color: #1f4e79; background: #eef4fb; }
.c-amour { color: #ad1457; background: #fdeef5; }
.c-ally { color: #2e7d32; background: #eef8ee; }
.c-foe { color: #8e1b10; background: #fdecea; }
.c-test { color: #6a1b9a; background: #f5ecfa; }
.c-quest { color: #8a6400; background: #fff6d5; }
.c-tournament { color: #00695c; background: #e6f4f1; }
.c-event { color: #bf360c; background: #fff0e6; }
aside { flex: 0 0 330px; background: var(--panel); border-radius: 12px; padding: 10px 12px;
  max-height: calc(100vh - 120px); overflow: auto; }
aside h2 { font-size: 15px; margin: 4px 0 6px; }
#narration { margin: 0 0 8px; padding-left: 18px; }
#narration li { margin-bottom: 3px; }
#narration li.move { font-weight: bold; }
.hint { font-size: 12px; color: #6b604a; font-style: italic; margin: 0 0 8px; }
#history { margin: 0; padding-left: 0; list-style: none; font-size: 12px; color: #444; }
#history li { border-top: 1px dotted #cbbf9f; padding: 2px 0; }
#history li .k { color: #888; margin-right: 4px; font-variant-numeric: tabular-nums; }
#history li:has(.ev) .mv { font-weight: bold; }
#history li .ev { padding-left: 22px; }
#history li .ev.private, #narration li.private { color: #1565c0; }
#results table { border-collapse: collapse; width: 100%; margin-top: 4px; }
#results td, #results th { border-bottom: 1px solid #d8ceb3; padding: 3px 4px;
  text-align: left; }
#results tr.first td { font-weight: bold; background: #fff3c9; }
.hidden { display: none; }
</style>
</head>
<body>
<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>
<symbol id="i-sword" viewBox="0 0 24 24"><path d="M19.5 2H22v2.5L11 15.5 8.5 13z"/><path d="M4.5 12.5l7 7-1.6 1.6-2.2-2.2-3 3-1.6-1.6 3-3-2.2-2.2z"/></symbol>
<symbol id="i-shield" viewBox="0 0 24 24"><path d="M12 2l8 3v6c0 5.5-3.5 9.5-8 11-4.5-1.5-8-5.5-8-11V5z"/></symbol>
<symbol id="i-skull" viewBox="0 0 24 24"><path fill-rule="evenodd" d="M12 2a8 8 0 00-8 8c0 3 1.4 5 3 6.2V20h10v-3.8c1.6-1.2 3-3.2 3-6.2a8 8 0 00-8-8zM8.5 9a2 2 0 110 4 2 2 0 010-4zm7 0a2 2 0 110 4 2 2 0 010-4z"/><path d="M9 21h6v1H9z"/></symbol>
<symbol id="i-heart" viewBox="0 0 24 24"><path d="M12 21C5 15 2 12 2 8.5a4.8 4.8 0 0110-1.8 4.8 4.8 0 0110 1.8C22 12 19 15 12 21z"/></symbol>
<symbol id="i-crown" viewBox="0 0 24 24"><path d="M3 18L4.5 7l5 5L12 4l2.5 8 5-5L21 18z"/><path d="M3 19h18v2H3z"/></symbol>
<symbol id="i-gem" viewBox="0 0 24 24"><path d="M6 3h12l4 6-10 12L2 9z"/></symbol>
<symbol id="i-flask" viewBox="0 0 24 24"><path d="M9 2h6v2h-1v5l6 10c1 2 0 3-2 3H6c-2 0-3-1-2-3l6-10V4H9z"/></symbol>
<symbol id="i-castle" viewBox="0 0 24 24"><path d="M3 21V8h3v2h2V8h3v2h2V8h3v2h2V8h3v13h-7v-5a2 2 0 00-4 0v5z"/></symbol>
<symbol id="i-scroll" viewBox="0 0 24 24"><path fill-rule="evenodd" d="M6 3h12a2 2 0 012 2v14a2 2 0 01-2 2H6a2 2 0 01-2-2V5a2 2 0 012-2zm2 4v2h8V7zm0 4v2h8v-2zm0 4v2h5v-2z"/></symbol>
<symbol id="i-banner" viewBox="0 0 24 24"><path d="M5 2h14v18l-7-4-7 4z"/></symbol>
</defs></svg>
<header><h1 id="title"></h1><span class="sub" id="sub"></span></header>
<div id="controls">
  <button id="first" title="first step (Home)">|&#x25C0;&#x25C0;</button>
  <button id="prev" title="step back (&#x2190;)">&#x25C0;</button>
  <button id="play" title="play / pause (space)">&#x25B6; play</button>
  <button id="next" title="step forward (&#x2192;)">&#x25B6;</button>
  <button id="last" title="last step (End)">&#x25B6;&#x25B6;|</button>
  <input id="slider" type="range" min="0" value="0" step="1" aria-label="step">
  <span id="stepLabel"></span>
  <label>speed <select id="speed"><option value="1200">slow</option>
    <option value="500" selected>normal</option><option value="150">fast</option></select></label>
  <label>seen by <select id="viewer"></select></label>
</div>
<main>
  <section id="table">
    <div id="status"></div><div id="notes"></div>
    <div class="zones" id="zones"></div>
    <div class="piles" id="piles"></div>
    <div class="players" id="players"></div>
  </section>
  <aside>
    <h2 id="stepTitle">This step</h2>
    <ol id="narration"></ol>
    <p id="noEvents" class="hint hidden">No event narration: the record holds no events and
      this version of the game emits none, so only the moves are shown.</p>
    <div id="results" class="hidden"><h2>Final scores</h2><table id="resultsTable"></table></div>
    <h2>Earlier</h2>
    <p id="privateNote" class="hint hidden">In blue: what only one player saw.</p>
    <ul id="history"></ul>
  </aside>
</main>
<script type="application/json" id="replay-data">__DATA__</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("replay-data").textContent);
const META = DATA.meta, FRAMES = DATA.frames, LAST = FRAMES.length - 1;
let step = 0, viewIndex = 0, timer = null;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function icon(name) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  const use = document.createElementNS("http://www.w3.org/2000/svg", "use");
  use.setAttribute("href", "#i-" + name);
  svg.appendChild(use);
  return svg;
}
function cardNode(index, count) {
  const c = DATA.cards[index];
  const node = el("div", "card " + (c.back ? "back b-" + c.c : "face c-" + c.c));
  if (c.o !== undefined) node.dataset.owner = c.o;
  if (!c.back) {
    node.appendChild(el("span", "rank", c.r));
    node.appendChild(icon(c.i));
    node.appendChild(el("span", "name", c.n));
    node.title = c.n + (c.t ? " (" + c.t + ")" : "");
  } else {
    node.title = "face down" + (c.t ? " (" + c.t + ")" : "");
  }
  if (c.t) node.appendChild(el("span", "tag", c.t));
  if (count > 1) node.appendChild(el("span", "count", "\u00d7" + count));
  return node;
}
function cardRow(indices, stack) {
  const row = el("div", "cards");
  if (!stack) { indices.forEach(i => row.appendChild(cardNode(i, 1))); return row; }
  const counts = new Map();
  indices.forEach(i => counts.set(i, (counts.get(i) || 0) + 1));
  counts.forEach((n, i) => row.appendChild(cardNode(i, n)));
  return row;
}
function group(g, cls) {
  const box = el("div", "group " + (cls || ""));
  if (g.label) box.appendChild(el("div", "glabel", g.label + (g.cards.length ? "" : ": none")));
  box.appendChild(cardRow(g.cards, false));
  return box;
}
function seatOf() { return viewIndex === 0 ? null : viewIndex - 1; }

function drawTable(view) {
  document.getElementById("status").textContent = view.s;
  document.getElementById("notes").textContent = view.n.join(" \u00b7 ");
  const zones = document.getElementById("zones");
  zones.replaceChildren();
  view.z.forEach(id => {
    const z = DATA.pieces[id];
    const box = el("div", "zone" + (z.active ? " active" : ""));
    box.appendChild(el("h3", null, z.title));
    if (z.subtitle) box.appendChild(el("div", "subtitle", z.subtitle));
    z.groups.forEach(g => box.appendChild(group(g)));
    zones.appendChild(box);
  });
  const piles = document.getElementById("piles");
  piles.replaceChildren();
  view.p.forEach(id => {
    const p = DATA.pieces[id];
    const box = el("div", "pile");
    box.appendChild(el("div", "plabel", p.label + ": " + p.count));
    if (p.cards.length) box.appendChild(cardRow(p.cards, true));
    piles.appendChild(box);
  });
  const players = document.getElementById("players");
  players.replaceChildren();
  const me = seatOf();
  view.pl.forEach(id => {
    const p = DATA.pieces[id];
    const box = el("div", "player");
    box.dataset.seat = p.seat;
    if (p.seat === view.t) box.classList.add("to-act");
    if (p.seat === me) box.classList.add("me");
    if (p.out) box.classList.add("out");
    const head = el("div");
    head.appendChild(el("span", "pname", META.players[p.seat]));
    if (p.seat === me) head.appendChild(el("span", "chip you", "you"));
    p.tags.forEach(t => head.appendChild(el("span", "chip" + (t === "to act" ? " to-act" : ""), t)));
    box.appendChild(head);
    const stats = el("div", "stats");
    p.stats.forEach(([k, v]) => {
      const s = el("span", null, k + " "); s.appendChild(el("b", null, v)); stats.appendChild(s);
    });
    box.appendChild(stats);
    const hand = group({label: "hand (" + p.hand.count + ")", cards: p.hand.cards}, "hand");
    box.appendChild(hand);
    p.areas.forEach(a => box.appendChild(group(a, "area")));
    players.appendChild(box);
  });
}
// As the seat reads it (like events.second_person): "player_2's" is "your", "player_2" "you".
function personal(text) {
  const seat = seatOf();
  if (seat === null) return text;
  const name = "player_" + seat;
  return text.replace(new RegExp("\\b" + name + "'s\\b", "g"), "your")
             .replace(new RegExp("\\b" + name + "\\b", "g"), "you");
}
function eventsOf(frame) {
  const seat = seatOf(), out = [];
  for (let i = frame.e[0]; i < frame.e[1]; i++) {
    const e = DATA.events[i];
    if (seat === null || e.to === null || e.to === undefined || e.to === seat) out.push(e);
  }
  return out;
}
function moveText(frame) {
  return Array.isArray(frame.x) ? frame.x[viewIndex] : frame.x;
}
function drawNarration() {
  const frame = FRAMES[step];
  document.getElementById("stepTitle").textContent = step === 0 ? "The deal" : "Step " + step;
  const list = document.getElementById("narration");
  list.replaceChildren();
  list.appendChild(el("li", "move", moveText(frame)));
  eventsOf(frame).forEach(e => {
    const li = el("li", "event" + (e.to === null || e.to === undefined ? "" : " private"),
                  personal(e.x));
    li.dataset.kind = e.k;
    if (e.to !== null && e.to !== undefined) li.title = "only player_" + e.to + " sees this";
    list.appendChild(li);
  });
  const history = document.getElementById("history");
  history.replaceChildren();
  for (let k = step - 1; k >= Math.max(0, step - 40); k--) {
    const li = el("li");
    li.appendChild(el("span", "k", k));
    const f = FRAMES[k];
    li.appendChild(el("span", "mv", moveText(f)));
    eventsOf(f).forEach(e => li.appendChild(
      el("div", "ev" + (e.to === null || e.to === undefined ? "" : " private"), personal(e.x))));
    history.appendChild(li);
  }
  const results = document.getElementById("results");
  results.classList.toggle("hidden", !(step === LAST && META.final));
  if (step === LAST && META.final) {
    const table = document.getElementById("resultsTable");
    table.replaceChildren();
    const head = el("tr");
    ["rank", "player", "score", "reward"].forEach(h => head.appendChild(el("th", null, h)));
    table.appendChild(head);
    const order = META.players.map((_, s) => s).sort((a, b) => META.final.ranks[a] - META.final.ranks[b]);
    order.forEach(s => {
      const tr = el("tr", META.final.ranks[s] === 1 ? "first" : "");
      [META.final.ranks[s], META.players[s], META.final.scores[s],
       META.final.rewards[s].toFixed(2)].forEach(v => tr.appendChild(el("td", null, v)));
      table.appendChild(tr);
    });
  }
}
function show(k) {
  document.getElementById("privateNote").classList.toggle(
    "hidden", !(seatOf() === null && DATA.events.some(e => e.to !== null && e.to !== undefined)));
  step = Math.max(0, Math.min(LAST, k));
  document.getElementById("slider").value = step;
  document.getElementById("stepLabel").textContent = "step " + step + " / " + META.steps;
  drawTable(FRAMES[step].v[viewIndex]);
  drawNarration();
  document.body.dataset.step = step;
}
function stop() {
  if (timer !== null) clearInterval(timer);
  timer = null;
  document.getElementById("play").textContent = "\u25B6 play";
}
function play() {
  if (timer !== null) { stop(); return; }
  if (step === LAST) show(0);
  document.getElementById("play").textContent = "\u275A\u275A pause";
  timer = setInterval(() => { if (step >= LAST) stop(); else show(step + 1); },
                      Number(document.getElementById("speed").value));
}
function init() {
  document.getElementById("title").textContent = META.title;
  document.getElementById("sub").textContent = "seed " + META.seed + " \u00b7 " + META.steps +
    " steps \u00b7 " + META.players.join(", ");
  document.getElementById("noEvents").classList.toggle("hidden", Boolean(META.narrated));
  const slider = document.getElementById("slider");
  slider.max = LAST;
  slider.addEventListener("input", () => { stop(); show(Number(slider.value)); });
  const viewer = document.getElementById("viewer");
  viewer.appendChild(new Option("the whole truth", "0"));
  META.players.forEach((name, s) => viewer.appendChild(new Option(name, String(s + 1))));
  viewer.addEventListener("change", () => { viewIndex = Number(viewer.value); show(step); });
  document.getElementById("first").onclick = () => { stop(); show(0); };
  document.getElementById("prev").onclick = () => { stop(); show(step - 1); };
  document.getElementById("next").onclick = () => { stop(); show(step + 1); };
  document.getElementById("last").onclick = () => { stop(); show(LAST); };
  document.getElementById("play").onclick = play;
  document.getElementById("speed").onchange = () => { if (timer !== null) { stop(); play(); } };
  document.addEventListener("keydown", ev => {
    if (ev.target.tagName === "SELECT" || ev.target.tagName === "INPUT") return;
    if (ev.key === "ArrowRight") { stop(); show(step + 1); }
    else if (ev.key === "ArrowLeft") { stop(); show(step - 1); }
    else if (ev.key === "Home") { stop(); show(0); }
    else if (ev.key === "End") { stop(); show(LAST); }
    else if (ev.key === " ") { ev.preventDefault(); play(); }
  });
  show(0);
}
init();
</script>
</body>
</html>
"""
