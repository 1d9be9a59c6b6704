// The sandbox's stand-in for Telegram's telegram-web-app.js: the small part of
// window.Telegram.WebApp the Mini App uses. As in Telegram, the signed launch data arrives in the
// address's fragment (tgWebAppData); the sandbox page signed it with the sandbox bot's token.
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
    ? { bg_color: "#17212b", text_color: "#f5f5f5", hint_color: "#708499", button_color: "#5288c1",
        button_text_color: "#ffffff", secondary_bg_color: "#232e3c" }
    : { bg_color: "#ffffff", text_color: "#000000", hint_color: "#707579", button_color: "#3390ec",
        button_text_color: "#ffffff", secondary_bg_color: "#f4f4f5" };
  const root = document.documentElement.style;
  for (const [k, v] of Object.entries(themeParams)) root.setProperty(`--tg-theme-${k.replace(/_/g, "-")}`, v);
  const haptics = (window.__haptics = []);
  const post = (type, data) => { if (window.parent !== window) window.parent.postMessage(Object.assign({ type }, data), "*"); };
  const button = () => ({ text: "", isVisible: false, show() { this.isVisible = true; }, hide() { this.isVisible = false; },
    setText(t) { this.text = t; }, onClick() {}, offClick() {} });
  window.Telegram = {
    WebApp: {
      initData,
      initDataUnsafe: unsafe,
      version: hash.get("tgWebAppVersion") || "8.0",
      platform: "sandbox",
      colorScheme: dark ? "dark" : "light",
      themeParams,
      isExpanded: true,
      viewportHeight: window.innerHeight,
      viewportStableHeight: window.innerHeight,
      ready() { post("miniapp-ready"); },
      expand() {},
      close() { post("miniapp-close"); },
      onEvent() {},
      offEvent() {},
      MainButton: button(),
      BackButton: button(),
      HapticFeedback: {
        impactOccurred(style) { haptics.push(["impact", style]); },
        notificationOccurred(type) { haptics.push(["notification", type]); },
        selectionChanged() { haptics.push(["selection"]); },
      },
    },
  };
})();
