// Deadline countdowns: every <time datetime="..." data-countdown> shows the time left,
// ticking each second, and a screen reader's words for it. Shared by the live game pages
// (live.js tells it the server's time from the socket) and pages without a socket (my
// games), which count on the local clock.
(function () {
  "use strict";

  var clockOffset = 0; // server time - local time, in ms (live.js learns it)

  // The page's words in its language (static/js/texts.js, loaded first by base.html).
  var wording = window.mafiaTexts.wording;
  var plural = window.mafiaTexts.plural;

  function learnClock(serverTime) {
    var t = Date.parse(serverTime);
    if (!isNaN(t)) clockOffset = t - Date.now();
  }

  function remaining(ms) {
    if (ms <= 0) return wording("soon", "any moment now");
    var s = Math.floor(ms / 1000);
    var d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600);
    var m = Math.floor((s % 3600) / 60), sec = s % 60;
    var parts = [];
    if (d) parts.push(wording("days", "{n}d", { n: d }));
    if (d || h) parts.push(wording("hours", "{n}h", { n: h }));
    if (!d) parts.push(wording("minutes", "{n}m", { n: m }));
    if (!d && !h) parts.push(wording("seconds", "{n}s", { n: sec }));
    return wording("inTime", "in {time}", { time: parts.join(" ") });
  }

  // The same time in words for a screen reader, changing at most once a minute (the
  // clock is aria-live="off": nothing is announced, it is read when someone reaches it).
  function spoken(ms) {
    if (ms <= 0) return wording("soon", "any moment now");
    var minutes = Math.ceil(ms / 60000);
    if (minutes >= 2880) {
      return plural("aboutDays", Math.floor(minutes / 1440), "in about {n} day", "in about {n} days");
    }
    if (minutes >= 120) {
      return plural("aboutHours", Math.floor(minutes / 60), "in about {n} hour", "in about {n} hours");
    }
    if (minutes > 1) return plural("inMinutes", minutes, "in {n} minute", "in {n} minutes");
    return wording("lessThanMinute", "in less than a minute");
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
