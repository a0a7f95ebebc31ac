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

  // Copy a battle link (the share list): the clipboard API where the browser allows it
  // (https or localhost), else the old way, from a selected field; failing both, the
  // link itself is selected and the button says to copy it by hand.
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button[data-copy]") : null;
    if (!button) { return; }
    var text = button.dataset.copy;
    var status = button.parentNode.querySelector(".copy-status");
    function said(ok) {
      if (status) { status.textContent = ok ? button.dataset.copied : button.dataset.failed; }
      if (!ok) {
        var link = button.parentNode.querySelector(".share-link");
        if (link && window.getSelection) {
          var range = document.createRange();
          range.selectNodeContents(link);
          window.getSelection().removeAllRanges();
          window.getSelection().addRange(range);
        }
      }
    }
    function fallback() {
      var field = document.createElement("textarea");
      field.value = text;
      field.setAttribute("readonly", "");
      field.style.position = "fixed";
      field.style.opacity = "0";
      document.body.appendChild(field);
      field.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(field);
      button.focus();
      said(ok);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { said(true); }, fallback);
    } else {
      fallback();
    }
  });

  // A field other than a typed-in one (those ask as you type) asks for new odds when it
  // changes (an event, not an hx-trigger filter: the CSP allows htmx no eval).
  document.addEventListener("change", function (event) {
    var field = event.target;
    var form = field.closest ? field.closest("form[hx-get]") : null;
    // (a field with a request of its own, such as the battle form's unit pickers, asks
    // for itself)
    if (!form || field.classList.contains("live") || field.hasAttribute("hx-get") ||
        !window.htmx) { return; }
    window.htmx.trigger(form, "fields-changed");
  });

  // The battle page's Resolve form: a changed parameter marks the odds shown outdated
  // until the new ones arrive; a request for them that fails leaves them marked.
  function resolveParam(el) {
    var form = el && el.closest ? el.closest("#do-form") : null;
    return form && el.name && el.name.indexOf("p.") === 0 && el.name !== "p._sent";
  }
  function markOdds(on) {
    ["#do-form #odds", "#do-form [data-odds-summary]"].forEach(function (selector) {
      var el = document.querySelector(selector);
      if (el) { el.classList.toggle("stale", on); }
    });
  }
  ["input", "change"].forEach(function (kind) {
    document.addEventListener(kind, function (event) {
      if (resolveParam(event.target)) { markOdds(true); }
    });
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    // (the panel that asked for itself, exact odds after an estimate, is detached by now)
    if (target && target.id === "odds") {
      copySummary(document.querySelector("#do-form [data-odds-summary]"));
      markOdds(false);
    }
  });

  // The odds panel's headline (its <template class="odds-summary">) shown in a compact
  // summary elsewhere: the rule page's sticky bar, the battle page's summary beside Roll.
  function copySummary(into) {
    var fresh = document.querySelector("#odds template.odds-summary");
    var sum = into && into.querySelector(".sum");
    if (fresh && sum) { sum.innerHTML = fresh.innerHTML; }
  }

  // Folds opened on the battle page (More, Every outcome) stay open when htmx draws the
  // Resolve form or its odds anew.
  var keptOpen = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail && event.detail.target;
    keptOpen = {};
    if (!target || !target.querySelectorAll) { return; }
    target.querySelectorAll("details[data-keep][open]").forEach(function (d) {
      keptOpen[d.getAttribute("data-keep")] = true;
    });
  });
  document.addEventListener("htmx:afterSwap", function () {
    var kept = keptOpen || {};
    keptOpen = null;
    Object.keys(kept).forEach(function (name) {
      document.querySelectorAll('details[data-keep="' + name.replace(/"/g, "") + '"]')
        .forEach(function (d) { d.open = true; });
    });
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
    var xhr = event.detail && event.detail.xhr;
    if (xhr && xhr.status > 0) { offline(false); }
  });

  // htmx requests on their way (odds, dice hints, a pick's new form): the battle page
  // does not swap its section in over a form that is about to change.
  var inflight = 0;
  document.addEventListener("htmx:beforeRequest", function () { inflight += 1; });
  document.addEventListener("htmx:afterRequest", function () {
    inflight = Math.max(0, inflight - 1);
  });

  // The Resolve form comes back drawn anew after each pick; what was typed into one of its
  // fields while that answer was on its way (dice, a number) is kept, not wiped.
  var typedMeanwhile = null;
  function sentValue(sent, name) {
    var v = sent ? sent[name] : undefined;
    if (Array.isArray(v)) { v = v[v.length - 1]; }
    return v === undefined || v === null ? "" : String(v);
  }
  document.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail && event.detail.target;
    typedMeanwhile = null;
    if (!target || target.id !== "resolve") { return; }
    var form = target.querySelector("form");
    var sent = event.detail.requestConfig && event.detail.requestConfig.parameters;
    if (!form) { return; }
    typedMeanwhile = {};
    Array.prototype.forEach.call(form.elements, function (el) {
      var kind = (el.type || "").toLowerCase();
      if (!el.name || el.tagName === "SELECT" || /^(hidden|checkbox|radio|submit|button)$/.test(kind)) {
        return;
      }
      if (sentValue(sent, el.name) !== el.value) { typedMeanwhile[el.name] = el.value; }
    });
  });
  document.addEventListener("htmx:afterSettle", function () {
    var kept = typedMeanwhile;
    typedMeanwhile = null;
    var fresh = document.getElementById("resolve");
    if (!kept || !fresh) { return; }
    Object.keys(kept).forEach(function (name) {
      var el = fresh.querySelector('[name="' + name.replace(/"/g, "") + '"]');
      if (el && el.value !== kept[name]) {
        el.value = kept[name];
        el.dispatchEvent(new Event("input", {bubbles: true}));  // its hint and odds follow
      }
    });
  });

  // The server cannot be reached (Wi-Fi gone, laptop asleep): say so; what was typed
  // stays in the forms. A plain form sent meanwhile would land on the browser's own
  // offline page, so it is held back instead.
  function offline(on) {
    var banner = document.getElementById("offline");
    if (banner) { banner.hidden = !on; }
  }
  document.addEventListener("htmx:sendError", function () { offline(true); });
  window.addEventListener("offline", function () { offline(true); });
  window.addEventListener("online", function () { offline(false); });
  document.addEventListener("submit", function (event) {
    if (navigator.onLine === false) {
      event.preventDefault();
      event.stopImmediatePropagation();
      offline(true);
    }
  }, true);

  // Honest odds: as soon as a rule's field changes, the odds shown are marked outdated
  // until the new ones arrive; an odds request that fails or is cancelled leaves them
  // marked, with a button to ask again. The compact bar (sticky on a phone) repeats the
  // main chance so it stays in sight while the form is changed.
  var params = document.getElementById("params");
  var bar = document.getElementById("odds-bar");
  var retry = document.getElementById("odds-retry");
  var pending = 0;

  function isOdds(event) {
    var d = event.detail || {};
    return d.elt === params && d.requestConfig && d.requestConfig.verb === "get";
  }

  function setState(state) {
    var odds = document.getElementById("odds");
    [odds, bar].forEach(function (el) {
      if (!el) { return; }
      el.classList.toggle("stale", state !== "fresh");
      el.classList.toggle("failed", state === "failed");
    });
    if (odds) { odds.setAttribute("aria-busy", state === "updating" ? "true" : "false"); }
    if (bar) {
      bar.querySelector(".sum-state").textContent =
        state === "updating" ? bar.getAttribute("data-updating") : "";
    }
    if (retry) { retry.hidden = state !== "failed"; }
  }

  if (params && bar) {
    params.addEventListener("input", function (event) {
      if (event.target.name && event.target.name.charAt(0) !== "_") { setState("updating"); }
    });
    params.addEventListener("change", function (event) {
      // a typed field already said so as it was typed (and sends no request on leaving)
      var el = event.target;
      if (el.name && el.name.charAt(0) !== "_" && !el.classList.contains("live")) {
        setState("updating");
      }
    });
    document.addEventListener("htmx:beforeRequest", function (event) {
      if (isOdds(event)) { pending += 1; setState("updating"); }
    });
    // a request replaced by a newer one ends too (not successful): only the last one
    // to end decides what the odds panel says
    document.addEventListener("htmx:afterRequest", function (event) {
      if (!isOdds(event)) { return; }
      pending = Math.max(0, pending - 1);
      if (pending > 0) { return; }
      var ok = event.detail.successful && !event.detail.failed;
      if (ok) {
        copySummary(bar);
        keepInAddress(event.detail.xhr);
      }
      setState(ok ? "fresh" : "failed");
    });
    // any new odds panel (also one that replaces an estimate by itself) refreshes the bar
    document.addEventListener("htmx:afterSettle", function (event) {
      var target = event.detail && event.detail.target;
      if (target && target.id === "odds") { copySummary(bar); }
    });
    // the page's address follows the form, so a reload or a language switch keeps
    // what was typed
    var keepInAddress = function (xhr) {
      if (!xhr || !xhr.responseURL || !window.history.replaceState || !window.URL) { return; }
      var u = new URL(xhr.responseURL);
      if (!/\/odds$/.test(u.pathname)) { return; }
      u.pathname = u.pathname.replace(/\/odds$/, "");
      u.searchParams.delete("lang");
      window.history.replaceState(window.history.state, "", u.pathname + u.search);
      document.querySelectorAll(".langs a[data-lang]").forEach(function (a) {
        var to = new URL(u.href);
        to.searchParams.set("lang", a.getAttribute("data-lang"));
        a.setAttribute("href", to.pathname + to.search);
      });
    };
    retry.addEventListener("click", function () {
      setState("updating");
      if (window.htmx) { window.htmx.trigger(params, "submit"); }
    });
  }

  // After Roll the result is brought into view and focused (a screen reader reads it).
  function showResult(el) {
    if (!el) { return; }
    if (!el.hasAttribute("tabindex")) { el.setAttribute("tabindex", "-1"); }
    el.scrollIntoView({block: "start"});
    el.focus({preventScroll: true});
  }
  // (after htmx has settled: it gives the focus back to the Roll button before that)
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id === "roll") { showResult(document.getElementById("roll")); }
  });
  var rolled = document.querySelector("#roll:not(.empty)");
  if (rolled) { showResult(rolled); }
  // The battle page: a rule done with Roll reloads the page; its result is the newest
  // entry of the log.
  document.addEventListener("submit", function (event) {
    if (event.target && event.target.id === "do-form" && window.sessionStorage) {
      try { window.sessionStorage.setItem("warroom-rolled", "1"); } catch (e) { /* private */ }
    }
  });
  try {
    if (window.sessionStorage && window.sessionStorage.getItem("warroom-rolled")) {
      window.sessionStorage.removeItem("warroom-rolled");
      showResult(document.querySelector("#battle-error") ||
                 document.querySelector("#log li"));
    }
  } catch (e) { /* storage unavailable: nothing to scroll to */ }

  // A long list of choices (special rules): type to filter it.
  document.addEventListener("input", function (event) {
    var box = event.target;
    if (!box.classList || !box.classList.contains("picker-filter")) { return; }
    var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    box.parentNode.querySelectorAll(".choices label").forEach(function (label) {
      var text = label.textContent.toLowerCase();
      label.hidden = !words.every(function (w) { return text.indexOf(w) >= 0; });
    });
  });
  document.addEventListener("change", function (event) {
    var box = event.target;
    var picker = box.closest ? box.closest("details.picker") : null;
    if (!picker || box.type !== "checkbox") { return; }
    var count = picker.querySelector(".picker-count");
    var n = picker.querySelectorAll("input[type=checkbox]:checked").length;
    if (count) { count.textContent = count.textContent.replace(/\d+/, String(n)); }
  });

  // The home page: type to filter the rules (title, summary or id).
  var search = document.getElementById("rule-search");
  if (search) {
    var empty = document.getElementById("no-match");
    var filter = function () {
      var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      document.querySelectorAll(".system").forEach(function (section) {
        var any = false;
        section.querySelectorAll(".procs li").forEach(function (li) {
          var text = (li.getAttribute("data-search") || li.textContent).toLowerCase();
          var hit = words.every(function (w) { return text.indexOf(w) >= 0; });
          li.hidden = !hit;
          if (hit) { any = true; shown += 1; }
        });
        section.hidden = !any;
      });
      if (empty) { empty.hidden = shown > 0; }
    };
    search.addEventListener("input", filter);
    filter();
  }

  // Installable: the service worker keeps the app's shell and the rules pages on the
  // phone, so the app opens at once from the home screen.
  if ("serviceWorker" in navigator && window.isSecureContext !== false) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register("/sw.js").catch(function () { /* plain page */ });
    });
  }

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
      var address = sectionAddress();
      return fetch(address, {headers: {"Accept": "text/html"}, cache: "no-store",
                             credentials: "same-origin"})
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html === null || leaving) { return false; }
          if (!asked && typing()) { banner.hidden = false; return false; }  // began meanwhile
          // the Resolve form moved on while this was on its way (a unit or target picked,
          // its own request pending): this section would undo the pick; the next poll
          // asks again with the form as it is then
          if (!asked && (inflight > 0 || sectionAddress() !== address)) { return false; }
          var x = window.scrollX;
          var y = window.scrollY;
          swap(new DOMParser().parseFromString(html, "text/html").body);
          window.scrollTo(x, y);
          root.classList.remove("updated");
          void root.offsetWidth;  // restart the highlight
          root.classList.add("updated");
          return true;
        });
    }

    // the battle section drawn anew from ``fresh`` (open <details> kept)
    function swap(fresh) {
      var open = {};
      root.querySelectorAll("details[data-keep][open]").forEach(function (d) {
        open[d.getAttribute("data-keep")] = true;
      });
      root.replaceChildren.apply(root, Array.prototype.slice.call(fresh.childNodes));
      root.querySelectorAll("details[data-keep]").forEach(function (d) {
        if (open[d.getAttribute("data-keep")]) { d.open = true; }
      });
      if (window.htmx) { window.htmx.process(root); }  // the Resolve form's requests
      banner.hidden = true;
    }

    // A form of the battle section is sent from here. Recorded: the battle page loads
    // as before. Refused (someone changed what it reads, or a bad value): the section
    // as it is now is swapped in where the reader is, the form sent kept at the same
    // place on the screen with the refusal and what changed beside Roll (the Resolve
    // form) or just below it, and what was typed into any form kept. Without this
    // script the form posts as usual.
    function formKey(form) {
      var unit = form.querySelector('input[type="hidden"][name="unit"]');
      return (form.getAttribute("action") || "") + "|" + (form.id || "") + "|" +
        (form.getAttribute("data-force") || "") + "|" + (unit ? unit.value : "");
    }
    function sameForm(key) {
      var forms = root.querySelectorAll("form");
      for (var i = 0; i < forms.length; i++) {
        if (formKey(forms[i]) === key) { return forms[i]; }
      }
      return null;
    }
    function typedHere() {
      var kept = [];
      root.querySelectorAll("form").forEach(function (form) {
        Array.prototype.forEach.call(form.elements, function (el) {
          if (el.name && el.type !== "file" && changed(el)) {
            kept.push({form: formKey(form), name: el.name, value: el.value,
                       checked: el.checked, box: /^(checkbox|radio)$/.test(el.type)});
          }
        });
      });
      return kept;
    }
    function typeAgain(kept) {
      kept.forEach(function (k) {
        var form = sameForm(k.form);
        if (!form) { return; }
        Array.prototype.forEach.call(form.elements, function (el) {
          if (el.name !== k.name) { return; }
          if (k.box) {
            if (el.value === k.value) { el.checked = k.checked; }
          } else if (el.value !== k.value) {
            el.value = k.value;
            if (el.tagName !== "SELECT") {  // its hint and odds follow
              el.dispatchEvent(new Event("input", {bubbles: true}));
            }
          }
        });
      });
    }
    function load(to) {
      var u = new URL(to, window.location.href);
      if (u.hash && u.pathname === window.location.pathname &&
          u.search === window.location.search) {  // only the anchor differs: load anew
        window.history.replaceState(window.history.state, "", u.href);
        window.location.reload();
      } else {
        window.location.assign(u.href);
      }
    }
    // After a refusal the button pressed stays where it was on the screen, also while
    // what follows the new section (its odds) comes in, until the reader scrolls.
    var anchor = null;
    function anchored() {
      if (!anchor) { return null; }
      var el = anchor.id ? document.getElementById(anchor.id) : sameForm(anchor.key);
      return el && root.contains(el) ? el : null;
    }
    function holdPlace() {
      var el = anchored();
      if (el) { window.scrollBy(0, el.getBoundingClientRect().top - anchor.top); }
    }
    ["wheel", "touchstart", "keydown", "mousedown"].forEach(function (kind) {
      window.addEventListener(kind, function () { anchor = null; }, {passive: true});
    });
    document.addEventListener("htmx:afterSettle", function () {
      if (anchor && Date.now() < anchor.until) { holdPlace(); } else { anchor = null; }
    });
    var sending = false;  // one write at a time: a second tap waits for the first's answer
    function send(form, submitter) {
      sending = true;
      var data = new FormData(form);
      if (submitter && submitter.name) { data.append(submitter.name, submitter.value); }
      var key = formKey(form);
      var pressed = submitter && submitter.id ? submitter : form;
      var top = pressed.getBoundingClientRect().top;
      var kept = typedHere();
      if (submitter) { submitter.setAttribute("aria-busy", "true"); }
      fetch(form.getAttribute("action"), {
        method: "POST", body: data, credentials: "same-origin",
        headers: {"HX-Request": "true", "Accept": "text/html"}
      }).then(function (r) {
        var to = r.headers.get("HX-Redirect");
        if (to) { load(to); return "gone"; }
        if (!r.headers.get("HX-Refused")) {  // no answer of ours: the page as it is now
          window.location.assign(root.dataset.section.replace(/\/section$/, ""));
          return "gone";
        }
        return r.text().then(function (html) {
          var fresh = new DOMParser().parseFromString(html, "text/html").body;
          var notice = fresh.querySelector("[data-refused]");
          if (notice) { notice.parentNode.removeChild(notice); }
          var old = document.querySelector("[data-refused]");  // a refusal shown before
          if (old && !root.contains(old)) { old.parentNode.removeChild(old); }
          swap(fresh);
          typeAgain(kept);
          var again = sameForm(key);
          if (notice) {
            // beside Roll when the form keeps it in sight (the Resolve form's sticky
            // side: summary, dice and Roll), else just below the form
            var side = again && again.querySelector(".resolve-side");
            if (side) {
              side.insertBefore(notice, side.firstChild);
            } else if (again) {
              again.parentNode.insertBefore(notice, again.nextSibling);
            } else {
              root.insertBefore(notice, root.firstChild);
            }
          }
          anchor = {id: pressed === form ? "" : pressed.id, key: key, top: top,
                    until: Date.now() + 15000};
          holdPlace();
          if (notice) { notice.focus({preventScroll: true}); }
          try { window.sessionStorage.removeItem("warroom-rolled"); } catch (e) { /* */ }
          leaving = false;
        });
      }).catch(function () {
        leaving = false;
        offline(true);
      }).then(function (gone) {
        sending = gone === "gone";  // a page on its way: no second write meanwhile
        if (submitter) { submitter.removeAttribute("aria-busy"); }
      });
    }
    document.addEventListener("submit", function (event) {
      var form = event.target;
      if (event.defaultPrevented || !form || !root.contains(form) || !window.FormData ||
          (form.getAttribute("method") || "").toLowerCase() !== "post") { return; }
      event.preventDefault();
      if (!sending) { send(form, event.submitter); }
    });

    // the section comes back with the Resolve form as picked here (units, procedure,
    // the values typed for it): only the counter it was drawn from moves on
    function sectionAddress() {
      var form = document.getElementById("do-form");
      if (!form || !window.FormData || !window.URLSearchParams) { return root.dataset.section; }
      var query = new URLSearchParams();
      new FormData(form).forEach(function (value, name) {
        if (name !== "expect" && typeof value === "string") { query.append(name, value); }
      });
      return root.dataset.section + "?" + query.toString();
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
        .then(function (r) { offline(false); return r; })
        .catch(function () { offline(true); })
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
    window.addEventListener("pageshow", function () { leaving = false; sending = false; });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") { poll(); }
    });
    window.setInterval(poll, EVERY);
  }
})();
