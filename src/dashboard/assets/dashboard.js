// The dashboard's only script: the live transaction feed (server-sent events) and the overview's
// charts (Chart.js, served from the package), each on its own. Every page works without it; it adds
// liveness and pictures.
(function () {
  "use strict";

  function liveFeed() {
    var source = document.getElementById("feed-source");
    var table = document.getElementById("feed");
    if (!source || !table || !window.EventSource) return;
    var body = table.tBodies[0];
    var status = document.getElementById("feed-status");
    var events = new EventSource(source.getAttribute("data-src"));
    events.addEventListener("transaction", function (e) {
      var data = JSON.parse(e.data);
      var holder = document.createElement("tbody");
      holder.innerHTML = data.html;
      var row = holder.firstElementChild;
      if (!row) return;
      row.classList.add("fresh");
      var existing = document.getElementById("tx-" + data.id);
      if (existing) existing.replaceWith(row);
      else body.insertBefore(row, body.firstChild);
    });
    // The session ended (signed out elsewhere, key revoked or rotated): the feed stops for good.
    events.addEventListener("signed-out", function () {
      events.close();
      if (status) status.textContent = "Live feed stopped: the session ended. Sign in again.";
    });
    events.addEventListener("open", function () {
      if (status) status.textContent = "Live: new and changed transactions appear at the top as they happen.";
    });
    events.addEventListener("error", function () {
      if (status) status.textContent = "Live feed interrupted; reconnecting…";
    });
  }

  document.addEventListener("DOMContentLoaded", liveFeed);
})();

(function () {
  "use strict";

  function charts() {
    var holder = document.getElementById("overview-data");
    if (!holder || !window.Chart) return;
    var rows = JSON.parse(holder.textContent);
    var labels = rows.map(function (r) { return r.minute; });
    var unit = holder.getAttribute("data-unit") || "minute";
    var pick = function (k) { return rows.map(function (r) { return r[k]; }); };
    var common = { responsive: true, maintainAspectRatio: false, animation: false, interaction: { mode: "index", intersect: false } };
    var chart = function (id, datasets, scales) {
      new window.Chart(document.getElementById(id), {
        data: { labels: labels, datasets: datasets },
        options: Object.assign({}, common, { scales: scales }),
      });
    };
    chart(
      "chart-transactions",
      [
        { type: "bar", label: "Transactions per " + unit, data: pick("transactions"), backgroundColor: "#1f5fbf", yAxisID: "y" },
        { type: "line", label: "Qualified %", data: pick("qualifiedRate"), borderColor: "#1d7a3a", backgroundColor: "#1d7a3a", spanGaps: true, pointRadius: 3, yAxisID: "rate" },
      ],
      {
        y: { beginAtZero: true, title: { display: true, text: "transactions" }, ticks: { precision: 0 } },
        rate: { position: "right", min: 0, max: 100, title: { display: true, text: "% qualified" }, grid: { drawOnChartArea: false } },
      },
    );
    chart(
      "chart-webhooks",
      [
        { type: "line", label: "Mean latency (ms)", data: pick("latencyMs"), borderColor: "#8a5a00", backgroundColor: "#8a5a00", spanGaps: true, pointRadius: 3, yAxisID: "y" },
        { type: "bar", label: "Failed attempts", data: pick("failures"), backgroundColor: "#b3261e", yAxisID: "fail" },
      ],
      {
        y: { beginAtZero: true, title: { display: true, text: "ms" } },
        fail: { position: "right", beginAtZero: true, ticks: { precision: 0 }, title: { display: true, text: "failures" }, grid: { drawOnChartArea: false } },
      },
    );
  }

  document.addEventListener("DOMContentLoaded", charts);
})();
