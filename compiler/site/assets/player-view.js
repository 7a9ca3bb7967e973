// A player's view of the rulebook: the author's material (notes left to the players, open
// questions, which examples pin a rule, counts, seeds, commands) is hidden until the reader turns
// "Author notes" on; the choice is remembered in this browser (localStorage). The class that
// shows it is set on <html> before the page is drawn (compiler/site/theme/main.html); this
// script adds the switch to the header.
//
// On a datasheets page it adds keyword filters above the cards.
//
// It also lets a reader reach a table wider than its column with the keyboard: the box that
// scrolls it becomes a named, focusable region (arrow keys scroll it), with a cue that more
// columns are to the right.
(function () {
  "use strict";
  var KEY = "warscribe.author-notes";
  var root = document.documentElement;

  function set(on, button) {
    root.classList.toggle("ws-author-on", on);
    if (button) {
      button.setAttribute("aria-pressed", on ? "true" : "false");
      button.title = on ? "Hide the author's notes" : "Show the author's notes";
    }
    try { localStorage.setItem(KEY, on ? "1" : "0"); } catch (e) { /* storage may be off */ }
  }

  function addSwitch() {
    var header = document.querySelector(".md-header__inner");
    if (!header || header.querySelector(".ws-author-toggle")) { return; }
    var button = document.createElement("button");
    button.type = "button";
    button.className = "md-header__button ws-author-toggle";
    var label = document.createElement("span");
    label.textContent = "Author notes";
    button.appendChild(label);
    button.setAttribute("aria-pressed", root.classList.contains("ws-author-on") ? "true" : "false");
    button.title = root.classList.contains("ws-author-on") ? "Hide the author's notes" : "Show the author's notes";
    button.addEventListener("click", function () { set(!root.classList.contains("ws-author-on"), button); });
    var before = header.querySelector("form[data-md-component=palette], label[for='__search'], .md-search");
    header.insertBefore(button, before || null);
  }

  function scrollable() {
    var boxes = document.querySelectorAll(".md-typeset__scrollwrap");
    Array.prototype.forEach.call(boxes, function (box) {
      var sideways = box.scrollWidth > box.clientWidth + 1;
      var wide = sideways || box.scrollHeight > box.clientHeight + 1;
      box.classList.toggle("ws-wide", wide);
      box.classList.toggle("ws-sideways", sideways);  // shows the cue "more columns →" (warscribe-site.css)
      if (wide) {
        if (!box.hasAttribute("tabindex")) {
          box.setAttribute("tabindex", "0");
          box.setAttribute("role", "region");
          var head = box.querySelector("th");
          box.setAttribute("aria-label", "Table" + (head && head.textContent.trim() ? ": " + head.textContent.trim() : "")
                           + " (scrolls)");
        }
      } else if (box.getAttribute("role") === "region") {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
      box.classList.toggle("ws-scrolled-end", box.scrollLeft + box.clientWidth >= box.scrollWidth - 1);
    });
  }

  // Keyword filters on a datasheets page: a button per keyword the cards carry; with some pressed,
  // only the cards that carry all of them are shown.
  function addFilters() {
    var cards = Array.prototype.slice.call(document.querySelectorAll("article .ws-card"));
    if (cards.length < 3 || document.querySelector(".ws-filter")) { return; }
    var words = {};
    cards.forEach(function (card) {
      card.wsKeywords = Array.prototype.map.call(card.querySelectorAll(".ws-keywords a"), function (a) {
        return a.textContent.trim();
      });
      card.wsKeywords.forEach(function (k) { words[k] = (words[k] || 0) + 1; });
    });
    var names = Object.keys(words).filter(function (k) { return words[k] < cards.length; }).sort();
    if (!names.length) { return; }
    var bar = document.createElement("div");
    bar.className = "ws-filter";
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", "Show only the datasheets with these keywords");
    var label = document.createElement("span");
    label.textContent = "Show only: ";
    bar.appendChild(label);
    var chosen = {};
    function apply() {
      var wanted = Object.keys(chosen).filter(function (k) { return chosen[k]; });
      cards.forEach(function (card) {
        card.hidden = !wanted.every(function (k) { return card.wsKeywords.indexOf(k) >= 0; });
      });
    }
    names.forEach(function (name) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = name;
      button.setAttribute("aria-pressed", "false");
      button.addEventListener("click", function () {
        chosen[name] = !chosen[name];
        button.setAttribute("aria-pressed", chosen[name] ? "true" : "false");
        apply();
      });
      bar.appendChild(button);
    });
    cards[0].parentNode.insertBefore(bar, cards[0].previousElementSibling && /^H[23]$/.test(cards[0].previousElementSibling.tagName)
                                     ? cards[0].previousElementSibling : cards[0]);
  }

  function start() {
    addSwitch();
    addFilters();
    scrollable();
    window.addEventListener("resize", scrollable);
    document.addEventListener("scroll", function (e) {
      var box = e.target;
      if (box instanceof Element && box.classList.contains("md-typeset__scrollwrap")) {
        box.classList.toggle("ws-scrolled-end", box.scrollLeft + box.clientWidth >= box.scrollWidth - 1);
      }
    }, true);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
