// warroom's colours: as the device is set (light or dark), or as the theme button last
// chose on this device. Loaded in <head>, before the page is drawn, so it never flashes.
(function () {
  "use strict";
  var MODES = ["auto", "dark", "light"];
  var root = document.documentElement;
  function stored() {
    try { return localStorage.getItem("warroom-theme") || "auto"; } catch (e) { return "auto"; }
  }
  function apply(mode) {
    if (mode === "auto") { delete root.dataset.theme; } else { root.dataset.theme = mode; }
    var button = document.getElementById("theme-toggle");
    if (button) {
      button.dataset.mode = mode;
      button.setAttribute("aria-label", button.dataset["label" + mode.charAt(0).toUpperCase() +
                                                       mode.slice(1)] || mode);
      button.title = button.getAttribute("aria-label");
    }
  }
  apply(stored());
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("theme-toggle");
    if (!button) { return; }
    button.hidden = false;
    apply(stored());
    button.addEventListener("click", function () {
      var next = MODES[(MODES.indexOf(button.dataset.mode || "auto") + 1) % MODES.length];
      try { localStorage.setItem("warroom-theme", next); } catch (e) { /* private mode */ }
      apply(next);
    });
  });
}());
