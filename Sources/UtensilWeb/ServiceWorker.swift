/// The gallery's service worker, served at `/sw.js` (so its scope is the whole site) and
/// registered by gallery.js. It keeps the shell (the style sheet, the script and the icons of
/// this version) and every thumbnail and grid square shown (a square only when it is one:
/// the thumbnail standing in for a square not made yet is not kept, as it is not kept for a
/// year by the browser either), so the gallery opens from a phone's home screen
/// even without a connection: pages come from the network first and, when it fails, from the
/// copy kept of the last answer (of the ``pagesKept`` pages visited last, forgotten when the
/// user signs out); thumbnails and the shell from the cache first (their URLs carry their
/// version). Changes, the API and the event stream always go to the network.
enum ServiceWorker {
    /// At most this many thumbnails are kept; the oldest kept go first.
    static let thumbnailsKept = 600
    /// At most this many pages (each search, category and page of the list is one) are kept;
    /// the one visited longest ago goes first.
    static let pagesKept = 50

    static let script = """
    "use strict";
    const shell = "utensild-shell-\(StaticAssets.version)";
    const pages = "utensild-pages";
    const thumbnails = "utensild-thumbnails";
    const shellFiles = ["/static/gallery.css?v=\(StaticAssets.version)", "/static/gallery.js?v=\(StaticAssets.version)",
      "/static/icon-192.png", "/static/icon-512.png", "/manifest.webmanifest"];

    self.addEventListener("install", function (event) {
      event.waitUntil(caches.open(shell).then(function (cache) { return cache.addAll(shellFiles); }).then(function () { return self.skipWaiting(); }));
    });

    self.addEventListener("activate", function (event) {
      event.waitUntil(caches.keys().then(function (names) {
        return Promise.all(names.filter(function (name) { return name.startsWith("utensild-shell-") && name !== shell; })
          .map(function (name) { return caches.delete(name); }));
      }).then(function () { return self.clients.claim(); }));
    });

    function fromCacheFirst(request, name, trim, keeps) {
      return caches.match(request).then(function (kept) {
        if (kept) return kept;
        return fetch(request).then(function (reply) {
          if (reply.ok && (!keeps || keeps(reply))) {
            const copy = reply.clone();
            caches.open(name).then(function (cache) { return cache.put(request, copy); }).then(trim);
          }
          return reply;
        });
      });
    }

    function trim(name, kept) {
      return caches.open(name).then(function (cache) {
        return cache.keys().then(function (keys) {
          return Promise.all(keys.slice(0, Math.max(0, keys.length - kept)).map(function (key) { return cache.delete(key); }));
        });
      });
    }

    function trimThumbnails() { return trim(thumbnails, \(thumbnailsKept)); }

    // The share target, once installed: the shared photos are kept for the gallery, which
    // uploads them with a progress bar each (`/?sharing=1`); the network is not waited for.
    // Without this worker the same POST goes to the daemon, which puts them into the inbox.
    function keepShared(request) {
      return request.formData().then(function (form) {
        return caches.open("utensild-shared").then(function (cache) {
          return Promise.all(form.getAll("files").filter(function (file) { return file && file.name; }).map(function (file, index) {
            const headers = { "Content-Type": file.type || "application/octet-stream", "X-File-Name": encodeURIComponent(file.name) };
            return cache.put("/shared/" + Date.now() + "-" + index, new Response(file, { headers: headers }));
          }));
        });
      }).then(function () { return Response.redirect("/?sharing=1", 303); });
    }

    self.addEventListener("fetch", function (event) {
      const request = event.request;
      const url = new URL(request.url);
      if (request.method === "POST" && url.pathname === "/share" && request.mode === "navigate") {
        event.respondWith(keepShared(request.clone()).catch(function () { return fetch(request); }));
        return;
      }
      // Signing out forgets the pages kept as the signed-in user saw them (the request itself
      // goes to the network untouched).
      if (request.method === "POST" && url.pathname === "/logout") {
        event.waitUntil(caches.delete(pages));
        return;
      }
      if (request.method !== "GET") return;
      if (url.origin !== self.location.origin) return;
      if (url.pathname.startsWith("/thumbnails/")) {
        event.respondWith(fromCacheFirst(request, thumbnails, trimThumbnails));
      } else if (url.pathname.startsWith("/squares/")) {
        event.respondWith(fromCacheFirst(request, thumbnails, trimThumbnails, function (reply) {
          return (reply.headers.get("Cache-Control") || "").includes("immutable");
        }));
      } else if (url.pathname.startsWith("/static/") || url.pathname === "/manifest.webmanifest") {
        event.respondWith(fromCacheFirst(request, shell, function () {}));
      } else if (request.mode === "navigate" && (url.pathname === "/" || url.pathname.startsWith("/utensils/"))) {
        event.respondWith(fetch(request).then(function (reply) {
          if (reply.ok) {
            const copy = reply.clone();
            caches.open(pages).then(function (cache) { return cache.put(request, copy); })
              .then(function () { return trim(pages, \(pagesKept)); });
          }
          return reply;
        }).catch(function () {
          return caches.match(request).then(function (kept) { return kept || caches.match("/", { ignoreSearch: true }); })
            .then(function (kept) { return kept || Response.error(); });
        }));
      }
    });
    """
}
