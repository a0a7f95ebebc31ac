// warroom: small progressive enhancements. Every page also works without this file.
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  // On a phone there is no hover: tap a chance to see it as an exact fraction.
  document.addEventListener("click", function (event) {
    var cell = event.target.closest ? event.target.closest("td[data-exact]") : null;
    if (!cell) { return; }
    if (!cell.dataset.pct) { cell.dataset.pct = cell.textContent; }
    var showing = cell.classList.toggle("show-exact");
    cell.textContent = showing ? cell.dataset.exact : cell.dataset.pct;
  });

  // "Add a choice" on the compare page reloads the whole page with one more column.
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.add-set") : null;
    if (!button) { return; }
    event.preventDefault();
    event.stopPropagation();
    var form = button.form;
    var extra = document.createElement("input");
    extra.type = "hidden";
    extra.name = "add";
    extra.value = "1";
    form.appendChild(extra);
    form.submit();
  }, true);

  // Show that odds are being worked out while a request is in flight.
  document.addEventListener("htmx:beforeRequest", function (event) {
    document.body.classList.add("busy");
    if (event.detail && event.detail.elt && event.detail.elt.id === "roll-button") {
      event.detail.elt.setAttribute("aria-busy", "true");
    }
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    document.body.classList.remove("busy");
    if (event.detail && event.detail.elt) { event.detail.elt.removeAttribute("aria-busy"); }
  });

  // A battle page follows the battle: every few seconds it asks for the state counter;
  // when the other device has changed the battle it swaps in the new battle section
  // (scroll position and open <details> kept). While the user is typing in a form here,
  // it shows the "changed" banner with a Refresh button instead, so nothing typed is lost.
  var battle = document.getElementById("battle");
  if (battle && battle.dataset.poll && window.fetch && window.DOMParser) {
    followBattle(battle);
  }

  function followBattle(root) {
    var EVERY = 3000;
    var banner = document.getElementById("changed");
    var button = document.getElementById("refresh");
    var asking = false;
    var leaving = false;

    function shown() {
      var p = root.querySelector("[data-counter]");
      return p ? Number(p.getAttribute("data-counter")) : -1;
    }

    function changed(el) {
      var type = (el.type || "").toLowerCase();
      if (type === "hidden" || type === "submit" || type === "button" || type === "reset") {
        return false;
      }
      if (type === "checkbox" || type === "radio") { return el.checked !== el.defaultChecked; }
      if (el.tagName === "SELECT") {
        var initial = 0;
        for (var i = 0; i < el.options.length; i++) {
          if (el.options[i].defaultSelected) { initial = i; break; }
        }
        return el.multiple ? false : el.selectedIndex !== initial;
      }
      return el.value !== el.defaultValue;
    }

    function typing() {
      var active = document.activeElement;
      if (active && root.contains(active) && /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName)) {
        return true;
      }
      var fields = root.querySelectorAll("input, select, textarea");
      for (var i = 0; i < fields.length; i++) {
        if (changed(fields[i])) { return true; }
      }
      return false;
    }

    function refresh(asked) {
      return fetch(root.dataset.section, {headers: {"Accept": "text/html"}, cache: "no-store",
                                          credentials: "same-origin"})
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html === null || leaving) { return false; }
          if (!asked && typing()) { banner.hidden = false; return false; }  // began meanwhile
          var open = {};
          root.querySelectorAll("details[data-keep][open]").forEach(function (d) {
            open[d.getAttribute("data-keep")] = true;
          });
          var x = window.scrollX;
          var y = window.scrollY;
          var fresh = new DOMParser().parseFromString(html, "text/html").body;
          root.replaceChildren.apply(root, Array.prototype.slice.call(fresh.childNodes));
          root.querySelectorAll("details[data-keep]").forEach(function (d) {
            if (open[d.getAttribute("data-keep")]) { d.open = true; }
          });
          window.scrollTo(x, y);
          banner.hidden = true;
          root.classList.remove("updated");
          void root.offsetWidth;  // restart the highlight
          root.classList.add("updated");
          return true;
        });
    }

    function poll() {
      if (asking || leaving || document.visibilityState === "hidden") { return; }
      asking = true;
      fetch(root.dataset.poll, {headers: {"Accept": "application/json"}, cache: "no-store",
                                credentials: "same-origin"})
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (d) {
          if (!d || typeof d.counter !== "number" || d.counter === shown()) { return null; }
          if (typing()) { banner.hidden = false; return null; }
          return refresh(false);
        })
        .catch(function () {})
        .then(function () { asking = false; });
    }

    button.addEventListener("click", function () {
      button.disabled = true;
      refresh(true).catch(function () { return false; }).then(function (done) {
        button.disabled = false;
        // no fresh section (or no answer): load the battle page itself (GET, never a re-POST)
        if (!done && !leaving) {
          window.location.assign(root.dataset.section.replace(/\/section$/, ""));
        }
      });
    });
    // A form being sent leaves the page: do not swap its content meanwhile.
    document.addEventListener("submit", function () { leaving = true; });
    window.addEventListener("pageshow", function () { leaving = false; });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") { poll(); }
    });
    window.setInterval(poll, EVERY);
  }
})();
