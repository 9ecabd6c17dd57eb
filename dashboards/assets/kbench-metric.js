// A metric's page: its history drawn by dygraphs from the data kbench wrote
// into the page (#kbench-data): dates on the x axis, one line per host or
// machine class with its 95% CI, change points marked with their percent,
// kernel releases marked where they change; drag to zoom, hover for values.
(function () {
  'use strict';
  var d = JSON.parse(document.getElementById('kbench-data').textContent);
  var chart = document.getElementById('chart');

  // The value in units that read, as kbench's C side writes them (units.c).
  function num(v) {
    var big = ['', 'k', 'M', 'G', 'T'], k = 0, a = Math.abs(v);
    if (!isFinite(v)) return '-';
    if (a !== 0 && a < 0.001) return v.toFixed(6);
    while (k < 4 && Math.abs(v) >= 999.5) { v /= 1000; k++; }
    return String(Number(v.toPrecision(3))) + big[k];
  }
  function human(v, unit) {
    var t = /^(ns|usecs|us|µs|ms|s)(\/.*)?$/.exec(unit);
    if (t) {
      var ns = v * { ns: 1, usecs: 1e3, us: 1e3, 'µs': 1e3, ms: 1e6, s: 1e9 }[t[1]];
      var steps = [['s', 1e9], ['ms', 1e6], ['µs', 1e3], ['ns', 1]], i = 0;
      while (i < 3 && Math.abs(ns) < steps[i][1] * 0.9995) i++;
      return num(ns / steps[i][1]) + ' ' + steps[i][0] + (t[2] || '');
    }
    var b = /^([kMG]?)bit\/s$/.exec(unit);
    if (b) {
      var bits = v * Math.pow(1000, 'kMG'.indexOf(b[1]) + 1 || 0), p = ['', 'k', 'M', 'G'], j = 0;
      while (j < 3 && Math.abs(bits) >= 999.5) { bits /= 1000; j++; }
      return String(Number(bits.toPrecision(3))) + ' ' + p[j] + 'bit/s';
    }
    var n = num(v);
    if (/\/s$/.test(unit) && /[kMGT]$/.test(n)) return n.slice(0, -1) + ' ' + n.slice(-1) + unit;
    return n + (unit ? ' ' + unit : '');
  }
  window.kbenchHuman = human;
  if (typeof Dygraph === 'undefined') {
    chart.textContent = 'The chart needs dygraph.min.js beside this page (Debian: libjs-dygraphs).';
    return;
  }
  var rows = d.rows.map(function (r) { return [new Date(r[0])].concat(r.slice(1)); });
  var g = new Dygraph(chart, rows, {
    labels: ['date'].concat(d.groups),
    customBars: true,
    connectSeparatedPoints: true,
    drawPoints: true,
    pointSize: 2.5,
    highlightCircleSize: 4,
    labelsDiv: 'legend',
    labelsSeparateLines: false,
    legend: 'always',
    showRangeSelector: rows.length > 20,
    axes: {
      y: {
        valueFormatter: function (v) { return human(v, d.unit); },
        axisLabelFormatter: function (v) { return human(v, d.unit); },
        axisLabelWidth: 80
      }
    },
    underlayCallback: function (ctx, area, graph) {
      ctx.save();
      ctx.strokeStyle = '#999';
      ctx.fillStyle = '#666';
      ctx.setLineDash([3, 3]);
      ctx.font = '10px sans-serif';
      d.kernels.forEach(function (k) {
        var x = graph.toDomXCoord(Date.parse(k.x));
        if (x < area.x || x > area.x + area.w) return;
        ctx.beginPath();
        ctx.moveTo(x, area.y);
        ctx.lineTo(x, area.y + area.h);
        ctx.stroke();
        ctx.fillText(k.kernel, x + 2, area.y + 10);
      });
      ctx.restore();
    }
  });
  g.ready(function () {
    g.setAnnotations(d.changes.map(function (c) {
      return {
        series: d.groups[c.group],
        x: Date.parse(c.x),
        shortText: (c.pct > 0 ? '+' : '') + c.pct.toFixed(1) + '%',
        text: (c.regression ? 'regression ' : 'improvement ') + (c.pct > 0 ? '+' : '') +
          c.pct.toFixed(1) + '% from this run (kernel ' + c.kernel + ')',
        width: 48,
        cssClass: c.regression ? 'regression' : 'improvement'
      };
    }));
  });
  window.kbenchChart = g;
})();
