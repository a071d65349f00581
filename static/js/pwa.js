// Every page: register the site's service worker (/sw.js, notifications.pwa), which shows
// the offline page when a page cannot be loaded and shows Web Push notifications. It caches
// nothing else: the pages themselves always come from the network.
(function () {
  "use strict";
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  window.addEventListener("load", function () {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {
      // No worker (a private window, a browser setting): the site works as without one.
    });
  });
})();
