// The Mini App's table: reads the reader's view (api/view), follows it live (api/events, server-sent
// events) and acts through api/act, which the bot handles as a tap on the DM's own buttons. Every
// request carries Telegram's signed launch data (initData); nothing else says who is asking.
"use strict";

const tg = (window.Telegram && window.Telegram.WebApp) || null;
const initData = tg ? tg.initData : "";
const user = (tg && tg.initDataUnsafe && tg.initDataUnsafe.user) || {};
const query = new URLSearchParams(location.search);
const gameParam = query.get("game");

const state = {
  words: {},
  view: null,
  sel: [], // positions in me.hand
  showLast: false,
  deadlineAt: null,
  busy: false,
};
const $ = (id) => document.getElementById(id);

function T(key, vars) {
  let text = state.words[key] || key;
  for (const [k, v] of Object.entries(vars || {})) text = text.split(`{${k}}`).join(String(v));
  return text;
}

// a count's form, as bot.i18n.plural picks it: key.zero for none where the catalog has it,
// key.one for one where it has it, else key.other; {n} is the count
function P(key, n, vars) {
  const has = (form) => `${key}.${form}` in state.words;
  const form = n === 0 && has("zero") ? "zero" : n === 1 && has("one") ? "one" : "other";
  return T(`${key}.${form}`, Object.assign({ n }, vars || {}));
}

function haptic(kind) {
  const h = tg && tg.HapticFeedback;
  if (!h) return;
  try {
    if (kind === "select") h.selectionChanged();
    else if (kind === "error" || kind === "success" || kind === "warning") h.notificationOccurred(kind);
    else h.impactOccurred(kind || "light");
  } catch (e) { /* older clients */ }
}

function api(path, opts) {
  const headers = Object.assign({ Authorization: `tma ${initData}` }, (opts && opts.headers) || {});
  return fetch(path, Object.assign({}, opts, { headers }));
}

function withGame(path) {
  return gameParam ? `${path}${path.includes("?") ? "&" : "?"}game=${encodeURIComponent(gameParam)}` : path;
}

// ------------------------------------------------------------------ start
async function start() {
  if (tg) {
    tg.ready();
    tg.expand();
  }
  const lang = (user.language_code || navigator.language || "zh").toLowerCase();
  state.words = await (await fetch(`api/texts?lang=${encodeURIComponent(lang)}`)).json();
  document.documentElement.lang = lang.startsWith("en") ? "en" : "zh";
  document.title = T("webapp.title");
  $("notice").textContent = T("webapp.loading");
  $("last-btn").addEventListener("click", () => { state.showLast = !state.showLast; render(); });
  if (!initData) { $("notice").textContent = T("webapp.no_auth"); return; }
  const r = await api(withGame("api/view"));
  if (!r.ok) {
    $("notice").textContent = T(r.status === 404 ? "webapp.gone" : r.status === 401 ? "webapp.no_auth" : "webapp.refused");
    return;
  }
  show(await r.json());
  if (document.visibilityState !== "hidden") follow();
  setInterval(tick, 250);
}

// The stream is open only while the page is shown: hidden (a locked phone, Telegram minimised)
// it closes, so the bot knows at once to turn to the DM again; shown, the page says so every
// PING_MS (bot.webapp.live.PING_SECONDS) and a page gone silent (no network) is let go.
const PING_MS = 4000;
let source = null;
let pinger = null;

function follow() {
  if (source) return;
  source = new EventSource(withGame(`api/events?auth=${encodeURIComponent(initData)}`));
  source.onmessage = (ev) => { $("notice").textContent = ""; show(JSON.parse(ev.data)); };
  source.onerror = () => { $("notice").textContent = T("webapp.offline"); };
  pinger = setInterval(here, PING_MS);
}

function unfollow() {
  if (!source) return;
  source.close();
  source = null;
  clearInterval(pinger);
}

async function here() {
  const v = state.view;
  if (!v || !source) return;
  try {
    const r = await api("api/here", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ game: v.game }) });
    if (r.status === 404) { unfollow(); follow(); } // the bot let the stream go: a new one
  } catch (e) { /* offline: the stream's own error says so */ }
}

function shown(visible) {
  if (!initData || !state.view) return;
  if (visible) follow();
  else unfollow();
}

document.addEventListener("visibilitychange", () => shown(document.visibilityState === "visible"));
if (tg && tg.onEvent) {
  tg.onEvent("activated", () => shown(true));
  tg.onEvent("deactivated", () => shown(false));
}

// ------------------------------------------------------------------ state
function show(view) {
  const old = state.view;
  const me = view.me;
  if (me) {
    const wasMine = old && old.me && old.me.my_turn;
    if (me.my_turn && !wasMine) haptic("warning");
    // keep the selection where the same cards are still held
    const before = old && old.me ? state.sel.map((i) => old.me.hand[i]) : [];
    // a selection is for one turn: any move of the game clears it (only your own can come
    // during your turn), so a copy of a card just played is never left selected
    if (!old || !me.my_turn || old.hand_no !== view.hand_no || old.version !== view.version) {
      state.sel = [];
    } else {
      state.sel = positions(me.hand, before);
    }
  }
  state.view = view;
  state.deadlineAt = view.deadline == null ? null : performance.now() / 1000 + view.deadline;
  render();
}

function positions(hand, cards) {
  const used = new Set();
  const out = [];
  for (const card of cards) {
    const i = hand.findIndex((c, j) => c === card && !used.has(j));
    if (i >= 0) { used.add(i); out.push(i); }
  }
  return out;
}

function tick() {
  const clock = $("clock");
  if (state.deadlineAt == null) { clock.hidden = true; return; }
  const left = Math.max(0, Math.ceil(state.deadlineAt - performance.now() / 1000));
  clock.hidden = false;
  clock.textContent = T("webapp.seconds", { s: left });
  clock.classList.toggle("low", left <= 10);
}

// ------------------------------------------------------------------ drawing
function cardEl(card, extra) {
  const el = document.createElement("div");
  el.className = "c" + (card.red ? " red" : "") + (card.joker ? " joker" : "") + (extra ? " " + extra : "");
  const r = document.createElement("span");
  r.className = "r";
  r.textContent = card.r;
  const s = document.createElement("span");
  s.className = "s";
  s.textContent = card.joker ? "" : card.s;
  el.append(r, s);
  return el;
}

function cardsEl(cards, mini) {
  const box = document.createElement("div");
  box.className = "cards" + (mini ? " mini" : "");
  for (const c of cards) box.append(cardEl(c));
  return box;
}

function seatOrder(view) {
  const me = view.me ? view.me.seat : 0;
  return { bottom: me, right: (me + 1) % 4, top: (me + 2) % 4, left: (me + 3) % 4 };
}

function nameOf(seat) {
  return state.view.seats[seat].name; // escaped by the bot
}

function render() {
  const v = state.view;
  if (!v) return;
  document.body.dataset.phase = v.phase || v.status;
  if (!v.phase) { // lobby or a game without a match
    $("notice").textContent = T(v.status === "lobby" ? "webapp.lobby" : "webapp.over");
    return;
  }
  renderBar(v);
  renderPoints(v);
  renderSeats(v);
  renderMiddle(v);
  renderResult(v);
  renderKitty(v);
  renderMine(v);
}

function renderBar(v) {
  const parts = [
    `<b>${T("webapp.hand", { n: v.hand_no })}</b>`,
    T("webapp.level", { level: v.level }),
    T("webapp.trump", { trump: v.trump }),
  ];
  if (!v.me) parts.push(T("webapp.watching"));
  if (v.paused) parts.push(T("webapp.paused"));
  $("info").innerHTML = parts.join(" · ");
}

function renderPoints(v) {
  const box = $("points");
  const p = v.points;
  if (!p || v.phase === "dealing" || v.phase === "after_deal") { box.hidden = true; return; }
  box.hidden = false;
  box.innerHTML = "";
  const pts = document.createElement("span");
  pts.className = "pts";
  pts.textContent = T("webapp.points", { team: p.team_name, points: p.points });
  box.append(pts);
  const bits = [];
  if (p.take_over != null) bits.push(T("webapp.take_over", { n: p.take_over }));
  if (p.next != null && p.next !== p.take_over) bits.push(T("webapp.next", { n: p.next }));
  if (p.penalty) bits.push(T("webapp.penalty", { n: p.penalty }));
  for (const b of bits) { const s = document.createElement("span"); s.textContent = b; box.append(s); }
  if (p.cards.length) box.append(cardsEl(p.cards, true));
  const bar = document.createElement("div");
  bar.className = "bar";
  const full = Math.max(p.take_over || 80, p.points, 1) * 1.5;
  const fill = document.createElement("i");
  fill.style.width = `${Math.min(100, (100 * p.points) / full)}%`;
  const mark = document.createElement("b");
  mark.style.left = `${(100 * (p.take_over || 80)) / full}%`;
  bar.append(fill, mark);
  box.append(bar);
}

function playEl(v, play, trick, last) {
  const box = document.createElement("div");
  box.className = "play" + (last ? " last" : "");
  if (!play) return box;
  const best = trick.winner != null ? trick.winner === play.seat : trick.best === play.seat;
  if (best) box.classList.add("best");
  box.append(cardsEl(play.cards, true));
  if (play.attempted) {
    const tried = document.createElement("div");
    tried.className = "tried";
    tried.textContent = T("webapp.failed_throw");
    box.append(tried, cardsEl(play.attempted, true));
  }
  const mark = document.createElement("div");
  mark.className = "mark";
  const words = [];
  if (play.ruff) words.push(T("webapp.ruff"));
  if (best) words.push(trick.winner != null ? T("webapp.won", { points: trick.points }) : T("webapp.best"));
  mark.textContent = words.join(" · ");
  box.append(mark);
  return box;
}

function renderSeats(v) {
  const order = seatOrder(v);
  const trick = state.showLast || v.phase === "done" ? v.last : v.trick;
  for (const [pos, seat] of Object.entries(order)) {
    const el = document.querySelector(`.seat[data-pos=${pos}]`);
    el.innerHTML = "";
    const s = v.seats[seat];
    const tag = document.createElement("div");
    const acts = v.to_act.seats.includes(seat) && v.phase !== "done";
    tag.className = `tag team${s.team}` + (acts ? " acts" : "");
    const name = document.createElement("span");
    name.className = "name";
    name.innerHTML = s.name + (v.me && v.me.seat === seat ? ` (${T("webapp.you")})` : "");
    const sub = document.createElement("span");
    sub.className = "sub";
    sub.innerHTML = `<span class="team">${s.team_name}</span> · ` +
      P("webapp.cards", s.count) + (s.auto ? " 🤖" : "");
    tag.append(name, sub);
    if (v.dealer === seat) {
      const b = document.createElement("span");
      b.className = "badge";
      b.textContent = T("webapp.dealer");
      sub.prepend(b, " ");
    }
    const play = trick ? trick.plays.find((p) => p.seat === seat) : null;
    const playBox = playEl(v, play, trick, state.showLast);
    if (pos === "top") el.append(tag, playBox);
    else el.append(playBox, tag);
    if (pos === "bottom" && v.me) { el.innerHTML = ""; el.append(playBox); } // your hand is below
  }
}

function renderMiddle(v) {
  const status = $("status");
  const turn = v.to_act.seats.length === 1 ? v.to_act.seats[0] : null;
  let text = "";
  if (v.phase === "dealing") text = T("webapp.dealing", { dealt: v.dealt, total: v.deal_total });
  else if (v.phase === "after_deal") text = T("webapp.window");
  else if (v.phase === "burying" && turn != null) text = T("webapp.burying", { name: nameOf(turn) });
  else if (v.phase === "chaodi" && turn != null) text = T("webapp.chaodi", { name: nameOf(turn) });
  else if (v.phase === "playing" && turn != null) text = T("webapp.waiting", { name: nameOf(turn) });
  if (v.me && v.me.my_turn) text = T(v.phase === "burying" ? "webapp.your_bury" : "webapp.your_turn");
  status.innerHTML = text;
  const shows = $("shows");
  shows.innerHTML = "";
  if (["dealing", "after_deal", "burying", "chaodi"].includes(v.phase)) {
    if (!v.shows.length && !v.revealed_kitty && !v.dealer_team) shows.textContent = T("webapp.no_show");
    if (v.dealer_team) {
      const line = document.createElement("div");
      line.textContent = v.dealer_team;
      shows.append(line);
    }
    for (const s of v.shows) {
      const line = document.createElement("div");
      line.innerHTML = `${nameOf(s.seat)} ${s.action} `;
      line.append(cardsEl(s.cards, true));
      line.style.display = "flex";
      line.style.alignItems = "center";
      line.style.gap = "4px";
      shows.append(line);
    }
    if (v.revealed_kitty) {
      const line = document.createElement("div");
      line.textContent = T("webapp.shown_kitty", { cards: "" });
      line.append(cardsEl(v.revealed_kitty, true));
      shows.append(line);
    }
  }
  const last = $("last-btn");
  last.hidden = !v.last || v.phase === "done";
  last.textContent = state.showLast ? T("webapp.hide") : T("webapp.last_trick");
  if (!v.last) state.showLast = false;
}

function renderResult(v) {
  const box = $("result");
  if (!v.result) { box.hidden = true; return; }
  box.hidden = false;
  box.innerHTML = `<h3>${T("webapp.result", { n: v.hand_no })}</h3><div class="lines">${v.result.lines.map((l) => `<div>${l}</div>`).join("")}</div>`;
}

function renderKitty(v) {
  const box = $("kitty");
  const kitty = v.kitty || (v.me && v.me.kitty);
  if (!kitty || v.result) { box.hidden = true; return; }
  box.hidden = false;
  box.innerHTML = `<h3>${T("webapp.kitty")}</h3>`;
  box.append(cardsEl(kitty, true));
}

function handCards(me) {
  // groups as the bot sends them: trumps first, each suit apart; the cards picked up with the
  // kitty (while burying) in a group of their own at the end
  const picked = me.picked ? [...me.picked] : [];
  const groups = [];
  const pickedGroup = [];
  let index = 0;
  const taken = {};
  for (const g of me.groups) {
    const cards = [];
    for (const card of g.cards) {
      const pos = me.hand.findIndex((c, j) => c === card.id && !taken[j]);
      taken[pos] = true;
      const k = picked.indexOf(card.id);
      if (k >= 0) { picked.splice(k, 1); pickedGroup.push({ card, pos, trump: g.trump }); }
      else cards.push({ card, pos, trump: g.trump });
      index++;
    }
    if (cards.length) groups.push(cards);
  }
  return { groups, pickedGroup };
}

function renderMine(v) {
  const me = v.me;
  const mine = $("mine");
  mine.hidden = !me;
  if (!me) return;
  const hand = $("hand");
  hand.innerHTML = "";
  const { groups, pickedGroup } = handCards(me);
  const all = pickedGroup.length ? [...groups, pickedGroup] : groups;
  const selectable = me.my_turn && (v.phase === "burying" || v.phase === "playing");
  for (const row of rowsOf(all, hand.clientWidth || 348)) {
    const line = document.createElement("div");
    line.className = "row";
    line.style.setProperty("--overlap", `${row.overlap}px`);
    row.groups.forEach((group, gi) => {
      if (gi) { const gap = document.createElement("div"); gap.className = "gap"; line.append(gap); }
      const box = document.createElement("div");
      box.className = "group";
      for (const { card, pos, trump } of group) {
        const el = cardEl(card, (trump ? "trump" : "") + (group === pickedGroup ? " picked" : ""));
        if (state.sel.includes(pos)) el.classList.add("sel");
        el.dataset.pos = pos;
        el.addEventListener("click", () => toggle(pos));
        box.append(el);
      }
      if (group === pickedGroup) {
        const label = document.createElement("span");
        label.className = "label";
        label.textContent = T("webapp.picked");
        box.prepend(label);
      }
      line.append(box);
    });
    hand.append(line);
  }
  renderPrompt(v, me);
  renderActions(v, me, selectable);
}

const CARD = 46;
const GAP = 8;
const READABLE = 17; // px of a covered card left in view: its rank and suit

function overlapFor(groups, width) {
  // the cards overlap so that the row fits the width: width = card + (n - 1) * step + gaps
  const n = groups.reduce((k, g) => k + g.length, 0);
  const gaps = (groups.length - 1) * GAP;
  const step = n > 1 ? Math.min(CARD + 2, (width - CARD - gaps) / (n - 1)) : CARD;
  return { step, overlap: Math.floor(step - CARD) };
}

function rowsOf(groups, width) {
  // one row if the cards stay readable, else two, split between suits (trumps first)
  const one = overlapFor(groups, width);
  if (one.step >= READABLE || groups.length < 2) return [{ groups, overlap: one.overlap }];
  const total = groups.reduce((k, g) => k + g.length, 0);
  let best = 1;
  let bestDiff = Infinity;
  let count = 0;
  groups.forEach((g, i) => {
    count += g.length;
    const diff = Math.abs(total / 2 - count);
    if (i < groups.length - 1 && diff < bestDiff) { bestDiff = diff; best = i + 1; }
  });
  return [groups.slice(0, best), groups.slice(best)].map((gs) => ({ groups: gs, overlap: overlapFor(gs, width).overlap }));
}

function renderPrompt(v, me) {
  const p = $("prompt");
  p.classList.toggle("turn", me.my_turn);
  const k = state.sel.length;
  let text = "";
  if (me.auto) text = T("webapp.auto");
  else if (v.phase === "burying" && me.my_turn) text = `${T("webapp.your_bury")} · ${T("webapp.selected", { k })}`;
  else if (v.phase === "playing" && me.my_turn) {
    text = me.needed ? T("webapp.need", { n: me.needed, k }) : `${T("webapp.lead")} · ${T("webapp.selected", { k })}`;
  } else if (v.phase === "playing" && v.to_act.seats.length === 1) {
    text = T("webapp.waiting", { name: nameOf(v.to_act.seats[0]) });
  }
  p.innerHTML = text;
}

function button(label, onClick, ghost, name) {
  const b = document.createElement("button");
  b.type = "button";
  if (name) b.dataset.act = name;
  b.textContent = label;
  if (ghost) b.className = "ghost";
  b.addEventListener("click", onClick);
  return b;
}

function renderActions(v, me, selectable) {
  const box = $("actions");
  box.innerHTML = "";
  for (const option of me.shows.slice(0, 6)) {
    const label = `${option.label} ${option.shown.map((c) => c.joker ? c.r : c.s + c.r).join(" ")}`;
    box.append(button(label, () => act("show", { cards: option.cards }), false, "show"));
  }
  if (me.can_pass) box.append(button(T("btn.pass"), () => act("pass"), true, "pass"));
  if (me.can_redeal) box.append(button(T("btn.redeal"), () => act("redeal"), true, "redeal"));
  if (selectable) {
    const k = state.sel.length;
    const label = v.phase === "burying" ? T("btn.bury", { n: k }) : T("btn.play");
    const play = button(label, () => act("play", { cards: state.sel.map((i) => me.hand[i]) }), false, "play");
    play.disabled = !k || (me.needed && k !== me.needed);
    box.append(play, button(T("btn.hint"), () => act("hint"), true, "hint"));
    if (k) box.append(button(T("btn.clear"), () => { state.sel = []; haptic("select"); render(); }, true, "clear"));
  }
  if (me.auto) box.append(button(T("btn.back"), () => act("back"), true, "back"));
  if (v.result && !v.result.match_over && v.status === "running") {
    box.append(button(T("btn.next_hand"), () => act("next"), false, "next"));
  }
}

function toggle(pos) {
  const v = state.view;
  if (!v || !v.me || !v.me.my_turn || !["burying", "playing"].includes(v.phase)) return;
  const i = state.sel.indexOf(pos);
  if (i >= 0) state.sel.splice(i, 1);
  else state.sel.push(pos);
  haptic("select");
  render();
}

async function act(action, extra) {
  const v = state.view;
  if (state.busy || !v) return;
  state.busy = true;
  try {
    const body = Object.assign({ game: v.game, action, hand: v.hand_no, version: v.version }, extra || {});
    const r = await api("api/act", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    if (r.status === 429) { toast("…", true); return; }
    const answer = await r.json();
    if (answer.alert) haptic("error");
    else if (action === "play") haptic("medium");
    if (answer.text && (answer.alert || action !== "hint")) toast(answer.text, answer.alert);
    show(answer.view);
    if (action === "hint" && answer.view.me) {
      state.sel = positions(answer.view.me.hand, answer.view.me.selection);
      render();
    }
  } finally {
    state.busy = false;
  }
}

let toastTimer = null;
function toast(text, alert) {
  const el = $("toast");
  el.textContent = text;
  el.className = alert ? "alert" : "";
  // just above the player's own cards: the points line and the table stay readable
  const mine = $("mine").getBoundingClientRect();
  el.style.bottom = `${Math.max(8, window.innerHeight - mine.top + 6)}px`;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, alert ? 3000 : 1500);
}

window.addEventListener("resize", render);
start();
