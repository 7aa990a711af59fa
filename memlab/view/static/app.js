// memlab view — the front-end. Plain DOM, no framework, nothing loaded from the network.
// Every string that comes from a run (questions, answers, contexts, turn text, ids) is put in the page
// with textContent / createTextNode, never parsed as markup: a run may hold anything.
"use strict";
(function () {
  var TOKEN = new URLSearchParams(location.search).get("token") || "";
  var main = document.getElementById("main");
  var state = { runs: null, facets: {} };

  // ---- DOM helpers -------------------------------------------------------------------------------
  function h(tag, attrs) {
    var el = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) { return; }
        if (k === "text") { el.textContent = String(v); }
        else if (k === "onclick" || k === "onchange" || k === "oninput" || k === "onkeydown" || k === "ontoggle") { el[k] = v; }
        else if (k === "href") { el.setAttribute("href", safeHref(v)); }
        else { el.setAttribute(k, v === true ? "" : String(v)); }
      });
    }
    for (var i = 2; i < arguments.length; i++) { add(el, arguments[i]); }
    return el;
  }
  function add(el) {
    for (var i = 1; i < arguments.length; i++) { addOne(el, arguments[i]); }
    return el;
  }
  function addOne(el, child) {
    if (child === null || child === undefined || child === false) { return; }
    if (Array.isArray(child)) { child.forEach(function (c) { addOne(el, c); }); return; }
    el.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  function safeHref(v) { v = String(v); return v.charAt(0) === "#" ? v : "#/runs"; }
  function svg(tag, attrs) {
    var el = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs || {}).forEach(function (k) { el.setAttribute(k, String(attrs[k])); });
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) { continue; }
      el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }
  function route(view, params) {
    var q = new URLSearchParams();
    Object.keys(params || {}).forEach(function (k) {
      var v = params[k];
      if (v !== null && v !== undefined && v !== "") { q.set(k, String(v)); }
    });
    var s = q.toString();
    return "#/" + view + (s ? "?" + s : "");
  }
  function link(text, view, params, cls) { return h("a", { href: route(view, params), "class": cls || null }, text); }
  function num(v, digits) {
    if (v === null || v === undefined || (typeof v === "number" && isNaN(v))) { return "–"; }
    if (typeof v !== "number") { return String(v); }
    if (Math.abs(v) >= 100) { return Math.round(v).toLocaleString("en"); }
    return v.toFixed(digits === undefined ? 2 : digits);
  }
  function clear(el) { while (el.firstChild) { el.removeChild(el.firstChild); } }
  function chip(text, cls, title) { return h("span", { "class": "chip " + (cls || ""), title: title || null }, text); }

  // ---- data ------------------------------------------------------------------------------------
  function api(path, params) {
    var q = new URLSearchParams();
    Object.keys(params || {}).forEach(function (k) {
      var v = params[k];
      if (v !== null && v !== undefined && v !== "") { q.set(k, String(v)); }
    });
    return fetch("api/" + path + "?" + q.toString(), { headers: { "X-Memlab-Token": TOKEN }, cache: "no-store" })
      .then(function (r) {
        return r.text().then(function (body) {
          var data;
          try { data = JSON.parse(body); } catch (e) { data = { error: body || r.statusText }; }
          if (!r.ok) { throw new Error((data && data.error) || (r.status + " " + r.statusText)); }
          return data;
        });
      });
  }
  function runs() {
    return api("runs").then(function (d) { state.runs = d; return d; });
  }
  function facets(run) {
    return api("facets", { run: run }).then(function (d) { state.facets[run] = d; return d; });
  }
  function metricInfo(name) {
    var all = (state.runs && state.runs.metrics) || [];
    for (var i = 0; i < all.length; i++) { if (all[i].name === name) { return all[i]; } }
    return null;
  }

  // ---- chrome -------------------------------------------------------------------------------------
  function nav(view, p) {
    var n = document.getElementById("nav");
    clear(n);
    var run = p.run || "0";
    [["runs", "Runs", {}], ["probes", "Probes", { run: run }], ["compare", "Compare", { run: run }],
     ["timeline", "Timeline", { run: run }], ["flips", "Run vs run", { run: run }]].forEach(function (x) {
      add(n, link(x[1], x[0], x[2], view === x[0] || (view === "probe" && x[0] === "probes") ? "on" : null));
    });
    var st = document.getElementById("status");
    clear(st);
    if (state.runs) {
      state.runs.runs.forEach(function (r) {
        var u = r.units || {};
        if (u.status && u.status !== "completed") {
          add(st, h("span", { "class": "live", title: "the run folder may still be written to: reload to see more" },
            r.label + ": " + u.status + ", " + (u.ok || 0) + (u.total ? "/" + u.total : "") + " units recorded "));
        }
      });
    }
  }
  function fail(err) {
    clear(main);
    add(main, h("p", { "class": "error" }, String(err && err.message ? err.message : err)));
    document.body.setAttribute("data-error", String(err && err.message ? err.message : err));
    done();
  }
  function done() {
    document.body.setAttribute("data-ready", "1");
    var page = document.documentElement.clientWidth, wide = 0;
    document.querySelectorAll("main *").forEach(function (el) {
      var r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= page + 1) { return; }
      for (var a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        var o = getComputedStyle(a).overflowX;
        if (o === "auto" || o === "scroll" || o === "hidden") { return; }
      }
      wide++;
    });
    document.body.setAttribute("data-too-wide", String(wide));
  }

  // ---- the runs view ----------------------------------------------------------------------------
  function sortable(table, rows, render) {
    var dir = {};
    table.querySelectorAll("th.sort").forEach(function (th, k) {
      th.onclick = function () {
        var col = +th.getAttribute("data-col");
        dir[col] = -(dir[col] || -1);
        rows.sort(function (a, b) {
          var x = a.sortKeys[col], y = b.sortKeys[col];
          if (x === y) { return 0; }
          if (x === null || x === undefined) { return 1; }
          if (y === null || y === undefined) { return -1; }
          return (x < y ? -1 : 1) * dir[col];
        });
        render();
      };
    });
  }
  function summaryTable(run) {
    var s = run.summary;
    if (!s) { return h("p", { "class": "muted" }, "No probe recorded yet."); }
    var col = {};
    s.columns.forEach(function (c, i) { col[c] = i; });
    var headline = [];
    (run.headline || []).forEach(function (m) {
      var info = metricInfo(m);
      if (!info) { return; }
      if (info.aggregation === "mean") { if (m in col) { headline.push([m, info]); } }
      else { info.levels.forEach(function (lv) { if ((m + "." + lv[0]) in col) { headline.push([m + "." + lv[0], info, m]); } }); }
    });
    var costs = [["context_tokens", "ctx tok/probe"], ["calls_per_conv", "calls/conv"], ["failed_calls", "failed calls"]];
    var heads = ["strategy"].concat(headline.map(function (x) {
      var hib = x[1].higher_is_better; return x[0] + (hib === true ? " ↑" : hib === false ? " ↓" : "");
    })).concat(["model tok/conv"]).concat(costs.filter(function (c) { return c[0] in col; }).map(function (c) { return c[1]; }));
    var rows = s.rows.map(function (r) {
      var tok = (r[col.prompt_tokens_per_conv] || 0) + (r[col.completion_tokens_per_conv] || 0);
      var keys = [r[0]].concat(headline.map(function (x) { return r[col[x[0]]]; })).concat([tok])
        .concat(costs.filter(function (c) { return c[0] in col; }).map(function (c) { return r[col[c[0]]]; }));
      return { r: r, sortKeys: keys, tok: tok };
    });
    var table = h("table", { "class": "summary" });
    var thead = h("thead", null, h("tr", null, heads.map(function (t, i) { return h("th", { "class": "sort", "data-col": i, title: "sort" }, t); })));
    var tbody = h("tbody");
    add(table, [thead, tbody]);
    function render() {
      clear(tbody);
      rows.forEach(function (row) {
        var r = row.r, strategy = r[0];
        var tr = h("tr", { "data-strategy": strategy }, h("td", null, link(strategy, "probes", { run: run.i, strategy: strategy })));
        headline.forEach(function (x) {
          var metric = x[2] || x[0], ci = r[col[x[0] + "_ci"]], ceil = r[col[x[0] + "_ceiling"]];
          add(tr, h("td", { "class": "num" },
            link(num(r[col[x[0]]]), "probes", { run: run.i, strategy: strategy, metric: metric, outcome: "miss" }),
            ci && typeof ci[0] === "number" ? h("span", { "class": "ci" }, "[" + num(ci[0]) + ", " + num(ci[1]) + "]") : null,
            ceil !== null && ceil !== undefined && ceil < 0.995 ? h("span", { "class": "ci", title: "ceiling: share of probes that can be scored a hit" }, "≤" + num(ceil)) : null));
        });
        add(tr, h("td", { "class": "num" }, num(row.tok, 0)));
        costs.forEach(function (c) { if (c[0] in col) { add(tr, h("td", { "class": "num" }, num(r[col[c[0]]], 1))); } });
        add(tbody, tr);
      });
    }
    render();
    sortable(table, rows, render);
    return h("div", { "class": "scroll" }, table);
  }
  function scatter(run) {
    var s = run.summary;
    if (!s) { return null; }
    var col = {};
    s.columns.forEach(function (c, i) { col[c] = i; });
    if (!("evidence_recall" in col) || !("context_tokens" in col)) { return null; }
    var pts = s.rows.map(function (r) { return { name: r[0], x: r[col.context_tokens] || 0, y: r[col.evidence_recall], ci: r[col.evidence_recall_ci] }; })
      .filter(function (p) { return p.y !== null && p.y !== undefined; });
    if (!pts.length) { return null; }
    var W = 640, H = 320, L = 52, B = 36, T = 14, R = 150;
    var xmax = Math.max.apply(null, pts.map(function (p) { return p.x; })) || 1;
    function X(v) { return L + (W - L - R) * (v / xmax); }
    function Y(v) { return T + (H - T - B) * (1 - v); }
    var g = svg("svg", { "class": "chart", viewBox: "0 0 " + W + " " + H, width: W, height: H, role: "img", "aria-label": "recall vs context tokens" });
    [0, 0.25, 0.5, 0.75, 1].forEach(function (v) {
      g.appendChild(svg("line", { x1: L, x2: W - R, y1: Y(v), y2: Y(v), "class": "grid" }));
      g.appendChild(svg("text", { x: L - 6, y: Y(v) + 4, "text-anchor": "end" }, v.toFixed(2)));
    });
    [0, 0.5, 1].forEach(function (f) {
      g.appendChild(svg("text", { x: X(f * xmax), y: H - B + 16, "text-anchor": "middle" }, num(f * xmax, 0)));
    });
    g.appendChild(svg("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, "class": "axis" }));
    g.appendChild(svg("line", { x1: L, x2: L, y1: T, y2: H - B, "class": "axis" }));
    g.appendChild(svg("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" }, "memory context tokens per probe"));
    g.appendChild(svg("text", { x: 12, y: (T + H - B) / 2, transform: "rotate(-90 12 " + (T + H - B) / 2 + ")", "text-anchor": "middle" }, "string recall"));
    var placed = [];  // label boxes already drawn: a label that would overlap one moves down a line
    pts.slice().sort(function (a, b) { return Y(a.y) - Y(b.y); }).forEach(function (p) {
      if (p.ci && typeof p.ci[0] === "number" && typeof p.ci[1] === "number") { g.appendChild(svg("line", { x1: X(p.x), x2: X(p.x), y1: Y(p.ci[0]), y2: Y(p.ci[1]), stroke: "#0969da" })); }
      var c = svg("circle", { cx: X(p.x), cy: Y(p.y), r: 4, fill: "#0969da" });
      c.appendChild(svg("title", {}, p.name + ": recall " + num(p.y) + ", " + num(p.x, 0) + " tokens"));
      g.appendChild(c);
      var x = X(p.x) + 6, y = Y(p.y) + 4, w = 6.2 * p.name.length;
      for (var moved = true; moved;) {
        moved = false;
        for (var k = 0; k < placed.length; k++) {
          var b = placed[k];
          if (x < b.x + b.w && b.x < x + w && Math.abs(y - b.y) < 12) { y = b.y + 12; moved = true; }
        }
      }
      placed.push({ x: x, y: y, w: w });
      g.appendChild(svg("text", { x: x, y: y }, p.name));
    });
    return g;
  }
  function pivot(rows, columns, rowKey, colKey, valKey, filter) {
    var ci = {};
    columns.forEach(function (c, i) { ci[c] = i; });
    var out = {}, cols = [];
    rows.forEach(function (r) {
      if (filter && !filter(r, ci)) { return; }
      var a = r[ci[rowKey]], b = r[ci[colKey]];
      if (cols.indexOf(b) < 0) { cols.push(b); }
      (out[a] = out[a] || {})[b] = r;
    });
    cols.sort();
    return { rows: out, cols: cols, ci: ci };
  }
  function heat(title, p, valKey, strategies, nKey) {
    if (!p.cols.length) { return null; }
    var table = h("table", null, h("thead", null, h("tr", null, h("th", null, "strategy"), p.cols.map(function (c) { return h("th", null, c); }))));
    var tb = h("tbody");
    strategies.forEach(function (s) {
      if (!p.rows[s]) { return; }
      var tr = h("tr", null, h("td", null, s));
      p.cols.forEach(function (c) {
        var r = p.rows[s][c], v = r ? r[p.ci[valKey]] : null;
        var n = r && nKey ? r[p.ci[nKey]] : null;
        add(tr, h("td", { "class": "num", title: n !== null && n !== undefined ? "n = " + n : null },
          typeof v === "number" ? h("span", { "class": "bar", style: null, "data-w": Math.round(60 * Math.max(0, Math.min(1, v))) }) : null, num(v)));
      });
      add(tb, tr);
    });
    add(table, tb);
    table.querySelectorAll(".bar").forEach(function (b) { b.style.width = b.getAttribute("data-w") + "px"; });
    return h("div", null, h("h3", null, title), h("div", { "class": "scroll" }, table));
  }
  function viewRuns() {
    return runs().then(function (d) {
      clear(main);
      add(main, h("h1", null, "Runs"));
      if (d.baseline) { add(main, h("p", null, "Baseline ", h("code", null, d.baseline), " — ", link("flipped probes against it", "flips", { run: 0, baseline: 1 }))); }
      d.runs.forEach(function (run) {
        var u = run.units || {};
        var card = h("section", { "class": "card", "data-run": run.i },
          h("h2", null, run.label, " ", h("span", { "class": "muted small" }, run.run_id || "")),
          run.description ? h("p", null, run.description) : null,
          h("dl", { "class": "facts" },
            h("dt", null, "status"), h("dd", null, String(u.status || "?") + " · " + (u.ok || 0) + (u.total ? " of " + u.total : "") + " units ok" + (u.failed ? ", " + u.failed + " failed" : "")),
            h("dt", null, "model"), h("dd", null, run.model || "?"),
            h("dt", null, "folder"), h("dd", null, run.path),
            h("dt", null, "probes"), h("dd", null, String(run.probes) + " (strategy × probe) · ", link("browse", "probes", { run: run.i }), " · ", link("compare two strategies", "compare", { run: run.i }))),
          run.answer_warning ? h("p", { "class": "warn" }, run.answer_warning) : null,
          (run.problems || []).map(function (p) { return h("p", { "class": "error" }, p); }),
          (run.text_notes || []).map(function (p) { return h("p", { "class": "warn" }, p); }));
        add(card, h("h3", null, "Summary"), summaryTable(run), h("p", { "class": "muted small" }, (run.summary && run.summary.caption) || run.intervals || ""));
        var metricSel = h("select", { "aria-label": "metric for the breakdowns" });
        var means = (d.metrics || []).filter(function (m) { return m.aggregation === "mean" && (run.headline || []).indexOf(m.name) >= 0; });
        means.forEach(function (m) { add(metricSel, h("option", { value: m.name, selected: m.name === "evidence_recall" }, m.name)); });
        var chart = scatter(run), breakdown = h("div");
        function drawBreakdown() {
          clear(breakdown);
          var metric = metricSel.value;
          if (run.metrics) {
            add(breakdown, heat("by category: " + metric, pivot(run.metrics.rows, run.metrics.columns, "strategy", "category", "mean",
              function (r, ci) { return r[ci.metric] === metric && r[ci.category] !== "all"; }), "mean", run.strategies, "n"));
          }
          if (run.scope) {
            add(breakdown, heat("by thread scope (own thread / earlier threads / mixed): " + metric,
              pivot(run.scope.rows, run.scope.columns, "strategy", "evidence_scope", metric), metric, run.strategies, metric + ":n"));
          }
        }
        metricSel.onchange = drawBreakdown;
        drawBreakdown();
        add(card, h("div", { "class": "two" }, chart ? h("div", null, h("h3", null, "Recall vs tokens"), chart) : null,
          h("div", null, h("h3", null, "Breakdowns ", metricSel), breakdown)));
        if (d.runs.length > 1) {
          add(card, h("p", null, "Against another run: ", d.runs.filter(function (o) { return o.i !== run.i; }).map(function (o) {
            return [link("what flipped from " + o.label + " to " + run.label, "flips", { run: run.i, base: o.i }), " "];
          })));
        }
        add(main, card);
      });
      done();
    });
  }

  // ---- filters ----------------------------------------------------------------------------------
  function select(label, name, values, current, onchange, any) {
    var s = h("select", { name: name, "aria-label": label, onchange: onchange });
    if (any !== false) { add(s, h("option", { value: "" }, any || "any")); }
    values.forEach(function (v) {
      var val = Array.isArray(v) ? v[0] : v, text = Array.isArray(v) ? v[1] : v;
      add(s, h("option", { value: String(val), selected: String(val) === String(current === undefined ? "" : current) }, String(text)));
    });
    return h("label", null, label, s);
  }
  function filterBar(view, p, f, extra) {
    function go(changes) { location.hash = route(view, Object.assign({}, p, changes, { page: 0 })); }
    function on(name) { return function (e) { var c = {}; c[name] = e.target.value; go(c); }; }
    var metrics = f.metrics.map(function (m) { return [m.name, m.name]; });
    var search = h("input", { type: "search", name: "q", value: p.q || "", placeholder: "question, answer, gold, id", "aria-label": "search" });
    search.onkeydown = function (e) { if (e.key === "Enter") { go({ q: search.value }); } };
    return h("div", { "class": "filters" },
      state.runs && state.runs.runs.length > 1 ? select("run", "run", state.runs.runs.map(function (r) { return [r.i, r.label]; }), p.run, on("run"), false) : null,
      extra || null,
      view === "probes" ? select("strategy", "strategy", f.strategy, p.strategy, on("strategy")) : null,
      select("dataset", "dataset", f.dataset, p.dataset, on("dataset")),
      select("user", "user", f.user, p.user, on("user")),
      select("thread", "thread", f.thread, p.thread, on("thread")),
      select("category", "category", f.category, p.category, on("category")),
      select("evidence scope", "scope", f.scope, p.scope, on("scope")),
      view === "probes" ? select("metric", "metric", metrics, p.metric, on("metric")) : null,
      view === "probes" ? select("outcome", "outcome", [["hit", "hit (best value)"], ["miss", "miss"], ["na", "does not apply"]], p.outcome, on("outcome")) : null,
      h("label", null, "search", search));
  }
  function pager(view, p, d) {
    if (d.pages <= 1) { return h("div", { "class": "pager muted" }, d.total + " shown"); }
    var page = +d.page;
    return h("div", { "class": "pager" },
      page > 0 ? link("← previous", view, Object.assign({}, p, { page: page - 1 })) : null,
      h("span", null, "page " + (page + 1) + " of " + d.pages + " (" + d.total + ")"),
      page + 1 < d.pages ? link("next →", view, Object.assign({}, p, { page: page + 1 }), "next") : null);
  }
  function scoreChips(scores) {
    return Object.keys(scores || {}).map(function (n) {
      var s = scores[n];
      return chip(n.replace(/_/g, " ") + " " + num(s.value), s.outcome, n);
    });
  }

  // ---- the probes view --------------------------------------------------------------------------
  function viewProbes(p) {
    var run = p.run || "0";
    return Promise.all([state.runs ? state.runs : runs(), facets(run), api("probes", Object.assign({}, p, { run: run }))]).then(function (x) {
      var f = x[1], d = x[2];
      clear(main);
      add(main, h("h1", null, "Probes"), filterBar("probes", p, f));
      add(main, h("p", { "class": "muted" }, d.total + " of " + d.of + " (strategy × probe) rows"));
      var table = h("table", { "class": "probes" }, h("thead", null, h("tr", null,
        ["strategy", "probe", "user · thread", "category · scope", "question", "answer", "scores"].map(function (t) { return h("th", null, t); }))));
      var tb = h("tbody");
      d.rows.forEach(function (r) {
        var target = route("probe", { run: run, dataset: r.dataset, conversation: r.conversation_id, probe: r.probe_id, strategy: r.strategy });
        var tr = h("tr", { "class": "click", "data-probe": r.probe_id, "data-strategy": r.strategy, onclick: function () { location.hash = target; } },
          h("td", null, r.strategy),
          h("td", null, h("a", { href: target }, r.probe_id), h("div", { "class": "muted small" }, r.dataset + " / " + r.conversation_id)),
          h("td", null, String(r.user === null ? "–" : r.user) + " · " + (r.thread === null ? "–" : r.thread)),
          h("td", null, String(r.category) + " · " + (r.scope || "–")),
          h("td", { "class": "q" }, r.question), h("td", { "class": "q" }, r.error ? chip("error", "miss") : null, r.answer),
          h("td", null, scoreChips(r.scores)));
        add(tb, tr);
      });
      add(table, tb);
      add(main, h("div", { "class": "scroll" }, table), pager("probes", p, d));
      done();
    });
  }

  // ---- one probe --------------------------------------------------------------------------------
  function marked(text, spans) {
    if (!spans || !spans.length) { return [text]; }
    var out = [], at = 0;
    spans.forEach(function (s) {
      if (s[0] > at) { out.push(text.slice(at, s[0])); }
      out.push(h("mark", { "class": s[2] }, text.slice(s[0], s[1])));
      at = s[1];
    });
    if (at < text.length) { out.push(text.slice(at)); }
    return out;
  }
  function lineEl(x, more) {
    var cls = "line" + (x.evidence ? " evidence" : "") + (x.gold ? " gold" : "") + (x.stale ? " stale" : "") + (x.only ? " only" : "");
    var el = h("div", { "class": cls, "data-i": x.i, title: x.sources ? "from turns " + x.sources.join(", ") : null },
      h("span", { "class": "no" }, String(x.i + 1)), h("span", { "class": "txt" }, marked(x.text, x.spans)));
    if (x.cut) {
      add(el.lastChild, h("button", { onclick: function () {
        more({ line: x.i }).then(function (d) { var n = lineEl({ i: x.i, text: d.text, evidence: x.evidence, gold: x.gold }, more); el.replaceWith(n); });
      } }, "… " + (x.cut - x.text.length).toLocaleString("en") + " more characters: show the whole line"));
    }
    return el;
  }
  function contextBox(lines, total, more) {
    var box = h("div", { "class": "ctx", "data-total": total });
    var section = null, prev = -1;
    function gap(from, to) {
      var g = h("div", { "class": "gap", role: "button", tabindex: "0" }, "… " + (to - from) + " line(s) not shown: show them");
      g.onclick = function () {
        more({ start: from, count: Math.min(to - from, 1000) }).then(function (d) {
          var frag = document.createDocumentFragment();
          d.lines.forEach(function (x) { frag.appendChild(lineEl(x, more)); });
          if (to - from > 1000) { frag.appendChild(gap(from + 1000, to)); }
          g.replaceWith(frag);
        }).catch(fail);
      };
      return g;
    }
    lines.forEach(function (x) {
      if (x.i > prev + 1) { add(box, gap(prev + 1, x.i)); }
      if (x.section && x.section !== section) { add(box, h("div", { "class": "sec" }, x.section)); section = x.section; }
      add(box, lineEl(x, more));
      prev = x.i;
    });
    if (total > prev + 1) { add(box, gap(prev + 1, total)); }
    if (!total) { add(box, h("div", { "class": "line muted" }, "(empty context)")); }
    return box;
  }
  function scoreBlock(run, s) {
    var r = state.runs && state.runs.runs[+run], headline = (r && r.headline) || [];
    function chips(names) {
      return names.map(function (n) { return chip(n.replace(/_/g, " ") + " " + num(s.scores[n]), s.outcomes[n], metricInfo(n) ? metricInfo(n).description : n); });
    }
    var names = Object.keys(s.scores), first = names.filter(function (n) { return headline.indexOf(n) >= 0; });
    var rest = names.filter(function (n) { return first.indexOf(n) < 0; });
    return h("div", { "class": "scores" }, chips(first),
      rest.length ? h("details", { "class": "more-scores" }, h("summary", { "class": "muted small" }, rest.length + " more scores"), chips(rest)) : null);
  }
  function lazyBlock(run, probe, s) {
    var reasons = s.reasons && s.reasons.length ? s.reasons.map(function (r) { return chip(r, "miss"); }) : [chip("no failure", "hit")];
    var det = h("details", { "class": "strategy lazy", "data-strategy": s.strategy, id: "s-" + s.strategy },
      h("summary", null, s.strategy, " ", reasons),
      scoreBlock(run, s), h("div", { "class": "answer" }, s.error ? "error: " + s.error : (s.answer === null || s.answer === undefined ? "(no answer)" : s.answer)),
      h("p", { "class": "muted small" }, "its context (" + num(s.total_lines, 0) + " lines), explanations and model calls load when opened"));
    det.ontoggle = function () {
      if (!det.open || det.getAttribute("data-loading")) { return; }
      det.setAttribute("data-loading", "1");
      api("probe", { run: run, dataset: probe.dataset, conversation: probe.conversation_id, probe: probe.probe_id, strategy: s.strategy })
        .then(function (d) { det.replaceWith(strategyBlock(run, probe, d.strategies[0], true, false)); }).catch(fail);
    };
    return det;
  }
  function strategyBlock(run, probe, s, open, focus) {
    if (s.lazy) { return lazyBlock(run, probe, s); }
    var more = function (extra) {
      return api("context", Object.assign({ run: run, dataset: probe.dataset, conversation: probe.conversation_id, probe: probe.probe_id, strategy: s.strategy }, extra));
    };
    var reasons = s.reasons && s.reasons.length ? s.reasons.map(function (r) { return chip(r, "miss"); }) : [chip("no failure", "hit")];
    var judge = s.judge ? ("correct" in s.judge ? "judge" + (s.judge.model ? " (" + s.judge.model + ")" : "") + ": " + (s.judge.correct ? "correct" : "wrong") : JSON.stringify(s.judge)) : null;
    var det = h("details", { "class": "strategy" + (focus ? " focus" : ""), open: open, "data-strategy": s.strategy, id: "s-" + s.strategy },
      h("summary", null, s.strategy, " ", reasons),
      scoreBlock(run, s),
      h("h3", null, "Answer"), h("div", { "class": "answer" }, s.error ? "error: " + s.error : (s.answer === null || s.answer === undefined ? "(no answer)" : s.answer)),
      judge ? h("p", null, judge) : null,
      s.explanations.length ? [h("h3", null, "Why it scored what it did"), h("ul", { "class": "why" }, s.explanations.map(function (e) { return h("li", null, h("b", null, e[0]), ": ", e[1]); }))] : null,
      h("h3", null, "Context ", h("span", { "class": "muted small" }, s.total_lines + " lines · " + num(s.context_tokens, 0) + " tokens · " + s.evidence_lines + " from evidence turns (yellow) · " + s.gold_lines + " holding a gold form (green edge)")),
      contextBox(s.lines, s.total_lines, more),
      s.calls.length ? [h("h3", null, "Model calls"), h("div", { "class": "scroll" }, h("table", null,
        h("thead", null, h("tr", null, ["purpose", "model", "signature", "prompt tok", "completion tok", "latency s", "ok", "tool calls"].map(function (t) { return h("th", null, t); }))),
        h("tbody", null, s.calls.map(function (c) {
          return h("tr", null, h("td", null, c.purpose), h("td", null, c.model), h("td", null, c.signature || "–"), h("td", { "class": "num" }, num(c.prompt_tokens, 0)),
            h("td", { "class": "num" }, num(c.completion_tokens, 0)), h("td", { "class": "num" }, num(c.latency_s, 3)), h("td", null, c.ok ? "ok" : "failed" + (c.error ? ": " + c.error : "")),
            h("td", { "class": "num" }, String(c.tool_calls)));
        }))))] : null,
      h("p", null, link("this user's memory timeline under " + s.strategy, "timeline", { run: run, strategy: s.strategy, dataset: probe.dataset, user: probe.user, conversation: probe.conversation_id, probe: probe.probe_id })));
    return det;
  }
  function evidenceList(run, d, strategy) {
    if (!d.evidence.length) { return h("p", { "class": "muted" }, "No evidence turns (an abstention probe, or none annotated)."); }
    return h("ul", { "class": "evidence" }, d.evidence.map(function (e) {
      var text = h("div", { "class": "turn-text" }, e.text);
      var li = h("li", { "data-turn": e.turn_id },
        link(e.turn_id, "timeline", { run: run, strategy: strategy, dataset: d.dataset, user: d.user, conversation: e.conversation_id || d.conversation_id, turn: e.turn_id, probe: d.probe_id }),
        " ", h("span", { "class": "muted small" }, [e.thread !== null ? "thread " + e.thread : null, e.conversation_id, e.session_id, e.at, e.speaker || e.role].filter(function (x) { return x; }).join(" · ")),
        text);
      if (e.chars > e.text.length) {
        add(li, h("button", { onclick: function (ev) {
          ev.target.disabled = true;
          api("turn", { run: run, dataset: d.dataset, user: d.user, conversation: e.conversation_id, turn: e.turn_id }).then(function (t) {
            text.textContent = t.text; ev.target.remove();
          }).catch(fail);
        } }, "show all " + e.chars.toLocaleString("en") + " characters"));
      }
      return li;
    }));
  }
  function goldChips(d) {
    var parts = d.gold.map(function (forms) { return forms.map(function (f) { return chip(f, "gold"); }); });
    return h("span", { "class": "gold-forms" }, parts.length ? parts : h("span", { "class": "muted" }, "(none: should abstain)"),
      d.gold.length > 1 ? h("span", { "class": "muted small" }, " (" + (d.gold_match === "all" ? "every part" : "any part") + ")") : null,
      d.superseded.length ? [" superseded: ", d.superseded.map(function (f) { return chip(f, "stale"); })] : null);
  }
  function viewProbe(p) {
    var run = p.run || "0";
    return Promise.all([state.runs ? state.runs : runs(), api("probe", { run: run, dataset: p.dataset, conversation: p.conversation, probe: p.probe, focus: p.strategy })]).then(function (x) {
      var d = x[1];
      clear(main);
      var focus = p.strategy || d.strategies[0].strategy;
      var others = d.strategies.map(function (s) { return s.strategy; }).filter(function (s) { return s !== focus; });
      var cmp = h("select", { "aria-label": "compare with", onchange: function (e) {
        if (e.target.value) { location.hash = route("compare", { run: run, a: focus, b: e.target.value, dataset: d.dataset, conversation: d.conversation_id, probe: d.probe_id }); }
      } }, h("option", { value: "" }, "compare " + focus + " with…"), others.map(function (o) { return h("option", { value: o }, o); }));
      add(main, h("h1", null, d.question),
        h("dl", { "class": "facts" },
          h("dt", null, "gold"), h("dd", null, goldChips(d)),
          h("dt", null, "probe"), h("dd", null, d.dataset + " / " + d.conversation_id + " / " + d.probe_id),
          h("dt", null, "user · thread"), h("dd", null, String(d.user) + " · thread " + String(d.thread)),
          h("dt", null, "category · scope"), h("dd", null, String(d.category) + " · evidence " + String(d.scope || "–")),
          h("dt", null, "asked"), h("dd", null, "after turn " + d.after_turn + " · " + (d.asked_at || ""))),
        others.length ? h("p", null, cmp) : null,
        h("h2", null, "Evidence turns"), evidenceList(run, d, focus),
        h("h2", null, "Strategies"));
      var many = d.strategies.length > 4;
      var ordered = d.strategies.filter(function (s) { return s.strategy === focus; })
        .concat(d.strategies.filter(function (s) { return s.strategy !== focus; }));  // the one asked for first
      ordered.forEach(function (s) { add(main, strategyBlock(run, d, s, !many || s.strategy === focus, s.strategy === focus)); });
      done();
    });
  }

  // ---- compare ----------------------------------------------------------------------------------
  function statsTable(d) {
    var ci = {};
    d.stats.columns.forEach(function (c, i) { ci[c] = i; });
    var rows = d.stats.rows.filter(function (r) { return r[ci.category] === "all"; });
    return h("div", { "class": "scroll" }, h("table", { "class": "stats" },
      h("thead", null, h("tr", null, ["metric", "A", "B", "A − B [CI]", "A only", "B only", "n", "verdict"].map(function (t) { return h("th", null, t); }))),
      h("tbody", null, rows.map(function (r) {
        return h("tr", null, h("td", null, r[ci.metric]), h("td", { "class": "num" }, num(r[ci.mean_a])), h("td", { "class": "num" }, num(r[ci.mean_b])),
          h("td", { "class": "num" }, num(r[ci.diff]) + " [" + num(r[ci.ci_low]) + ", " + num(r[ci.ci_high]) + "]"),
          h("td", { "class": "num" }, num(r[ci.a_only], 0)), h("td", { "class": "num" }, num(r[ci.b_only], 0)), h("td", { "class": "num" }, num(r[ci.n], 0)),
          h("td", null, r[ci.verdict]));
      }))), h("p", { "class": "muted small" }, d.caption || ""));
  }
  function sideBySide(p, d) {
    var runA = p.run || "0", runB = p.run_b || runA;
    function col(side, run, label, count) {
      var more = function (extra) {
        return api("context", Object.assign({ run: run, dataset: d.dataset, conversation: d.conversation_id, probe: d.probe_id, strategy: side.strategy }, extra));
      };
      return h("div", { "class": "side", "data-side": label },
        h("h3", null, label + ": " + side.strategy + (side.run ? " @ " + side.run : "")),
        h("div", null, (side.reasons.length ? side.reasons.map(function (r) { return chip(r, "miss"); }) : [chip("no failure", "hit")])),
        h("div", { "class": "answer" }, side.error ? "error: " + side.error : (side.answer === null ? "(no answer)" : side.answer)),
        h("ul", { "class": "why" }, side.explanations.map(function (e) { return h("li", null, h("b", null, e[0]), ": ", e[1]); })),
        h("p", { "class": "muted small" }, side.total_lines + " lines, " + count + " not in the other context (blue) · " + num(side.context_tokens, 0) + " tokens"),
        contextBox(side.lines, side.total_lines, more));
    }
    return h("section", { "class": "card", id: "pair" },
      h("h2", null, d.question), h("p", null, "gold: ", goldChips(d), " · ", link("the probe page", "probe", { run: runB, dataset: d.dataset, conversation: d.conversation_id, probe: d.probe_id })),
      h("div", { "class": "sbs" }, col(d.a, runA, "A", d.only_a), col(d.b, runB, "B", d.only_b)));
  }
  function viewCompare(p) {
    var run = p.run || "0";
    return Promise.all([state.runs ? state.runs : runs(), facets(run)]).then(function (x) {
      var f = x[1], strategies = f.strategy;
      var a = p.a || strategies[0], b = p.b || strategies[1] || strategies[0];
      var metric = p.metric || "evidence_recall";
      var jobs = [p.run_b ? Promise.resolve(null) : api("compare", Object.assign({}, p, { run: run, a: a, b: b, metric: metric }))];
      if (p.probe) { jobs.push(api("compare/probe", { run: run, run_b: p.run_b, a: a, b: b, dataset: p.dataset, conversation: p.conversation, probe: p.probe })); }
      return Promise.all(jobs).then(function (y) {
        var d = y[0], pair = y[1];
        clear(main);
        function go(changes) { location.hash = route("compare", Object.assign({}, p, { a: a, b: b, metric: metric }, changes, { page: 0 })); }
        var means = f.metrics.filter(function (m) { return m.aggregation === "mean"; }).map(function (m) { return m.name; });
        add(main, h("h1", null, "Compare"));
        if (!p.run_b) {
          add(main, filterBar("compare", p, f, [
            select("A", "a", strategies, a, function (e) { go({ a: e.target.value }); }, false),
            select("B", "b", strategies, b, function (e) { go({ b: e.target.value }); }, false),
            select("metric", "metric", means, metric, function (e) { go({ metric: e.target.value }); }, false)]));
        }
        if (pair) { add(main, sideBySide(p, pair)); }
        if (d) {
          add(main, h("h2", null, a + " (A) vs " + b + " (B)"), statsTable(d),
            h("h2", null, "Probes, discordant first"),
            h("p", { "class": "muted" }, d.counts.a_only + " where only A hit, " + d.counts.b_only + " where only B hit, of " + d.counts.both + " both answered (" + metric + ")"));
          var tb = h("tbody");
          d.rows.forEach(function (r) {
            var target = route("compare", Object.assign({}, p, { a: a, b: b, metric: metric, dataset: r.dataset, conversation: r.conversation_id, probe: r.probe_id }));
            add(tb, h("tr", { "class": "click" + (r.probe_id === p.probe && r.conversation_id === p.conversation ? " on" : ""), "data-probe": r.probe_id, onclick: function () { location.hash = target; window.scrollTo(0, 0); } },
              h("td", null, h("a", { href: target }, r.probe_id), h("div", { "class": "muted small" }, r.dataset + " / " + r.conversation_id)),
              h("td", { "class": "q" }, r.question), h("td", null, chip("A " + num(r.a_value), r.a)), h("td", null, chip("B " + num(r.b_value), r.b))));
          });
          add(main, h("div", { "class": "scroll" }, h("table", null, h("thead", null, h("tr", null, ["probe", "question", "A", "B"].map(function (t) { return h("th", null, t); }))), tb)),
            pager("compare", Object.assign({}, p, { a: a, b: b, metric: metric }), d));
        }
        done();
      });
    });
  }

  // ---- the memory timeline ----------------------------------------------------------------------
  function opLine(o) {
    return h("div", { "class": "opline" }, h("span", { "class": "op " + o.op }, o.op), o.kind ? h("span", { "class": "muted" }, o.kind + " ") : null,
      o.previous_text ? [h("span", { "class": "prev" }, o.previous_text), " → "] : null, o.text,
      h("span", { "class": "muted small" }, (o.sources.length ? " · from " + o.sources.join(", ") : " · no source turn") + (o.reason ? " · " + o.reason : "") + (o.store ? " · " + o.store : "")));
  }
  function viewTimeline(p) {
    var run = p.run || "0";
    return Promise.all([state.runs ? state.runs : runs(), facets(run)]).then(function (x) {
      var f = x[1];
      var strategy = p.strategy || f.strategy[0], dataset = p.dataset || f.dataset[0], user = p.user || f.user[0];
      var q = Object.assign({}, p, { run: run, strategy: strategy, dataset: dataset, user: user });
      return api("timeline", q).then(function (d) {
        clear(main);
        function go(changes) { location.hash = route("timeline", Object.assign({}, q, changes)); }
        add(main, h("h1", null, "Memory timeline: user " + d.user),
          h("div", { "class": "filters" },
            select("strategy", "strategy", f.strategy, strategy, function (e) { go({ strategy: e.target.value, page: null }); }, false),
            select("dataset", "dataset", f.dataset, dataset, function (e) { go({ dataset: e.target.value, user: null, turn: null, probe: null, page: null }); }, false),
            select("user", "user", f.user, user, function (e) { go({ user: e.target.value, turn: null, probe: null, page: null }); }, false)),
          h("p", { "class": "muted" }, d.turns + " turns · operations: " + Object.keys(d.op_counts).map(function (k) { return k + " " + d.op_counts[k]; }).join(", ")),
          (d.text_notes || []).map(function (n) { return h("p", { "class": "warn" }, n); }));
        if (d.probe) {
          add(main, h("section", { "class": "card", id: "story" }, h("h2", null, "Probe " + d.probe.probe_id + ": where its evidence went"),
            h("p", null, d.probe.question), h("p", null, h("b", null, d.probe.verdict)),
            d.probe.events.length ? h("ul", null, d.probe.events.map(function (e) {
              return h("li", null, link(e.turn_id, "timeline", Object.assign({}, q, { turn: e.turn_id, conversation: null })), ": ", h("span", { "class": "op " + e.op }, e.op), e.what + " ", e.text,
                e.gold ? chip("carries a gold form", "gold") : null, e.after_probe ? chip("after the probe", "na") : null);
            })) : null,
            d.probe.events_total > d.probe.events.length ? h("p", { "class": "muted small" }, (d.probe.events_total - d.probe.events.length) +
              " more updates of the same items not listed (the first and last five are)") : null));
        }
        var left = h("div", { "class": "turns" });
        d.threads.forEach(function (t) {
          var box = h("div", { "class": "thread", "data-conversation": t.conversation_id }, h("h3", null, "thread " + (t.thread || "?") + " · " + t.conversation_id));
          (t.start_ops || []).forEach(function (o) { add(box, opLine(o)); });
          t.turns.forEach(function (u) {
            var cls = "turn" + (u.evidence ? " evidence" : "") + (d.asof && d.asof.i === u.i ? " asof" : "") + (d.focus === u.i ? " focus" : "");
            var el = h("div", { "class": cls, id: "turn-" + u.i, "data-turn": u.turn_id, title: "click: the store as of this turn",
              onclick: function () { go({ turn: u.turn_id, conversation: t.conversation_id, page: d.page }); } },
              h("div", { "class": "meta" }, u.turn_id + " · " + (u.speaker || u.role || "") + (u.at ? " · " + u.at : "") + " · session " + (u.session_id || "?") + (u.calls ? " · " + u.calls + " call(s), " + u.tokens + " tok" : "")),
              u.text !== undefined ? h("div", { "class": "turn-text" }, u.text) : h("div", { "class": "muted small" }, "(text not available)"));
            if (u.chars > (u.text || "").length) {
              add(el, h("button", { onclick: function (ev) {
                ev.stopPropagation();
                ev.target.disabled = true;
                api("turn", { run: run, dataset: dataset, user: user, conversation: t.conversation_id, turn: u.turn_id }).then(function (x) {
                  el.querySelector(".turn-text").textContent = x.text; ev.target.remove();
                }).catch(fail);
              } }, "show all " + u.chars.toLocaleString("en") + " characters"));
            }
            u.ops.forEach(function (o) { add(el, opLine(o)); });
            add(box, el);
          });
          (t.end_ops || []).forEach(function (o) { add(box, opLine(o)); });
          add(left, box);
        });
        var store = h("div", { "class": "store card" }, h("h2", null, "Store as of " + (d.asof.turn_id || "the end") + " (" + d.store.count + " items)"),
          d.store.items.length ? d.store.items.map(function (it) {
            return h("div", { "class": "item" + (it.evidence ? " evidence" : ""), "data-item": it.item_id }, h("span", { "class": "muted small" }, it.kind + " · since " + it.since + (it.updated ? " · updated " + it.updated : "") + " · "),
              it.text, it.gold ? chip("gold", "gold") : null, h("div", { "class": "muted small" }, it.sources.length ? "from " + it.sources.join(", ") : "no source turn"));
          }) : h("p", { "class": "muted" }, "Nothing stored (this strategy keeps no long-term store, or had not written yet)."),
          d.store.count > d.store.items.length ? h("p", { "class": "muted" }, (d.store.count - d.store.items.length) + " more items not listed") : null);
        add(main, d.pages > 1 ? pager("timeline", q, { page: d.page, pages: d.pages, total: d.turns + " turns" }) : null, h("div", { "class": "tl" }, left, store));
        var target = document.getElementById("turn-" + (d.focus !== null && d.focus !== undefined ? d.focus : ""));
        if (target) { target.scrollIntoView({ block: "center" }); }
        done();
      });
    });
  }

  // ---- run vs run ---------------------------------------------------------------------------------
  function viewFlips(p) {
    return (state.runs ? Promise.resolve(state.runs) : runs()).then(function (R) {
      var cur = p.run || String(R.runs.length - 1);
      var base = p.baseline ? null : (p.base !== undefined ? p.base : (R.runs.length > 1 ? String(Math.max(0, +cur - 1)) : null));
      if (!p.baseline && (base === null || base === cur)) {
        clear(main);
        add(main, h("h1", null, "Run vs run"), h("p", null, "Open two run folders (memlab view BASE_RUN RUN) or a run with --baseline FILE to see what flipped."));
        done();
        return null;
      }
      return api("flips", { run: cur, base: base, baseline: p.baseline ? 1 : null, page: p.page }).then(function (d) {
        clear(main);
        add(main, h("h1", null, "What flipped: " + d.base + " → " + d.current),
          h("p", null, d.compared + " probes on both sides · " + d.total + " flipped: " + d.worse + " got worse, " + d.better + " only better · columns: " + d.columns.join(", ")),
          d.only_base || d.only_current ? h("p", { "class": "warn" }, d.only_base + " probes only in the base, " + d.only_current + " only in the current run (not compared)") : null);
        var tb = h("tbody");
        d.rows.forEach(function (r) {
          var target = d.base_run !== null && d.base_run !== undefined
            ? route("compare", { run: d.base_run, run_b: cur, a: r.strategy, b: r.strategy, dataset: r.dataset, conversation: r.conversation_id, probe: r.probe_id })
            : route("probe", { run: cur, dataset: r.dataset, conversation: r.conversation_id, probe: r.probe_id, strategy: r.strategy });
          add(tb, h("tr", { "class": "click", "data-probe": r.probe_id, onclick: function () { location.hash = target; } },
            h("td", null, r.strategy), h("td", null, h("a", { href: target }, r.probe_id), h("div", { "class": "muted small" }, r.dataset + " / " + r.conversation_id)),
            h("td", { "class": "q" }, r.question),
            h("td", null, r.worse.map(function (c) { return chip("✗ " + c, "miss"); }), r.better.map(function (c) { return chip("✓ " + c, "hit"); })),
            h("td", { "class": "q" }, r.old_answer), h("td", { "class": "q" }, r.new_answer), d.baseline ? h("td", { "class": "q" }, r.old_excerpt) : null));
        });
        add(main, h("div", { "class": "scroll" }, h("table", null, h("thead", null, h("tr", null,
          ["strategy", "probe", "question", "flipped", "base answer", "this run's answer"].concat(d.baseline ? ["base context (excerpt)"] : []).map(function (t) { return h("th", null, t); }))), tb)),
          pager("flips", p, d));
        done();
        return null;
      });
    });
  }

  // ---- router -----------------------------------------------------------------------------------
  var VIEWS = { runs: viewRuns, probes: viewProbes, probe: viewProbe, compare: viewCompare, timeline: viewTimeline, flips: viewFlips };
  function render() {
    var hash = location.hash.replace(/^#\/?/, "") || "runs";
    var at = hash.indexOf("?");
    var view = at < 0 ? hash : hash.slice(0, at);
    var params = {};
    new URLSearchParams(at < 0 ? "" : hash.slice(at + 1)).forEach(function (v, k) { params[k] = v; });
    if (!VIEWS[view]) { view = "runs"; }
    document.body.setAttribute("data-ready", "0");
    document.body.setAttribute("data-view", view);
    document.body.removeAttribute("data-error");
    (state.runs ? Promise.resolve() : runs()).then(function () {
      nav(view, params);
      return VIEWS[view](params);
    }).catch(fail);
  }
  window.addEventListener("hashchange", function () { state.runs = null; render(); });
  render();
})();
