// Tables wider than the screen (a phone's 390 px) scroll sideways inside their
// ".table-wrap". A keyboard user scrolls such a box only if it can take the focus (WCAG
// 2.1.1; axe's "scrollable-region-focusable"), and a screen reader should hear what it
// holds: each wrapper that scrolls now becomes a named region in the Tab order
// (tabindex="0", role="region", named by its table's caption or the heading before it),
// and stops being one when the window is wide enough again. Wrappers that live.js swaps
// in later are followed too.
(function () {
  "use strict";
  if (!window.ResizeObserver) return;

  var MARK = "data-scroll-region"; // set by this file: only its own attributes are undone

  // The page's words in its language (static/js/texts.js, loaded first by base.html).
  var wording = window.mafiaTexts.wording;

  function nameOf(wrap) {
    var caption = wrap.querySelector("caption");
    if (caption && caption.textContent.trim()) return caption.textContent.trim();
    var section = wrap.closest("section, article, .card");
    var heading = section && section.querySelector("h1, h2, h3, h4");
    if (heading && heading.textContent.trim()) return heading.textContent.trim();
    return wording("table", "Table");
  }

  function update(wrap) {
    var scrolls = wrap.scrollWidth > wrap.clientWidth + 1;
    if (scrolls && !wrap.hasAttribute("tabindex")) {
      wrap.setAttribute("tabindex", "0");
      wrap.setAttribute("role", "region");
      wrap.setAttribute("aria-label", wording("scrollsSideways", "{name} (scrolls sideways)", { name: nameOf(wrap) }));
      wrap.setAttribute(MARK, "");
    } else if (!scrolls && wrap.hasAttribute(MARK)) {
      ["tabindex", "role", "aria-label", MARK].forEach(function (name) {
        wrap.removeAttribute(name);
      });
    }
  }

  var sizes = new ResizeObserver(function (entries) {
    entries.forEach(function (entry) { update(entry.target); });
  });
  var followed = typeof WeakSet === "function" ? new WeakSet() : null;

  function follow(root) {
    var wraps = root.querySelectorAll ? root.querySelectorAll(".table-wrap") : [];
    Array.prototype.forEach.call(wraps, function (wrap) {
      if (followed && followed.has(wrap)) return;
      if (followed) followed.add(wrap);
      sizes.observe(wrap); // also reports its size once now
    });
  }

  function start() {
    follow(document);
    if (window.MutationObserver) {
      new MutationObserver(function () { follow(document); })
        .observe(document.body, { childList: true, subtree: true });
    }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
