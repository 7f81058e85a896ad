/**
 * The live dashboard page: the same uPlot charts as report.html, fed once a second by the
 * run's server-sent events (`/events`). Self-contained: scripts inlined and allowed by hash,
 * no request but its own feed and, at the end, the report it links to.
 */
import type { HtmlAssets } from './html.js';
import { inlineSafe, scriptHash } from './html-inline.js';
import { esc } from './html-parts.js';

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
`;

// Runs in the page. Plain ES2019, no modules: it only reads the feed and draws.
const SCRIPT = `
(function () {
  var el = function (id) { return document.getElementById(id); };
  var fmt = function (v, d) { return v === null || v === undefined ? '–' : Number(v).toFixed(d); };
  var series = { t: [], rps: [], r429: [], p50: [], p99: [], tp50: [], tp99: [], av: [], avTotal: [], objective: [] };
  var objective = 0.999;
  var ticks = 0;
  var width = function () { return Math.max(320, Math.min(1040, (document.querySelector('.chart') || document.body).clientWidth - 20)); };
  var axes = function (label) { return [{}, { label: label }]; };
  var mk = function (id, label, names, colors) {
    var s = [{}];
    names.forEach(function (n, i) { s.push({ label: n, stroke: colors[i], width: 2 }); });
    return new uPlot({ width: width(), height: 220, series: s, axes: axes(label), scales: { x: { time: false } } }, [[]], el(id));
  };
  var charts = {
    rate: mk('c-rate', 'per second', ['requests/s', '429/s'], ['#2563eb', '#dc2626']),
    latency: mk('c-latency', 'ms', ['p50', 'p99', 'TTFT p50', 'TTFT p99'], ['#059669', '#b45309', '#7c3aed', '#db2777']),
    availability: mk('c-availability', 'availability', ['last second', 'run so far', 'objective'], ['#2563eb', '#059669', '#6b7280'])
  };
  var draw = function () {
    charts.rate.setData([series.t, series.rps, series.r429]);
    charts.latency.setData([series.t, series.p50, series.p99, series.tp50, series.tp99]);
    charts.availability.setData([series.t, series.av, series.avTotal, series.objective]);
  };
  var source = new EventSource('/events');
  source.onmessage = function (e) {
    var m = JSON.parse(e.data);
    if (m.type === 'start') {
      objective = m.objective;
      el('scenarios').textContent = m.scenarios.join(', ');
      el('objective').textContent = (m.objective * 100).toFixed(2) + ' %';
      return;
    }
    if (m.type === 'tick') {
      ticks++;
      series.t.push(m.t); series.rps.push(m.rps); series.r429.push(m.r429);
      series.p50.push(m.p50Ms); series.p99.push(m.p99Ms); series.tp50.push(m.ttftP50Ms); series.tp99.push(m.ttftP99Ms);
      series.av.push(m.availability); series.avTotal.push(m.availabilityTotal); series.objective.push(objective);
      el('elapsed').textContent = fmt(m.t, 0) + ' / ' + fmt(m.totalS, 0) + ' s';
      el('rps').textContent = fmt(m.rps, 1);
      el('p99').textContent = fmt(m.p99Ms, 1) + ' ms';
      el('ttft').textContent = m.ttftP50Ms === null ? '–' : fmt(m.ttftP50Ms, 1) + ' ms';
      el('availability').textContent = m.availabilityTotal === null ? '–' : fmt(m.availabilityTotal * 100, 3) + ' %';
      el('inflight').textContent = String(m.inFlight);
      el('started').textContent = String(m.started) + (m.dropped > 0 ? ' (' + m.dropped + ' dropped)' : '');
      el('iterations').textContent = m.iterations === null ? '–' : m.iterations.ended + ' (' + m.iterations.failed + ' failed)';
      el('ticks').textContent = String(ticks);
      draw();
      return;
    }
    if (m.type === 'end') {
      var v = el('verdict');
      v.className = m.verdict;
      v.textContent = m.verdict + ' · ' + m.requests + ' requests · availability ' + (m.availability === null ? '–' : (m.availability * 100).toFixed(3) + ' %');
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

/** The dashboard page of a run named `name`. */
export function renderDashboardPage(name: string, assets: HtmlAssets): string {
  const uplot = inlineSafe(assets.uplotJs, 'script');
  const script = inlineSafe(SCRIPT, 'script');
  const csp = ["default-src 'none'", `script-src ${scriptHash(uplot)} ${scriptHash(script)}`, "style-src 'unsafe-inline'", "connect-src 'self'", "base-uri 'none'", "form-action 'none'"].join('; ');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${esc(`flowgauge live: ${name}`)}</title>`,
    `<style>${inlineSafe(`${assets.uplotCss}\n${CSS}`, 'style')}</style>`,
    '</head>',
    '<body>',
    '<main>',
    `<h1>flowgauge live: ${esc(name)}</h1>`,
    '<p class="meta">scenarios: <span id="scenarios">–</span> · updated every second from the run itself · <a id="report" href="/report" style="display:none">final report</a></p>',
    '<div id="verdict"></div>',
    `<div class="figures">${FIGURES.map(([id, label]) => `<div class="fig"><b id="${id}">–</b><span>${esc(label)}</span></div>`).join('')}</div>`,
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
