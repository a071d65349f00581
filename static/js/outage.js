// The red banner of a lost connection: live.js reports its socket's state ("live:status"),
// and while it is not live for more than a moment (the server, Redis or the network is
// away) the page says so, then says "back" once live.js has reconnected and caught up.
// Self-contained on purpose: live.js only dispatches the event.
(function () {
  "use strict";
  var SHOW_AFTER_MS = 1500; // a quick reconnect (a deploy, a blip) shows nothing
  var timer = null;
  var shown = false;

  function banner() {
    var el = document.getElementById("outage-banner");
    if (!el) {
      el = document.createElement("div");
      el.id = "outage-banner";
      el.className = "outage-banner";
      el.setAttribute("role", "alert");
      el.hidden = true;
      document.body.insertBefore(el, document.body.firstChild);
    }
    return el;
  }

  function show() {
    var el = banner();
    el.textContent = "Connection to the game server lost: reconnecting… " +
      "Updates will catch up when it is back; a vote or post sent meanwhile may be refused.";
    el.setAttribute("data-state", "reconnecting");
    el.hidden = false;
    shown = true;
  }

  function back() {
    if (timer) { clearTimeout(timer); timer = null; }
    if (!shown) return;
    shown = false;
    var el = banner();
    el.setAttribute("data-state", "live");
    el.textContent = "Reconnected: the page is up to date.";
    setTimeout(function () { if (!shown) el.hidden = true; }, 3000);
  }

  document.addEventListener("live:status", function (event) {
    var state = event.detail;
    if (state === "live") { back(); return; }
    if (state === "offline") return; // no such game: not an outage
    if (!timer && !shown) timer = setTimeout(function () { timer = null; show(); }, SHOW_AFTER_MS);
  });
})();
