/**
 * The live dashboard page: the same uPlot charts as report.html, fed once a second by the
 * run's server-sent events (`/events`). Self-contained: scripts inlined and allowed by hash,
 * no request but its own feed and, at the end, the report it links to.
 */
import type { HtmlAssets } from './html.js';
import { inlineSafe, scriptHash } from './html-inline.js';
import { esc, pageHead } from './html-parts.js';

const CSS = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#fafafa;color:#1d1d1f}
main{max-width:1100px;margin:0 auto;padding:16px}
h1{font-size:20px;margin:0 0 4px}
.meta{color:#555;margin:0 0 12px}
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:8px;margin:12px 0}
.fig{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px}
.fig b{display:block;font-size:18px}
.fig span{color:#666;font-size:12px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:12px}
.chart{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px}
.chart h2{font-size:14px;margin:0 0 6px}
#verdict{font-weight:600;padding:8px;border-radius:6px;margin:8px 0;display:none}
#verdict.PASS{display:block;background:#e7f6ea;color:#14622b}
#verdict.FAIL,#verdict.ABORTED{display:block;background:#fdecea;color:#8a1c14}
#verdict.INTERRUPTED{display:block;background:#fff4e0;color:#7a4b00}
.tables{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:12px;margin:12px 0}
.box{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px;display:none}
.box h2{font-size:14px;margin:0 0 6px}
.box h2 small{color:#666;font-weight:normal}
table{border-collapse:collapse;width:100%}
th,td{text-align:right;padding:2px 6px;border-bottom:1px solid #eee;font-variant-numeric:tabular-nums}
th:first-child,td:first-child{text-align:left;overflow-wrap:anywhere}
td.pass{color:#14622b;font-weight:600}
td.fail{color:#8a1c14;font-weight:600}
th small{display:block;color:#666;font-weight:normal;font-size:11px}
.fg-idle .u-legend .u-value,.fg-idle .u-legend .u-series:first-child{display:none}
.fg-idle .u-inline.u-live th::after{content:none}
`;

// Runs in the page. Plain ES2019, no modules: it only reads the feed and draws. Text from the
// feed (operation, threshold and check names) is set as text, never as markup.
const SCRIPT = `
(function () {
  var el = function (id) { return document.getElementById(id); };
  var fmt = function (v, d) { return v === null || v === undefined ? '–' : Number(v).toFixed(d); };
  // A share as a percentage: 100 % when whole, else three decimals (99.333 %), as the banner says it.
  var pct = function (v) { return v === null || v === undefined ? '–' : v === 1 ? '100 %' : (v * 100).toFixed(3) + ' %'; };
  var ms = function (v) { return v === null || v === undefined ? '–' : fmt(v, v < 10 ? 2 : 1) + ' ms'; };
  var series = { t: [], rps: [], r429: [], p50: [], p99: [], tp50: [], tp99: [], av: [], avTotal: [], objective: [] };
  var objective = 0.999;
  var ticks = 0;
  var width = function () { return Math.max(320, Math.min(1040, (document.querySelector('.chart') || document.body).clientWidth - 20)); };
  // Availability ticks as percentages with as many decimals as their spacing needs (99.90 %, 99.95 %, 100.00 %).
  var pctTicks = function (u, splits) {
    var step = splits.length > 1 ? Math.abs(splits[1] - splits[0]) : 0.01;
    var d = step > 0 ? Math.min(4, Math.max(0, Math.ceil(-Math.log10(step * 100) - 1e-9))) : 2;
    return splits.map(function (v) { return v === null || v === undefined ? '' : (v * 100).toFixed(d) + ' %'; });
  };
  // A legend value: the figure under the cursor; nothing with no cursor on the chart (the legend
  // then names its series only), 'no data' where the series has none under it.
  var legendValue = function (show) {
    return function (u, v, si, idx) { return v !== null && v !== undefined ? show(v) : idx === null || idx === undefined ? '' : 'no data'; };
  };
  var idle = function (u) { u.root.classList.toggle('fg-idle', u.legend.idx === null || u.legend.idx === undefined); };
  // dashed: series drawn dashed over the one before them, which would hide it where they agree.
  var mk = function (id, label, names, colors, percent, dashed) {
    var s = [{ label: 'seconds since start', value: legendValue(function (v) { return fmt(v, 0) + ' s'; }) }];
    names.forEach(function (n, i) {
      var o = { label: n, stroke: colors[i], width: 2, value: legendValue(percent ? pct : function (v) { return fmt(v, v < 10 ? 2 : 1); }) };
      if (dashed && dashed.indexOf(n) >= 0) o.dash = [7, 5];
      s.push(o);
    });
    var y = { label: label, size: percent ? 78 : 60 };
    if (percent) y.values = pctTicks;
    var plot = new uPlot({ width: width(), height: 220, series: s, axes: [{}, y], scales: { x: { time: false } }, hooks: { setLegend: [idle] } }, [[]], el(id));
    idle(plot);
    return plot;
  };
  var charts = {
    rate: mk('c-rate', 'per second', ['requests/s', '429/s'], ['#2563eb', '#dc2626'], false),
    latency: mk('c-latency', 'ms', ['p50', 'p99', 'TTFT p50', 'TTFT p99'], ['#059669', '#b45309', '#7c3aed', '#db2777'], false),
    availability: mk('c-availability', 'availability', ['last second', 'run so far', 'objective'], ['#2563eb', '#059669', '#6b7280'], true, ['run so far'])
  };
  var draw = function () {
    charts.rate.setData([series.t, series.rps, series.r429]);
    charts.latency.setData([series.t, series.p50, series.p99, series.tp50, series.tp99]);
    charts.availability.setData([series.t, series.av, series.avTotal, series.objective]);
  };
  // Replaces a table's body with rows of cells; a cell is text, or [text, class].
  var fill = function (id, rows) {
    var body = el(id).tBodies[0];
    while (body.firstChild) body.removeChild(body.firstChild);
    rows.forEach(function (cells) {
      var tr = document.createElement('tr');
      cells.forEach(function (c) {
        var td = document.createElement('td');
        if (Array.isArray(c)) { td.textContent = c[0]; td.className = c[1]; } else td.textContent = c;
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    el(id).parentNode.style.display = rows.length > 0 ? 'block' : 'none';
  };
  // Each column says what it counts: the counts are the run's so far, the latency the last
  // second's while the run goes and the whole run's once the report is in.
  var opsHead = function (final) {
    var span = final ? 'whole run' : 'last second';
    var heads = el('ops').tHead.rows[0].cells;
    for (var i = 1; i < heads.length; i++) heads[i].lastChild.textContent = i <= 3 ? (final ? 'whole run' : 'run so far') : span;
    el('ops-when').textContent = final ? 'counts and latency of the whole run' : 'counts of the run so far, latency of the last second';
  };
  var tables = function (m, final) {
    fill('ops', m.ops.map(function (o) { return [o.op, String(o.requests), String(o.bad), String(o.r429), ms(o.p50Ms), ms(o.p99Ms)]; }));
    opsHead(final);
    if (m.thresholds !== undefined) {
      fill('thresholds', m.thresholds.map(function (t) { return [t.key, t.limit, t.observed, t.passed ? ['pass', 'pass'] : ['FAIL', 'fail']]; }));
      el('thresholds-when').textContent = final ? 'as the report judged them' : 'on the figures so far';
    }
    fill('checks', m.checks.map(function (c) {
      var all = c.passes + c.fails;
      return [c.name, String(c.passes), c.fails > 0 ? [String(c.fails), 'fail'] : String(c.fails), all === 0 ? '–' : pct(c.passes / all)];
    }));
    if (m.iterations !== null && m.iterations !== undefined) el('iterations').textContent = m.iterations.ended + ' (' + m.iterations.failed + ' failed)';
  };
  // For scripts that drive the page (the browser test): the axis formatter and the one in use.
  window.flowgaugeDashboard = { percentTicks: pctTicks, availabilityAxisTicks: function () { return charts.availability.axes[1].values; } };
  var source = new EventSource('/events');
  source.onmessage = function (e) {
    var m = JSON.parse(e.data);
    if (m.type === 'start') {
      objective = m.objective;
      el('scenarios').textContent = m.scenarios.join(', ');
      el('objective').textContent = pct(m.objective);
      return;
    }
    if (m.type === 'tick') {
      ticks++;
      series.t.push(m.t); series.rps.push(m.rps); series.r429.push(m.r429);
      series.p50.push(m.p50Ms); series.p99.push(m.p99Ms); series.tp50.push(m.ttftP50Ms); series.tp99.push(m.ttftP99Ms);
      series.av.push(m.availability); series.avTotal.push(m.availabilityTotal); series.objective.push(objective);
      el('elapsed').textContent = fmt(m.t, 0) + ' / ' + fmt(m.totalS, 0) + ' s';
      el('rps').textContent = fmt(m.rps, 1);
      el('p99').textContent = ms(m.p99Ms);
      el('ttft').textContent = ms(m.ttftP50Ms);
      el('availability').textContent = pct(m.availabilityTotal);
      el('inflight').textContent = String(m.inFlight);
      el('started').textContent = String(m.started) + (m.dropped > 0 ? ' (' + m.dropped + ' dropped)' : '');
      el('iterations').textContent = m.iterations === null ? '–' : m.iterations.ended + ' (' + m.iterations.failed + ' failed)';
      el('ticks').textContent = String(ticks);
      if (m.ops) tables(m, false);
      draw();
      return;
    }
    if (m.type === 'end') {
      // The report's figures replace the last tick's: what the page shows last is what the report says.
      var v = el('verdict');
      v.className = m.verdict;
      v.textContent = m.verdict + ' · ' + m.requests + ' requests · availability ' + pct(m.availability);
      el('availability').textContent = pct(m.availability);
      if (m.durationS !== undefined) el('elapsed').textContent = fmt(m.durationS, 1) + ' s (ended)';
      el('inflight').textContent = '0';
      if (m.started !== undefined) el('started').textContent = String(m.started) + (m.dropped > 0 ? ' (' + m.dropped + ' dropped)' : '');
      if (m.ops) tables(m, true);
      el('report').style.display = 'inline';
      source.close();
    }
  };
  window.addEventListener('resize', function () { Object.keys(charts).forEach(function (k) { charts[k].setSize({ width: width(), height: 220 }); }); });
})();
`;

const FIGURES: readonly (readonly [string, string])[] = [
  ['elapsed', 'elapsed'],
  ['rps', 'requests/s (last second)'],
  ['p99', 'latency p99 (last second)'],
  ['ttft', 'TTFT p50 (last second)'],
  ['availability', 'availability (run)'],
  ['objective', 'objective'],
  ['inflight', 'in flight'],
  ['started', 'started'],
  ['iterations', 'iterations'],
  ['ticks', 'updates'],
];

/** A column head: its name, and below it (small) what it covers when that changes during the run. */
type Head = string | readonly [string, string];

/** A table the feed fills (hidden until it has rows). */
const box = (id: string, title: string, whenId: string | undefined, head: readonly Head[]): string =>
  `<div class="box"><h2>${esc(title)}${whenId === undefined ? '' : ` <small id="${whenId}"></small>`}</h2><table id="${id}"><thead><tr>${head
    .map((h) => (typeof h === 'string' ? `<th>${esc(h)}</th>` : `<th>${esc(h[0])}<small>${esc(h[1])}</small></th>`))
    .join('')}</tr></thead><tbody></tbody></table></div>`;

/** The dashboard page of a run named `name`. */
export function renderDashboardPage(name: string, assets: HtmlAssets): string {
  const uplot = inlineSafe(assets.uplotJs, 'script');
  const script = inlineSafe(SCRIPT, 'script');
  const csp = ["default-src 'none'", `script-src ${scriptHash(uplot)} ${scriptHash(script)}`, "style-src 'unsafe-inline'", "connect-src 'self'", "base-uri 'none'", "form-action 'none'"].join('; ');
  return [
    ...pageHead({ csp, title: `flowgauge live: ${name}`, css: inlineSafe(`${assets.uplotCss}\n${CSS}`, 'style') }),
    `<h1>flowgauge live: ${esc(name)}</h1>`,
    '<p class="meta">scenarios: <span id="scenarios">–</span> · updated every second from the run itself · <a id="report" href="/report" style="display:none">final report</a></p>',
    '<div id="verdict"></div>',
    `<div class="figures">${FIGURES.map(([id, label]) => `<div class="fig"><b id="${id}">–</b><span>${esc(label)}</span></div>`).join('')}</div>`,
    '<div class="tables">',
    box('ops', 'Operations', 'ops-when', ['operation', ['requests', 'run so far'], ['bad', 'run so far'], ['429', 'run so far'], ['p50', 'last second'], ['p99', 'last second']]),
    box('thresholds', 'Thresholds', 'thresholds-when', ['threshold', 'limit', 'observed', 'result']),
    box('checks', 'Checks', undefined, ['check', 'passed', 'failed', 'pass rate']),
    '</div>',
    '<div class="charts">',
    '<div class="chart"><h2>Rate and 429s</h2><div id="c-rate"></div></div>',
    '<div class="chart"><h2>Latency and time to first token</h2><div id="c-latency"></div></div>',
    '<div class="chart"><h2>Availability against the objective</h2><div id="c-availability"></div></div>',
    '</div>',
    '</main>',
    `<script>${uplot}</script>`,
    `<script>${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
