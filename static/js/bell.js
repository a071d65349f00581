// The header's notification bell, live (games.live.inbox), and desktop notifications.
//
// A game page's socket (live.js) carries the signed-in person's inbox frames and hands them
// over as "mafia:inbox" events; any other page opens the small ws/inbox/ socket. Each frame
// says the unread count and the newest notification: the bell and the tab's title follow
// the count, and a new notification of a desktop kind (your turn, a day starts, L-1) pops
// up as a desktop notification while the tab is in the background, if the person turned
// desktop notifications on (settings) and the browser allows them. Clicking it focuses
// the tab and opens what it is about.
(function () {
  "use strict";

  var bell = document.getElementById("bell");
  if (!bell) return; // not signed in

  // The page's words in its language (static/js/texts.js, loaded first by base.html).
  var wording = window.mafiaTexts.wording;
  var countEl = bell.querySelector("[data-bell-count]");
  var unreadNow = parseInt(bell.getAttribute("data-unread"), 10) || 0;
  // The newest notification this tab knows of: no pop-up for it. Kept for the tab in
  // sessionStorage, so a page that reloads (live.js does on a phase or access change) just
  // as a notification comes still pops it up: only a tab's first frame is old news.
  var seenKey = "mafia-bell-seen:" + (bell.getAttribute("data-user") || "");
  var seenId = null;
  try {
    var kept = window.sessionStorage.getItem(seenKey);
    if (kept !== null && !isNaN(parseInt(kept, 10))) seenId = parseInt(kept, 10);
  } catch (e) { /* storage blocked: this page's own memory only */ }
  function remember(id) {
    seenId = id;
    try { window.sessionStorage.setItem(seenKey, String(id)); } catch (e) { /* as above */ }
  }

  function showCount(unread) {
    unread = Math.max(0, parseInt(unread, 10) || 0);
    bell.setAttribute("data-unread", String(unread));
    if (countEl) countEl.textContent = String(unread);
    bell.classList.toggle("has-unread", unread > 0);
    unreadNow = unread;
    titleCount();
  }

  // "(3) " before whatever the page's title is now (live.js puts "Your turn" in it too).
  function titleCount() {
    var wanted = (unreadNow > 0 ? "(" + unreadNow + ") " : "") +
      document.title.replace(/^\(\d+\) /, "");
    if (document.title !== wanted) document.title = wanted;
  }
  var titleEl = document.querySelector("title");
  if (titleEl && window.MutationObserver) {
    new MutationObserver(titleCount).observe(titleEl, { childList: true, characterData: true, subtree: true });
  }

  function maybeDesktop(frame) {
    var newest = frame.newest;
    if (!newest || newest.read || !newest.desktop || !frame.desktop_on) return;
    if (!document.hidden || !("Notification" in window)) return;
    if (window.Notification.permission !== "granted") return;
    // The same tag as a Web Push of it (sw.js): a device shows it once, not twice.
    var shown = new window.Notification(newest.text, {
      tag: "mafia-notification-" + newest.id,
      icon: "/static/img/icon-192.png"
    });
    shown.onclick = function () {
      window.focus();
      location.href = newest.link;
      if (shown.close) shown.close();
    };
  }

  function onFrame(frame) {
    if (!frame || frame.type !== "inbox") return;
    bell.setAttribute("data-live", "1"); // following the inbox live from here on
    showCount(frame.unread);
    var newest = frame.newest;
    // Newer than anything this tab knew: pushed now, or come while the socket was
    // reconnecting or the page reloading (a tab's first frame only sets what it knows: no
    // pop-up of old news).
    if (newest && seenId !== null && newest.id > seenId) maybeDesktop(frame);
    if (newest && (seenId === null || newest.id > seenId)) remember(newest.id);
    if (!newest && seenId === null) remember(0);
  }

  document.addEventListener("mafia:inbox", function (event) { onFrame(event.detail); });

  // -- a socket of its own, on pages without a game socket --------------------------------
  var backoff = 1000;
  function connect() {
    if (!window.WebSocket) return;
    var scheme = location.protocol === "https:" ? "wss:" : "ws:";
    var socket = new WebSocket(scheme + "//" + location.host + "/ws/inbox/");
    // Reset by the first frame, not the open: a socket refused for load (4503) or for too
    // many pages (4429) opens only to be closed, and its retries must keep backing off.
    socket.onmessage = function (event) {
      backoff = 1000;
      var batch;
      try { batch = JSON.parse(event.data); } catch (e) { return; }
      (Array.isArray(batch) ? batch : [batch]).forEach(onFrame);
    };
    socket.onclose = function (event) {
      if (event.code === 4401) return; // signed out meanwhile
      // Too many of the person's sockets open (mafia_site.socket_limits): a minute.
      if (event.code === 4429) backoff = 60000;
      if (event.code === 4503) backoff = Math.max(backoff, 2000); // the site is busy
      var wait = backoff + Math.random() * backoff * 0.5;
      backoff = Math.min(backoff * 2, 30000);
      setTimeout(connect, wait); // on reconnect the server sends the current count
    };
  }

  // -- the settings page: ask the browser's permission --------------------------------------
  function permissionButton() {
    var button = document.querySelector("[data-desktop-permission]");
    var status = document.querySelector("[data-desktop-status]");
    if (!button) return;
    function say(text) { if (status) status.textContent = text; }
    if (!("Notification" in window)) {
      say(wording("bellNoDesktop", "This browser cannot show desktop notifications."));
      return;
    }
    function describe() {
      var p = window.Notification.permission;
      if (p === "granted") say(wording("bellGranted", "This browser shows this site's desktop notifications."));
      else if (p === "denied") say(wording("bellDenied", "This browser blocks this site's desktop notifications (change it in the browser's site settings)."));
      else say(wording("bellNotAsked", "This browser has not been asked yet."));
      button.hidden = p !== "default";
    }
    button.addEventListener("click", function () {
      var asked = window.Notification.requestPermission(describe);
      if (asked && asked.then) asked.then(describe);
    });
    describe();
  }

  function start() {
    permissionButton();
    if (!window.mafiaLiveSocket) connect(); // game pages: live.js carries the frames
  }
  // After every deferred script has run (DOMContentLoaded): live.js, loaded after this
  // file, must have said whether the page has a game socket, or a game page would open a
  // second socket for the bell (and many tabs would reach the per-client socket cap).
  var started = false;
  function startOnce() {
    if (started) return;
    started = true;
    start();
  }
  if (document.readyState === "complete") startOnce();
  else {
    document.addEventListener("DOMContentLoaded", startOnce);
    window.addEventListener("load", startOnce);
  }
})();
