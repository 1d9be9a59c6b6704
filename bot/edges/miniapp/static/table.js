// The Mini App's table: reads the reader's view (api/view), follows it live (api/events, server-sent
// events) and acts through api/act, which the bot handles as a tap on the DM's own buttons. Every
// request carries Telegram's signed launch data (initData); nothing else says who is asking.
// The page computes no rule: what may be played (me.playable), a legal selection (Hint) and every
// number come from the bot. The one primary action of the moment is Telegram's MainButton, Hint
// its SecondaryButton, the back from the last trick its BackButton.
"use strict";

const tg = (window.Telegram && window.Telegram.WebApp) || null;
const initData = tg ? tg.initData : "";
const user = (tg && tg.initDataUnsafe && tg.initDataUnsafe.user) || {};
const query = new URLSearchParams(location.search);
const gameParam = query.get("game");

// a finished trick stays on the table this long at least (then "Last trick" shows it again);
// when the next lead asks you to follow, this long only (you need to see what was led)
const HOLD_MS = 1800;
const HOLD_MY_TURN_MS = 1200;

const state = {
  words: {},
  view: null,
  sel: [], // positions in me.hand
  showLast: false,
  showWhy: null, // the number of the last trick whose "Why?" is open
  hold: null, // {trick, until}: the trick just finished, drawn until the next lead
  deadlineAt: null,
  busy: false,
  online: true,
  note: null, // {text, alert, until}: an answer, shown in the prompt's place
  sound: stored("sj.sound") === "1",
  size: 0, // how far the hand's cards are shrunk to fit the viewport
};
const $ = (id) => document.getElementById(id);

// the page's own settings (the sound), where the webview keeps any
function stored(key, value) {
  try {
    if (value === undefined) return localStorage.getItem(key);
    localStorage.setItem(key, value);
  } catch (e) { /* no storage here */ }
  return null;
}

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

let audio = null;
function beep() {
  if (!state.sound) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 880;
    gain.gain.setValueAtTime(0.12, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.18);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.2);
  } catch (e) { /* no audio here */ }
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
    if (tg.MainButton) tg.MainButton.onClick(() => primary && primary.run());
    if (tg.SecondaryButton) tg.SecondaryButton.onClick(() => secondary && secondary.run());
    if (tg.BackButton) tg.BackButton.onClick(back);
    if (tg.onEvent) tg.onEvent("viewportChanged", () => render());
  }
  const lang = (user.language_code || navigator.language || "zh").toLowerCase();
  state.words = await (await fetch(`api/texts?lang=${encodeURIComponent(lang)}`)).json();
  document.documentElement.lang = lang.startsWith("en") ? "en" : "zh";
  document.title = T("webapp.title");
  $("notice").textContent = T("webapp.loading");
  $("sound").addEventListener("click", toggleSound);
  wirePanels();
  if (!initData) { $("notice").textContent = T("webapp.no_auth"); return; }
  const r = await api(withGame("api/view"));
  if (!r.ok) {
    $("notice").textContent = T(r.status === 404 ? "webapp.gone" : r.status === 401 ? "webapp.no_auth" : "webapp.refused");
    return;
  }
  const view = await r.json();
  restore(view);
  show(view);
  if (document.visibilityState !== "hidden") follow();
  setInterval(tick, 250);
}

// ------------------------------------------------------------------ what a reload keeps
// the selection and the open last-trick view, for the same moment of the same hand
function saveKey(view) { return `sj.table.${view.game}`; }

function save() {
  const v = state.view;
  if (!v || !v.me) return;
  const kept = { hand_no: v.hand_no, version: v.version, sel: state.sel.map((i) => v.me.hand[i]), last: state.showLast };
  try { sessionStorage.setItem(saveKey(v), JSON.stringify(kept)); } catch (e) { /* private mode */ }
}

function restore(view) {
  let kept = null;
  try { kept = JSON.parse(sessionStorage.getItem(saveKey(view)) || "null"); } catch (e) { kept = null; }
  if (!kept || kept.hand_no !== view.hand_no || !view.me) return;
  state.showLast = !!kept.last && !!view.last;
  if (kept.version === view.version && view.me.my_turn) state.sel = positions(view.me.hand, kept.sel || []);
  state.restored = kept.version === view.version;
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
  source.onopen = () => online(true);
  source.onmessage = (ev) => { online(true); show(JSON.parse(ev.data)); };
  source.onerror = () => {
    online(false);
    // the browser tries again by itself, unless it gave the stream up: then a new one
    if (source && source.readyState === EventSource.CLOSED) { unfollow(); setTimeout(refollow, 2000); }
  };
  pinger = setInterval(here, PING_MS);
}

function refollow() {
  if (!source && document.visibilityState !== "hidden") follow();
}

function unfollow() {
  if (!source) return;
  source.close();
  source = null;
  clearInterval(pinger);
}

function online(yes) {
  if (state.online === yes) return;
  state.online = yes;
  render();
}

async function here() {
  const v = state.view;
  if (!v || !source) return;
  try {
    const r = await api("api/here", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ game: v.game }) });
    if (r.status === 404) { unfollow(); follow(); } // the bot let the stream go: a new one
    else if (r.ok) online(true);
  } catch (e) { online(false); }
}

function shown(visible) {
  if (!initData || !state.view) return;
  if (visible) follow();
  else unfollow();
}

// the phone's own word on its network: gone, the banner at once; back, the stream again
window.addEventListener("offline", () => online(false));
window.addEventListener("online", () => {
  if (source && source.readyState !== EventSource.OPEN) unfollow();
  refollow();
  here();
});

document.addEventListener("visibilitychange", () => shown(document.visibilityState === "visible"));
if (tg && tg.onEvent) {
  tg.onEvent("activated", () => shown(true));
  tg.onEvent("deactivated", () => shown(false));
}

// ------------------------------------------------------------------ state
function show(view) {
  const old = state.view;
  const me = view.me;
  const sameHand = old && old.hand_no === view.hand_no && old.game === view.game;
  if (!sameHand && old) { // a new hand: nothing of the last one stays
    state.hold = null;
    state.showLast = false;
    state.note = null;
    state.showKitty = false;
  }
  // an answer belongs to the moment it answered: a new phase (the window passed, the
  // bury done) asks something else, so the prompt says that instead
  if (sameHand && old.phase !== view.phase && state.note && !state.note.alert) state.note = null;
  if (sameHand && view.tricks_done > old.tricks_done && view.last) {
    state.hold = { trick: view.last, until: performance.now() + HOLD_MS }; // the trick just won
    for (const ms of [HOLD_MY_TURN_MS, HOLD_MS]) setTimeout(tick, ms + 5); // gives way on time
  }
  if (me) {
    const wasMine = old && old.me && old.me.my_turn && sameHand;
    if (me.my_turn && !wasMine) { haptic("warning"); beep(); }
    // keep the selection where the same cards are still held
    const before = old && old.me ? state.sel.map((i) => old.me.hand[i]) : [];
    // a selection is for one turn: any move of the game clears it (only your own can come
    // during your turn), so a copy of a card just played is never left selected
    if (state.restored) state.restored = false;
    else if (!old || !me.my_turn || !sameHand || old.version !== view.version) state.sel = [];
    else state.sel = positions(me.hand, before);
    // a Hint the search decided after the press was answered ("thinking") arrives as a
    // change of its own: its cards become the selection, and the prompt says why
    const had = old && old.me && sameHand && old.version === view.version ? old.me.hint : null;
    if (me.hint && me.my_turn && !(had && sameCards(had.cards, me.hint.cards))) {
      state.sel = positions(me.hand, me.hint.cards);
      if (state.note && !state.note.alert) state.note = null;
    }
  }
  if (!view.last) state.showLast = false;
  state.view = view;
  panelFollows(old, view);
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

function holding() {
  const hold = state.hold;
  if (!hold) return null;
  const v = state.view;
  const follow = v && v.me && v.me.my_turn && v.trick && v.trick.plays.length;
  const until = follow ? Math.min(hold.until, hold.until - HOLD_MS + HOLD_MY_TURN_MS) : hold.until;
  return performance.now() < until ? hold : null;
}

function tick() {
  if (state.hold && !holding()) { state.hold = null; render(); return; }
  if (state.note && performance.now() > state.note.until) { state.note = null; renderPrompt(state.view); }
  const clock = $("clock");
  if (state.deadlineAt == null || !state.view) { clock.hidden = true; return; }
  const left = Math.max(0, Math.ceil(state.deadlineAt - performance.now() / 1000));
  clock.hidden = false;
  clock.textContent = T("webapp.seconds", { s: left });
  const mine = state.view.me && (state.view.me.my_turn || state.view.me.can_pass);
  clock.classList.toggle("low", left <= 10 && !!mine);
  clock.classList.toggle("other", !mine);
  clock.classList.toggle("stale", !state.online); // offline: the bot's clock may have moved
}

// ------------------------------------------------------------------ drawing
function cardEl(card, extra) {
  const el = document.createElement("div");
  el.className = "c" + (card.red ? " red" : "") + (card.joker ? " joker" : "") + (card.r === "10" ? " ten" : "") + (extra ? " " + extra : "");
  const r = document.createElement("span");
  r.className = "r";
  r.textContent = card.r;
  const s = document.createElement("span");
  s.className = "s";
  s.textContent = card.joker ? "★" : card.s;
  el.append(r, s);
  el.title = card.joker ? card.r : card.s + card.r;
  return el;
}

function cardsEl(cards, mini) {
  const box = document.createElement("div");
  box.className = "cards" + (mini ? " mini" : "");
  for (const c of cards) box.append(cardEl(c));
  return box;
}

// played cards, overlapped so each card's rank and suit stay in view (a strip of STRIP px),
// in rows when a play is wider than its place
const STRIP = 15;
function fanEl(cards, width, cardWidth) {
  const box = document.createElement("div");
  box.className = "fan";
  const per = Math.max(1, Math.floor((width - cardWidth) / STRIP) + 1);
  const rows = Math.ceil(cards.length / per);
  const each = Math.ceil(cards.length / rows);
  for (let i = 0; i < cards.length; i += each) {
    const row = cardsEl(cards.slice(i, i + each));
    const n = Math.min(each, cards.length - i);
    const step = n > 1 ? Math.min(cardWidth + 2, (width - cardWidth) / (n - 1)) : cardWidth;
    row.style.setProperty("--step-overlap", `${Math.floor(Math.max(STRIP, step) - cardWidth)}px`);
    box.append(row);
  }
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
  renderBanner();
  if (!v.phase) { // lobby or a game without a match
    $("notice").textContent = T(v.status === "lobby" ? "webapp.lobby" : "webapp.over");
    return;
  }
  $("notice").textContent = "";
  const shown = shownTrick(v);
  document.body.dataset.trick = shown.mode;
  renderBar(v);
  renderSound();
  renderPoints(v);
  renderSeats(v, shown);
  renderMiddle(v, shown);
  renderResult(v);
  renderWhy(v);
  renderPanel(v);
  renderCounter(v);
  renderMine(v);
  renderTelegram(v);
  fit();
  save();
  tick();
}

function renderBanner() {
  const banner = $("banner");
  banner.hidden = state.online;
  banner.textContent = T("webapp.offline_banner");
}

// which trick the table draws: the one being played; the one just won (its winner marked, for
// HOLD_MS at least, and on until the next lead); or the last trick, asked for
function shownTrick(v) {
  if (state.showLast && v.last) return { trick: v.last, mode: "last" };
  const held = holding();
  if (held) return { trick: held.trick, mode: "won" };
  if (v.trick && v.trick.plays.length) return { trick: v.trick, mode: "live" };
  if (v.last && (v.phase === "playing" || v.phase === "done")) return { trick: v.last, mode: "won" };
  return { trick: null, mode: "none" };
}

function renderBar(v) {
  const mine = v.me ? v.seats[v.me.seat].team : null;
  const trump = v.trump;
  const parts = [
    `<b>${T("webapp.hand", { n: v.hand_no })}</b>`,
    T("webapp.trump", { trump: `<span class="trump${/[♥♦]/.test(trump) ? " red" : ""}">${trump}</span>` }),
    `<b class="playing">${T("webapp.level", { level: v.level })}</b>`, // 打N: the level this hand is played at
  ];
  // both teams' levels (seats 0 and 1 are one of each team); after the hand, the new ones
  const levels = ((v.result && v.result.levels) || v.levels || []).map((level, team) =>
    `<span class="lv t${team}${team === mine ? " mine" : ""}">${T("webapp.team_level", { team: v.seats[team].team_name, level })}</span>`);
  parts.push(levels.join(" "));
  if (!v.me) parts.push(T("webapp.watching"));
  if (v.paused) parts.push(T("webapp.paused"));
  // each part whole: a narrow screen breaks the line between parts, never cuts the levels
  $("info").innerHTML = parts.map((part) => `<span>${part}</span>`).join("");
}

function renderPoints(v) {
  const box = $("points");
  const p = v.points;
  if (!p || p.team == null || !["playing", "done"].includes(v.phase)) { box.hidden = true; box.innerHTML = ""; return; }
  box.hidden = false;
  box.innerHTML = "";
  const pts = document.createElement("span");
  pts.className = "pts";
  pts.textContent = T("webapp.points", { team: p.team_name, points: p.points });
  box.append(pts);
  if (p.penalty_line) { // the total explained: its trick points and the penalty in it
    const pen = document.createElement("span");
    pen.className = "pen";
    pen.textContent = p.penalty_line;
    box.append(pen);
  }
  // what the total means (the take-over, what changes next and where) while the hand is
  // played; once it is over, the result says it
  if (p.context && p.context.length && v.phase === "playing") {
    const ctx = document.createElement("span");
    ctx.className = "ctx";
    p.context.forEach((phrase, i) => { // a narrow screen breaks the line between phrases, not inside one
      const part = document.createElement("span");
      part.textContent = phrase; // its "·" is the style's (no line starts with it)
      ctx.append(part);
    });
    box.append(ctx);
  }
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

function playEl(v, play, trick, mode, width) {
  const box = document.createElement("div");
  box.className = "play" + (mode === "last" ? " last" : "");
  if (!play) return box;
  const done = trick.winner != null;
  const best = done ? trick.winner === play.seat : trick.best === play.seat;
  if (best) box.classList.add("best", done ? "won" : "leading");
  const cw = parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--pw")) || 26;
  box.append(fanEl(play.cards, width, cw));
  const words = [];
  if (play.ruff) words.push(T("webapp.ruff"));
  if (best) words.push(done ? T("webapp.won", { points: trick.points }) : T("webapp.best"));
  if (words.length) { // right under the cards it is about, each phrase whole on a narrow screen
    const mark = document.createElement("div");
    mark.className = "mark";
    words.forEach((word, i) => {
      const part = document.createElement("span");
      part.textContent = word;
      if (i) mark.append(" · ");
      mark.append(part);
    });
    box.append(mark);
  }
  if (play.attempted) { // a failed throw: what was tried, never marked as winning
    // each on one line, its words before its cards: what was tried, what beat it
    const line = (words, cls, cards, cardsCls) => {
      const row = document.createElement("div");
      row.className = "failed";
      const text = document.createElement("span");
      text.className = cls;
      text.textContent = words;
      const shown = cardsEl(cards, true);
      shown.classList.add(cardsCls);
      row.append(text, shown);
      box.append(row);
    };
    line(T("webapp.failed_throw"), "tried", play.attempted, "attempt");
    if (play.beaten_by && play.beaten_by.length && play.beaten_by_seat != null) {
      // who showed what beat it (RULES 13), as the group's table says it
      line(T("webapp.beaten_by", { name: nameText(play.beaten_by_seat) }), "beaten", play.beaten_by, "beater");
    }
  }
  return box;
}

function tagEl(v, seat, pos) {
  const s = v.seats[seat];
  const tag = document.createElement("div");
  const acts = v.to_act.seats.includes(seat) && v.phase !== "done";
  tag.className = `tag team${s.team}` + (acts ? " acts" : "");
  tag.dataset.seat = seat;
  const name = document.createElement("span");
  name.className = "name";
  const you = v.me && v.me.seat === seat;
  name.innerHTML = you ? `${s.name} (${T("webapp.you")})` : s.name;
  const sub = document.createElement("span");
  sub.className = "sub";
  sub.innerHTML = `<span class="team">${s.team_name}</span> · <span class="count">${P("webapp.cards", s.count)}</span>` + (s.auto ? " 🤖" : "");
  if (v.dealer === seat) {
    const b = document.createElement("span");
    b.className = "badge";
    b.textContent = T("webapp.dealer");
    sub.prepend(b, " ");
  }
  tag.append(name, sub);
  return tag;
}

function renderSeats(v, shown) {
  const order = seatOrder(v);
  const trick = shown.trick;
  const table = $("table").getBoundingClientRect();
  for (const [pos, seat] of Object.entries(order)) {
    const el = document.querySelector(`.seat[data-pos=${pos}]`);
    el.innerHTML = "";
    const play = trick ? trick.plays.find((p) => p.seat === seat) : null;
    const width = pos === "top" || pos === "bottom" ? table.width * 0.38 : table.width * 0.29;
    const playBox = playEl(v, play, trick, shown.mode, Math.max(60, width - 4));
    const tag = tagEl(v, seat, pos);
    if (pos === "top") el.append(tag, playBox);
    else el.append(playBox, tag);
  }
}

function askKey(v) {
  if (v.phase === "chaodi") return "webapp.ask.chaodi";
  if (v.phase === "after_deal") return v.shows.length ? "webapp.ask.overturn" : "webapp.ask.declare";
  if (v.phase === "dealing") return v.shows.length ? "webapp.ask.overturn" : "webapp.ask.declare";
  return null;
}

function renderMiddle(v, shown) {
  const status = $("status");
  const turn = v.to_act.seats.length === 1 ? v.to_act.seats[0] : null;
  let text = "";
  status.className = "";
  if (v.phase === "dealing") text = T("webapp.dealing", { dealt: v.dealt, total: v.deal_total });
  else if (v.phase === "after_deal") text = T("webapp.window");
  else if (v.phase === "burying" && turn != null) text = T("webapp.burying", { name: nameOf(turn) });
  else if (v.phase === "chaodi" && turn != null) text = T("webapp.chaodi", { name: nameOf(turn) });
  else if (shown.mode === "last") text = T("webapp.last_trick");
  else if (shown.mode === "won" && shown.trick.winner != null && v.phase === "playing") {
    status.className = "won"; // the winner's play says it: won (N points)
  } else if (v.phase === "playing" && turn != null) text = T("webapp.waiting", { name: nameOf(turn) });
  if (v.me && v.me.my_turn && v.phase === "playing" && shown.mode !== "last") text = T("webapp.your_turn");
  if (v.me && v.me.my_turn && v.phase === "burying") text = T("webapp.your_bury");
  status.innerHTML = text;
  const shows = $("shows");
  shows.innerHTML = "";
  const before = ["dealing", "after_deal", "burying", "chaodi"].includes(v.phase);
  if (before) {
    if (!v.shows.length && !v.revealed_kitty && !v.dealer_team) {
      const none = document.createElement("div");
      none.className = "quiet";
      none.textContent = T("webapp.no_show");
      shows.append(none);
    }
    if (v.dealer_team) {
      const line = document.createElement("div");
      line.textContent = v.dealer_team;
      shows.append(line);
    }
    for (const s of v.shows.slice(-3)) {
      const line = document.createElement("div");
      line.className = "line";
      line.innerHTML = `<span class="who">${nameOf(s.seat)} ${s.action}</span>`;
      line.append(cardsEl(s.cards, true));
      shows.append(line);
    }
  }
  if (v.revealed_kitty) {
    const line = document.createElement("div");
    line.className = "line";
    line.textContent = T("webapp.shown_kitty", { cards: "" });
    line.append(cardsEl(v.revealed_kitty, true));
    shows.append(line);
  }
  const kitty = v.me && v.me.kitty;
  if (kitty && v.phase === "playing" && state.showKitty) { // the dealer's own kitty, asked for
    const line = document.createElement("div");
    line.className = "line quiet";
    line.textContent = T("webapp.kitty");
    line.append(cardsEl(kitty, true));
    shows.append(line);
  }
}

// "Why?" on the last trick: why each computer (or 托管) play was made, as decided when it
// was played (the server's lines, in the reader's words); open for one trick only
function whyOf(v) {
  const trick = v.last;
  return trick && v.phase === "playing" && trick.plays.some((p) => p.why) ? trick : null;
}

function renderWhy(v) {
  const box = $("why");
  const trick = whyOf(v);
  if (!trick || state.showWhy !== trick.number) { box.hidden = true; box.innerHTML = ""; return; }
  box.hidden = false;
  box.innerHTML = "";
  const title = document.createElement("h3");
  title.textContent = T("webapp.why_title", { n: trick.number });
  box.append(title);
  for (const play of trick.plays) {
    if (!play.why) continue;
    const line = document.createElement("div");
    line.className = "line";
    line.textContent = T("webapp.why_play", { name: nameText(play.seat), line: play.why });
    box.append(line);
  }
}

function nameText(seat) { // a seat's name as text (the view sends it as safe HTML)
  const el = document.createElement("span");
  el.innerHTML = nameOf(seat);
  return el.textContent;
}

function setWhy() {
  const trick = state.view && whyOf(state.view);
  state.showWhy = trick && state.showWhy !== trick.number ? trick.number : null;
  haptic("select");
  render();
}

// ------------------------------------------------------------------ the card counter (记牌器)
// what this seat may know and nothing more, counted by the engine (engine.counter): per suit
// class the cards out and the high cards with the copies of each still out, the cards
// played; the points; who has shown void in a suit
function chipsEl(cards, suited) {
  const box = document.createElement("span");
  box.className = "chips";
  for (const c of cards) {
    const el = document.createElement("span");
    el.className = "chip" + (c.red ? " red" : "") + (c.n === 0 ? " gone" : "");
    el.textContent = (c.joker || !suited ? "" : c.s) + c.r + (c.n > 1 ? `×${c.n}` : "");
    box.append(el);
  }
  return box;
}

function counterRow(label, parts, extra) {
  const row = document.createElement("div");
  row.className = "row" + (extra ? " " + extra : "");
  const head = document.createElement("span");
  head.className = "k";
  head.innerHTML = label;
  row.append(head, ...parts);
  return row;
}

function textEl(html, cls) {
  const el = document.createElement("span");
  el.className = cls || "";
  el.innerHTML = html;
  return el;
}

function renderCounter(v) {
  const box = $("counter");
  const count = v.me && v.me.counter;
  if (!count || !state.showCounter) { box.hidden = true; box.innerHTML = ""; return; }
  box.hidden = false;
  box.innerHTML = "";
  const title = document.createElement("h3");
  title.textContent = T("webapp.counter.title");
  box.append(title);
  // first what a glance needs: the points not yet played and who is void, then each class
  const p = count.points;
  const kitty = p.buried == null ? "" : T("webapp.counter.points_kitty", { n: p.buried });
  box.append(counterRow("", [textEl(T("webapp.counter.points", { left: p.unplayed, mine: p.mine }) + kitty)], "points"));
  const suit = (label) => (/[♥♦]/.test(label) ? `<span class="red">${label}</span>` : label);
  const voids = count.voids.map((x) => `${nameOf(x.seat)} <b>${x.classes.map(suit).join(" ")}</b>`);
  box.append(counterRow(T("webapp.counter.voids"), [textEl(voids.length ? voids.join(" · ") : T("webapp.counter.voids_none"))], "voids"));
  for (const c of count.classes) {
    const suit = `<b class="${c.red ? "red" : ""}">${c.label}</b>`;
    const out = textEl(T("webapp.counter.out", { n: c.out }), "out");
    box.append(counterRow(suit, [out, chipsEl(c.high, c.trump)], "class"));
    const played = c.played.length ? chipsEl(c.played, c.trump) : textEl(T("webapp.counter.none"), "quiet");
    box.append(counterRow(T("webapp.counter.played"), [played], "played"));
  }
  if (p.out.length) box.append(counterRow(T("webapp.counter.points_out"), [chipsEl(p.out, true)], "pts"));
  const note = document.createElement("div");
  note.className = "note";
  note.textContent = T(count.kitty_known ? "webapp.counter.note_hands" : "webapp.counter.note_kitty");
  box.append(note);
}

function setCounter() {
  state.showCounter = !state.showCounter;
  haptic("select");
  render();
}

function renderResult(v) {
  const box = $("result");
  if (!v.result || holding()) { box.hidden = true; box.innerHTML = ""; return; }
  box.hidden = false;
  const next = v.result.match_over ? "" : `<div class="next">${T("webapp.next_dealer", { name: nameOf(v.result.next_dealer) })}</div>`;
  box.innerHTML = `<h3>${T("webapp.result", { n: v.hand_no })}</h3><div class="lines">${v.result.lines.map((l) => `<div>${l}</div>`).join("")}${next}</div>`;
}

function handCards(me) {
  // groups as the bot sends them: trumps first, each suit apart; the cards picked up with the
  // kitty (while burying) in a group of their own at the end
  const picked = me.picked ? [...me.picked] : [];
  const groups = [];
  const pickedGroup = [];
  const taken = {};
  for (const g of me.groups) {
    const cards = [];
    for (const card of g.cards) {
      const pos = me.hand.findIndex((c, j) => c === card.id && !taken[j]);
      taken[pos] = true;
      const k = picked.indexOf(card.id);
      if (k >= 0) { picked.splice(k, 1); pickedGroup.push({ card, pos, trump: g.trump, picked: true }); }
      else cards.push({ card, pos, trump: g.trump });
    }
    if (cards.length) groups.push(cards);
  }
  return { groups, pickedGroup };
}

function selectable(v) {
  return !!(v.me && v.me.my_turn && !v.me.auto && (v.phase === "burying" || v.phase === "playing"));
}

// sizes of the hand's cards, largest first: the largest with which the page fits the viewport
const SIZES = [[46, 68], [44, 62], [42, 56], [40, 52], [38, 48]];

function renderMine(v) {
  const me = v.me;
  const mine = $("mine");
  // after the hand, nothing in it: the result has the room
  mine.hidden = !me || (!me.hand.length && !me.shows.length && !me.can_pass);
  if (mine.hidden) { $("hand").innerHTML = ""; return; }
  const [cw] = SIZES[state.size];
  const hand = $("hand");
  hand.innerHTML = "";
  const { groups, pickedGroup } = handCards(me);
  const all = pickedGroup.length ? [...groups, pickedGroup] : groups;
  const playable = me.playable ? new Set(me.playable) : null;
  for (const row of rowsOf(all, hand.clientWidth || 348, cw)) {
    const line = document.createElement("div");
    line.className = "row";
    line.style.setProperty("--overlap", `${row.overlap}px`);
    row.groups.forEach((group, gi) => {
      if (gi) { const gap = document.createElement("div"); gap.className = "gap"; line.append(gap); }
      const box = document.createElement("div");
      box.className = "group";
      for (const { card, pos, trump, picked } of group) {
        const dim = playable && !playable.has(card.id);
        const el = cardEl(card, (trump ? "trump" : "") + (picked ? " picked" : "") + (dim ? " dim" : ""));
        if (state.sel.includes(pos)) el.classList.add("sel");
        el.dataset.pos = pos;
        el.dataset.id = card.id;
        el.addEventListener("click", () => toggle(pos));
        box.append(el);
      }
      if (group.length && group[0] === pickedGroup[0]) {
        const label = document.createElement("span");
        label.className = "label";
        label.textContent = T("webapp.picked");
        box.prepend(label);
      }
      line.append(box);
    });
    hand.append(line);
  }
  renderPrompt(v);
  renderAsks(v, me);
  renderTools(v, me);
}

const GAP = 7;
const READABLE = 0.42; // of a card's width left in view when covered: its rank and suit

function overlapFor(groups, width, card) {
  // the cards overlap so that the row fits the width: width = card + (n - 1) * step + gaps
  const n = groups.reduce((k, g) => k + g.length, 0);
  const gaps = (groups.length - 1) * GAP;
  const step = n > 1 ? Math.min(card + 2, (width - card - gaps) / (n - 1)) : card;
  return { step, overlap: Math.floor(step - card) };
}

function rowsOf(groups, width, card) {
  // as few rows as keep every card readable (a strip of READABLE px), at most three; the
  // rows as even as may be, broken between suits (trumps first) where one ends near the
  // even point, else inside a suit
  const total = groups.reduce((k, g) => k + g.length, 0);
  let rows = [];
  for (let n = 1; n <= 3; n++) {
    rows = split(groups, total, n);
    if (rows.every((gs) => overlapFor(gs, width, card).step >= READABLE * card)) break;
  }
  return rows.map((gs) => ({ groups: gs, overlap: overlapFor(gs, width, card).overlap }));
}

function split(groups, total, n) {
  if (n === 1) return [groups];
  const target = Math.ceil(total / n);
  const rows = [[]];
  let count = 0;
  for (const group of groups) {
    let rest = group;
    while (rest.length) {
      const room = target - count;
      const last = rows.length === n;
      // a suit that fits, or would end this row near its even point, stays whole
      if (last || rest.length <= room) {
        rows[rows.length - 1].push(rest);
        count += rest.length;
        rest = [];
      } else if (room <= 2 && count) { // near enough: a new row for this suit
        rows.push([]);
        count = 0;
      } else {
        const part = rest.slice(0, room);
        rows[rows.length - 1].push(part);
        rows.push([]);
        count = 0;
        rest = rest.slice(room);
      }
    }
  }
  return rows.filter((r) => r.length);
}

function renderPrompt(v) {
  const p = $("prompt");
  if (!v || !v.me) return;
  const me = v.me;
  if (state.note && !current(state.note, v)) state.note = null;
  const note = state.note;
  p.className = "";
  if (note) {
    p.className = note.alert ? "alert" : "toast";
    p.textContent = note.text;
    return;
  }
  p.classList.toggle("turn", me.my_turn);
  const k = state.sel.length;
  if (me.hint && me.my_turn && sameCards(state.sel.map((i) => me.hand[i]), me.hint.cards)) {
    p.classList.add("hint"); // the selection is the Hint's: why
    p.textContent = T("webapp.hint_why", { line: me.hint.line });
    return;
  }
  let text = "";
  if (me.auto) text = T("webapp.auto");
  else if (v.phase === "burying" && me.my_turn) text = `${T("webapp.your_bury")} · ${T("webapp.selected", { k })}`;
  else if (v.phase === "playing" && me.my_turn) {
    text = me.needed ? T("webapp.need", { n: me.needed, k }) : `${T("webapp.lead")} · ${T("webapp.selected", { k })}`;
    if (mixedLead(me)) { p.classList.add("alert"); text = T("webapp.mixed_lead"); }
  } else if (v.phase === "after_deal" && !me.can_pass && !me.shows.length) text = T("webapp.window_waiting");
  p.innerHTML = text;
}

function sameCards(a, b) {
  const x = [...a].sort((p, q) => p - q), y = [...b].sort((p, q) => p - q);
  return x.length === y.length && x.every((c, i) => c === y[i]);
}

// on a narrow phone (320 px) a tool whose label starts with its icon (🧮, 🤖) shows the icon
// alone, its words as its title: the tools stay one row, the table keeps its height
function iconic(b) {
  const label = b.textContent, space = label.indexOf(" ");
  if (innerWidth <= 340 && space > 0) {
    b.textContent = label.slice(0, space);
    b.title = b.ariaLabel = label.slice(space + 1);
  }
  return b;
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

// the window's question and its choices (the shows as buttons; Pass is the MainButton)
function renderAsks(v, me) {
  const box = $("asks");
  box.innerHTML = "";
  const key = askKey(v);
  const asked = me.shows.length || me.can_pass || me.can_redeal;
  if (!key || !asked) { box.hidden = true; return; }
  box.hidden = false;
  const ask = document.createElement("div");
  ask.className = "ask";
  const chaodi = v.phase === "chaodi";
  // hand 1's overturner becomes the dealer (RULES 7, 反主反打); later hands' keeps the dealer
  const first = key === "webapp.ask.overturn" && v.hand_no === 1 ? ".first" : "";
  let text = T(key + first, { order: v.overturn_order });
  // to this seat only (its own page): it holds nothing that could overturn; the table waits
  // for its answer as for anyone's, so nobody else can tell
  if (chaodi && !me.shows.length) text += ` ${T("webapp.ask.chaodi.none")}`;
  if (me.can_pass) text += ` ${T(chaodi ? "webapp.ask.pass.chaodi" : "webapp.ask.pass")}`;
  ask.innerHTML = text;
  box.append(ask);
  const choices = document.createElement("div");
  choices.className = "choices";
  for (const option of me.shows.slice(0, 4)) {
    const label = `${option.label} ${option.shown.map((c) => c.joker ? c.r : c.s + c.r).join(" ")}`;
    const b = button(label, () => act("show", { cards: option.cards }), false, "show");
    if (option.shown.every((c) => c.red && !c.joker)) b.classList.add("red"); // 亮主 ♥4 reads red
    choices.append(b);
  }
  if (me.can_redeal) choices.append(button(T("btn.redeal"), () => act("redeal"), true, "redeal"));
  if (choices.childElementCount) box.append(choices);
}

function renderTools(v, me) {
  const box = $("tools");
  box.innerHTML = "";
  for (const [name, version, spec, act] of [["SecondaryButton", "7.10", secondaryOf(v), "hint"], ["MainButton", "6.0", primaryOf(v), "main"]]) {
    if (has(name, version) || !spec) continue;
    const b = button(spec.text, () => spec.run(), act === "hint", act);
    b.disabled = !spec.active;
    box.append(b);
  }
  if (v.last && v.phase === "playing") {
    const last = button(state.showLast ? T("webapp.hide") : T("webapp.last_trick"), () => setLast(!state.showLast), true, "last");
    last.id = "last-btn";
    last.setAttribute("aria-pressed", String(state.showLast));
    box.append(last);
  }
  if (whyOf(v)) {
    const open = state.showWhy === v.last.number;
    const why = button(open ? T("webapp.hide") : T("webapp.why"), setWhy, true, "why");
    why.setAttribute("aria-pressed", String(open));
    box.append(why);
  }
  if (me.kitty && v.phase === "playing") {
    const kitty = button(T("webapp.kitty"), () => { state.showKitty = !state.showKitty; render(); }, true, "kitty");
    kitty.setAttribute("aria-pressed", String(!!state.showKitty));
    box.append(kitty);
  }
  if (me.counter) {
    const counter = iconic(button(T("webapp.counter"), setCounter, true, "counter"));
    counter.setAttribute("aria-pressed", String(!!state.showCounter));
    box.append(counter);
  }
  // 托管 by choice, while the tricks are played (a window left to run out is a pass anyway;
  // before the tricks the table's middle needs the row's room)
  if (v.status === "running" && !me.auto && v.phase === "playing") {
    box.append(iconic(button(T("btn.auto.on"), () => act("away"), true, "away")));
  }
  if (selectable(v) && state.sel.length) {
    box.append(button(T("btn.clear"), () => { state.sel = []; haptic("select"); render(); }, true, "clear"));
  }
  box.hidden = !box.childElementCount;
}

function renderSound() {
  const sound = $("sound");
  sound.textContent = state.sound ? "🔔" : "🔕";
  sound.title = sound.ariaLabel = state.sound ? T("webapp.sound_on") : T("webapp.sound_off");
  sound.setAttribute("aria-pressed", String(state.sound));
}

function toggleSound() {
  state.sound = !state.sound;
  stored("sj.sound", state.sound ? "1" : "0");
  if (state.sound) beep();
  haptic("select");
  renderSound();
}

function setLast(open) {
  state.showLast = open && !!(state.view && state.view.last);
  if (state.showLast) state.hold = null;
  haptic("select");
  render();
}

// ------------------------------------------------------------------ Telegram's own buttons
let primary = null; // {text, active, run}
let secondary = null;

function primaryOf(v) {
  const me = v.me;
  if (!me) return null;
  if (me.auto) return { text: T("btn.auto.off"), active: true, run: () => act("back") };
  if (v.result && !v.result.match_over && v.status === "running" && !holding()) {
    return { text: T("btn.next_hand"), active: true, run: () => act("next") };
  }
  if (selectable(v)) {
    const k = state.sel.length;
    const need = v.phase === "burying" ? 8 : me.needed;
    const text = v.phase === "burying" ? T("btn.bury", { n: k })
      : need ? T("btn.play.count", { n: k, need }) : T("btn.play.n", { n: k });
    const mixed = v.phase === "playing" && mixedLead(me);
    return { text, active: k > 0 && (!need || k === need) && !mixed, run: () => play() };
  }
  if (me.can_pass) return { text: T(passKey(v)), active: true, run: () => act("pass") };
  return null;
}

// 炒底's pass is "don't overturn" (不炒), the windows' "pass" (不亮)
function passKey(v) {
  return v.phase === "chaodi" ? "btn.pass.chaodi" : "btn.pass";
}

// a lead's selection of several suit classes (trumps count as one): the bot refuses it
// (RULES 8), so Play waits and the prompt says why
function mixedLead(me) {
  if (me.needed || !me.classes) return false;
  return new Set(state.sel.map((i) => me.classes[i])).size > 1;
}

function secondaryOf(v) {
  if (!selectable(v)) return null;
  const following = v.phase === "playing" && v.me.playable;
  return { text: following ? T("webapp.match_lead") : T("btn.hint"), active: true, run: () => act("hint") };
}

// Telegram's own buttons where the client has them (SecondaryButton since Bot API 7.10); an
// older client gets the same actions as buttons of the page (renderTools)
function has(name, version) {
  return !!(tg && tg[name] && (!tg.isVersionAtLeast || tg.isVersionAtLeast(version)));
}

function renderTelegram(v) {
  primary = primaryOf(v);
  secondary = secondaryOf(v);
  if (!tg) return;
  for (const [b, spec] of [[has("MainButton", "6.0") && tg.MainButton, primary], [has("SecondaryButton", "7.10") && tg.SecondaryButton, secondary]]) {
    if (!b) continue;
    if (!spec) { if (b.isVisible) b.hide(); continue; }
    if (b.setParams) b.setParams({ text: spec.text, is_active: spec.active, is_visible: true });
    if (state.busy && b === tg.MainButton) b.showProgress && b.showProgress();
    else b.hideProgress && b.hideProgress();
  }
  if (has("SecondaryButton", "7.10") && secondary) tg.SecondaryButton.setParams({ position: "left" });
  if (has("BackButton", "6.1")) {
    const backs = state.showLast || !!state.panel;
    if (backs && !tg.BackButton.isVisible) tg.BackButton.show();
    if (!backs && tg.BackButton.isVisible) tg.BackButton.hide();
  }
  const playing = v.me && v.status === "running" && v.phase !== "done";
  if (playing && tg.enableClosingConfirmation) tg.enableClosingConfirmation();
  if (!playing && tg.disableClosingConfirmation) tg.disableClosingConfirmation();
}

// the page fits the viewport: the hand's cards shrink until nothing is below its bottom
function fit() {
  const app = $("app");
  const table = $("table");
  const clipped = (el) => el.scrollHeight > el.clientHeight + 1;
  const over = () => clipped(app) || clipped(table) || clipped($("middle")) || beyond(table) ||
    $("mine").getBoundingClientRect().bottom > app.getBoundingClientRect().bottom + 1;
  let size = 0;
  apply(size);
  while (over() && size < SIZES.length - 1) apply(++size);
}

// a seat's tag or play drawn past the table's edge (the grid's rows squeezed)
function beyond(table) {
  const box = table.getBoundingClientRect();
  return [...table.querySelectorAll(".seat > *")].some((el) => {
    const r = el.getBoundingClientRect();
    return r.height && (r.bottom > box.bottom + 1 || r.top < box.top - 1);
  });
}

function apply(size) {
  const [cw, ch] = SIZES[size];
  const root = document.documentElement.style;
  const changed = state.size !== size;
  state.size = size;
  root.setProperty("--cw", `${cw}px`);
  root.setProperty("--ch", `${ch}px`);
  if (changed && state.view && state.view.me) renderMine(state.view); // rows depend on the card width
}

function toggle(pos) {
  const v = state.view;
  if (!v || !selectable(v)) return;
  const id = v.me.hand[pos];
  if (v.me.playable && !v.me.playable.includes(id) && !state.sel.includes(pos)) {
    haptic("error");
    note((v.me.refusals && v.me.refusals[id]) || T("webapp.cannot_play"), true);
    return;
  }
  const i = state.sel.indexOf(pos);
  if (i >= 0) state.sel.splice(i, 1);
  else state.sel.push(pos);
  haptic("select");
  render();
}

function play() {
  const v = state.view;
  state.hold = null; // the player moved on: the table draws their lead at once
  act("play", { cards: state.sel.map((i) => v.me.hand[i]) });
}

async function act(action, extra) {
  const v = state.view;
  if (!v) return;
  if (!state.online) { haptic("error"); note(T("webapp.offline_refused"), true); return; }
  if (state.busy) return;
  state.busy = true;
  renderTelegram(v);
  try {
    const body = Object.assign({ game: v.game, action, hand: v.hand_no, version: v.version }, extra || {});
    let r;
    try {
      r = await api("api/act", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    } catch (e) {
      state.online = false;
      haptic("error");
      note(T("webapp.offline_refused"), true);
      return;
    }
    if (r.status === 429) { note("…", true); return; }
    if (r.status === 401) { haptic("error"); note(T("webapp.expired"), true); return; } // opened too long ago
    const answer = await r.json();
    if (answer.alert) haptic("error");
    else if (action === "play") haptic("medium");
    const hinted = action === "hint" && answer.view.me && answer.view.me.hint;
    state.busy = false;
    // a Hint answered before its search ended changed nothing yet: its view may even be
    // older than one the stream brought meanwhile (with the suggestion), so it is not shown
    if (action !== "hint" || hinted) show(answer.view);
    // the answer, for the moment it answers: once the table moved on to another phase
    // (the last pass closed the window, the bury began the play) the prompt asks that
    const moved = answer.view.phase !== v.phase;
    if (answer.text && answer.alert) note(answer.text, true);
    else if (answer.text && action === "hint" && !hinted) note(answer.text, false); // thinking
    else if (answer.text && !moved && !["hint", "play"].includes(action)) note(answer.text, false);
    if (hinted) {
      state.sel = positions(answer.view.me.hand, answer.view.me.selection);
      render();
    }
  } finally {
    state.busy = false;
    if (state.view) renderTelegram(state.view);
  }
}

// an answer, in the prompt's place above the hand: it covers no card and no seat; it
// belongs to the moment it answers (the table's phase and version then)
function note(text, alert) {
  const v = state.view;
  state.note = { text, alert, until: performance.now() + (alert ? 3000 : 1500),
    phase: v && v.phase, version: v && v.version, turn: !!(v && v.me && v.me.my_turn) };
  if (v) renderPrompt(v);
}

// whether an answer still speaks of the table as it is: the same phase, and not a turn of
// yours begun since; a refusal (it was about the cards then) only while nothing moved
function current(note, v) {
  if (note.phase !== v.phase) return false;
  if (v.me && v.me.my_turn && !note.turn) return false;
  return !note.alert || note.version === v.version;
}

// ------------------------------------------------------------------ the Tricks and Match panels
// One tap from the header (📋 the hand's tricks, 📈 the match): drawn in the table's place, read
// from api/tricks and api/history when opened, and read again while open when the table moved
// (a trick more, a hand ended): the stream's view never carries them. Telegram's BackButton
// (or Close) goes back to the table.
state.panel = null; // "tricks", "history" or null
state.panels = {}; // name -> {doc, at: the view's version/hand it was read at, busy, again}

function wirePanels() {
  for (const b of document.querySelectorAll("[data-panel]")) {
    b.addEventListener("click", () => openPanel(state.panel === b.dataset.panel && b.classList.contains("icon") ? null : b.dataset.panel));
  }
  document.querySelector("#panel .close").addEventListener("click", () => openPanel(null));
}

function back() {
  if (state.panel) openPanel(null);
  else setLast(false);
}

function openPanel(name) {
  state.panel = name;
  haptic("select");
  if (name) { state.showLast = false; fetchPanel(name); }
  render();
}

// what a panel's document depends on: the tricks on each play (and the hand's end: the kitty),
// the match's on a hand ending (or a new one)
function panelStamp(name, v) {
  if (name === "history") return `${v.hand_no}.${v.result ? 1 : 0}`;
  return `${v.hand_no}.${v.phase}.${v.tricks_done}.${v.trick ? v.trick.plays.length : 0}`;
}

const PANEL_GAP_MS = 700; // a panel is read again this often at most (the computers play fast)

async function fetchPanel(name) {
  const v = state.view;
  if (!v) return;
  const known = state.panels[name] || (state.panels[name] = { doc: null, at: null, busy: false, again: false, last: -1e9, timer: null });
  if (known.busy) { known.again = true; return; }
  const wait = known.last + PANEL_GAP_MS - performance.now();
  if (wait > 0) {
    if (!known.timer) known.timer = setTimeout(() => { known.timer = null; fetchPanel(name); }, wait);
    return;
  }
  known.busy = true;
  known.last = performance.now();
  const stamp = panelStamp(name, v);
  try {
    const r = await api(withGame(`api/${name}`));
    if (r.ok) { known.doc = await r.json(); known.at = stamp; }
  } catch (e) { /* offline: the banner says so; the next change asks again */ }
  known.busy = false;
  if (known.again || (state.view && panelStamp(name, state.view) !== known.at && state.panel === name)) {
    known.again = false;
    if (state.panel === name) fetchPanel(name);
  }
  if (state.panel === name) render();
}

function panelFollows(old, view) {
  const name = state.panel;
  if (!name || !view.phase) return;
  const known = state.panels[name];
  if (!known || known.at !== panelStamp(name, view)) fetchPanel(name);
}

function renderPanel(v) {
  const box = $("panel");
  const name = v.phase ? state.panel : null;
  if (name) document.body.dataset.panel = name;
  else delete document.body.dataset.panel;
  for (const b of document.querySelectorAll("#bar [data-panel]")) {
    b.hidden = false;
    b.title = b.ariaLabel = T(`webapp.${b.dataset.panel}`);
    b.setAttribute("aria-pressed", String(b.dataset.panel === name));
  }
  box.hidden = !name;
  if (!name) return;
  for (const b of box.querySelectorAll(".tabs [data-panel]")) {
    b.textContent = T(`webapp.${b.dataset.panel}`);
    b.setAttribute("aria-pressed", String(b.dataset.panel === name));
  }
  const close = box.querySelector(".close");
  close.textContent = "✕";
  close.title = close.ariaLabel = T("webapp.close");
  const body = box.querySelector(".body");
  const known = state.panels[name];
  const doc = known && known.doc;
  const key = `${name}.${known ? known.at : ""}`;
  if (body.dataset.key === key && body.childElementCount) return; // drawn already: keep its scroll
  const top = body.dataset.key && body.dataset.key.split(".")[0] === name ? body.scrollTop : 0;
  body.dataset.key = key;
  body.innerHTML = "";
  if (!doc) { body.append(quiet(T("webapp.loading"))); return; }
  if (name === "tricks") drawTricks(body, doc);
  else drawHistory(body, doc);
  body.scrollTop = top;
}

function quiet(text) {
  const el = document.createElement("div");
  el.className = "quiet";
  el.textContent = text;
  return el;
}

function el(tag, cls, html) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (html != null) e.innerHTML = html;
  return e;
}

function signed(n) { return n > 0 ? `+${n}` : `${n}`; }

function drawTricks(body, doc) {
  const legend = (ids) => ids.map((id) => doc.cards[String(id)]);
  const taken = el("div", "taken");
  for (const team of [doc.attackers, 1 - doc.attackers].filter((x) => x === 0 || x === 1)) {
    const t = doc.taken[team];
    const key = team === doc.attackers ? "webapp.tricks.taken.attackers" : "webapp.tricks.taken.defenders";
    const line = el("div", "line");
    line.append(el("b", `t${team}`, T(key, { team: t.team_name, points: t.points })));
    if (t.cards.length) line.append(cardsEl(legend(t.cards), true));
    taken.append(line);
  }
  if (doc.penalty) taken.append(el("div", "line pen", T("webapp.tricks.penalties", { n: signed(doc.penalty) })));
  if (doc.attackers != null) body.append(taken);
  if (!doc.tricks.length) body.append(quiet(T("webapp.tricks.none")));
  for (const trick of doc.tricks) {
    const box = el("div", "trick");
    box.dataset.n = trick.n;
    const head = el("div", "head");
    head.append(el("b", "", T("webapp.tricks.trick", { n: trick.n })), el("span", "", T("webapp.tricks.led", { name: nameOf(trick.leader) })));
    head.append(trick.winner != null
      ? el("span", "won", T(trick.points ? "webapp.tricks.won_points" : "webapp.tricks.won", { name: nameOf(trick.winner), points: trick.points }))
      : el("span", "", T("webapp.tricks.playing")));
    box.append(head);
    const plays = el("div", "plays");
    for (const play of trick.plays) {
      const leading = trick.winner == null && trick.best === play.seat; // winning it so far
      const cell = el("div", "p" + (trick.winner === play.seat ? " won" : leading ? " best" : "") + (play.attempted ? " failed" : ""));
      cell.dataset.seat = play.seat;
      cell.append(el("span", "who", nameOf(play.seat)));
      const row = el("div", "row");
      if (play.attempted) { // what was tried, then the play it was cut down to
        row.append(el("span", "tried", T("webapp.tricks.failed")));
        const tried = cardsEl(legend(play.attempted), true);
        tried.classList.add("attempt");
        row.append(tried, el("span", "", "→"));
      }
      row.append(cardsEl(legend(play.cards), true));
      if (play.ruff) row.append(el("span", "ruff", T("webapp.ruff")));
      cell.append(row);
      if (play.attempted && play.beaten_by_seat != null) { // RULES 13: the beater and its holder
        const beat = el("div", "beat");
        beat.append(el("span", "", T("webapp.tricks.beaten", { name: nameOf(play.beaten_by_seat) })));
        beat.append(cardsEl(legend(play.beaten_by), true));
        beat.append(el("span", "pen", T("webapp.tricks.penalty", { n: signed(play.penalty) })));
        cell.append(beat);
      }
      plays.append(cell);
    }
    box.append(plays);
    body.append(box);
  }
  if (doc.kitty) { // after the hand, or to whoever buried it
    const kitty = el("div", "kitty");
    kitty.append(el("b", "", T("webapp.kitty")), cardsEl(legend(doc.kitty), true));
    if (doc.kitty_bonus) kitty.append(el("span", "", T("webapp.tricks.bonus", { n: doc.kitty_bonus })));
    body.append(kitty);
  }
}

const SVG = "http://www.w3.org/2000/svg";
function svgEl(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, val] of Object.entries(attrs)) e.setAttribute(k, String(val));
  if (text != null) e.textContent = text;
  return e;
}

// the level chart the group gets at the end (bot.render.chart), drawn here from the same points:
// 2 at the bottom, A at the top (a second lap above, where a team went past A)
function levelChart(doc) {
  const W = 300, H = 140, L = 20, R = 8, TOP = 7, B = 15;
  const lap = doc.ranks.length;
  const pts = doc.progression;
  const high = (Math.floor(Math.max(...pts.flat()) / lap) + 1) * lap - 1;
  const hands = Math.max(pts.length - 1, 1);
  const x = (i) => L + ((W - L - R) * i) / hands;
  const y = (level) => TOP + (H - TOP - B) * (1 - level / high);
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": T("webapp.history.chart") });
  for (let level = 0; level <= high; level++) {
    svg.append(svgEl("line", { class: "grid", x1: L, x2: W - R, y1: y(level), y2: y(level) }));
    if (high >= lap && level % 2) continue;
    svg.append(svgEl("text", { x: L - 4, y: y(level) + 3, "text-anchor": "end" }, doc.ranks[level % lap]));
  }
  const step = Math.max(1, Math.ceil(hands / 10));
  for (let i = 0; i <= hands; i += step) svg.append(svgEl("text", { x: x(i), y: H - 4, "text-anchor": "middle" }, String(i)));
  for (const team of [0, 1]) {
    const off = (team * 2 - 1) * 1.5; // the two lines a little apart where they overlap
    const line = pts.map((p, i) => `${x(i).toFixed(1)},${(y(p[team]) + off).toFixed(1)}`).join(" ");
    svg.append(svgEl("polyline", { class: `l${team}`, points: line }));
    pts.forEach((p, i) => svg.append(svgEl("circle", { class: `d${team}`, cx: x(i), cy: y(p[team]) + off, r: 2.6 })));
  }
  return svg;
}

function drawHistory(body, doc) {
  if (!doc.hands.length) body.append(quiet(T("webapp.history.none")));
  // the chart's title and legend: each team's name in its line's colour
  body.append(el("h4", "", `${T("webapp.history.chart")} · <span class="t0">${doc.teams[0]}</span> · <span class="t1">${doc.teams[1]}</span>`));
  body.append(levelChart(doc));
  if (!doc.hands.length) return;
  const table = el("table");
  const head = el("tr");
  for (const k of ["hand", "dealer", "played", "points", "result", "levels"]) head.append(el("th", "", T(`webapp.history.head.${k}`)));
  table.append(head);
  for (const h of doc.hands) {
    const row = el("tr");
    row.dataset.n = h.n;
    row.append(el("td", "", String(h.n)));
    row.append(el("td", "name", nameOf(h.dealer)));
    const played = el("td");
    played.append(el("span", "trump" + (h.red ? " red" : ""), h.trump), ` ${h.level}`);
    row.append(played);
    row.append(el("td", `t${h.attackers}`, String(h.points)));
    const said = h.up ? T("webapp.history.up", { team: h.team_name, n: h.up }) : T("webapp.history.over", { team: h.team_name });
    row.append(el("td", `t${h.team}`, said));
    const levels = el("td");
    levels.append(el("span", "t0", h.levels[0]), " : ", el("span", "t1", h.levels[1]));
    row.append(levels);
    table.append(row);
  }
  body.append(table);
  if (doc.winner != null) body.append(el("div", `won-match t${doc.winner}`, T("webapp.history.won", { team: doc.teams[doc.winner] })));
}

window.addEventListener("resize", render);
start();
