// warroom's service worker: keeps the app's shell (styles, scripts, icons) and the pages
// of the rules on the phone, so the app opens at once from the home screen. Pages come
// from the laptop when it answers (network first) and from the copy kept here when it
// does not; odds, rolls and battles always ask the laptop (they must be current).
"use strict";
var VERSION = "__VERSION__";
var CACHE = "warroom-" + VERSION;
var SHELL = ["/", "/static/app.css", "/static/app.js", "/static/htmx.min.js",
             "/static/theme.js", "/static/icon.svg", "/static/icon-192.png", "/static/icon-512.png",
             "/static/apple-touch-icon.png", "/static/manifest.webmanifest", "/favicon.ico"];

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) { return cache.addAll(SHELL); })
    .then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) {
      return n.indexOf("warroom-") === 0 && n !== CACHE;
    }).map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});

function kept(request) {
  // the shell and the rules' pages (not their odds/roll parts, not battles, not the API)
  var url = new URL(request.url);
  if (url.origin !== self.location.origin || request.method !== "GET") { return false; }
  if (url.pathname.indexOf("/static/") === 0 || url.pathname === "/favicon.ico") {
    return "static";
  }
  if (request.headers.get("HX-Request")) { return false; }
  if (url.pathname === "/" || /^\/p\/[^/]+$/.test(url.pathname) ||
      /^\/compare\/[^/]+$/.test(url.pathname)) {
    return "page";
  }
  return false;
}

self.addEventListener("fetch", function (event) {
  var kind = kept(event.request);
  if (!kind) { return; }
  if (kind === "static") {
    event.respondWith(caches.match(event.request).then(function (hit) {
      return hit || fetch(event.request).then(function (response) {
        var copy = response.clone();
        if (response.ok) { caches.open(CACHE).then(function (c) { c.put(event.request, copy); }); }
        return response;
      });
    }));
    return;
  }
  event.respondWith(fetch(event.request).then(function (response) {
    var copy = response.clone();
    if (response.ok) { caches.open(CACHE).then(function (c) { c.put(event.request, copy); }); }
    return response;
  }).catch(function () {
    // each look-up is a promise: wait for one before asking the next (a pending promise
    // is truthy, so `a || b` would never reach the home page)
    return caches.match(event.request).then(function (hit) {
      return hit || caches.match(new URL(event.request.url).pathname);
    }).then(function (hit) {
      return hit || caches.match("/");
    });
  }));
});
