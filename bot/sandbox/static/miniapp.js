// The sandbox page's Mini App panel: a web_app button opens the bot's Mini App beside the chats in a
// phone-sized frame, as Telegram opens it over the chat, with launch data the sandbox signed for the
// person the page acts as.
"use strict";

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
    panel.innerHTML = '<div class="miniapp-head"><span class="miniapp-title"></span>' +
      '<button type="button" class="miniapp-close" aria-label="close">✕</button></div>' +
      '<iframe class="miniapp-frame" title="Mini App"></iframe>';
    panel.querySelector(".miniapp-close").addEventListener("click", closeMiniApp);
    document.body.append(panel);
    document.body.classList.add("with-miniapp");
  }
  panel.querySelector(".miniapp-title").textContent = button.text;
  panel.querySelector("iframe").src = url;
}

function closeMiniApp() {
  const panel = document.getElementById("miniapp");
  if (panel) panel.remove();
  document.body.classList.remove("with-miniapp");
}

window.addEventListener("message", (ev) => {
  if (ev.data && ev.data.type === "miniapp-close") closeMiniApp();
});
