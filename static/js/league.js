// The league page, live: its socket (ws/league/) says {"type": "league"} when a queue or a
// league game changed; the page then fetches its own copy (who waits, your buttons) and
// puts its parts ([data-league-part]) in place, keeping the focus on the same button. A
// socket that (re)connects fetches too: what changed before it opened is caught up.
(function () {
  "use strict";

  if (!document.querySelector("[data-league-part]") || !window.WebSocket) return;
  var timer = null;
  var busy = false;
  var again = false;

  function swap(doc) {
    var focused = document.activeElement && document.activeElement.id;
    document.querySelectorAll("[data-league-part]").forEach(function (el) {
      var fresh = el.id && doc.getElementById(el.id);
      if (fresh) el.replaceWith(document.importNode(fresh, true));
    });
    var back = focused && document.getElementById(focused);
    if (back && back !== document.activeElement) back.focus();
  }

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { credentials: "same-origin", headers: { "X-Live-Refresh": "1" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html) swap(new DOMParser().parseFromString(html, "text/html"));
      })
      .catch(function () { /* the next change or reconnect fetches again */ })
      .then(function () {
        busy = false;
        if (again) { again = false; schedule(); }
      });
  }

  function schedule() { // coalesced: a burst of joins is one fetch
    if (timer) return;
    timer = setTimeout(function () { timer = null; refresh(); }, 250);
  }

  var backoff = 1000;
  function connect() {
    var scheme = location.protocol === "https:" ? "wss:" : "ws:";
    var socket = new WebSocket(scheme + "//" + location.host + "/ws/league/");
    socket.onopen = function () {
      backoff = 1000;
      schedule(); // whatever changed since the page was made, or while the socket was away
    };
    socket.onmessage = function (event) {
      var batch;
      try { batch = JSON.parse(event.data); } catch (e) { return; }
      if ((Array.isArray(batch) ? batch : [batch]).some(function (m) { return m && m.type === "league"; })) {
        schedule();
      }
    };
    socket.onclose = function (event) {
      // Too many of the person's sockets open (mafia_site.socket_limits): the socket was
      // opened only to be closed, so the usual reset backoff would retry at once.
      if (event.code === 4429) backoff = 60000;
      var wait = backoff + Math.random() * backoff * 0.5;
      backoff = Math.min(backoff * 2, 30000);
      setTimeout(connect, wait);
    };
  }
  connect();
})();
