// The league page, live: its socket (ws/league/?parts=1) pushes the page's parts
// ([data-league-part]: your games, the queues and your buttons) as this viewer's reload
// would show them, when a queue or a league game changed and when it (re)connects (what
// changed before it opened is caught up). The page puts them in place, keeping the focus
// on the same button; it never fetches itself.
(function () {
  "use strict";

  if (!document.querySelector("[data-league-part]") || !window.WebSocket) return;
  // The server leaves each form's CSRF token as this placeholder (games.fragments._CSRF_SLOT):
  // the page's own token goes there.
  var CSRF_SLOT = "csrf0slot0of0a0cached0panel";

  function swap(parts) {
    var token = document.querySelector("input[name=csrfmiddlewaretoken]");
    var focused = document.activeElement && document.activeElement.id;
    document.querySelectorAll("[data-league-part]").forEach(function (el) {
      var html = el.id && parts[el.id];
      if (typeof html !== "string") return;
      if (html.indexOf(CSRF_SLOT) >= 0) {
        if (!token || !token.value) { location.reload(); return; }
        html = html.split(CSRF_SLOT).join(token.value);
      }
      var holder = document.createElement("div");
      holder.innerHTML = html.trim(); // rendered by the server, as the page itself
      var fresh = holder.querySelector("#" + CSS.escape(el.id));
      if (fresh) el.replaceWith(fresh);
    });
    var back = focused && document.getElementById(focused);
    if (back && back !== document.activeElement) back.focus();
  }

  var backoff = 1000;
  function connect() {
    var scheme = location.protocol === "https:" ? "wss:" : "ws:";
    var socket = new WebSocket(scheme + "//" + location.host + "/ws/league/?parts=1");
    // Reset by the first frame, not the open: a socket refused for load (4503) or for too
    // many pages (4429) opens only to be closed, and its retries must keep backing off.
    socket.onmessage = function (event) {
      backoff = 1000;
      var batch;
      try { batch = JSON.parse(event.data); } catch (e) { return; }
      (Array.isArray(batch) ? batch : [batch]).forEach(function (m) {
        if (m && m.type === "league" && m.parts) swap(m.parts);
      });
    };
    socket.onclose = function (event) {
      // Too many of the person's sockets open (mafia_site.socket_limits): a minute.
      if (event.code === 4429) backoff = 60000;
      if (event.code === 4503) backoff = Math.max(backoff, 2000); // the site is busy
      var wait = backoff + Math.random() * backoff * 0.5;
      backoff = Math.min(backoff * 2, 30000);
      setTimeout(connect, wait);
    };
  }
  connect();
})();
