// The page's words in its language, for every script of the site: the JSON block
// templates/_js_texts.html renders (by key; "{name}" a value put in). Loaded first by
// base.html; a script that finds no such block (or no this script) says its own English.
(function () {
  "use strict";

  var texts = null;
  function loadTexts() {
    if (texts === null) {
      texts = {};
      try {
        var block = document.getElementById("js-texts");
        if (block) texts = JSON.parse(block.textContent) || {};
      } catch (e) { texts = {}; }
    }
    return texts;
  }
  function fill(words, values) {
    return words.replace(/\{(\w+)\}/g, function (whole, name) {
      return values && name in values ? String(values[name]) : whole;
    });
  }
  function wording(key, english, values) {
    var found = loadTexts()[key];
    return fill(typeof found === "string" ? found : english, values);
  }
  // A sentence about n: the block gives its forms for 1, 2 and 5, and the one whose plural
  // category (Intl.PluralRules, in the page's language) is n's is used.
  function plural(key, n, one, other) {
    var forms = loadTexts()[key];
    var pick = null;
    if (forms && typeof forms === "object") {
      try {
        var root = document.documentElement;
        var rules = new Intl.PluralRules((root && root.lang) || undefined);
        var wanted = rules.select(n);
        ["1", "2", "5"].forEach(function (sample) {
          if (pick === null && typeof forms[sample] === "string" &&
              rules.select(Number(sample)) === wanted) pick = forms[sample];
        });
      } catch (e) { pick = null; }
      if (pick === null) pick = forms[n === 1 ? "1" : "2"];
    }
    if (typeof pick !== "string") pick = n === 1 ? one : other;
    return fill(pick, { n: n });
  }
  window.mafiaTexts = { wording: wording, plural: plural, has: function (key) {
    return typeof loadTexts()[key] === "string";
  } };
})();
