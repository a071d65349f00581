// The site's service worker (served at /sw.js: notifications.pwa), for two things only.
//
// 1. Offline: a page opened without a network shows the offline page instead of the
//    browser's error. The worker keeps that page and its own stylesheet and icon, and
//    nothing else: every other request goes to the network as if there were no worker
//    (game pages are live and must never be served stale).
// 2. Web Push (notifications.push): a push shows the notification it carries (its JSON:
//    title, body, url, tag); tapping it focuses a tab of the site or opens one at its url.
"use strict";

var CACHE = "mafia-offline-v1";
var OFFLINE = "/offline/";
var KEPT = [OFFLINE, "/static/css/site.css", "/static/img/icon-192.png"];

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(CACHE).then(function (cache) { return cache.addAll(KEPT); })
      .then(function () { return self.skipWaiting(); })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) { return name !== CACHE; })
        .map(function (name) { return caches.delete(name); }));
    }).then(function () { return self.clients.claim(); })
  );
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  if (request.mode === "navigate") {
    // The network, always; its failure (not an error page: that is the site's answer)
    // shows the offline page.
    event.respondWith(fetch(request).catch(function () {
      return caches.match(OFFLINE, { cacheName: CACHE });
    }));
    return;
  }
  var url = new URL(request.url);
  if (url.origin === self.location.origin && KEPT.indexOf(url.pathname) > 0) {
    // The offline page's stylesheet and icon: fresh when online, the kept copy when not.
    event.respondWith(fetch(request).catch(function () {
      return caches.match(url.pathname, { cacheName: CACHE });
    }));
  }
});

self.addEventListener("push", function (event) {
  var data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = {}; }
  var title = data.title || "Forum Mafia";
  event.waitUntil(self.registration.showNotification(title, {
    body: data.body || "",
    tag: data.tag || undefined,
    icon: "/static/img/icon-192.png",
    badge: "/static/img/icon-192.png",
    data: { url: data.url || "/notifications/" }
  }));
});

self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var target = (event.notification.data && event.notification.data.url) || "/notifications/";
  // A path of this site only, whatever the push said.
  if (target.charAt(0) !== "/" || target.charAt(1) === "/") target = "/notifications/";
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (tabs) {
      for (var i = 0; i < tabs.length; i++) {
        if ("navigate" in tabs[i] && "focus" in tabs[i]) {
          return tabs[i].focus().then(function (tab) { return tab.navigate(target); });
        }
      }
      return self.clients.openWindow(target);
    })
  );
});
