// The notification settings page: turn Web Push on or off for this browser
// (notifications.push). On: ask the browser's permission, subscribe with the site's VAPID
// public key (data-push-key) and post the subscription; off: unsubscribe and tell the site.
(function () {
  "use strict";

  var box = document.querySelector("[data-push]");
  if (!box) return;

  // The page's words in its language (static/js/texts.js, loaded first by base.html).
  var wording = window.mafiaTexts.wording;
  // One button: "Turn on" or "Turn off" as this browser is now (the page's CSS shows a
  // button whatever its hidden attribute says, so there is never a second one to hide).
  var button = box.querySelector("[data-push-toggle]");
  var subscribed = false;
  var status = box.querySelector("[data-push-status]");
  var key = box.getAttribute("data-push-key");
  function say(text) { if (status) status.textContent = text; }
  function csrf() {
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }
  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (answer) {
        if (!response.ok || response.redirected) {
          throw new Error(answer.error || wording("pushNotTaken", "The site did not take it; reload the page and try again."));
        }
        return answer;
      });
    });
  }
  function keyBytes(text) {
    var base64 = (text + "===".slice((text.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = window.atob(base64);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  }
  function show(now) {
    subscribed = now;
    button.textContent = subscribed
      ? wording("pushTurnOff", "Turn off push notifications on this device")
      : wording("pushTurnOn", "Turn on push notifications on this device");
    button.disabled = false;
    say(subscribed
      ? wording("pushOn", "This browser gets push notifications from this site.")
      : wording("pushOff", "This browser does not get push notifications from this site."));
  }

  if (!key) return; // the page says push is not set up
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !window.isSecureContext) {
    say(wording("pushUnsupported", "This browser cannot get push notifications here (it needs a secure https page; on an iPhone, add the site to the home screen first)."));
    return;
  }
  var ready = navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function () {
    return navigator.serviceWorker.ready;
  });
  ready.then(function (registration) {
    return registration.pushManager.getSubscription();
  }).then(function (subscription) { show(!!subscription); }).catch(function () { show(false); });

  function turnOn() {
    say(wording("pushAsking", "Asking the browser…"));
    return ready.then(function (registration) {
      return registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(key)
      });
    }).then(function (subscription) {
      return post(box.getAttribute("data-push-subscribe"), { subscription: subscription.toJSON() });
    }).then(function () { show(true); }).catch(function (error) {
      show(false);
      say(window.Notification && window.Notification.permission === "denied"
        ? wording("pushBlocked", "This browser blocks this site's notifications (change it in the browser's site settings).")
        : wording("pushOnFailed", "Push could not be turned on: {error}", { error: error.message }));
    });
  }

  function turnOff() {
    return ready.then(function (registration) {
      return registration.pushManager.getSubscription();
    }).then(function (subscription) {
      if (!subscription) return null;
      var endpoint = subscription.endpoint;
      return subscription.unsubscribe().then(function () {
        // Not known to the site (removed meanwhile): off all the same.
        return post(box.getAttribute("data-push-unsubscribe"), { endpoint: endpoint })
          .catch(function () { return null; });
      });
    }).then(function () { show(false); }).catch(function (error) {
      show(true);
      say(wording("pushOffFailed", "Push could not be turned off: {error}", { error: error.message }));
    });
  }

  button.addEventListener("click", function () {
    button.disabled = true;
    if (subscribed) turnOff(); else turnOn();
  });
})();
