// The red banner of a lost connection: live.js reports its socket's state ("live:status"),
// and while it is not live for more than a moment (the server or the network is away) the
// page says so, then says "back" once live.js has reconnected and caught up. "paused" is
// the server saying its message service (Redis) is away while the socket stays up: shown
// at once (the server has already waited), with what still works.
// Self-contained on purpose: live.js only dispatches the event.
(function () {
  "use strict";
  var SHOW_AFTER_MS = 1500; // a quick reconnect (a deploy, a blip) shows nothing
  var timer = null;
  var shown = false;

  // The page's words in its language (static/js/texts.js, loaded first by base.html).
  var wording = window.mafiaTexts.wording;

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

  var TEXTS = {
    reconnecting: ["outageReconnecting", "Connection to the game server lost: reconnecting… " +
      "Updates will catch up when it is back; a vote or post sent meanwhile may be refused."],
    paused: ["outagePaused", "Live updates paused: the game server's message service is away. " +
      "Posts, votes and night actions still count; this page catches up when it is back (or " +
      "reload it)."]
  };

  function show(state) {
    var el = banner();
    el.textContent = wording(TEXTS[state][0], TEXTS[state][1]);
    el.setAttribute("data-state", state);
    el.hidden = false;
    shown = true;
  }

  function back() {
    if (timer) { clearTimeout(timer); timer = null; }
    if (!shown) return;
    shown = false;
    var el = banner();
    el.setAttribute("data-state", "live");
    el.textContent = wording("outageBack", "Reconnected: the page is up to date.");
    setTimeout(function () { if (!shown) el.hidden = true; }, 3000);
  }

  document.addEventListener("live:status", function (event) {
    var state = event.detail;
    if (state === "live") { back(); return; }
    // A socket opening (the first, or a retry after a drop): nothing is lost yet. live.js
    // says "live" only once the server has caught the page up, which may take a moment.
    if (state === "connecting") return;
    // No such game, or too many of the person's pages open (live.js says so): not an
    // outage, whatever was pending or shown.
    if (state === "offline" || state === "crowded") {
      if (timer) { clearTimeout(timer); timer = null; }
      if (shown) { shown = false; banner().hidden = true; }
      return;
    }
    if (state === "paused") {
      if (timer) { clearTimeout(timer); timer = null; }
      show("paused");
      return;
    }
    if (!timer && !shown) {
      timer = setTimeout(function () { timer = null; show("reconnecting"); }, SHOW_AFTER_MS);
    }
  });
})();
