/**
 * The stylesheet and the in-page script of report.html, as strings. The script reads the chart
 * data embedded as JSON (`#fg-chart-data`), draws every chart with uPlot (inlined next to it),
 * keeps them sized to their boxes, and lists what it drew in `window.__flowgaugeCharts` so a
 * browser test can check each chart has data. Plain ES2017, no imports, no network.
 */

/** The page's stylesheet: light, readable, print-friendly. */
export const REPORT_CSS = `
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #ffffff; --panel: #f6f8fa;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #cf222e; --fail-bg: #ffebe9; --warn-bg: #fff8c5; --accent: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 8px; }
code { font: 12.5px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--panel);
  padding: 1px 5px; border-radius: 4px; }
.meta { color: var(--muted); margin: 0 0 16px; }
nav { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 13px; margin: 8px 0 0; }
nav a { color: var(--accent); text-decoration: none; }
.verdict { display: flex; align-items: center; gap: 20px; padding: 16px 20px; border-radius: 8px; margin: 18px 0 8px;
  border: 1px solid; }
.verdict.pass { background: var(--pass-bg); border-color: #aceebb; }
.verdict.fail { background: var(--fail-bg); border-color: #ffcecb; }
.verdict .word { font-size: 30px; font-weight: 700; letter-spacing: 0.04em; }
.verdict.pass .word { color: var(--pass); }
.verdict.fail .word { color: var(--fail); }
.verdict p { margin: 2px 0; }
.note { background: var(--warn-bg); border: 1px solid #f2e2a0; padding: 8px 12px; border-radius: 6px; }
table { border-collapse: collapse; width: 100%; margin: 8px 0 4px; font-size: 13px; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; white-space: nowrap; }
tbody tr:nth-child(even) td { background: #fbfcfd; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.badge.pass { color: var(--pass); background: var(--pass-bg); }
.badge.fail { color: var(--fail); background: var(--fail-bg); }
.bar { display: inline-block; width: 120px; height: 8px; background: var(--panel); border-radius: 4px;
  vertical-align: middle; overflow: hidden; border: 1px solid var(--line); }
.bar > span { display: block; height: 100%; background: #8c959f; }
.bar.bad > span { background: var(--fail); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; margin: 8px 0; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(440px, 1fr)); gap: 16px; }
.charts.wide { grid-template-columns: 1fr; }
.chart { margin: 0; padding: 10px 12px 6px; border: 1px solid var(--line); border-radius: 8px; background: var(--bg);
  min-width: 0; }
.chart figcaption { font-weight: 600; margin-bottom: 4px; }
.chart .plot { width: 100%; min-height: 240px; }
.caption { color: var(--muted); font-size: 12px; margin: 4px 0 0; }
.empty { color: var(--muted); font-style: italic; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
.u-legend { font-size: 12px; }
/* With no cursor on a chart its legend names the series, with no value waiting for one. */
.fg-idle .u-legend .u-value, .fg-idle .u-legend .u-series:first-child { display: none; }
.fg-idle .u-inline.u-live th::after { content: none; }
@media print { .chart { break-inside: avoid; } nav { display: none; } }
`;

/** The page's script. */
export const CLIENT_SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('fg-chart-data').textContent);
  var COLORS = { p50: '#2da44e', p90: '#bf8700', p99: '#cf222e', req: '#0969da', r429: '#cf222e', limit: '#6e7781',
    ttft: '#8250df', itl: '#0969da', budget: '#cf222e', full: '#6e7781' };
  // Percentiles drawn in order over each other: p99 dashed, so where p90 equals it (few requests in
  // a slice) p90 shows between its dashes instead of vanishing under it, and p50 wider, so it
  // shows on both sides of the others where they all agree.
  var PERCENTILES = [{ label: 'p50', color: COLORS.p50, width: 4.5 }, { label: 'p90', color: COLORS.p90, width: 2 },
    { label: 'p99', color: COLORS.p99, width: 2, dash: [7, 5] }];
  var HEIGHT = 240;
  var drawn = [];
  var plots = [];

  function fmtNum(v, unit) {
    if (v == null) return '—';
    if (v === 0) return '0' + (unit || '');
    var a = Math.abs(v);
    var s = a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : v.toFixed(3);
    return s + (unit || '');
  }
  function nonNull(arr) {
    var n = 0;
    for (var i = 0; i < arr.length; i++) if (arr[i] != null) n++;
    return n;
  }
  function ninesLabel(n) {
    var p = 100 * (1 - Math.pow(10, -n));
    var digits = Math.max(0, Math.ceil(n - 1e-9) - 2);
    return p.toFixed(digits) + '%';
  }

  // Shades the last point's part of the time axis when the schedule ended inside it, and says so.
  function partialHook(p) {
    return function (u) {
      var ctx = u.ctx;
      var x0 = u.valToPos(p.fromS, 'x', true);
      var x1 = u.valToPos(p.toS, 'x', true);
      var top = u.bbox.top;
      ctx.save();
      ctx.fillStyle = 'rgba(110, 119, 129, 0.14)';
      ctx.fillRect(Math.min(x0, x1), top, Math.max(2, Math.abs(x1 - x0)), u.bbox.height);
      var text = 'last ' + fmtNum(p.toS - p.fromS, ' s') + ': partial';
      var tx = x1 - 4 * devicePixelRatio;
      var ty = top + 12 * devicePixelRatio;
      ctx.font = (11 * devicePixelRatio) + 'px sans-serif';
      ctx.textAlign = 'right';
      // A white halo keeps the label readable over a line.
      ctx.strokeStyle = '#ffffff';
      ctx.lineWidth = 3 * devicePixelRatio;
      ctx.strokeText(text, tx, ty);
      ctx.fillStyle = '#59636e';
      ctx.fillText(text, tx, ty);
      ctx.restore();
    };
  }

  function draw(id, series, columns, axes, extra) {
    var el = document.getElementById(id);
    if (!el) return;
    var hooks = {
      // No cursor on the chart: the legend shows names only (see .fg-idle), never a placeholder.
      setLegend: [function (u) { u.root.classList.toggle('fg-idle', u.legend.idx == null); }]
    };
    if (axes.partial) hooks.draw = [partialHook(axes.partial)];
    // uPlot copies option keys as given: an undefined key would replace its default.
    var xAxis = { label: axes.xLabel, labelSize: 18, stroke: '#59636e', grid: { stroke: '#eaeef2' } };
    if (axes.xValues) xAxis.values = axes.xValues;
    if (axes.xSplits) xAxis.splits = axes.xSplits;
    var opts = {
      width: Math.max(280, el.clientWidth),
      height: HEIGHT,
      // Values start at zero: a tail twice the median should look twice as high, not fill the box.
      scales: Object.assign({ x: { time: false }, y: { range: function (u, min, max) { return [0, max > 0 ? max * 1.08 : 1]; } } },
        extra && extra.scales),
      series: [{ label: axes.xLabel, value: function (u, v) { return v == null ? '' : axes.xValue ? axes.xValue(v) : fmtNum(v, ' s'); } }]
        .concat(series.map(function (s) {
          var o = { label: s.label, stroke: s.color, width: s.width || 1.6, spanGaps: false,
            value: function (u, v, si, idx) { return v != null ? fmtNum(v, axes.yUnit) : idx == null ? '' : 'no data'; } };
          if (s.dash) o.dash = s.dash;
          return o;
        })),
      axes: [
        xAxis,
        { label: axes.yLabel, labelSize: 18, size: 64, stroke: '#59636e', grid: { stroke: '#eaeef2' } }
      ],
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
      hooks: hooks
    };
    if (axes.partial) opts.scales.x = { time: false, range: [0, axes.partial.toS] };
    var plot = new uPlot(opts, columns, el);
    plot.root.classList.toggle('fg-idle', plot.legend.idx == null);
    plots.push({ plot: plot, el: el });
    drawn.push({
      id: id,
      canvas: el.querySelector('canvas') !== null,
      points: columns[0].length,
      partial: axes.partial || null,
      series: series.map(function (s, i) { return { label: s.label, color: s.color, width: s.width || 1.6, values: nonNull(columns[i + 1]) }; })
    });
  }

  data.latency.forEach(function (c) {
    draw('chart-latency-' + c.op, PERCENTILES, [c.t, c.p50, c.p90, c.p99],
      { xLabel: 'seconds since start', yLabel: 'latency (ms)', yUnit: ' ms', partial: data.partial });
  });

  data.distributions.forEach(function (d) {
    var maxX = d.x.length ? d.x[d.x.length - 1] : 1;
    draw('chart-dist-' + d.key.replace(/[^A-Za-z0-9]/g, '-'), [
      { label: d.label, color: d.key === 'stream.itl' ? COLORS.itl : COLORS.ttft, width: 2 }
    ], [d.x, d.y], {
      xLabel: 'percentile', yLabel: 'ms', yUnit: ' ms',
      xValue: ninesLabel,
      xValues: function (u, splits) { return splits.map(ninesLabel); },
      xSplits: function () { var out = []; for (var i = 0; i <= Math.floor(maxX); i++) out.push(i); return out; }
    }, { scales: { x: { time: false, range: [0, maxX] } } });
  });

  if (data.rate) {
    var r = data.rate;
    var series = [{ label: 'requests/s', color: COLORS.req }, { label: '429s/s', color: COLORS.r429 }];
    var cols = [r.t, r.requestsPerS, r.responses429PerS];
    if (r.limitPerS !== null) {
      series.push({ label: 'advertised limit (/s)', color: COLORS.limit, dash: [6, 4], width: 1.4 });
      cols.push(r.t.map(function () { return r.limitPerS; }));
    }
    draw('chart-rate', series, cols, { xLabel: 'seconds since start', yLabel: 'per second', yUnit: '/s', partial: data.partial },
      { scales: { y: { range: function (u, min, max) { return [0, Math.max(1, max * 1.1)]; } } } });
  }

  if (data.budget) {
    var b = data.budget;
    draw('chart-budget', [
      { label: 'budget consumed', color: COLORS.budget, width: 2 },
      { label: 'whole budget', color: COLORS.full, dash: [6, 4], width: 1.2 }
    ], [b.t, b.consumed.map(function (v) { return v * 100; }), b.t.map(function () { return 100; })],
      { xLabel: 'seconds since start', yLabel: '% of error budget', yUnit: '%' },
      { scales: { y: { range: function (u, min, max) { return [0, Math.max(110, max * 1.1)]; } } } });
  }

  var pending = 0;
  window.addEventListener('resize', function () {
    if (pending) cancelAnimationFrame(pending);
    pending = requestAnimationFrame(function () {
      plots.forEach(function (p) { p.plot.setSize({ width: Math.max(280, p.el.clientWidth), height: HEIGHT }); });
    });
  });
  window.__flowgaugeCharts = drawn;
})();
`;
