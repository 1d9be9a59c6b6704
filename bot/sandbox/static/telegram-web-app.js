// The sandbox's stand-in for Telegram's telegram-web-app.js: the part of window.Telegram.WebApp
// the Mini App uses. As in Telegram, the signed launch data arrives in the address's fragment
// (tgWebAppData); the sandbox page signed it with the sandbox bot's token. Telegram draws the
// main and secondary buttons and the back button itself, outside the page: here they are drawn
// in a bar fixed at the bottom of the frame (outside the page's scroll), and the page's viewport
// (viewportHeight, --tg-viewport-height) is the frame less that bar, as in Telegram.
"use strict";
(function () {
  const hash = new URLSearchParams(location.hash.slice(1));
  const initData = hash.get("tgWebAppData") || "";
  const fields = new URLSearchParams(initData);
  const unsafe = {};
  for (const [k, v] of fields) {
    try { unsafe[k] = k === "user" ? JSON.parse(v) : v; } catch (e) { unsafe[k] = v; }
  }
  const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  const themeParams = dark
    ? { bg_color: "#17212b", text_color: "#f5f5f5", hint_color: "#708499", link_color: "#6ab3f3",
        button_color: "#5288c1", button_text_color: "#ffffff", secondary_bg_color: "#232e3c",
        section_bg_color: "#17212b", accent_text_color: "#6ab2f2", destructive_text_color: "#ec3942",
        bottom_bar_bg_color: "#17212b" }
    : { bg_color: "#ffffff", text_color: "#000000", hint_color: "#707579", link_color: "#00488f",
        button_color: "#3390ec", button_text_color: "#ffffff", secondary_bg_color: "#f4f4f5",
        section_bg_color: "#ffffff", accent_text_color: "#3390ec", destructive_text_color: "#df3f40",
        bottom_bar_bg_color: "#ffffff" };
  const root = document.documentElement.style;
  for (const [k, v] of Object.entries(themeParams)) root.setProperty(`--tg-theme-${k.replace(/_/g, "-")}`, v);
  const inset = { top: 0, bottom: 0, left: 0, right: 0 };
  for (const kind of ["safe-area-inset", "content-safe-area-inset"]) {
    for (const side of Object.keys(inset)) root.setProperty(`--tg-${kind}-${side}`, "0px");
  }
  const haptics = (window.__haptics = []);
  const handlers = {};
  const emit = (name) => { for (const f of handlers[name] || []) { try { f.call(app); } catch (e) { setTimeout(() => { throw e; }); } } };
  const framed = window.parent !== window;
  const post = (type, data) => { if (window.parent !== window) window.parent.postMessage(Object.assign({ type }, data), "*"); };

  // ------------------------------------------------------------ the bottom bar
  let bar = null;
  const BAR = "position:fixed;left:0;right:0;bottom:0;z-index:2147483647;display:flex;gap:8px;" +
    "padding:7px 10px;box-sizing:border-box;align-items:stretch;" +
    `background:${themeParams.bottom_bar_bg_color};border-top:1px solid ${dark ? "#0e1621" : "#e4e4e7"};` +
    "font:600 15px/1.2 -apple-system,'Segoe UI',Roboto,'Noto Sans CJK SC',sans-serif;";
  const BUTTON = "flex:1 1 0;min-width:0;min-height:42px;border:0;border-radius:10px;padding:6px 8px;" +
    "font:inherit;cursor:pointer;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;";

  function draw() {
    if (!document.body) { document.addEventListener("DOMContentLoaded", draw, { once: true }); return; }
    if (!bar) {
      bar = document.createElement("div");
      bar.id = "tg-bottom-bar";
      bar.style.cssText = BAR;
      document.body.append(bar);
    }
    bar.innerHTML = "";
    const back = app.BackButton;
    // in the sandbox's panel, as in Telegram, the back button is in the header above the
    // app (where the close control is); a page opened alone draws it in the bar
    post("miniapp-back-button", { visible: back.isVisible });
    if (back.isVisible && !framed) bar.append(element(back, "tg-back-button", "‹", "flex:0 0 44px;", themeParams.secondary_bg_color, themeParams.text_color));
    const second = app.SecondaryButton;
    const main = app.MainButton;
    const items = [];
    if (second.isVisible) items.push(element(second, "tg-secondary-button", second.text, "", second.color || themeParams.secondary_bg_color, second.textColor || themeParams.button_color));
    if (main.isVisible) items.push(element(main, "tg-main-button", main.text, "", main.color || themeParams.button_color, main.textColor || themeParams.button_text_color));
    if (second.isVisible && second.position === "right") items.reverse();
    bar.style.flexDirection = second.position === "top" || second.position === "bottom" ? "column" : "row";
    if (second.position === "top") items.reverse();
    bar.append(...items);
    bar.hidden = !bar.childElementCount;
    bar.style.display = bar.hidden ? "none" : "flex";
    const height = bar.hidden ? 0 : bar.getBoundingClientRect().height;
    resize(window.innerHeight - height);
  }

  function element(button, id, text, extra, bg, fg) {
    const el = document.createElement("button");
    el.type = "button";
    el.id = id;
    el.style.cssText = BUTTON + extra + `background:${bg};color:${fg};` + (button.isActive === false ? "opacity:.5;cursor:default;" : "");
    el.textContent = button.isProgressVisible ? "…" : text;
    el.dataset.active = button.isActive === false ? "0" : "1";
    el.dataset.progress = button.isProgressVisible ? "1" : "0";
    el.addEventListener("click", () => {
      if (button.isActive === false || button.isProgressVisible) return;
      for (const f of [...button._clicks]) f();
      if (id === "tg-back-button") emit("backButtonClicked");
      else emit(id === "tg-main-button" ? "mainButtonClicked" : "secondaryButtonClicked");
    });
    return el;
  }

  function resize(height) {
    const h = Math.max(0, Math.round(height));
    if (h === app.viewportHeight && root.getPropertyValue("--tg-viewport-height")) return;
    app.viewportHeight = app.viewportStableHeight = h;
    root.setProperty("--tg-viewport-height", `${h}px`);
    root.setProperty("--tg-viewport-stable-height", `${h}px`);
    emit("viewportChanged");
  }

  function bottomButton(defaults) {
    const b = Object.assign({ text: "", color: "", textColor: "", isVisible: false, isActive: true,
      isProgressVisible: false, hasShineEffect: false, _clicks: [] }, defaults);
    const changed = () => { draw(); return b; };
    Object.assign(b, {
      setText(t) { b.text = String(t); return changed(); },
      onClick(f) { if (!b._clicks.includes(f)) b._clicks.push(f); return b; },
      offClick(f) { b._clicks = b._clicks.filter((g) => g !== f); return b; },
      show() { b.isVisible = true; return changed(); },
      hide() { b.isVisible = false; return changed(); },
      enable() { b.isActive = true; return changed(); },
      disable() { b.isActive = false; return changed(); },
      showProgress() { b.isProgressVisible = true; return changed(); },
      hideProgress() { b.isProgressVisible = false; return changed(); },
      setParams(p) {
        if ("text" in p) b.text = String(p.text);
        if ("color" in p) b.color = p.color;
        if ("text_color" in p) b.textColor = p.text_color;
        if ("is_visible" in p) b.isVisible = !!p.is_visible;
        if ("is_active" in p) b.isActive = !!p.is_active;
        if ("has_shine_effect" in p) b.hasShineEffect = !!p.has_shine_effect;
        if ("position" in p) b.position = p.position;
        return changed();
      },
    });
    return b;
  }

  const app = {
    initData,
    initDataUnsafe: unsafe,
    version: hash.get("tgWebAppVersion") || "8.0",
    platform: "sandbox",
    colorScheme: dark ? "dark" : "light",
    themeParams,
    isExpanded: false,
    viewportHeight: window.innerHeight,
    viewportStableHeight: window.innerHeight,
    safeAreaInset: Object.assign({}, inset),
    contentSafeAreaInset: Object.assign({}, inset),
    isClosingConfirmationEnabled: false,
    ready() { post("miniapp-ready"); },
    expand() { app.isExpanded = true; },
    close() { post("miniapp-close"); },
    enableClosingConfirmation() { app.isClosingConfirmationEnabled = true; },
    disableClosingConfirmation() { app.isClosingConfirmationEnabled = false; },
    isVersionAtLeast(v) { return parseFloat(app.version) >= parseFloat(v); },
    onEvent(name, f) { (handlers[name] = handlers[name] || []).push(f); },
    offEvent(name, f) { handlers[name] = (handlers[name] || []).filter((g) => g !== f); },
    MainButton: bottomButton({}),
    SecondaryButton: bottomButton({ position: "left" }),
    BackButton: {
      isVisible: false, _clicks: [],
      onClick(f) { if (!this._clicks.includes(f)) this._clicks.push(f); return this; },
      offClick(f) { this._clicks = this._clicks.filter((g) => g !== f); return this; },
      show() { this.isVisible = true; draw(); return this; },
      hide() { this.isVisible = false; draw(); return this; },
    },
    HapticFeedback: {
      impactOccurred(style) { haptics.push(["impact", style]); return this; },
      notificationOccurred(type) { haptics.push(["notification", type]); return this; },
      selectionChanged() { haptics.push(["selection"]); return this; },
    },
  };
  window.Telegram = { WebApp: app };
  window.addEventListener("message", (ev) => {
    if (!ev.data || ev.data.type !== "miniapp-back" || !app.BackButton.isVisible) return;
    for (const f of [...app.BackButton._clicks]) f();
    emit("backButtonClicked");
  });
  window.addEventListener("resize", draw);
  draw();
})();
