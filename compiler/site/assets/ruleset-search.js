// Search results that name their ruleset, with a switch to keep to the ruleset being read.
//
// mkdocs-material draws the results; this script only labels them. Each result gets the
// title of the ruleset its page belongs to (the first folder of its address); on a ruleset's
// page, that ruleset's results come first and a check box hides the others. Nothing is
// fetched: the ruleset titles are written into this file when the site is built.
(function () {
  "use strict";
  var NAMES = /*WARSCRIBE_NAMES*/{};
  var OTHER = /*WARSCRIBE_OTHER*/"";
  var KEY = "warscribe.search.this-ruleset-only";

  var config = document.getElementById("__config");
  if (!config) { return; }
  var base;
  try { base = JSON.parse(config.textContent).base || "."; } catch (e) { return; }
  var root = new URL(base.replace(/\/?$/, "/"), location.href).pathname;

  function rulesetOf(href) {
    var path = new URL(href, location.href).pathname;
    if (path.indexOf(root) !== 0) { return null; }
    var first = path.slice(root.length).split("/")[0];
    return Object.prototype.hasOwnProperty.call(NAMES, first) ? first : null;
  }

  var here = rulesetOf(location.href);
  var body = document.body;

  function setOnly(on) {
    body.classList.toggle("ws-search-only-here", !!on);
    try { localStorage.setItem(KEY, on ? "1" : "0"); } catch (e) { /* storage may be off */ }
  }

  function label(item) {
    if (item.hasAttribute("data-ws-ruleset")) { return; }
    var link = item.querySelector("a.md-search-result__link");
    var article = link && link.querySelector("article");
    if (!article) { return; }
    var id = rulesetOf(link.getAttribute("href"));
    item.setAttribute("data-ws-ruleset", id || "");
    if (id !== null && id === here) { item.setAttribute("data-ws-here", ""); }
    var tag = document.createElement("div");
    tag.className = "ws-search-ruleset";
    tag.textContent = id !== null ? NAMES[id] : OTHER;
    var heading = article.querySelector("h1, h2");
    article.insertBefore(tag, heading || article.firstChild);
  }

  function start() {
    var list = document.querySelector(".md-search-result__list");
    var meta = document.querySelector(".md-search-result__meta");
    if (!list || !meta) { return; }
    if (here !== null) {
      var box = document.createElement("label");
      box.className = "ws-search-scope";
      var input = document.createElement("input");
      input.type = "checkbox";
      input.name = "ws-search-scope";
      var stored = null;
      try { stored = localStorage.getItem(KEY); } catch (e) { stored = null; }
      input.checked = stored === "1";
      setOnly(input.checked);
      input.addEventListener("change", function () { setOnly(input.checked); });
      box.appendChild(input);
      box.appendChild(document.createTextNode(" Only " + NAMES[here]));
      meta.parentNode.insertBefore(box, meta);
    }
    Array.prototype.forEach.call(list.querySelectorAll(".md-search-result__item"), label);
    new MutationObserver(function () {
      Array.prototype.forEach.call(list.querySelectorAll(".md-search-result__item:not([data-ws-ruleset])"), label);
    }).observe(list, { childList: true, subtree: true });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
