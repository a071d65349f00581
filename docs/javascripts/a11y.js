// The manual is held to the site's accessibility standard (tests/e2e/test_accessibility.py
// audits /help/ with axe-core). The theme's search dialog has no name, and a table wider
// than the screen scrolls in a box a keyboard cannot reach: both mended on every page
// (document$ is the theme's page-loaded stream, after it has wrapped the tables).
document$.subscribe(function () {
  var search = document.querySelector(".md-search[role=dialog]");
  if (search) search.setAttribute("aria-label", "Search the manual");
  document.querySelectorAll(".md-typeset__scrollwrap").forEach(function (wrap) {
    wrap.setAttribute("tabindex", "0");
  });
});
