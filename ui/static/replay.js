// The replay viewer's controls (see ui/replay_viewer.py for the data, table.js for drawing).
// DATA: {meta, cards, pieces, events, frames}; a frame's view holds its table pieces and
// cards by index into DATA.pieces and DATA.cards, as most of the table repeats step to step.
"use strict";
const DATA = JSON.parse(document.getElementById("replay-data").textContent);
const META = DATA.meta, FRAMES = DATA.frames, LAST = FRAMES.length - 1;
let step = 0, viewIndex = 0, timer = null;

function seatOf() { return viewIndex === 0 ? null : viewIndex - 1; }
/** A packed view as the picture it was made from (cards and pieces by value). */
function unpack(view) {
  const cards = ids => ids.map(i => DATA.cards[i]);
  const groups = gs => gs.map(g => ({...g, cards: cards(g.cards)}));
  return {
    status: view.s, to_act: view.t, notes: view.n,
    zones: view.z.map(id => { const z = DATA.pieces[id]; return {...z, groups: groups(z.groups)}; }),
    piles: view.p.map(id => { const p = DATA.pieces[id]; return {...p, cards: cards(p.cards)}; }),
    players: view.pl.map(id => {
      const p = DATA.pieces[id];
      return {...p, hand: {...p.hand, cards: cards(p.hand.cards)}, areas: groups(p.areas)};
    }),
  };
}
function eventsOf(frame) {
  const seat = seatOf(), out = [];
  for (let i = frame.e[0]; i < frame.e[1]; i++) {
    const e = DATA.events[i];
    if (seat === null || e.to === null || e.to === undefined || e.to === seat) out.push(e);
  }
  return out;
}
/** The event in words, every seat named as everywhere in the record (made by the server). */
function eventText(e) { return e.x; }
function isPrivate(e) { return e.to !== null && e.to !== undefined; }
function moveText(frame) {
  return Array.isArray(frame.x) ? frame.x[viewIndex] : frame.x;
}
function drawNarration() {
  const frame = FRAMES[step], seat = seatOf();
  document.getElementById("stepTitle").textContent = step === 0 ? "The deal" : "Step " + step;
  const list = document.getElementById("narration");
  list.replaceChildren();
  list.appendChild(el("li", "move", moveText(frame)));
  eventsOf(frame).forEach(e => {
    const li = el("li", "event" + (isPrivate(e) ? " private" : ""), eventText(e, seat));
    li.dataset.kind = e.k;
    if (isPrivate(e)) li.title = "only " + META.players[e.to] + " sees this";
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
      el("div", "ev" + (isPrivate(e) ? " private" : ""), eventText(e, seat))));
    history.appendChild(li);
  }
  const results = document.getElementById("results");
  const atEnd = step === LAST && Boolean(META.final);
  results.classList.toggle("hidden", !atEnd);
  if (atEnd) {
    document.getElementById("verdict").textContent = META.final.verdict || "";
    drawResults(document.getElementById("resultsTable"), META.final, META.players);
    const how = document.getElementById("scoreTexts");  // how each score is made
    how.replaceChildren();
    (META.final.explained || []).forEach((text, s) => {
      if (text) how.appendChild(el("li", null, META.players[s] + ": " + text));
    });
  }
}
function show(k) {
  document.getElementById("privateNote").classList.toggle(
    "hidden", !(seatOf() === null && DATA.events.some(isPrivate)));
  step = Math.max(0, Math.min(LAST, k));
  document.getElementById("slider").value = step;
  document.getElementById("stepLabel").textContent = "step " + step + " / " + META.steps;
  drawTable(unpack(FRAMES[step].v[viewIndex]), META.players, seatOf());
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
const KEYS = {
  ArrowRight: () => show(step + 1), ArrowLeft: () => show(step - 1),
  Home: () => show(0), End: () => show(LAST),
};
function init() {
  installIcons();
  document.getElementById("title").textContent = META.title;
  // the seed is a string: JSON numbers past 2**53 would be rounded by the browser
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
    if (ev.key in KEYS) {
      ev.preventDefault();  // the keys step the game; they do not also scroll the page
      stop();
      KEYS[ev.key]();
    } else if (ev.key === " ") { ev.preventDefault(); play(); }
  });
  show(0);
}
init();
