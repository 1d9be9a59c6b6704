// The sandbox page's Mini App panel: a web_app button opens the bot's Mini App as Telegram
// opens it, with launch data the sandbox signed for the person the page acts as: beside the
// chats on a wide screen (a phone-sized frame), over the chat on a phone (the whole screen,
// miniapp.css). Its close control, the app's own WebApp.close() or the phone's back gesture
// return to the chat the button was in.
"use strict";

TEXTS.zh.miniapp_close = "✕ 关闭";
TEXTS.en.miniapp_close = "✕ Close";
TEXTS.zh.miniapp_back = "‹ 返回";
TEXTS.en.miniapp_back = "‹ Back";

async function openMiniApp(button) {
  const res = await fetch("/api/webapp", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user: state.user, url: button.web_app }),
  });
  if (!res.ok) return;
  const { url } = await res.json();
  let panel = document.getElementById("miniapp");
  if (!panel) {
    panel = document.createElement("aside");
    panel.id = "miniapp";
    panel.setAttribute("role", "dialog");
    panel.innerHTML = '<div class="miniapp-head">' +
      '<button type="button" class="miniapp-close" data-t="miniapp_close"></button>' +
      '<span class="miniapp-title"></span></div>' +
      '<iframe class="miniapp-frame" title="Mini App"></iframe>';
    const close = panel.querySelector(".miniapp-close");
    close.textContent = tr("miniapp_close");
    close.addEventListener("click", () => {
      const frame = panel.querySelector("iframe");
      if (panel.dataset.back) frame.contentWindow.postMessage({ type: "miniapp-back" }, "*");
      else closeMiniApp();
    });
    document.body.append(panel);
    document.body.classList.add("with-miniapp");
    panel.style.setProperty("--close-width", `${close.offsetWidth}px`);
    history.pushState({ miniapp: true }, ""); // the phone's back gesture closes it
  }
  panel.dataset.chat = document.body.dataset.show;
  panel.querySelector(".miniapp-title").textContent = button.text;
  panel.querySelector("iframe").src = url;
}

function closeMiniApp() {
  const panel = document.getElementById("miniapp");
  if (!panel) return;
  if (history.state && history.state.miniapp) history.back(); // its history entry goes too
  panel.remove();
  document.body.classList.remove("with-miniapp");
  showChat(panel.dataset.chat || "private"); // app.js: back in the chat it was opened from
}

window.addEventListener("popstate", () => {
  if (document.getElementById("miniapp")) closeMiniApp();
});

// the app's BackButton (Telegram.WebApp.BackButton), shown in the header in the close
// control's place, as Telegram shows it; a tap goes back to the app
window.addEventListener("message", (ev) => {
  if (ev.data && ev.data.type === "miniapp-close") closeMiniApp();
  if (ev.data && ev.data.type === "miniapp-back-button") {
    const panel = document.getElementById("miniapp");
    if (!panel) return;
    const close = panel.querySelector(".miniapp-close");
    const back = !!ev.data.visible;
    panel.dataset.back = back ? "1" : "";
    close.textContent = tr(back ? "miniapp_back" : "miniapp_close");
  }
});
