// Live parts of a page: every element with data-src is replaced by a fresh server-rendered
// fragment every data-every milliseconds (the campaigns table, a campaign's plots and jobs).
// No library; nothing is fetched from anywhere but this server.
(function () {
  function poll(el) {
    var every = parseInt(el.getAttribute("data-every") || "2000", 10);
    function tick() {
      fetch(el.getAttribute("data-src"), {cache: "no-store", credentials: "same-origin"})
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (html) {
          if (html !== null) { el.innerHTML = html; el.setAttribute("data-refreshed", String(Date.now())); }
        })
        .catch(function () {})
        .then(function () { setTimeout(tick, every); });
    }
    setTimeout(tick, every);
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-src]").forEach(poll);
  });
})();
