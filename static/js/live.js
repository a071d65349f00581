// Live game pages: one websocket per open game page (ws/games/<id>/).
//
// The server renders every fragment (posts, vote count, phase banner, players); this file
// only puts them in place. Items are numbered per audience ("public", "mafia", "slot:12"...:
// 1, 2, 3... with no gaps; vote counts have their own numbers), so a missed item is noticed
// and asked for again ({"type": "resume", "positions": ...}). The page prints the viewer's
// numbers at render time (data-live-positions), so it catches up from that moment. On a
// network drop it reconnects with backoff and resumes from where it was; when the server
// says the page is too far behind (or that new threads opened to this viewer) it reloads.
// The deadline countdown runs on server time (offset learned from the socket).
//
// Which parts of the page an event redraws comes from the server (games.event_kinds,
// rendered into <script id="live-kinds">): every live part is an element with an id and
// data-live-part="<part> ...". Everything that arrives is put in place, and nothing is
// fetched: a part comes either with the item as everyone sees it (where that is what a
// reload shows this viewer: parts the same for everyone; the pushed ones on an anonymous
// page) or as this viewer's own copy, rendered for them by their socket (item.own, by
// element id: games.live.own). The page says on connect which parts it has and where it is.
(function () {
  "use strict";

  var body = document.body;
  var gameId = body.getAttribute("data-game-id");
  if (!gameId || !window.WebSocket) return;
  window.mafiaLiveSocket = true; // bell.js: this socket also carries the person's inbox

  // The page's words in its language (static/js/texts.js, loaded first by base.html).
  var wording = window.mafiaTexts.wording;
  // "New post in the mafia thread.": a sentence per thread the block has (numbered there:
  // no thread's name on every page), else the thread's name put in.
  var THREAD_NUMBERS = { "public": 1, "mafia": 2, "dead": 3, "masons": 4, "neighbors": 5 };
  function newPostIn(thread) {
    var own = THREAD_NUMBERS.hasOwnProperty(thread) ? "newPost" + THREAD_NUMBERS[thread] : "";
    if (own && window.mafiaTexts.has(own)) return wording(own, "");
    return wording("newPostInThread", "New post in the {thread} thread.", { thread: thread });
  }

  var pageThread = body.getAttribute("data-thread") || "public";
  var onNewestPage = body.getAttribute("data-last-page") === "1";
  // Where the page is in the thread (rendered by the server): its page, how many pages the
  // thread had (none on an ISO view: its pages are not the thread's), and how far its URL
  // follows a growing thread ("last": ?page=last).
  var pageNumber = parseInt(body.getAttribute("data-page"), 10) || 1;
  var pageCount = parseInt(body.getAttribute("data-pages"), 10) || Infinity;
  var pageReach = body.getAttribute("data-page-reach") || String(pageNumber);
  var isoView = body.hasAttribute("data-iso"); // the thread filtered to chosen players
  var last = {}; // audience (or "~vote_count") -> number of the last item applied
  // The page's numbers per audience (games.live.numbering.page_positions): pages never
  // carry the game-wide seq, whose jumps would count hidden events. A page without them
  // asks for everything from the start (since=0).
  (body.getAttribute("data-live-positions") || "").split(",").forEach(function (pair) {
    var cut = pair.lastIndexOf(".");
    if (cut > 0) last[pair.slice(0, cut)] = parseInt(pair.slice(cut + 1), 10);
  });
  // Signed in: the page may differ from a spectator's (vote buttons, role labels, the
  // host's controls), so the socket pushes its own copy of such parts.
  var signedIn = body.hasAttribute("data-user");

  // The registry, as the server rendered it: {kinds: {kind: {parts, own, state?, you?}},
  // shared: parts the same for every viewer, appended: parts only ever added to}.
  var registry = { kinds: {}, shared: [], appended: [], pushed: [], fields: {} };
  try {
    var script = document.getElementById("live-kinds");
    if (script) registry = JSON.parse(script.textContent);
  } catch (e) { /* no map: nothing but posts and counts is redrawn */ }

  var audiences = [];
  var resyncing = {}; // audiences waiting for a replay after a gap
  var socket = null;
  var backoff = 500;
  var closing = false;
  var paused = false; // the server said live updates cannot reach this page for now

  function known() {
    return Object.keys(last).length > 0;
  }

  function positionsQuery() {
    return Object.keys(last).map(function (k) { return k + "." + last[k]; }).join(",");
  }

  // -- connection ----------------------------------------------------------------------
  function connect() {
    var scheme = location.protocol === "https:" ? "wss:" : "ws:";
    // Catch up from the numbers we hold (the page's, then the frames').
    var from = known() ? "positions=" + encodeURIComponent(positionsQuery()) : "since=0";
    // The page's live elements (id:part+part) and where it is: the server pushes this
    // viewer's own copy of the parts the items do not carry, with the items (item.own).
    var mine = pageElements();
    if (mine.length) {
      from += "&own=" + encodeURIComponent(mine.join(",")) +
        "&page=" + encodeURIComponent(location.pathname + location.search);
    }
    var url = scheme + "//" + location.host + "/ws/games/" + encodeURIComponent(gameId) +
      "/?" + from;
    status("connecting");
    socket = new WebSocket(url);
    var caughtUp = false;
    socket.onopen = function () { paused = false; };
    socket.onmessage = function (event) {
      // Live once the server has caught the page up (its first frame), not at the open: a
      // socket refused for load or for too many pages opens only to be closed at once, and
      // its retries must keep backing off.
      if (!caughtUp) { caughtUp = true; backoff = 500; status("live"); }
      var batch;
      try { batch = JSON.parse(event.data); } catch (e) { return; }
      if (!Array.isArray(batch)) batch = [batch];
      applyBatch(batch);
    };
    socket.onclose = function (event) {
      socket = null;
      if (closing) return;
      // No such game, or positions the server refused (it said why): trying again with
      // the same would be refused the same.
      if (event.code === 4404 || event.code === 4400) { status("offline"); return; }
      // Too many live pages of this person (or, anonymous, of this address): the server
      // took the socket only to say so (mafia_site.socket_limits). The page says it and
      // tries again slowly: a tab closed elsewhere lets it back in, caught up.
      if (event.code === 4429) {
        status("crowded");
        setTimeout(connect, 60000 + Math.random() * 30000);
        return;
      }
      // The site is busy (mafia_site.socket_limits: too many handshakes at once in its
      // process): like a drop, but the first retry waits a couple of seconds, not half of one.
      if (event.code === 4503) backoff = Math.max(backoff, 2000);
      status("reconnecting");
      var wait = backoff + Math.random() * backoff * 0.5; // jitter: not all at once
      backoff = Math.min(backoff * 2, 30000);
      setTimeout(connect, wait);
    };
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  }

  function askResume() {
    if (known()) send({ type: "resume", positions: last });
    else send({ type: "resume", since: 0 });
  }

  // The server's newest seq per audience: anything newer than ours was lost on the way
  // (a Redis restart, a dropped frame) even if nothing has followed it yet.
  function checkHeads(heads) {
    var behind = Object.keys(heads).some(function (k) {
      return k in last && heads[k] > last[k];
    });
    if (behind) askResume();
  }

  // -- frames -----------------------------------------------------------------------------
  function applyBatch(batch) {
    var caughtUp = null;
    batch.forEach(function (item) {
      if (item.type) {
        var positions = control(item);
        if (positions !== undefined) caughtUp = positions;
      } else {
        applyItem(item);
      }
    });
    if (caughtUp) {
      // The replay's items are in; from here on we hold the server's positions.
      Object.keys(caughtUp).forEach(function (k) {
        last[k] = Math.max(last[k] || 0, caughtUp[k]);
      });
    }
  }

  function control(message) {
    switch (message.type) {
      case "hello":
        audiences = message.audiences || [];
        learnClock(message.server_time);
        return undefined;
      case "replay":
        resyncing = {}; // the missed items follow in this frame
        return message.positions || {};
      case "resync":
        askResume();
        return undefined;
      case "reload":
        reload();
        return undefined;
      case "access":
        audiences = message.audiences || audiences;
        if (message.reload) reload();
        return undefined;
      case "live":
        // The socket is up but the server's message service (Redis) is away, or back.
        if (message.state === "paused") {
          paused = true;
          status("paused");
        } else if (paused) {
          paused = false;
          status("live");
          askResume(); // catch up on what could not be sent meanwhile
          if (signedIn) send({ type: "inbox" }); // and the bell's count
        }
        return undefined;
      case "parts":
        // This viewer's own copy of parts the page asked for (askParts).
        done = {};
        applyOwn(message, message.parts || []);
        return undefined;
      case "inbox":
        // The signed-in person's bell (games.live.inbox): bell.js draws it.
        document.dispatchEvent(new CustomEvent("mafia:inbox", { detail: message }));
        return undefined;
      case "pong":
        learnClock(message.server_time);
        checkHeads(message.heads || {});
        return undefined;
      default:
        return undefined;
    }
  }

  function applyItem(item) {
    if (item.kind === "vote_count") {
      // State: a newer count replaces the shown one; skipped ones are not missed.
      if (!("~vote_count" in last) || item.n > last["~vote_count"]) {
        last["~vote_count"] = item.n;
        redraw(item);
      }
      return;
    }
    var audience = item.aud || "public";
    if (resyncing[audience]) return; // the replay will bring it, in order
    if (audience in last) {
      if (item.n <= last[audience]) return; // already have it
      if (item.n > last[audience] + 1) {
        resyncing[audience] = true; // missed something: ask for it before going on
        askResume();
        return;
      }
    }
    last[audience] = item.n;
    show(item);
  }

  // Items on one player's own feed ("slot:<id>") that speak to "you": the host follows
  // every feed, so on the host's pages they are someone else's and stay quiet.
  var mySlot = body.getAttribute("data-slot-id");
  function forSomeoneElse(item) {
    var kind = registry.kinds[item.kind];
    return !!(kind && kind.you) && typeof item.aud === "string" &&
      item.aud.indexOf("slot:") === 0 && item.aud !== "slot:" + mySlot;
  }

  function show(item) {
    var others = forSomeoneElse(item); // refresh the page's parts, but no "you" notice
    if (item.kind === "game_started") {
      reload(); // the whole page changes shape: sign-ups give way to the game
      return;
    }
    if (item.kind === "post") {
      // An ISO view's posts are redrawn (its "iso" parts), never appended to; the activity
      // and multi-ISO pages list no thread.
      if (item.thread === pageThread && !isoView) addPost(item);
      else if (item.thread !== pageThread && pageThread !== "activity" && pageThread !== "iso") {
        notice(newPostIn(item.thread));
      }
    } else if (others) {
      // someone else's result, refused vote, prod or turn (the host's pages)
    } else if (item.kind === "private_result" && item.data) {
      notice(item.data.text || wording("newResult", "You have a new result."), true);
    } else if (item.kind === "turn_notice" && item.data) {
      notice(item.data.text, false);
    } else if (item.kind === "vote_refused" && item.data) {
      notice(item.data.message, false);
    } else if (item.kind === "prod") {
      // The server words it, on the prodded player's own copy only (not the host's).
      if (item.notice) notice(item.notice, true);
    } else if (item.kind === "role_pm" && pageThread === "role") {
      reload();
    } else if (item.kind === "night_action" && pageThread === "host") {
      // one quiet line, however many come in
      notice(wording("nightActionsUpdated", "Night actions updated."), false);
    }
    if (item.kind === "your_turn" && !others) yourTurn();
    redraw(item);
    if (item.kind === "game_finished") notice(wording("gameOver", "The game is over."), true);
    tickCountdowns();
  }

  // The HTML the server pushed with an item for a part: the spectators' rendering, in the
  // item's field the registry names for it (a state kind's item is its part: its html).
  function pushedHtml(item, part) {
    var kind = registry.kinds[item.kind];
    if (kind && kind.state) return item.html;
    var field = registry.fields[part];
    return field ? item[field] : null;
  }

  // The CSRF token in a part rendered for this viewer is a placeholder
  // (games.fragments._CSRF_SLOT): the page's own token goes there.
  var CSRF_SLOT = "csrf0slot0of0a0cached0panel";

  // This page's live elements, as "id:part+part".
  function pageElements() {
    var out = [];
    var elements = document.querySelectorAll("[data-live-part]");
    for (var i = 0; i < elements.length; i++) {
      if (elements[i].id) out.push(elements[i].id + ":" + partsOf(elements[i]).join("+"));
    }
    return out;
  }

  function partsOf(el) {
    return el.getAttribute("data-live-part").split(/\s+/).filter(Boolean);
  }

  // Whether the items carry a part as a reload shows it to this viewer (the rest is
  // pushed as the viewer's own copy).
  function carried(part) {
    return registry.appended.indexOf(part) >= 0 ||
      (signedIn ? registry.shared : registry.pushed).indexOf(part) >= 0;
  }

  // Redraw the parts of this page that an item's kind changes (the registry's map): this
  // viewer's own copy where the socket pushed one (item.own), else the pushed HTML where a
  // reload would show the same. A part that should have come and did not (the socket could
  // not render it just then) is asked for again on the socket.
  function redraw(item) {
    var kind = registry.kinds[item.kind];
    if (!kind) return;
    var parts = kind.parts.concat(signedIn ? kind.own : []);
    done = {};
    if (applyOwn(item, parts)) return;
    var elements = document.querySelectorAll("[data-live-part]");
    parts.forEach(function (part) {
      if (registry.appended.indexOf(part) >= 0) return; // posts: added, never redrawn
      var html = pushedHtml(item, part);
      var usable = html && !!carried(part);
      for (var i = 0; i < elements.length; i++) {
        var el = elements[i];
        if (!el.id || partsOf(el).indexOf(part) < 0 || done[el.id]) continue;
        if (usable && el.id === part) replace(part, html);
        else if (!carried(part)) asked[part] = true;
      }
    });
    askParts();
  }

  // This viewer's own copy of the parts ``parts`` from an item or a "parts" answer: each
  // element of those parts swapped for its copy (own, by id), or taken away where the
  // server rendered them (covered) and the element is no longer there (the host's controls
  // after the game). True: the page reloads instead (it may no longer be loaded as it is).
  var done = {}; // ids put in place from own, for the rest of this item's redraw
  function applyOwn(message, parts) {
    if (message.own_status) {
      reload(); // replaced out, or the game gone: what a reload shows
      return true;
    }
    var own = message.own || {};
    var covered = message.covered || [];
    var elements = document.querySelectorAll("[data-live-part]");
    for (var i = 0; i < elements.length; i++) {
      var el = elements[i];
      if (!el.id) continue;
      var names = partsOf(el);
      var redrawn = names.some(function (n) { return parts.indexOf(n) >= 0; });
      if (!redrawn && !names.some(function (n) { return covered.indexOf(n) >= 0; })) continue;
      if (typeof own[el.id] === "string") {
        var html = withToken(own[el.id]);
        if (html === null) { reload(); return true; }
        swapOwn(el, html);
        done[el.id] = true;
      } else if (names.some(function (n) { return covered.indexOf(n) >= 0; })) {
        if (el.isConnected) el.remove(); // gone from the page now
        done[el.id] = true;
      }
    }
    tickCountdowns();
    return false;
  }

  function withToken(html) {
    if (html.indexOf(CSRF_SLOT) < 0) return html;
    var token = document.querySelector("input[name=csrfmiddlewaretoken]");
    if (!token || !token.value) return null; // a form the page had no token for: reload
    return html.split(CSRF_SLOT).join(token.value);
  }

  // Parts to ask the socket for, coalesced: a phase change's many events cost one ask.
  var asked = {};
  var askTimer = null;
  function askParts() {
    if (askTimer || !Object.keys(asked).length) return;
    askTimer = setTimeout(function () {
      askTimer = null;
      var parts = Object.keys(asked);
      asked = {};
      send({ type: "parts", parts: parts });
    }, 100);
  }

  // A post goes where a reload of this URL would show it (the server says which page of
  // the thread it is on): on this page while it has room; past a full page, the page
  // links gain the new page and, if the URL follows the thread that far (?page=last), the
  // page becomes the new one, else it stays as it is and says where the post is.
  function addPost(item) {
    var page = item.page || pageNumber;
    if (page > pageCount) {
      pageCount = page;
      asked.pages = true; // the page links gain the new page
      askParts();
    }
    if (!onNewestPage) {
      notice(wording("newPostsNewest", "New posts: go to the newest page."), false);
      return;
    }
    if (page > pageNumber) {
      var reach = pageReach === "last" ? page : parseInt(pageReach, 10) || pageNumber;
      if (page > reach) {
        onNewestPage = false;
        body.setAttribute("data-last-page", "0");
        notice(wording("newPostsNext", "New posts on the next page."), false);
        return;
      }
      pageNumber = page; // the new page starts with this post
      body.setAttribute("data-page", String(page));
      var old = document.getElementById("posts");
      if (old) while (old.firstChild) old.removeChild(old.firstChild);
    }
    var list = document.getElementById("posts");
    if (!list) return;
    var id = "post-" + item.thread + "-" + item.number;
    if (document.getElementById(id)) return;
    var empty = document.getElementById("no-posts");
    if (empty) empty.remove();
    var holder = document.createElement("div");
    holder.innerHTML = item.html; // rendered and sanitised by the server
    while (holder.firstChild) list.appendChild(holder.firstChild);
  }

  function replace(id, html) {
    var el = document.getElementById(id);
    if (!el || !html) return;
    var holder = document.createElement("div");
    holder.innerHTML = html.trim();
    var fresh = holder.querySelector("#" + id) || holder.firstElementChild;
    if (fresh) el.replaceWith(fresh);
    else el.innerHTML = html;
  }

  // Put this viewer's pushed copy of a part in place, keeping what they are typing.
  function swapOwn(el, html) {
    var holder = document.createElement("div");
    holder.innerHTML = html.trim();
    var fresh = holder.querySelector("#" + CSS.escape(el.id)) || holder.firstElementChild;
    if (!fresh) return;
    var id = el.id;
    swapKeepingInput(el, fresh);
    if (id === "turn-panel" || fresh.querySelector("#turn-panel")) syncYourTurn();
  }

  // Replace a part without losing what the person is typing or has picked in it.
  function swapKeepingInput(el, fresh) {
    var focused = document.activeElement && el.contains(document.activeElement) ?
      document.activeElement.id : "";
    var kept = [];
    var fields = el.querySelectorAll("textarea[id], input[type=text][id], select[id]");
    for (var i = 0; i < fields.length; i++) {
      kept.push([fields[i].id, fields[i].tagName, fields[i].value]);
    }
    if (el.nodeName === fresh.nodeName && el.childNodes) morph(el, fresh);
    else el.replaceWith(fresh);
    for (i = 0; i < kept.length; i++) {
      var field = document.getElementById(kept[i][0]), value = kept[i][2];
      if (!field || field.tagName !== kept[i][1]) continue;
      if (field.tagName !== "SELECT") {
        if (value) field.value = value;
      } else if (field.querySelector("option[value='" + CSS.escape(value) + "']")) {
        field.value = value;
      } else { // what they had picked is gone (a seat died): the list's own default
        field.selectedIndex = Math.max(0, Array.prototype.findIndex.call(
          field.options, function (o) { return o.defaultSelected; }));
      }
    }
    if (focused) {
      var again = document.getElementById(focused);
      if (again && again !== document.activeElement) again.focus();
    }
  }

  // Bring el to fresh's attributes and children, keeping each element whose place, tag
  // and id are unchanged. Replacing the whole part took from under a person the element
  // they were using: the table's panel is redrawn for every ballot cast, which closed the
  // vote list they had open and moved the Vote button they were clicking.
  function morph(el, fresh) {
    var i, attr;
    for (i = el.attributes.length - 1; i >= 0; i--) {
      attr = el.attributes[i].name;
      if (!fresh.hasAttribute(attr)) el.removeAttribute(attr);
    }
    for (i = 0; i < fresh.attributes.length; i++) {
      attr = fresh.attributes[i];
      if (el.getAttribute(attr.name) !== attr.value) el.setAttribute(attr.name, attr.value);
    }
    var kids = Array.prototype.slice.call(fresh.childNodes);
    for (i = 0; i < kids.length; i++) {
      var old = el.childNodes[i], next = kids[i];
      if (!old) el.appendChild(next);
      else if (old.nodeType !== next.nodeType || old.nodeName !== next.nodeName ||
               (old.nodeType === 1 && old.id !== next.id)) old.replaceWith(next);
      else if (old.nodeType === 1) morph(old, next);
      else if (old.nodeValue !== next.nodeValue) old.nodeValue = next.nodeValue;
    }
    while (el.childNodes.length > kids.length) el.removeChild(el.lastChild);
  }

  // A reload must not cancel what the viewer just started: a link clicked or a form sent
  // (a post, a vote) in the moment before it would be lost to the reload. Such a navigation
  // shows the new state anyway; if it never leaves (a download), the reload comes later.
  var leavingSince = 0;
  window.addEventListener("beforeunload", function () { leavingSince = Date.now(); });
  function reload() {
    closing = true;
    if (socket) socket.close();
    function go() {
      if (leavingSince && Date.now() - leavingSince < 10000) { setTimeout(go, 1000); return; }
      location.reload();
    }
    setTimeout(go, 300);
  }

  // -- status and notices ----------------------------------------------------------------
  var TOO_MANY_PAGES = wording("tooManyPages", "Too many open live pages: close some tabs; this " +
    "page will not update live (it tries again every minute or so).");
  var toldTooMany = false;
  function status(state) {
    // outage.js shows the red "reconnecting" banner from this event.
    document.dispatchEvent(new CustomEvent("live:status", { detail: state }));
    // Refused for too many open pages: said once (it stays until dismissed), not at every
    // refused retry; taken away once a socket is let in. A refused socket opens before it
    // is closed, so "live" counts once the socket has stayed open a moment.
    if (state === "crowded" && !toldTooMany) {
      toldTooMany = true;
      notice(TOO_MANY_PAGES, true);
    } else if (state === "live" && toldTooMany) {
      setTimeout(function () {
        if (!socket || socket.readyState !== WebSocket.OPEN) return;
        toldTooMany = false;
        var box = document.getElementById("live-notices");
        for (var i = box ? box.children.length - 1 : -1; i >= 0; i--) {
          if (box.children[i].textContent === TOO_MANY_PAGES) box.children[i].remove();
        }
      }, 2000);
    }
    var el = document.getElementById("live-status");
    if (el) {
      el.textContent = state === "live" ? wording("statusLive", "live") :
        state === "offline" ? wording("statusOffline", "offline") :
        state === "paused" ? wording("statusPaused", "paused") :
        state === "crowded" ? wording("statusCrowded", "too many tabs") :
        wording("statusReconnecting", "reconnecting…");
      el.setAttribute("data-state", state);
    }
  }

  // A player whose turn starts is told: a notice, and the page title until they act.
  var baseTitle = document.title;
  function yourTurn() {
    notice(wording("yourTurnNotice", "Your turn at the table."), true);
    document.title = wording("yourTurnTitle", "\u25B6 Your turn \u00B7 {title}", { title: baseTitle });
    body.setAttribute("data-your-turn", "1");
  }
  // The title follows the panel: its "Your turn" line is the viewer's own (a speech, a vote).
  function syncYourTurn() {
    if (document.getElementById("your-turn")) {
      document.title = wording("yourTurnTitle", "\u25B6 Your turn \u00B7 {title}", { title: baseTitle });
      body.setAttribute("data-your-turn", "1");
    } else if (body.getAttribute("data-your-turn") === "1") {
      document.title = baseTitle;
      body.removeAttribute("data-your-turn");
    }
  }
  syncYourTurn();

  function notice(text, important) {
    if (!text) return;
    var box = document.getElementById("live-notices");
    if (!box) {
      box = document.createElement("div");
      box.id = "live-notices";
      box.setAttribute("role", "status");
      box.setAttribute("aria-live", "polite");
      // Bottom left: the sidebar (vote count, the host's controls) stays uncovered.
      box.style.cssText = "position:fixed;left:1em;bottom:1em;max-width:24em;z-index:50";
      body.appendChild(box);
    }
    for (var i = 0; i < box.children.length; i++) {
      if (box.children[i].textContent === text) box.children[i].remove(); // no duplicates
    }
    var line = document.createElement("div");
    line.className = "live-notice" + (important ? " important" : "");
    line.style.cssText = "background:#222;color:#fff;padding:.5em .8em;margin-top:.4em;" +
      "border-radius:4px;box-shadow:0 2px 6px rgba(0,0,0,.3);cursor:pointer";
    line.textContent = text; // text, never HTML
    line.title = wording("dismiss", "Click to dismiss");
    line.onclick = function () { line.remove(); };
    box.appendChild(line);
    if (!important) setTimeout(function () { line.remove(); }, 8000);
  }

  // -- countdown on server time (countdown.js) ------------------------------------------------
  function learnClock(serverTime) {
    if (window.mafiaCountdown) window.mafiaCountdown.learnClock(serverTime);
  }

  function tickCountdowns() {
    if (window.mafiaCountdown) window.mafiaCountdown.tick();
  }

  // Keeps the clock right and catches a lost frame that nothing has followed yet.
  setInterval(function () { send({ type: "ping" }); }, 30000);
  window.addEventListener("pagehide", function () { closing = true; if (socket) socket.close(); });
  tickCountdowns();
  connect();
})();
