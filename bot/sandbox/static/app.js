// The sandbox page: a small Telegram-like client for one of the sandbox's four people.
// Messages arrive as server-sent events (/api/events); their HTML was made safe by the
// server (bot/sandbox/markup.py). Everything else is text, set with textContent.
"use strict";

const TEXTS = {
  zh: {
    title: "升级 · 沙盒",
    you_are: "你是",
    other_tab: "在新标签页扮演另一个人 ↗",
    quick: "▶ 快速开局",
    welcome: "你坐 1 号座位，和三个电脑玩家打一局。",
    welcome_hint: "也可以在下面输入 /newgame，自己点座位。",
    type_group: "在群里发消息或命令，如 /newgame、/rules、/settings",
    type_private: "给机器人发消息，如 /help",
    bot_sub: "机器人",
    members: "{n} 位成员",
    start: "开始 (START)",
    offline: "沙盒已停止。重新运行 ./run 再刷新页面。",
    alert_title: "机器人",
    "quick.busy": "群里已经有一局了：先在群里发送 /endgame 结束它。",
    "quick.failed": "快速开局没有成功，请在群里手动操作。",
    edited: "已编辑",
    pinned_message: "置顶了一条消息",
    service: "服务消息",
    link_failed: "这个链接不是指向本机器人的。",
    gone: "这条消息的按钮已经变了。",
  },
  en: {
    title: "Shengji · sandbox",
    you_are: "You are",
    other_tab: "Another person in a new tab ↗",
    quick: "▶ Quick start",
    welcome: "Play seat 1 with three computer players.",
    welcome_hint: "Or type /newgame below and take a seat yourself.",
    type_group: "Message or command for the group: /newgame, /rules, /settings",
    type_private: "Message the bot, e.g. /help",
    bot_sub: "bot",
    members: "{n} members",
    start: "START",
    offline: "The sandbox stopped. Run ./run again and reload.",
    alert_title: "Bot",
    "quick.busy": "A game is already open in the group: send /endgame there first.",
    "quick.failed": "Quick start did not work; use the group's buttons yourself.",
    edited: "edited",
    pinned_message: "pinned a message",
    service: "service message",
    link_failed: "That link does not lead to this bot.",
    gone: "That message's buttons have changed.",
  },
};

const params = new URLSearchParams(location.search);
const state = {
  user: Number(params.get("user") || 1),
  lang: params.get("lang") || localStorage.getItem("sandbox-lang") ||
    (navigator.language.startsWith("zh") ? "zh" : "en"),
  bot: null,
  me: null,
  people: [],
  chats: {},      // chat id -> {id, type, title}
  groupId: null,
  privateId: null,
  source: null,
};

const $ = (sel, root = document) => root.querySelector(sel);
const tr = (key, vars = {}) =>
  (TEXTS[state.lang][key] ?? key).replace(/\{(\w+)\}/g, (_, k) => vars[k] ?? "");

// ------------------------------------------------------------------ chrome
function applyLanguage() {
  document.documentElement.lang = state.lang;
  document.title = tr("title");
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = tr(el.dataset.t);
  for (const el of document.querySelectorAll("[data-t-placeholder]")) {
    el.placeholder = tr(el.dataset.tPlaceholder);
  }
  for (const b of document.querySelectorAll(".langs button")) {
    b.classList.toggle("on", b.dataset.lang === state.lang);
  }
  renderHeads();
  for (const el of document.querySelectorAll(".meta")) fillMeta(el);
}

function renderPeople() {
  const select = $("#person");
  select.replaceChildren(...state.people.map((p) => {
    const opt = document.createElement("option");
    opt.value = p.number;
    opt.textContent = `${p.number} · ${p.name}`;
    return opt;
  }));
  select.value = String(state.user);
  const next = (state.user % state.people.length) + 1;
  $("#other-tab").href = `?user=${next}&lang=${state.lang}`;
}

function renderHeads() {
  const group = state.chats[state.groupId];
  if (group) {
    $("#group-title").textContent = group.title;
    $("#group-sub").textContent = tr("members", { n: group.members + 1 });
  }
  if (group) $("#switch-group").textContent = group.title;
  if (state.bot) {
    $("#bot-title").textContent = `${state.bot.name} (@${state.bot.username})`;
    $("#switch-private").textContent = `🤖 ${state.bot.name}`;
  }
  const composer = $('.composer[data-kind="private"]');
  const started = state.me && state.me.started;
  composer.classList.toggle("unstarted", !started);
  $(".start-bot", composer).hidden = !!started;
}

// ------------------------------------------------------------------ messages
function listOf(chatId) {
  const chat = state.chats[chatId];
  return chat && chat.type === "private" ? $("#messages-private") : $("#messages-group");
}

function timeOf(date) {
  const d = new Date(date * 1000);
  return d.toTimeString().slice(0, 5);
}

// a date_time entity, as a Telegram client shows it: in the reader's own time zone, in the
// entity's format (t/T: the time, short or with seconds; d/D: the date; w: the weekday)
function localTime(el) {
  const when = new Date(Number(el.dataset.unix) * 1000);
  const format = el.dataset.format || "";
  if (!format) return; // no format: the text as sent
  el.dateTime = when.toISOString();
  const parts = [];
  if (format.includes("w")) parts.push(when.toLocaleDateString(undefined, { weekday: "short" }));
  if (/[dD]/.test(format)) parts.push(when.toLocaleDateString(undefined, format.includes("D") ? { dateStyle: "long" } : { dateStyle: "short" }));
  if (/[tT]/.test(format)) parts.push(when.toLocaleTimeString(undefined, format.includes("T") ? { timeStyle: "medium" } : { timeStyle: "short" }));
  if (format === "r") parts.push(new Intl.RelativeTimeFormat(undefined, { numeric: "auto" }).format(Math.round((when - Date.now()) / 60000), "minute"));
  el.textContent = parts.join(" ");
  el.title = when.toString();
}

function fillMeta(el) {
  el.textContent = (el.dataset.edited === "1" ? tr("edited") + " " : "") + el.dataset.time;
}

function upsertMessage(m, fresh = true) {
  const list = listOf(m.chat);
  if (!list) return;
  const stick = list.scrollHeight - list.scrollTop - list.clientHeight < 80;
  const el = buildMessage(m);
  const old = list.querySelector(`[data-id="${m.id}"]`);
  if (old) {
    old.replaceWith(el);
  } else {
    el.classList.add("fresh");
    const after = [...list.querySelectorAll(".msg, .service")]
      .find((x) => Number(x.dataset.id) > m.id);
    list.insertBefore(el, after || null);
  }
  updateWelcome();
  if (stick || !old) list.scrollTop = list.scrollHeight;
  if (!old && fresh) markUnread(list);
}

// ------------------------------------------------------------------ one chat at a time
// On a phone only one pane shows (style.css); the switch above it picks which, and a dot
// on the other one tells that something new arrived there.
function kindOf(list) {
  return list.closest(".pane").dataset.kind;
}

function showChat(kind) {
  document.body.dataset.show = kind;
  for (const b of document.querySelectorAll("#switch button")) {
    const on = b.dataset.show === kind;
    b.classList.toggle("on", on);
    b.setAttribute("aria-selected", on ? "true" : "false");
    if (on) $(".unread", b).hidden = true;
  }
  const list = $(`#pane-${kind} .messages`);
  list.scrollTop = list.scrollHeight;  // a hidden list could not follow its new messages
}

function markUnread(list) {
  const kind = kindOf(list);
  if (document.body.dataset.show === kind) return;
  $(`#switch button[data-show="${kind}"] .unread`).hidden = false;
}

function removeMessage(chatId, id) {
  const list = listOf(chatId);
  const old = list && list.querySelector(`[data-id="${id}"]`);
  if (old) old.remove();
  updateWelcome();
}

function buildMessage(m) {
  if (m.service && !m.html) {
    const el = document.createElement("div");
    el.className = "service";
    el.dataset.id = m.id;
    el.textContent = `${m.from.name} ${tr(m.service.includes("pinned_message") ? "pinned_message" : "service")}`;
    return el;
  }
  const own = m.from.id === (state.me && state.me.id);
  const group = state.chats[m.chat] && state.chats[m.chat].type !== "private";
  const el = document.createElement("div");
  const keyboard = m.keyboard && m.keyboard.length;
  el.className = "msg" + (own ? " own" : "") + (m.from.bot ? " from-bot" : "") +
    (keyboard ? " has-kb" : "");
  el.dataset.id = m.id;
  if (group && !own) {
    const av = document.createElement("div");
    av.className = "avatar small " + (m.from.bot ? "bot" : "group");
    av.textContent = m.from.bot ? "🤖" : (m.from.name || "?").slice(0, 1);
    el.append(av);
  }
  const col = document.createElement("div");
  col.className = "col";
  const bubble = document.createElement("div");
  bubble.className = "bubble";
  if (group && !own) {
    const who = document.createElement("div");
    who.className = "sender" + (m.from.bot ? " bot" : "");
    who.textContent = m.from.name;
    bubble.append(who);
  }
  if (m.photo) {
    const img = document.createElement("img");
    img.src = `/file/${encodeURIComponent(m.photo)}`;
    img.alt = "";
    bubble.append(img);
  }
  const body = document.createElement("span");
  body.className = "text";
  body.innerHTML = m.html || "";  // safe: escaped and tag-limited by the server
  for (const t of body.querySelectorAll("time.dt")) localTime(t);
  bubble.append(body);
  const meta = document.createElement("span");
  meta.className = "meta";
  meta.dataset.time = timeOf(m.date);
  meta.dataset.edited = m.edited ? "1" : "0";
  fillMeta(meta);
  bubble.append(meta);
  col.append(bubble);
  if (keyboard) col.append(buildKeyboard(m));
  el.append(col);
  return el;
}

function buildKeyboard(m) {
  const kb = document.createElement("div");
  kb.className = "kb";
  for (const row of m.keyboard) {
    const r = document.createElement("div");
    r.className = "kb-row";
    for (const b of row) {
      const btn = document.createElement("button");
      btn.type = "button";
      btn.textContent = b.text;
      if (b.style) btn.classList.add(`style-${b.style}`); // the button's colour (Bot API style)
      if (b.web_app) {
        btn.classList.add("web-app");
        btn.addEventListener("click", () => openMiniApp(b)); // miniapp.js
      } else if (b.url) {
        btn.classList.add("url");
        btn.addEventListener("click", () => openUrl(b.url));
      } else {
        btn.addEventListener("click", () => press(m, b, btn));
      }
      r.append(btn);
    }
    kb.append(r);
  }
  return kb;
}

function updateWelcome() {
  const list = $("#messages-group");
  const empty = !list.querySelector(".msg, .service");
  $("#welcome").hidden = !empty;
}

// ------------------------------------------------------------------ acting
async function post(action, body) {
  const res = await fetch(`/api/${action}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user: state.user, ...body }),
  });
  if (!res.ok) throw new Error(await res.text());
  return res.json();
}

async function press(m, b, btn) {
  btn.classList.add("busy");
  try {
    const answer = await post("press", { chat: m.chat, message: m.id, data: b.data });
    if (answer.gone) toast(m.chat, tr("gone"));
    else if (answer.text && answer.show_alert) showAlert(answer.text);
    else if (answer.text) toast(m.chat, answer.text);
    if (answer.url) await openUrl(answer.url);
  } finally {
    btn.classList.remove("busy");
  }
}

function isDeepLink(url) {
  return state.bot && new RegExp(`^(https?://)?(t|telegram)\\.me/${state.bot.username}(\\?|$)`, "i").test(url);
}

async function openUrl(url) {
  if (isDeepLink(url)) {
    const res = await post("link", { url });
    if (!res.ok) toast(state.privateId, tr("link_failed"));
    showChat("private");
    flash("#pane-private");
    $('.composer[data-kind="private"] input').focus({ preventScroll: true });
  } else if (/^https?:\/\//i.test(url)) {
    window.open(url, "_blank", "noopener");
  }
}

function flash(sel) {
  const pane = $(sel);
  pane.classList.add("flash");
  pane.scrollIntoView({ behavior: "smooth", block: "nearest" });
  setTimeout(() => pane.classList.remove("flash"), 900);
}

const toastTimers = new WeakMap();
function toast(chatId, text) {
  const pane = listOf(chatId).closest(".pane");
  const el = $(".toast", pane);
  el.textContent = text;
  el.hidden = false;
  clearTimeout(toastTimers.get(el));
  toastTimers.set(el, setTimeout(() => { el.hidden = true; }, 2600));
}

function showAlert(text) {
  $("#alert-title").textContent = state.bot ? state.bot.name : tr("alert_title");
  $("#alert-text").textContent = text;
  $("#alert").hidden = false;
  $("#alert-ok").focus();
}

async function quickStart(button) {
  for (const b of document.querySelectorAll("#quick, #welcome-quick")) b.disabled = true;
  try {
    const res = await post("quick", {});
    if (!res.ok) showAlert(tr(res.error));
    else showChat("private");  // your cards are there
  } finally {
    for (const b of document.querySelectorAll("#quick, #welcome-quick")) b.disabled = false;
  }
}

// ------------------------------------------------------------------ live updates
function connect() {
  if (state.source) state.source.close();
  for (const list of document.querySelectorAll(".messages")) {
    for (const el of list.querySelectorAll(".msg, .service")) el.remove();
  }
  const source = new EventSource(`/api/events?user=${state.user}`);
  state.source = source;
  source.onmessage = (e) => handle(JSON.parse(e.data));
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) $("#offline").hidden = false;
  };
}

function handle(ev) {
  if (ev.type === "snapshot") {
    state.bot = ev.bot;
    state.me = ev.me;
    state.people = ev.people;
    state.chats = {};
    for (const c of ev.chats) {
      state.chats[c.id] = c;
      if (c.type === "private") state.privateId = c.id;
      else state.groupId = state.groupId && state.chats[state.groupId] ? state.groupId : c.id;
    }
    renderPeople();
    renderHeads();
    for (const m of ev.messages) upsertMessage(m, false);
    updateWelcome();
    document.body.dataset.ready = "1";
    if (state.me.lang && !state.me.lang.startsWith(state.lang === "zh" ? "zh" : "en")) {
      post("language", { lang: state.lang });
    }
  } else if (ev.type === "message") {
    upsertMessage(ev.message);
  } else if (ev.type === "delete") {
    removeMessage(ev.chat, ev.id);
  } else if (ev.type === "people") {
    state.people = ev.people;
    state.me = ev.people.find((p) => p.number === state.user) || state.me;
    renderHeads();
  } else if (ev.type === "bye") {
    state.source.close();
    $("#offline").hidden = false;
  }
}

// ------------------------------------------------------------------ wiring
function setup() {
  applyLanguage();
  $("#person").addEventListener("change", (e) => {
    state.user = Number(e.target.value);
    const url = new URL(location.href);
    url.searchParams.set("user", state.user);
    history.replaceState(null, "", url);
    connect();
  });
  for (const b of document.querySelectorAll(".langs button")) {
    b.addEventListener("click", () => {
      state.lang = b.dataset.lang;
      localStorage.setItem("sandbox-lang", state.lang);
      applyLanguage();
      renderPeople();
      post("language", { lang: state.lang });
    });
  }
  for (const b of document.querySelectorAll("#quick, #welcome-quick")) {
    b.addEventListener("click", () => quickStart(b));
  }
  for (const b of document.querySelectorAll("#switch button")) {
    b.addEventListener("click", () => showChat(b.dataset.show));
  }
  showChat(document.body.dataset.show);
  for (const form of document.querySelectorAll(".composer")) {
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const input = $("input", form);
      const text = input.value.trim();
      if (!text) return;
      input.value = "";
      const chat = form.dataset.kind === "private" ? state.privateId : state.groupId;
      post("send", { chat, text });
    });
  }
  $(".start-bot").addEventListener("click", () => post("start", {}));
  $("#alert-ok").addEventListener("click", () => { $("#alert").hidden = true; });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") $("#alert").hidden = true;
  });
  // links and /commands inside messages
  document.addEventListener("click", (e) => {
    const a = e.target.closest(".bubble a");
    if (a) {
      e.preventDefault();
      const chatId = a.closest(".pane").dataset.kind === "private" ? state.privateId : state.groupId;
      if (a.classList.contains("cmd")) post("send", { chat: chatId, text: a.dataset.cmd });
      else if (a.getAttribute("href")) openUrl(a.getAttribute("href"));
      return;
    }
    const spoiler = e.target.closest(".spoiler");
    if (spoiler) spoiler.classList.add("shown");
  });
  connect();
}

document.addEventListener("DOMContentLoaded", setup);
