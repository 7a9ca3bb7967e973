// The search index fetched when the reader opens search, not with every page.
//
// mkdocs-material asks for search/search_index.json as soon as a page loads (hundreds of KB on a
// site of several rulesets, more than the page itself). This script runs before the theme's and
// holds that one request back until the reader shows they want to search: the search box gets
// the focus or is pointed at, the search toggle opens, a search key is pressed, or the address
// asks for a search or highlights (?q=, ?h=). Then the request goes out as the theme made it;
// the theme never knows it waited. Nothing else is touched.
(function () {
  "use strict";
  var INDEX = /\/search\/search_index\.json(?:[?#]|$)/;
  var wanted = /[?&](?:q|h)=/.test(location.search);
  var waiting = [];
  var open = XMLHttpRequest.prototype.open;
  var send = XMLHttpRequest.prototype.send;

  function want() {
    if (wanted) { return; }
    wanted = true;
    waiting.splice(0).forEach(function (go) { go(); });
  }

  XMLHttpRequest.prototype.open = function (method, url) {
    this.wsSearchIndex = INDEX.test(String(url));
    return open.apply(this, arguments);
  };
  XMLHttpRequest.prototype.send = function () {
    var request = this;
    var args = arguments;
    if (request.wsSearchIndex && !wanted) {
      waiting.push(function () { send.apply(request, args); });
      return undefined;
    }
    return send.apply(request, args);
  };

  function inSearch(target) {
    return target instanceof Element && !!target.closest(".md-search, label[for='__search']");
  }
  document.addEventListener("focusin", function (e) { if (inSearch(e.target)) { want(); } });
  document.addEventListener("pointerover", function (e) { if (inSearch(e.target)) { want(); } });
  document.addEventListener("pointerdown", function (e) { if (inSearch(e.target)) { want(); } });
  document.addEventListener("change", function (e) {
    if (e.target instanceof HTMLInputElement && e.target.id === "__search" && e.target.checked) { want(); }
  });
  document.addEventListener("keydown", function (e) {
    var field = e.target instanceof Element && e.target.closest("input, textarea, select, [contenteditable]");
    if (!field && !e.ctrlKey && !e.metaKey && !e.altKey && (e.key === "/" || e.key === "s" || e.key === "f")) {
      want();
    }
  });
})();
