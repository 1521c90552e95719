// The table as one seat (or nobody) sees it: shared by the replay viewer (replay.js) and the
// live game page (play.js). It draws one table picture (envs/core/picture.py):
// {status, to_act, zones, piles, players, notes}, every card an object {r, n, c, i, t?, o?,
// back?}. Text from the data is inserted with textContent only, never as HTML.
"use strict";

const ICONS = [
  '<symbol id="i-sword" viewBox="0 0 24 24"><path d="M19.5 2H22v2.5L11 15.5 8.5 13z"/><path d="M4.5 12.5l7 7-1.6 1.6-2.2-2.2-3 3-1.6-1.6 3-3-2.2-2.2z"/></symbol>',
  '<symbol id="i-shield" viewBox="0 0 24 24"><path d="M12 2l8 3v6c0 5.5-3.5 9.5-8 11-4.5-1.5-8-5.5-8-11V5z"/></symbol>',
  '<symbol id="i-skull" viewBox="0 0 24 24"><path fill-rule="evenodd" d="M12 2a8 8 0 00-8 8c0 3 1.4 5 3 6.2V20h10v-3.8c1.6-1.2 3-3.2 3-6.2a8 8 0 00-8-8zM8.5 9a2 2 0 110 4 2 2 0 010-4zm7 0a2 2 0 110 4 2 2 0 010-4z"/><path d="M9 21h6v1H9z"/></symbol>',
  '<symbol id="i-heart" viewBox="0 0 24 24"><path d="M12 21C5 15 2 12 2 8.5a4.8 4.8 0 0110-1.8 4.8 4.8 0 0110 1.8C22 12 19 15 12 21z"/></symbol>',
  '<symbol id="i-crown" viewBox="0 0 24 24"><path d="M3 18L4.5 7l5 5L12 4l2.5 8 5-5L21 18z"/><path d="M3 19h18v2H3z"/></symbol>',
  '<symbol id="i-gem" viewBox="0 0 24 24"><path d="M6 3h12l4 6-10 12L2 9z"/></symbol>',
  '<symbol id="i-flask" viewBox="0 0 24 24"><path d="M9 2h6v2h-1v5l6 10c1 2 0 3-2 3H6c-2 0-3-1-2-3l6-10V4H9z"/></symbol>',
  '<symbol id="i-castle" viewBox="0 0 24 24"><path d="M3 21V8h3v2h2V8h3v2h2V8h3v2h2V8h3v13h-7v-5a2 2 0 00-4 0v5z"/></symbol>',
  '<symbol id="i-scroll" viewBox="0 0 24 24"><path fill-rule="evenodd" d="M6 3h12a2 2 0 012 2v14a2 2 0 01-2 2H6a2 2 0 01-2-2V5a2 2 0 012-2zm2 4v2h8V7zm0 4v2h8v-2zm0 4v2h5v-2z"/></symbol>',
  '<symbol id="i-banner" viewBox="0 0 24 24"><path d="M5 2h14v18l-7-4-7 4z"/></symbol>'
].join("");

/** Puts the card icons (SVG symbols) into the page once; cards <use> them by id. */
function installIcons() {
  if (document.getElementById("card-icons")) return;
  const holder = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  holder.id = "card-icons";
  holder.setAttribute("width", "0");
  holder.setAttribute("height", "0");
  holder.setAttribute("aria-hidden", "true");
  holder.style.position = "absolute";
  holder.innerHTML = "<defs>" + ICONS + "</defs>";
  document.body.prepend(holder);
}
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}
function icon(name) {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("aria-hidden", "true");
  const use = document.createElementNS("http://www.w3.org/2000/svg", "use");
  use.setAttribute("href", "#i-" + name);
  svg.appendChild(use);
  return svg;
}
/** One card; ``count`` > 1 puts a "×n" badge beside it (never over its value). */
function cardNode(c, count) {
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
  // what a screen reader says: "Sword, 10, face down" (the picture alone says nothing)
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", cardWords(c) + (count > 1 ? ", " + count + " of them" : ""));
  if (count <= 1) return node;
  const stack = el("div", "stack");
  stack.appendChild(node);
  stack.appendChild(el("span", "count", "\u00d7" + count));
  return stack;
}
/** A card in words: "Sword, 10", "face-down paladin card, leader". */
function cardWords(c) {
  const parts = c.back ? ["face-down " + c.c + " card"] : [c.n, c.r];
  if (c.t) parts.push(c.t);
  return parts.filter(p => p !== "" && p !== undefined).join(", ");
}
function cardKey(c) {
  return JSON.stringify([c.back || false, c.r, c.n, c.c, c.i, c.t, c.o]);
}
function cardRow(cards, stack) {
  const row = el("div", "cards");
  if (!stack) { cards.forEach(c => row.appendChild(cardNode(c, 1))); return row; }
  const counts = new Map();
  cards.forEach(c => {
    const k = cardKey(c);
    const seen = counts.get(k);
    counts.set(k, seen ? [seen[0], seen[1] + 1] : [c, 1]);
  });
  counts.forEach(([c, n]) => row.appendChild(cardNode(c, n)));
  return row;
}
function group(g, cls) {
  const box = el("div", "group " + (cls || ""));
  if (g.label) box.appendChild(el("div", "glabel", g.label + (g.cards.length ? "" : ": none")));
  box.appendChild(cardRow(g.cards, false));
  return box;
}
/**
 * Draws a picture into the elements #status, #notes, #zones, #piles and #players.
 * ``labels``: the name of every seat; ``me``: the seat the table is seen by (null: nobody).
 */
function drawTable(snap, labels, me) {
  document.getElementById("status").textContent = snap.status;
  document.getElementById("notes").textContent = snap.notes.join(" \u00b7 ");
  const zones = document.getElementById("zones");
  zones.replaceChildren();
  snap.zones.forEach(z => {
    const box = el("div", "zone" + (z.active ? " active" : ""));
    box.appendChild(el("h3", null, z.title));
    if (z.subtitle) box.appendChild(el("div", "subtitle", z.subtitle));
    z.groups.forEach(g => box.appendChild(group(g)));
    zones.appendChild(box);
  });
  const piles = document.getElementById("piles");
  piles.replaceChildren();
  snap.piles.forEach(p => {
    const box = el("div", "pile");
    box.appendChild(el("div", "plabel", p.label + ": " + p.count));
    if (p.cards.length) box.appendChild(cardRow(p.cards, true));
    piles.appendChild(box);
  });
  const players = document.getElementById("players");
  players.replaceChildren();
  snap.players.forEach(p => {
    const box = el("div", "player");
    box.dataset.seat = p.seat;
    if (p.seat === snap.to_act) box.classList.add("to-act");
    if (p.seat === me) box.classList.add("me");
    if (p.out) box.classList.add("out");
    const head = el("div");
    head.appendChild(el("span", "pname", labels[p.seat]));
    // the seat the table is seen by, where its name does not already say "you" (a replay)
    if (p.seat === me && labels[p.seat] !== "you") head.appendChild(el("span", "chip you", "point of view"));
    p.tags.forEach(t => head.appendChild(el("span", "chip" + (t === "to move" ? " to-act" : ""), t)));
    box.appendChild(head);
    const stats = el("div", "stats");
    p.stats.forEach(([k, v]) => {
      const s = el("span", null, k + " "); s.appendChild(el("b", null, v)); stats.appendChild(s);
    });
    box.appendChild(stats);
    box.appendChild(group({label: "hand (" + p.hand.count + ")", cards: p.hand.cards}, "hand"));
    p.areas.forEach(a => box.appendChild(group(a, "area")));
    players.appendChild(box);
  });
}
/** The final scores into ``table``: {scores, ranks, rewards}, one row per seat by rank. */
function drawResults(table, final, labels) {
  table.replaceChildren();
  const head = el("tr");
  ["rank", "player", "score", "reward"].forEach(h => head.appendChild(el("th", null, h)));
  table.appendChild(head);
  const order = labels.map((_, s) => s).sort((a, b) => final.ranks[a] - final.ranks[b]);
  order.forEach(s => {
    const tr = el("tr", final.ranks[s] === 1 ? "first" : "");
    tr.dataset.seat = s;
    [final.ranks[s], labels[s], final.scores[s], final.rewards[s].toFixed(2)]
      .forEach(v => tr.appendChild(el("td", null, v)));
    table.appendChild(tr);
  });
}
