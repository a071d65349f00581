// Small progressive enhancements; every feature also works without JavaScript.
// Quote buttons: append "[quote=Name #n]...[/quote]" to the reply box instead of reloading
// the page (the link's href does the same on the server when JavaScript is off).
(function () {
  "use strict";

  function stripNestedQuotes(text) {
    // Forums quote one level deep: drop quotes inside the quoted post.
    var previous;
    do {
      previous = text;
      text = text.replace(/\[quote(?:=[^\]]*)?\](?:(?!\[quote[=\]])[\s\S])*?\[\/quote\]/gi, "");
    } while (text !== previous);
    return text.trim();
  }

  function quoteText(post) {
    var source = post.querySelector("template.post-source");
    var body = source ? source.content.textContent : "";
    var name = post.getAttribute("data-author") || "";
    var number = post.getAttribute("data-number") || "";
    return "[quote=" + name + " #" + number + "]\n" + stripNestedQuotes(body) + "\n[/quote]\n";
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-quote]");
    if (!button) return;
    var box = document.getElementById("reply-body");
    var post = button.closest(".post");
    if (!box || !post) return; // no reply box on this page: follow the link
    event.preventDefault();
    var text = quoteText(post);
    box.value = box.value && !/\n$/.test(box.value) ? box.value + "\n" + text : box.value + text;
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
    box.scrollIntoView({ block: "center" });
  });

  // Create-a-game: more role rows without a reload (the formset's TOTAL_FORMS follows).
  var addRole = document.querySelector("[data-add-role]");
  if (addRole) {
    addRole.hidden = false;
    addRole.addEventListener("click", function () {
      var rows = document.getElementById("role-rows");
      var total = document.getElementById("id_roles-TOTAL_FORMS");
      var last = rows && rows.lastElementChild;
      if (!last || !total) return;
      var index = parseInt(total.value, 10);
      var row = last.cloneNode(true);
      row.querySelectorAll(".error").forEach(function (e) { e.remove(); });
      row.querySelectorAll("[name], [id], [for]").forEach(function (el) {
        ["name", "id", "for"].forEach(function (attr) {
          var value = el.getAttribute(attr);
          if (value) el.setAttribute(attr, value.replace(/roles-\d+-/, "roles-" + index + "-"));
        });
        if (el.tagName === "SELECT") el.selectedIndex = 0;
        if (el.type === "checkbox") el.checked = false;
        // A new row counts one of its role; its X-Shot and X-Vote start blank (no modifier:
        // presetting them made every added role "1-Shot 1-Vote").
        if (el.type === "number") el.value = /-count$/.test(el.name) ? "1" : "";
      });
      rows.appendChild(row);
      total.value = index + 1;
    });
  }

  // Confirm dangerous host actions (modkill, cut deadline...).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) event.preventDefault();
  });
})();
