// Deadline countdowns: every <time datetime="..." data-countdown> shows the time left,
// ticking each second, and a screen reader's words for it. Shared by the live game pages
// (live.js tells it the server's time from the socket) and pages without a socket (my
// games), which count on the local clock.
(function () {
  "use strict";

  var clockOffset = 0; // server time - local time, in ms (live.js learns it)

  function learnClock(serverTime) {
    var t = Date.parse(serverTime);
    if (!isNaN(t)) clockOffset = t - Date.now();
  }

  function remaining(ms) {
    if (ms <= 0) return "any moment now";
    var s = Math.floor(ms / 1000);
    var d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600);
    var m = Math.floor((s % 3600) / 60), sec = s % 60;
    var parts = [];
    if (d) parts.push(d + "d");
    if (d || h) parts.push(h + "h");
    if (!d) parts.push(m + "m");
    if (!d && !h) parts.push(sec + "s");
    return "in " + parts.join(" ");
  }

  // The same time in words for a screen reader, changing at most once a minute (the
  // clock is aria-live="off": nothing is announced, it is read when someone reaches it).
  function spoken(ms) {
    if (ms <= 0) return "any moment now";
    var minutes = Math.ceil(ms / 60000);
    var plural = function (n, word) { return n + " " + word + (n === 1 ? "" : "s"); };
    if (minutes >= 2880) return "in about " + plural(Math.floor(minutes / 1440), "day");
    if (minutes >= 120) return "in about " + plural(Math.floor(minutes / 60), "hour");
    if (minutes > 1) return "in " + plural(minutes, "minute");
    return "in less than a minute";
  }

  function setText(el, text) {
    if (el.textContent !== text) el.textContent = text;
  }

  function tickCountdowns() {
    var now = Date.now() + clockOffset;
    var clocks = document.querySelectorAll("time[data-countdown]");
    for (var i = 0; i < clocks.length; i++) {
      var el = clocks[i];
      var deadline = Date.parse(el.getAttribute("datetime"));
      if (isNaN(deadline)) continue;
      if (!el.hasAttribute("data-absolute")) {
        el.setAttribute("data-absolute", el.textContent.trim());
        el.textContent = "";
        var shown = document.createElement("span");
        shown.setAttribute("aria-hidden", "true"); // ticks every second: not for reading
        var said = document.createElement("span");
        said.className = "visually-hidden";
        el.appendChild(shown);
        el.appendChild(said);
      }
      var absolute = el.getAttribute("data-absolute");
      setText(el.firstChild, remaining(deadline - now));
      setText(el.lastChild, spoken(deadline - now) + " (" + absolute + ")");
      el.title = absolute;
    }
  }

  window.mafiaCountdown = { learnClock: learnClock, tick: tickCountdowns };
  setInterval(tickCountdowns, 1000);
  tickCountdowns();
})();
