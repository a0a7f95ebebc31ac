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
})();
