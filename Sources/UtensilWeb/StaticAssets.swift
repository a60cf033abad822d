import Hummingbird

/// The gallery's only script and style sheet, served from memory under `/static/`; pages link
/// them with `?v=` (a hash of both), so browsers may keep them for a year.
enum StaticAssets {
    /// FNV-1a of both files, in base 36.
    static let version = fingerprint(script + styleSheet)

    /// FNV-1a of `text`, in base 36.
    static func fingerprint(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 36)
    }

    /// `text` with an `ETag` (``version``, or the `etag` given) and `If-None-Match`; cached for
    /// a year when asked for with `?v=` and the current version.
    static func response(_ text: String, contentType: String, request: Request, etag version: String = version) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        let etag = "\"\(version)\""
        headers[.eTag] = etag
        headers[.cacheControl] = request.uri.query == "v=\(version)" ? "public, max-age=31536000, immutable" : "public, no-cache"
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Phone first: the rules without a media query are for a 320-pixel-wide screen and up
    /// (two columns, every control at least 44 px tall, nothing wider than the screen); wider
    /// screens get as many 180 px columns as fit, so that a thumbnail is shown at its own size.
    /// Colours are chosen for WCAG AA contrast in both schemes.
    static let styleSheet = """
    :root { color-scheme: light dark; --fg: #1a1a1a; --bg: #fff; --line: #8886; --muted: #595959; --bad: #b3261e; \
    --good: #1e6f43; --on-good: #fff; --focus: #1a5fb4; --tint: #8881; }
    @media (prefers-color-scheme: dark) {
      :root { --fg: #e8e8e8; --bg: #121212; --muted: #a8a8a8; --bad: #ff6b5e; --good: #5cc98a; --on-good: #121212; --focus: #99c1f1; }
    }
    * { box-sizing: border-box; }
    html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
    body { margin: 0; font: 16px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); overflow-wrap: anywhere; }
    a { color: inherit; }
    img { max-width: 100%; }
    :focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
    button, select, input { font: inherit; min-height: 2.75rem; max-width: 100%; }
    button, select { padding: 0 .8rem; }
    input { padding: 0 .5rem; min-width: 0; }
    .top { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid var(--line); }
    .top h1 { margin: 0; font-size: 1.4rem; }
    .top h1 a { display: inline-flex; align-items: center; min-height: 2.75rem; text-decoration: none; }
    .search { display: flex; flex-wrap: wrap; flex: 1 1 100%; gap: .5rem; min-width: 0; order: 3; }
    .search input { flex: 1 1 100%; }
    .search select { flex: 1 1 auto; }
    .account { display: flex; flex-wrap: wrap; gap: .25rem .5rem; align-items: center; margin-left: auto; }
    .account > a { display: inline-flex; align-items: center; min-height: 2.75rem; padding: 0 .25rem; }
    main { padding: 1rem; }
    .grid { list-style: none; margin: 0; padding: 0; display: grid; gap: .75rem; grid-template-columns: repeat(2, minmax(0, 1fr)); }
    .card a { display: block; text-decoration: none; }
    .card img { display: block; width: 100%; height: auto; aspect-ratio: 1; object-fit: cover; border-radius: 6px; background: var(--line); }
    .card .name { display: block; margin-top: .3rem; }
    .card.fresh img { outline: 3px solid var(--good); }
    .empty { color: var(--muted); max-width: 40rem; }
    /* On a phone the chips are one row that scrolls sideways by itself (the page never does), so
       the photos start near the top of the screen; a wider screen wraps them. */
    .chips { display: flex; flex-wrap: nowrap; gap: .4rem; margin: -.3rem -1rem .7rem; padding: .3rem 1rem; overflow-x: auto; \
    scrollbar-width: none; }
    .chips a { flex: none; white-space: nowrap; display: inline-flex; align-items: center; gap: .3rem; min-height: 2.75rem; padding: 0 .9rem; border: 1px solid var(--line); border-radius: 999px; text-decoration: none; }
    .chips a.chosen { background: var(--good); border-color: var(--good); color: var(--on-good); }
    .chips .count { color: var(--muted); font-size: .85em; }
    .chips a.chosen .count { color: var(--on-good); }
    .more { text-align: center; margin: 2rem 0; }
    .more a, .back, .download { display: inline-flex; align-items: center; min-height: 2.75rem; }
    .pager { display: flex; flex-wrap: wrap; gap: .25rem 1rem; align-items: center; margin: .5rem 0; }
    .pager a { display: inline-flex; align-items: center; min-height: 2.75rem; min-width: 2.75rem; }
    .pager .back { margin-right: auto; }
    .visually-hidden { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
    .tray { position: relative; margin: 0 0 .75rem; }
    .undo { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; min-height: 2.75rem; margin: 0 0 .75rem; padding-left: .6rem; \
    border-left: 4px solid var(--good); background: var(--tint); }
    /* An Undo offered by the page's script stays in sight wherever the page is scrolled. */
    .undo.floating { position: fixed; z-index: 20; left: 50%; transform: translateX(-50%); bottom: max(1rem, env(safe-area-inset-bottom)); \
    width: min(36rem, calc(100% - 2rem)); box-sizing: border-box; margin: 0; background: linear-gradient(var(--tint), var(--tint)), var(--bg); \
    box-shadow: 0 2px 10px #0005; }
    .undo .dismiss { margin-left: auto; }
    .tray-bar { display: flex; align-items: center; gap: .5rem; min-height: 2.75rem; padding-left: .6rem; border-left: 4px solid var(--good); background: var(--tint); }
    .tray.bad .tray-bar { border-color: var(--bad); }
    .tray-latest { flex: 1 1 auto; display: flex; gap: 1.5rem; min-width: 0; margin: 0; white-space: nowrap; overflow: hidden; }
    .tray-latest .line { min-width: 0; overflow: hidden; text-overflow: ellipsis; }
    .tray-latest .line + .line { display: none; color: var(--muted); }
    .tray-latest .line.rejected:first-child { color: var(--bad); }
    .tray-toggle { flex: none; min-width: 2.75rem; border: 1px solid var(--line); border-radius: 999px; background: var(--bg); color: var(--fg); cursor: pointer; }
    .tray-toggle.bad { border-color: var(--bad); color: var(--bad); }
    .tray-panel { position: absolute; z-index: 10; top: 100%; left: 0; right: 0; max-height: 60vh; overflow: auto; margin-top: .25rem; padding: .5rem .75rem; \
    background: var(--bg); border: 1px solid var(--line); border-radius: 8px; box-shadow: 0 6px 24px #0005; }
    .tray-head { display: flex; align-items: center; justify-content: space-between; gap: .5rem; }
    .tray-head h2 { margin: 0; font-size: 1.1rem; }
    .news { list-style: none; margin: .5rem 0 0; padding: 0; }
    .news li { display: flex; align-items: center; gap: .5rem; padding-left: .6rem; margin-bottom: .3rem; border-left: 4px solid var(--good); background: var(--tint); }
    .news li.rejected { border-color: var(--bad); }
    .news .text { flex: 1 1 auto; min-width: 0; padding: .3rem 0; }
    .news .dismiss { flex: none; min-width: 2.75rem; border: 0; background: transparent; color: inherit; font-size: 1.3rem; cursor: pointer; }
    .utensil h2 { margin: .25rem 0; }
    .utensil figure { margin: .5rem 0 1rem; }
    .utensil figure img { display: block; max-width: 100%; max-height: 80vh; width: auto; height: auto; background: var(--tint); }
    .facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .3rem 1rem; }
    .facts dt { color: var(--muted); }
    .facts dd { margin: 0; min-width: 0; }
    form.inline { display: inline; }
    .changes { display: flex; flex-wrap: wrap; gap: 1rem; margin-top: 1.5rem; }
    .changes form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; max-width: 100%; }
    .changes label { display: flex; flex-direction: column; max-width: 100%; }
    .trashed { list-style: none; padding: 0; display: grid; gap: .75rem; }
    .trashed li { display: flex; flex-wrap: wrap; align-items: center; gap: .75rem; }
    .trashed img { border-radius: 6px; object-fit: cover; }
    .trashed .name { font-weight: 600; }
    .trashed .when { color: var(--muted); }
    .danger { color: var(--bad); }
    .upload { border: 2px dashed var(--line); border-radius: 8px; padding: .75rem 1rem; margin-bottom: 1rem; }
    .upload form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
    .upload label { display: flex; flex-wrap: wrap; gap: .25rem .5rem; align-items: center; max-width: 100%; }
    .upload input[type=file] { width: 100%; min-width: 0; }
    body.dragging .upload { border-color: var(--good); }
    .upload .hint { margin: .3rem 0 0; color: var(--muted); }
    .pointer-coarse { display: none; }
    @media (pointer: coarse) { .pointer-fine, .upload .hint.pointer-fine { display: none; } .pointer-coarse { display: inline; } }
    /* On a touch screen with the script (which uploads what is picked at once), the upload box is
       one button: the picker fills it, unseen, and the Upload button is the script's. */
    @media (pointer: coarse) {
      .js .upload { border: 0; padding: 0; }
      .js .upload label { position: relative; flex: 1 1 100%; justify-content: center; min-height: 2.75rem; padding: .4rem 1rem; \
      border: 2px dashed var(--line); border-radius: 8px; text-align: center; font-weight: 600; }
      .js .upload input[type=file] { position: absolute; inset: 0; width: 100%; height: 100%; opacity: 0; cursor: pointer; }
      .js .upload label:focus-within { outline: 3px solid var(--focus); outline-offset: 2px; }
      .js .upload button[type=submit] { display: none; }
    }
    .uploads { list-style: none; padding: 0; margin: .5rem 0 0; }
    .uploads li { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; margin: .3rem 0; }
    .uploads img { width: 48px; height: 48px; border-radius: 4px; }
    .uploads .rejected { color: var(--bad); }
    .problem { color: var(--bad); }
    .stack label { display: block; margin: .5rem 0; }
    @media (min-width: 40rem) {
      .top { gap: .5rem 1.5rem; }
      .search { flex: 1 1 20rem; flex-wrap: nowrap; max-width: 40rem; order: 0; }
      .search input { flex: 1 1 auto; }
      .search select { flex: 0 1 auto; }
      .upload input[type=file] { width: auto; }
      .chips { flex-wrap: wrap; overflow-x: visible; margin: 0 0 1rem; padding: 0; }
      .grid { gap: 1rem; grid-template-columns: repeat(auto-fill, 180px); }
      .tray-latest .line + .line { display: block; }
      .tray-panel { left: auto; width: min(36rem, 100%); }
    }
    /* Favorites, managed categories and accounts: the star and its forms. */
    .card { position: relative; }
    .star-form { display: inline; margin: 0; }
    .card .star-form { position: absolute; top: .25rem; right: .25rem; }
    .star { min-width: 44px; min-height: 44px; padding: 0 .5rem; font-size: 1.5rem; line-height: 1; border: 0; border-radius: 999px; background: #000b; color: #fff; cursor: pointer; }
    .star[aria-pressed="true"] { color: #ffd54a; }
    .star:focus-visible { outline: 3px solid var(--good); outline-offset: 2px; }
    h2 .star { font-size: 1.3rem; vertical-align: middle; }
    .category-forms { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; margin-bottom: 1rem; }
    .category-forms input { font: inherit; padding: .35rem .5rem; max-width: 100%; }
    .category-forms button { font: inherit; min-height: 44px; }
    .done { color: var(--good); }
    /* Changes without reloads: selecting several cards, and the line saying what happened. */
    .action-status { margin: 0 0 .75rem; }
    .total { margin: 0 0 .5rem; color: var(--muted); }
    .shared { margin: 0 0 .75rem; padding: .5rem .6rem; border-left: 4px solid var(--good); background: var(--tint); }
    .select-bar { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-bottom: .75rem; }
    .select-bar[hidden], .select-bar [hidden] { display: none; }
    /* Until selecting, the Select button ends the total's line instead of taking one of its own. */
    .select-bar:not(.selecting) { float: right; margin: 0 0 .5rem .5rem; }
    .select-bar:not(.selecting) + .total { display: flex; align-items: center; min-height: 2.75rem; }
    .grid { clear: both; }
    /* While selecting, the bar stays at the top of the screen, so cards picked far down the grid
       are starred, moved or deleted where they are. */
    .select-bar.selecting { position: sticky; top: 0; z-index: 15; margin: 0 -1rem .75rem; padding: .5rem 1rem; \
    background: var(--bg); box-shadow: 0 1px 0 var(--line); }
    .select-actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
    .select-actions input { width: 10rem; }
    .card .pick { position: absolute; z-index: 1; top: .25rem; left: .25rem; width: 44px; height: 44px; margin: 0; accent-color: var(--good); }
    .grid.selecting .card a { cursor: pointer; }
    .card.picked img { outline: 4px solid var(--focus); outline-offset: -4px; opacity: .8; }
    main.in-trash figure { opacity: .4; }
    /* The viewer: vertical scrolling stays the page's; pinch, swipe and double-tap are the script's. */
    .viewer img { touch-action: pan-y; transform-origin: center; }
    .viewer.zoomed { overflow: hidden; }
    .viewer.zoomed img { touch-action: none; cursor: grab; }
    /* The download link and Full screen: side by side, or one under the other at the same left edge. */
    .viewer figcaption { display: flex; flex-wrap: wrap; align-items: center; gap: .25rem 1rem; }
    .viewer:fullscreen { display: flex; flex-direction: column; align-items: center; justify-content: center; margin: 0; background: #000; color: #fff; }
    .viewer:fullscreen img { max-width: 100vw; max-height: calc(100vh - 4rem); }
    """

    static let script = """
    "use strict";
    // The style sheet's cue that this script runs (the touch screen's one-button upload box).
    document.documentElement.classList.add("js");

    // The chosen chip in sight: on a phone the chips are one row that scrolls sideways (the page's
    // own scroll position is left alone).
    (function () {
      const row = document.getElementById("chips");
      const chosen = row && row.querySelector("a.chosen");
      if (!chosen || row.scrollWidth <= row.clientWidth) return;
      row.scrollLeft += chosen.getBoundingClientRect().left - row.getBoundingClientRect().left - (row.clientWidth - chosen.offsetWidth) / 2;
    })();
    // Times in the viewer's own zone: the page says UTC (it works without this script), and
    // the script shows each <time datetime> as local time, the UTC one in its title.
    (function () {
      document.querySelectorAll("time[datetime]").forEach(function (element) {
        const when = new Date(element.getAttribute("datetime"));
        if (isNaN(when.getTime())) return;
        element.title = element.textContent;
        element.textContent = when.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
        element.classList.add("local");
      });
    })();

    // Installable: the service worker keeps the shell and the thumbnails (ServiceWorker.swift).
    if (navigator.serviceWorker && window.isSecureContext) navigator.serviceWorker.register("/sw.js").catch(function () {});

    // The gallery's order applies as it is chosen, as pressing Search would (which stays, for
    // pages without this script).
    (function () {
      const order = document.querySelector('.search select[name="sort"]');
      if (order && order.form) order.addEventListener("change", function () { order.form.requestSubmit ? order.form.requestSubmit() : order.form.submit(); });
    })();

    // Which list a page of the gallery, or a utensil's page opened from it, belongs to: its
    // query without the page's cursors and empty fields, in one order (the key the list and
    // the viewer share).
    function listKeyOf(search) {
      const query = new URLSearchParams();
      new URLSearchParams(search).forEach(function (value, name) {
        if (value && name !== "after" && name !== "prior") query.append(name, value);
      });
      query.sort();
      return query.toString();
    }

    // A query string (`?…`) without the page's cursors, as written otherwise ("" if nothing is left).
    function withoutCursors(search) {
      const kept = search.slice(1).split("&").filter(function (pair) { return pair && !/^(after|prior)=/.test(pair); });
      return kept.length ? "?" + kept.join("&") : "";
    }

    // A utensil's page: the arrow keys go to the previous and next utensil of the list it was
    // opened from (its rel=prev and rel=next links), unless a form field has the keyboard.
    // Going through the list replaces the page in the history (as the swipes do), so the
    // browser's back leaves the viewer for the list; the links stay links without this script.
    // "Back to the list" goes to the whole list from its first page, at this utensil's card
    // (the list loads its pages up to it): the history's own step back when the list is right
    // behind, so the list comes back as it was left.
    (function () {
      const pager = document.querySelector(".pager");
      if (!pager) return;
      const here = location.pathname.split("/").pop();
      // Shown (also again, from the browser's cache of whole pages): the photo last seen.
      window.addEventListener("pageshow", function () {
        try { sessionStorage.setItem("utensild-viewed:" + listKeyOf(location.search), here); } catch (ignored) {}
      });
      const back = pager.querySelector("a.back");
      if (back) {
        const whole = new URL(back.href);
        whole.search = withoutCursors(whole.search);
        back.href = whole.href;
        back.addEventListener("click", function (event) {
          if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
          const entries = window.navigation && navigation.currentEntry ? navigation.entries() : [];
          const behind = entries[navigation.currentEntry ? navigation.currentEntry.index - 1 : -1];
          if (!behind || !behind.url) return;
          const list = new URL(behind.url);
          if (list.origin !== location.origin || list.pathname !== "/" || listKeyOf(list.search) !== listKeyOf(whole.search)) return;
          event.preventDefault();
          history.back();
        });
      }
      pager.addEventListener("click", function (event) {
        const link = event.target.closest && event.target.closest("a[rel=prev], a[rel=next]");
        if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        location.replace(link.href);
      });
      document.addEventListener("keydown", function (event) {
        if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
        const target = event.target;
        if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(target.tagName))) return;
        const rel = event.key === "ArrowLeft" ? "prev" : event.key === "ArrowRight" ? "next" : null;
        const link = rel && pager.querySelector('a[rel="' + rel + '"]');
        if (!link) return;
        event.preventDefault();
        location.replace(link.href);
      });
    })();

    // The viewer on a utensil's page: swipe (one finger) to the previous or next utensil of the
    // list (in place of this page in the history), pinch or double-tap (a double click with a mouse) to zoom up to the original's own
    // pixels (the original replaces the preview once the preview's pixels run out, when every
    // browser shows its format), drag to look around a zoomed picture, and full screen.
    (function () {
      const figure = document.getElementById("viewer");
      const image = figure && figure.querySelector("img");
      if (!image) return;
      const originalWidth = Number(image.getAttribute("width")) || 1;
      let scale = 1;
      let x = 0;
      let y = 0;

      // At most one original pixel to one CSS pixel (never less than the picture as shown).
      function most() { return Math.max(1, originalWidth / Math.max(1, image.clientWidth)); }

      function draw() {
        const spareX = (scale - 1) * image.clientWidth / 2;
        const spareY = (scale - 1) * image.clientHeight / 2;
        x = Math.max(-spareX, Math.min(spareX, x));
        y = Math.max(-spareY, Math.min(spareY, y));
        image.style.transform = scale === 1 ? "" : "translate(" + x + "px, " + y + "px) scale(" + scale + ")";
        figure.classList.toggle("zoomed", scale > 1);
        image.dataset.scale = scale.toFixed(3);
        const sharper = image.dataset.zoomSrc;
        if (sharper && scale * image.clientWidth * (window.devicePixelRatio || 1) > image.naturalWidth && image.getAttribute("src") !== sharper) {
          image.src = sharper;
        }
      }

      // Zooms to `next`, keeping the point (clientX, clientY) where it is on the screen.
      function zoomTo(next, clientX, clientY) {
        next = Math.max(1, Math.min(most(), next));
        const box = image.getBoundingClientRect();
        const pointX = clientX - (box.left + box.width / 2 - x);
        const pointY = clientY - (box.top + box.height / 2 - y);
        x = pointX - next * (pointX - x) / scale;
        y = pointY - next * (pointY - y) / scale;
        scale = next;
        if (scale === 1) { x = 0; y = 0; }
        draw();
      }

      function toggleZoom(clientX, clientY) { zoomTo(scale > 1 ? 1 : most(), clientX, clientY); }

      function follow(rel) {
        const link = document.querySelector('.pager a[rel="' + rel + '"]');
        if (link) location.replace(link.href);
      }

      function distance(touches) { return Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY); }

      let gesture = null;
      let lastTap = null;
      figure.addEventListener("touchstart", function (event) {
        const touches = event.touches;
        if (touches.length === 2) {
          gesture = { kind: "pinch", distance: distance(touches), scale: scale };
          event.preventDefault();
        } else if (touches.length === 1) {
          gesture = { kind: scale > 1 ? "pan" : "swipe", startX: touches[0].clientX, startY: touches[0].clientY, x: x, y: y, at: Date.now() };
        }
      }, { passive: false });
      figure.addEventListener("touchmove", function (event) {
        if (!gesture) return;
        const touches = event.touches;
        if (gesture.kind === "pinch" && touches.length === 2) {
          event.preventDefault();
          zoomTo(gesture.scale * distance(touches) / gesture.distance,
            (touches[0].clientX + touches[1].clientX) / 2, (touches[0].clientY + touches[1].clientY) / 2);
        } else if (gesture.kind === "pan" && touches.length === 1) {
          event.preventDefault();
          x = gesture.x + touches[0].clientX - gesture.startX;
          y = gesture.y + touches[0].clientY - gesture.startY;
          draw();
        }
      }, { passive: false });
      let touchedAt = 0;
      figure.addEventListener("touchend", function (event) {
        touchedAt = Date.now();
        if (!gesture || event.touches.length > 0) return;
        const ended = gesture;
        gesture = null;
        if (ended.kind === "pinch") return;
        const touch = event.changedTouches[0];
        const dx = touch.clientX - ended.startX;
        const dy = touch.clientY - ended.startY;
        if (ended.kind === "swipe" && Math.abs(dx) > 60 && Math.abs(dx) > 2 * Math.abs(dy)) {
          follow(dx < 0 ? "next" : "prev");
          return;
        }
        if (Math.abs(dx) < 10 && Math.abs(dy) < 10 && Date.now() - ended.at < 300) {
          const now = Date.now();
          if (lastTap && now - lastTap.at < 350 && Math.hypot(touch.clientX - lastTap.x, touch.clientY - lastTap.y) < 30) {
            event.preventDefault();
            lastTap = null;
            toggleZoom(touch.clientX, touch.clientY);
          } else {
            lastTap = { at: now, x: touch.clientX, y: touch.clientY };
          }
        }
      }, { passive: false });
      image.addEventListener("dblclick", function (event) {
        event.preventDefault();
        // Taps also make mouse events: the touch handlers have already answered those.
        if (Date.now() - touchedAt < 1000) return;
        toggleZoom(event.clientX, event.clientY);
      });
      window.addEventListener("resize", function () { if (scale > most()) zoomTo(most(), 0, 0); else draw(); });

      // Full screen: the figure alone, on black; Escape (or the button) leaves it.
      if (figure.requestFullscreen) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "fullscreen";
        button.textContent = "Full screen";
        button.addEventListener("click", function () {
          if (document.fullscreenElement) document.exitFullscreen();
          else figure.requestFullscreen().catch(function () {});
        });
        document.addEventListener("fullscreenchange", function () {
          button.textContent = document.fullscreenElement ? "Leave full screen" : "Full screen";
          zoomTo(1, 0, 0);
        });
        const caption = figure.querySelector("figcaption");
        if (caption) caption.append(" ", button); else figure.append(button);
      }
    })();

    // Live updates for the gallery: new utensils appear without a reload and rejections show
    // with their message, from the daemon's event stream (server-sent events).
    (function () {
      const grid = document.getElementById("grid");
      const news = document.getElementById("news");
      if (!grid || !news || !window.EventSource) return;

      function card(utensil) {
        const item = document.createElement("li");
        item.className = "card fresh";
        item.dataset.id = utensil.id;
        const link = document.createElement("a");
        link.href = "/utensils/" + utensil.id;
        const image = document.createElement("img");
        const version = "?v=" + Date.parse(utensil.updatedAt || utensil.createdAt).toString(36) + "-" + utensil.bytes.toString(36);
        image.src = "/thumbnails/" + utensil.id + ".jpeg" + version;
        image.srcset = image.src + " 180w, /squares/" + utensil.id + ".jpeg" + version + " 540w";
        image.sizes = "\(HTML.cardSizes)";
        image.width = 180;
        image.height = 180;
        image.alt = utensil.name;
        const name = document.createElement("span");
        name.className = "name";
        name.textContent = utensil.name;
        link.append(image, name);
        item.append(link);
        if (grid.dataset.back) item.append(star(utensil));
        return item;
      }

      // The favorite star of a utensil that arrived live (as GalleryPage.star draws it).
      function star(utensil) {
        const form = document.createElement("form");
        form.method = "post";
        form.action = "/utensils/" + utensil.id + "/favorite";
        form.className = "star-form";
        const back = document.createElement("input");
        back.type = "hidden";
        back.name = "back";
        back.value = grid.dataset.back;
        const button = document.createElement("button");
        button.type = "submit";
        button.className = "star";
        button.setAttribute("aria-pressed", "false");
        button.setAttribute("aria-label", "Add to favorites: " + utensil.name);
        button.title = "Add to favorites: " + utensil.name;
        button.textContent = "☆";
        form.append(back, button);
        return form;
      }

      // The notices tray: one line (the newest notice, or two on a wide screen, and a count)
      // that opens a panel over the grid listing them all. A rejection stays until dismissed;
      // of the other notices the newest 20 are kept. Kept for this tab across its pages.
      const tray = document.getElementById("tray");
      const latest = document.getElementById("tray-latest");
      const toggle = document.getElementById("tray-toggle");
      const panel = document.getElementById("tray-panel");
      const stored = "utensild-notices";
      let notices = [];
      try { notices = JSON.parse(sessionStorage.getItem(stored) || "[]").filter(function (n) { return n && n.text; }); } catch (ignored) { notices = []; }

      function keep() {
        try { sessionStorage.setItem(stored, JSON.stringify(notices)); } catch (ignored) {}
      }

      function drawTray() {
        news.replaceChildren();
        notices.forEach(function (notice, index) {
          const item = document.createElement("li");
          item.className = notice.kind;
          const text = document.createElement("span");
          text.className = "text";
          text.textContent = notice.text;
          const dismiss = document.createElement("button");
          dismiss.type = "button";
          dismiss.className = "dismiss";
          dismiss.textContent = "×";
          dismiss.setAttribute("aria-label", "Dismiss: " + notice.text);
          dismiss.addEventListener("click", function () {
            notices.splice(index, 1);
            keep();
            drawTray();
            if (notices.length) toggle.focus();
          });
          item.append(text, dismiss);
          news.append(item);
        });
        latest.replaceChildren();
        notices.slice(0, 2).forEach(function (notice) {
          const line = document.createElement("span");
          line.className = "line " + notice.kind;
          line.textContent = notice.text;
          latest.append(line);
        });
        const rejected = notices.filter(function (n) { return n.kind === "rejected"; }).length;
        const onlyRejections = rejected > 0 && rejected === notices.length;
        toggle.querySelector(".total").textContent = onlyRejections ? "" : String(notices.length);
        toggle.querySelector(".rejections").textContent = rejected ? (onlyRejections ? "" : " · ") + rejected + " rejected" : "";
        toggle.classList.toggle("bad", rejected > 0);
        tray.classList.toggle("bad", rejected > 0);
        tray.hidden = notices.length === 0;
        if (!notices.length) open(false);
      }

      function open(show) {
        panel.hidden = !show;
        toggle.setAttribute("aria-expanded", show ? "true" : "false");
      }

      function note(text, kind) {
        notices.unshift({ text: text, kind: kind });
        let others = 0;
        notices = notices.filter(function (n) { return n.kind === "rejected" || ++others <= 20; });
        keep();
        drawTray();
      }

      toggle.addEventListener("click", function () { open(panel.hidden); });
      document.getElementById("tray-clear").addEventListener("click", function () {
        notices = [];
        keep();
        drawTray();
      });
      document.addEventListener("keydown", function (event) {
        if (event.key === "Escape" && !panel.hidden) {
          open(false);
          toggle.focus();
        }
      });
      drawTray();

      // Uploads (signed-in users): one request per file, its progress, then its outcome from
      // the event stream, matched by the name it got in the inbox.
      const pending = new Map();
      const uploads = document.getElementById("uploads");
      const uploadForm = document.getElementById("upload-form");
      const picker = document.getElementById("upload-files");

      function upload(file, category) {
        const row = document.createElement("li");
        const label = document.createElement("span");
        label.textContent = file.name;
        const progress = document.createElement("progress");
        progress.max = 100;
        progress.value = 0;
        const state = document.createElement("span");
        state.className = "state";
        state.textContent = "uploading";
        row.append(label, progress, state);
        uploads.prepend(row);
        const body = new FormData();
        if (category) body.append("category", category);
        body.append("files", file, file.name);
        const request = new XMLHttpRequest();
        request.open("POST", "/api/v1/uploads");
        request.upload.addEventListener("progress", function (event) {
          if (event.lengthComputable) progress.value = Math.round(100 * event.loaded / event.total);
        });
        request.addEventListener("load", function () {
          let outcome = null;
          try { outcome = JSON.parse(request.responseText); } catch (error) { outcome = null; }
          const file = outcome && outcome.files && outcome.files[0];
          if (request.status === 200 && file && file.status === "accepted") {
            progress.value = 100;
            state.textContent = "waiting for the daemon";
            pending.set(file.inboxFile, { row: row, state: state, progress: progress });
          } else {
            progress.remove();
            state.className = "state rejected";
            state.textContent = (file && file.message) || (outcome && outcome.error && outcome.error.message) || ("failed: HTTP " + request.status);
          }
        });
        request.addEventListener("error", function () {
          state.className = "state rejected";
          state.textContent = "the upload failed; check the connection and try again";
        });
        request.send(body);
      }

      // Photos shared from the phone's share sheet, which the service worker kept for this page
      // (`?sharing=1`): uploaded here, each with its progress bar, then forgotten.
      if (uploads && window.caches && new URLSearchParams(location.search).get("sharing") === "1") {
        history.replaceState(null, "", "/");
        caches.open("utensild-shared").then(function (cache) {
          return cache.keys().then(function (keys) {
            return Promise.all(keys.map(function (key) {
              return cache.match(key).then(function (kept) {
                const name = decodeURIComponent(kept.headers.get("X-File-Name") || "shared.jpg");
                return kept.blob().then(function (blob) {
                  upload(new File([blob], name, { type: blob.type }), null);
                  return cache.delete(key);
                });
              });
            }));
          });
        }).catch(function () {});
      }

      if (uploadForm && picker && uploads) {
        uploadForm.addEventListener("submit", function (event) {
          event.preventDefault();
          Array.from(picker.files).forEach(function (file) { upload(file, null); });
          picker.value = "";
        });
        picker.addEventListener("change", function () {
          Array.from(picker.files).forEach(function (file) { upload(file, null); });
          picker.value = "";
        });
        document.addEventListener("dragover", function (event) {
          event.preventDefault();
          document.body.classList.add("dragging");
        });
        document.addEventListener("dragleave", function () { document.body.classList.remove("dragging"); });
        document.addEventListener("drop", function (event) {
          event.preventDefault();
          document.body.classList.remove("dragging");
          // Dropped on a category chip: into that category's folder of the inbox.
          const chip = event.target.closest ? event.target.closest("[data-category]") : null;
          const category = chip ? chip.dataset.category : null;
          Array.from(event.dataTransfer.files).forEach(function (file) { upload(file, category); });
        });
      }

      function settle(inboxFile, done) {
        const entry = pending.get(inboxFile);
        if (!entry) return;
        pending.delete(inboxFile);
        entry.progress.remove();
        done(entry);
      }

      const events = new EventSource("/api/v1/events");
      // `data-stream`: whether the live updates are connected (open) or waiting to reconnect.
      events.addEventListener("open", function () { grid.dataset.stream = "open"; });
      events.addEventListener("error", function () { grid.dataset.stream = "waiting"; });
      // A stream cut off for falling behind reconnects by itself and is sent what it missed
      // (Last-Event-ID); one whose missed events are no longer kept says so, and stops.
      events.addEventListener("fell-behind", function (message) {
        let problem = null;
        try { problem = JSON.parse(message.data); } catch (ignored) {}
        if (problem && problem.code === "not-found") {
          events.close();
          note("Live updates stopped: too much happened while this page was away. Reload the page to see it.", "rejected");
        }
      });
      events.addEventListener("ingested", function (message) {
        const event = JSON.parse(message.data);
        const utensil = event.utensil;
        if (!utensil) return;
        settle(event.inboxFile, function (entry) {
          const image = document.createElement("img");
          image.src = "/thumbnails/" + utensil.id + ".jpeg";
          image.alt = utensil.name;
          entry.row.prepend(image);
          entry.state.textContent = "added as " + utensil.name;
        });
        if (grid.dataset.live === "newest" && !grid.querySelector('[data-id="' + utensil.id + '"]')) {
          grid.prepend(card(utensil));
          document.dispatchEvent(new CustomEvent("utensild:count", { detail: 1 }));
          const empty = document.getElementById("empty");
          if (empty) empty.remove();
        }
        note(utensil.name + " was added.", "ingested");
        redrawChipsSoon();
      });
      events.addEventListener("rejected", function (message) {
        const event = JSON.parse(message.data);
        settle(event.inboxFile, function (entry) {
          entry.state.className = "state rejected";
          entry.state.textContent = "rejected: " + event.message;
        });
        note(event.inboxFile + " was rejected: " + event.message, "rejected");
      });

      // Categories renamed, merged or deleted (here or anywhere): a note, and the chips are
      // drawn again from /api/v1/categories, keeping this page's search, order and favorites;
      // so they are after new utensils (a new category folder gets its chip, counts follow).
      const chips = document.getElementById("chips");
      let redrawTimer = null;

      function redrawChipsSoon() {
        if (!chips || redrawTimer) return;
        redrawTimer = setTimeout(function () { redrawTimer = null; redrawChips(); }, 400);
      }

      function redrawChips() {
        fetch("/api/v1/categories").then(function (reply) { return reply.ok ? reply.json() : null; }).then(function (categories) {
          if (!categories) return;
          const here = new URLSearchParams(location.search);
          const current = (here.get("category") || "").toLowerCase();
          chips.querySelectorAll("[data-category]").forEach(function (chip) { chip.remove(); });
          categories.forEach(function (category) {
            const query = new URLSearchParams();
            ["search", "favorites", "sort"].forEach(function (key) { if (here.get(key)) query.set(key, here.get(key)); });
            query.set("category", category.name);
            const chip = document.createElement("a");
            chip.href = "/?" + query.toString();
            chip.dataset.category = category.name;
            if (category.name.toLowerCase() === current) chip.className = "chosen";
            // The whole catalog's counts, so none on a search or the favorites (as the page).
            if (here.get("search") || here.get("favorites")) {
              chip.append(category.name);
            } else {
              const count = document.createElement("span");
              count.className = "count";
              count.textContent = String(category.count);
              chip.append(category.name + " ", count);
            }
            chips.append(chip);
          });
        }).catch(function () {});
      }

      events.addEventListener("category", function (message) {
        const change = JSON.parse(message.data).categoryChange;
        if (!change) return;
        note(change.to === null ? "The category " + change.from + " was deleted." : "The category " + change.from + " is now " + change.to + ".", "ingested");
        if (chips) redrawChips();
      });
      // Changes made on this page (several utensils moved or deleted at once) redraw the chips.
      document.addEventListener("utensild:categories", redrawChipsSoon);
    })();

    // Infinite scroll: as the "More" link nears the screen, the next page's cards are fetched
    // (the same page the link opens, so every card keeps its links and star) and appended, and
    // the link moves to the page after. Going to a photo and back brings the same pages and the
    // same scroll position again (kept for this tab), and then the card of the photo last seen
    // there (swiped to, maybe) into view. A utensil's card named by the address (`#u-{id}`, as
    // "Back to the list" does) is found by loading the list's pages up to it (at most 20); a
    // later page so named opens the whole list instead, from its first page. Without this
    // script "More" is a link and a cursor names one page.
    (function () {
      const grid = document.getElementById("grid");
      if (!grid || !window.fetch || !window.DOMParser) return;
      const named = /^#u-[0-9A-Za-z-]+$/.test(location.hash) ? location.hash.slice(3) : null;
      if (named && /[?&]after=/.test(location.search)) {
        location.replace(location.pathname + withoutCursors(location.search) + location.hash);
        return;
      }
      const stored = "utensild-scroll:" + location.pathname + location.search;
      let pages = [];
      let loading = null;

      function more() { return document.querySelector(".more a[rel=next]"); }

      function append(href) {
        loading = fetch(href, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (reply) {
          if (!reply.ok) throw new Error("HTTP " + reply.status);
          return reply.text();
        }).then(function (html) {
          const page = new DOMParser().parseFromString(html, "text/html");
          page.querySelectorAll("#grid > .card").forEach(function (card) {
            if (!grid.querySelector('[data-id="' + card.dataset.id + '"]')) grid.append(document.importNode(card, true));
          });
          const here = document.querySelector(".more");
          const following = page.querySelector(".more");
          if (here && following) here.replaceWith(document.importNode(following, true));
          else if (here) here.remove();
          pages.push(href);
          loading = null;
          watch();
        }).catch(function () {
          loading = null;
        });
        return loading;
      }

      function keep() {
        try { sessionStorage.setItem(stored, JSON.stringify({ pages: pages, y: window.scrollY })); } catch (ignored) {}
      }

      let observer = null;
      function watch() {
        const link = more();
        if (!link) return;
        if (!observer) {
          observer = new IntersectionObserver(function (entries) {
            if (entries.some(function (e) { return e.isIntersecting; }) && !loading && more()) append(more().href);
          }, { rootMargin: "0px 0px 800px 0px" });
        }
        observer.disconnect();
        observer.observe(link.parentNode);
      }

      document.addEventListener("click", function (event) {
        const link = event.target.closest && event.target.closest(".more a[rel=next]");
        if (!link || event.defaultPrevented || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
        event.preventDefault();
        if (!loading) append(link.href);
      });
      window.addEventListener("pagehide", keep);
      grid.addEventListener("click", keep, true);

      // The total above the grid follows utensils arriving live, deleted and brought back here.
      document.addEventListener("utensild:count", function (event) {
        const total = document.getElementById("total");
        if (!total || total.hasAttribute("data-at-least")) return;
        const count = Math.max(0, Number(total.dataset.count) + event.detail);
        total.dataset.count = String(count);
        total.textContent = count.toLocaleString("en") + (count === 1 ? " utensil" : " utensils");
      });

      // The photo last seen from this list (a utensil's page keeps it), taken once.
      function viewed() {
        const key = "utensild-viewed:" + listKeyOf(location.search);
        let id = null;
        try { id = sessionStorage.getItem(key); sessionStorage.removeItem(key); } catch (ignored) { id = null; }
        return id;
      }

      // Loads the next pages until the card of the utensil `id` is there (at most 20), then
      // brings it into view unless it already is.
      function reveal(id) {
        let pagesLeft = 20;
        function step() {
          const card = id && document.getElementById("u-" + id);
          if (card) {
            const box = card.getBoundingClientRect();
            if (box.top < 0 || box.bottom > window.innerHeight) card.scrollIntoView({ block: "center" });
            grid.dataset.revealed = id;
          }
          if (card || !id || !more() || pagesLeft-- <= 0) { watch(); return null; }
          return (loading || append(more().href)).then(step);
        }
        return step();
      }

      // Back from a photo (or a reload): the pages seen, the place on them, then the photo
      // last seen. Back to a page the browser kept whole: that photo only.
      let saved = null;
      try { saved = JSON.parse(sessionStorage.getItem(stored) || "null"); } catch (ignored) { saved = null; }
      const navigation = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null;
      const returning = navigation && (navigation.type === "back_forward" || navigation.type === "reload");
      const target = (returning && viewed()) || named;
      if (named || (saved && returning)) {
        if ("scrollRestoration" in history) history.scrollRestoration = "manual";
      }
      if (saved && returning) {
        const again = (saved.pages || []).filter(function (p) { return typeof p === "string"; });
        again.reduce(function (done, href) {
          return done.then(function () { return more() ? append(href) : null; });
        }, Promise.resolve()).then(function () {
          window.scrollTo(0, saved.y || 0);
          grid.dataset.restored = "true";
          return reveal(target);
        });
      } else {
        reveal(target);
      }
      window.addEventListener("pageshow", function (event) {
        if (event.persisted) reveal(viewed());
      });
    })();

    // Changes without leaving the page: the star, rename, category, delete (with its Undo) and
    // restore forms are sent by fetch asking for JSON (the same routes answer the utensil as it
    // now is), and the card or page is updated where it is, so the scroll position stays.
    // Without this script the same forms post and redirect as before.
    (function () {
      const changeAction = new RegExp("^/utensils/([0-9A-Fa-f-]{36})/(favorite|unfavorite|rename|category|delete|restore)$");

      // Sends one change; resolves with the utensil's JSON, or rejects with the sentence to show.
      function send(path, fields) {
        const body = new URLSearchParams();
        Object.keys(fields || {}).forEach(function (key) { body.append(key, fields[key]); });
        return fetch(path, {
          method: "POST", body: body, credentials: "same-origin",
          headers: { "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded" }
        }).then(function (reply) {
          return reply.json().catch(function () { return null; }).then(function (answer) {
            if (reply.ok && answer) return answer;
            const message = answer && answer.error && answer.error.message;
            throw new Error(message || "The change failed (HTTP " + reply.status + "); reload the page and try again.");
          });
        }, function () { throw new Error("The gallery cannot be reached; check the connection and try again."); });
      }

      // One line at the top of the page saying what went wrong, or what was done.
      function say(text, bad) {
        let line = document.getElementById("action-status");
        if (!line) {
          line = document.createElement("p");
          line.id = "action-status";
          line.setAttribute("role", "status");
          const main = document.querySelector("main");
          if (!main) return;
          main.prepend(line);
        }
        line.className = bad ? "action-status problem" : "action-status";
        line.textContent = text;
      }

      // The star of `utensil` in `form` (its card's or its page's), drawn as the server draws it.
      function drawStar(form, utensil) {
        const favorite = utensil.favorite === true;
        form.action = "/utensils/" + utensil.id + "/" + (favorite ? "unfavorite" : "favorite");
        const button = form.querySelector(".star");
        const label = (favorite ? "Remove from favorites: " : "Add to favorites: ") + utensil.name;
        button.setAttribute("aria-pressed", favorite ? "true" : "false");
        button.setAttribute("aria-label", label);
        button.title = label;
        button.textContent = favorite ? "★" : "☆";
      }

      function favoritesView() { return new URLSearchParams(location.search).get("favorites") === "1"; }

      // A card taken off a list it no longer belongs to (unstarred among the favorites).
      function dropCard(card) {
        const grid = card.parentNode;
        card.remove();
        document.dispatchEvent(new CustomEvent("utensild:count", { detail: -1 }));
        if (grid && !grid.querySelector(".card") && !document.getElementById("empty")) {
          const empty = document.createElement("p");
          empty.className = "empty";
          empty.id = "empty";
          empty.textContent = favoritesView() ? "No favorites here yet: press the star (☆) on a utensil to add it." : "No utensil here now.";
          grid.after(empty);
        }
      }

      // A utensil's page after it was renamed or moved.
      function drawPage(utensil) {
        const title = document.querySelector("main.utensil h2 .title");
        if (title) title.textContent = utensil.name;
        document.title = utensil.name + " — Utensils";
        const image = document.querySelector("main.utensil figure img");
        if (image) image.alt = utensil.name;
        document.querySelectorAll("main.utensil .star-form").forEach(function (form) { drawStar(form, utensil); });
        document.querySelectorAll(".facts dt").forEach(function (term) {
          if (term.textContent !== "Category") return;
          const value = term.nextElementSibling;
          value.replaceChildren();
          if (utensil.category) {
            const link = document.createElement("a");
            link.href = "/?category=" + encodeURIComponent(utensil.category);
            link.textContent = utensil.category;
            value.append(link);
          } else {
            value.textContent = "none";
          }
        });
        const choices = document.getElementById("category-choices");
        if (choices && utensil.category && !Array.from(choices.options).some(function (o) { return o.value === utensil.category; })) {
          const option = document.createElement("option");
          option.value = utensil.category;
          choices.append(option);
        }
      }

      // "NAME is in the trash." with an Undo that restores them all (one or several), then
      // calls `undone` with the utensils restored.
      function offerUndo(trashed, undone) {
        document.querySelectorAll(".undo").forEach(function (old) { old.remove(); });
        const bar = document.createElement("div");
        bar.className = "undo floating";
        bar.setAttribute("role", "status");
        const text = document.createElement("span");
        text.textContent = trashed.length === 1 ? trashed[0].name + " is in the trash." : trashed.length + " utensils are in the trash.";
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = "Undo";
        button.addEventListener("click", function () {
          button.disabled = true;
          Promise.all(trashed.map(function (u) { return send("/utensils/" + u.id + "/restore"); })).then(function (restored) {
            bar.remove();
            undone(restored);
            say(restored.length === 1 ? restored[0].name + " is back." : restored.length + " utensils are back.");
          }, function (error) {
            button.disabled = false;
            say(error.message, true);
          });
        });
        const dismiss = document.createElement("button");
        dismiss.type = "button";
        dismiss.className = "dismiss";
        dismiss.textContent = "×";
        dismiss.setAttribute("aria-label", "Dismiss");
        dismiss.addEventListener("click", function () { bar.remove(); });
        bar.append(text, " ", button, dismiss);
        const main = document.querySelector("main");
        const tray = document.getElementById("tray");
        if (tray && tray.parentNode === main) tray.before(bar); else main.prepend(bar);
        button.focus({ preventScroll: true });
      }

      document.addEventListener("submit", function (event) {
        const form = event.target;
        if (event.defaultPrevented || !(form instanceof HTMLFormElement) || form.method !== "post") return;
        const match = changeAction.exec(new URL(form.action, location.href).pathname);
        if (!match) return;
        event.preventDefault();
        const id = match[1];
        const kind = match[2];
        const fields = {};
        new FormData(form).forEach(function (value, key) { if (key !== "back") fields[key] = value; });
        const buttons = Array.from(form.querySelectorAll("button"));
        buttons.forEach(function (b) { b.disabled = true; });
        send(form.action, fields).then(function (utensil) {
          const card = form.closest(".card");
          if (kind === "favorite" || kind === "unfavorite") {
            drawStar(form, utensil);
            if (card && favoritesView() && !utensil.favorite) dropCard(card);
          } else if (kind === "rename" || kind === "category") {
            drawPage(utensil);
            say(kind === "rename" ? "Renamed to " + utensil.name + "." : utensil.category ? "Moved to " + utensil.category + "." : "Taken out of its category.");
          } else if (kind === "delete") {
            const changes = document.querySelector("main.utensil .changes");
            if (changes) changes.hidden = true;
            document.querySelector("main.utensil").classList.add("in-trash");
            offerUndo([utensil], function (restored) {
              if (changes) changes.hidden = false;
              document.querySelector("main.utensil").classList.remove("in-trash");
              drawPage(restored[0]);
            });
          } else if (kind === "restore") {
            const row = form.closest("li");
            if (row && row.closest(".trashed")) row.remove();
            else document.querySelectorAll(".undo").forEach(function (bar) { bar.remove(); });
            say(utensil.name + " is back.");
          }
        }, function (error) {
          say(error.message, true);
        }).finally(function () {
          buttons.forEach(function (b) { b.disabled = false; });
        });
      });

      // Selecting several cards of the gallery (signed-in users): star, move or delete them at
      // once. "Select" turns each card into a checkbox; a tap on a card then selects it.
      const bar = document.getElementById("select-bar");
      const grid = document.getElementById("grid");
      if (!bar || !grid) return;
      const toggle = document.getElementById("select-toggle");
      const count = document.getElementById("select-count");
      const actions = document.getElementById("select-actions");
      const moveTo = document.getElementById("select-category");
      bar.hidden = false;

      function picked() {
        return Array.from(grid.querySelectorAll(".card .pick:checked")).map(function (box) { return box.closest(".card"); });
      }

      function drawCount() {
        const n = picked().length;
        count.textContent = n === 0 ? "Tap photos to select them." : n === 1 ? "1 selected" : n + " selected";
        actions.querySelectorAll("button").forEach(function (b) { b.disabled = n === 0; });
      }

      function addBox(card) {
        if (card.querySelector(".pick")) return;
        const name = card.querySelector(".name");
        const box = document.createElement("input");
        box.type = "checkbox";
        box.className = "pick";
        box.setAttribute("aria-label", "Select " + (name ? name.textContent : "this utensil"));
        box.addEventListener("change", function () { card.classList.toggle("picked", box.checked); drawCount(); });
        card.prepend(box);
      }

      function selecting(on) {
        grid.classList.toggle("selecting", on);
        bar.classList.toggle("selecting", on);
        toggle.setAttribute("aria-pressed", on ? "true" : "false");
        toggle.textContent = on ? "Done" : "Select";
        actions.hidden = !on;
        count.hidden = !on;
        grid.querySelectorAll(".card").forEach(function (card) {
          if (on) addBox(card);
          else {
            card.classList.remove("picked");
            const box = card.querySelector(".pick");
            if (box) box.remove();
          }
        });
        if (on) drawCount();
      }

      toggle.addEventListener("click", function () { selecting(!grid.classList.contains("selecting")); });
      // While selecting, a tap on a card's picture selects it instead of opening its page.
      grid.addEventListener("click", function (event) {
        if (!grid.classList.contains("selecting")) return;
        const link = event.target.closest(".card > a");
        if (!link) return;
        event.preventDefault();
        const box = link.parentNode.querySelector(".pick");
        box.checked = !box.checked;
        box.dispatchEvent(new Event("change"));
      });
      // Cards that arrive later (live, or the next page) get their checkbox too.
      new MutationObserver(function () {
        if (grid.classList.contains("selecting")) grid.querySelectorAll(".card").forEach(addBox);
      }).observe(grid, { childList: true });

      function each(cards, path, fields) {
        return Promise.all(cards.map(function (card) { return send("/utensils/" + card.dataset.id + "/" + path, fields); }));
      }

      function failed(error) { say(error.message, true); }

      actions.addEventListener("click", function (event) {
        const button = event.target.closest("button[data-bulk]");
        if (!button) return;
        const cards = picked();
        if (!cards.length) return;
        const what = button.dataset.bulk;
        if (what === "favorite") {
          each(cards, "favorite").then(function (utensils) {
            cards.forEach(function (card, i) {
              const form = card.querySelector(".star-form");
              if (form) drawStar(form, utensils[i]);
            });
            say(utensils.length === 1 ? "1 utensil starred." : utensils.length + " utensils starred.");
            selecting(false);
          }, failed);
        } else if (what === "move") {
          const category = moveTo.value.trim();
          each(cards, "category", { category: category }).then(function (utensils) {
            say((utensils.length === 1 ? "1 utensil" : utensils.length + " utensils") + (category ? " moved to " + category + "." : " taken out of their category."));
            const here = new URLSearchParams(location.search).get("category");
            if (here && here.toLowerCase() !== category.toLowerCase()) cards.forEach(dropCard);
            selecting(false);
            document.dispatchEvent(new CustomEvent("utensild:categories"));
          }, failed);
        } else if (what === "delete") {
          const places = cards.map(function (card) { return { card: card, next: card.nextSibling }; });
          each(cards, "delete").then(function (utensils) {
            // Leaving the selection first unticks these cards too, so that Undo brings them back unselected.
            selecting(false);
            places.forEach(function (place) { place.card.remove(); });
            document.dispatchEvent(new CustomEvent("utensild:count", { detail: -places.length }));
            document.dispatchEvent(new CustomEvent("utensild:categories"));
            offerUndo(utensils, function () {
              places.slice().reverse().forEach(function (place) { grid.insertBefore(place.card, place.next); });
              document.dispatchEvent(new CustomEvent("utensild:count", { detail: places.length }));
              const empty = document.getElementById("empty");
              if (empty) empty.remove();
              document.dispatchEvent(new CustomEvent("utensild:categories"));
            });
          }, failed);
        }
      });
    })();
    """
}
