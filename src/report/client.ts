// The report page's own script (plain browser JavaScript, inlined after Chart.js). It reads the
// chart descriptions (chartSpec.ts) from a JSON script element and draws them. It loads nothing:
// no fonts, no images, no network.
//
// Kept free of backticks, "${" and backslashes so that it can live in a template literal.

export const CLIENT_JS = `
(function () {
  "use strict";
  var state = { expected: 0, rendered: 0, failed: [], charts: [] };
  window.blisReport = state;
  var el = document.getElementById("blis-report-charts");
  if (!el) return;
  var specs = JSON.parse(el.textContent || "[]");
  state.expected = specs.length;
  if (typeof Chart === "undefined") {
    console.error("blis report: the charting library did not load");
    return;
  }

  function trim(s) {
    return s.indexOf(".") >= 0 && s.indexOf("e") < 0 ? s.replace(/[.]?0+$/, "") : s;
  }
  function fmt(v) {
    if (v === null || v === undefined || typeof v !== "number") return String(v);
    if (!isFinite(v)) return String(v);
    var a = Math.abs(v);
    if (a >= 1e9) return trim((v / 1e9).toPrecision(3)) + "G";
    if (a >= 1e6) return trim((v / 1e6).toPrecision(3)) + "M";
    if (a >= 1e4) return trim((v / 1e3).toPrecision(3)) + "k";
    if (Number.isInteger(v)) return String(v);
    if (a >= 100) return v.toFixed(0);
    if (a === 0) return "0";
    return trim(v.toPrecision(3));
  }
  function pct(v) {
    var p = v * 100;
    return (Math.abs(p - Math.round(p)) < 1e-9 ? String(Math.round(p)) : trim(p.toPrecision(3))) + "%";
  }
  function withUnit(text, unit) {
    return unit ? text + " " + unit : text;
  }

  var css = getComputedStyle(document.documentElement);
  var ink = css.getPropertyValue("--ink").trim() || "#1f2328";
  var muted = css.getPropertyValue("--muted").trim() || "#59636e";
  var grid = css.getPropertyValue("--grid").trim() || "#e6e8eb";
  Chart.defaults.animation = false;
  Chart.defaults.color = muted;
  Chart.defaults.borderColor = grid;
  Chart.defaults.font.family = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
  Chart.defaults.font.size = 12;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.responsive = true;

  // Min/max whiskers over bars (seed spread).
  var whiskers = {
    id: "blisWhiskers",
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx;
      var horizontal = chart.options.indexAxis === "y";
      chart.data.datasets.forEach(function (ds, i) {
        if (!ds.blisWhiskers || !chart.isDatasetVisible(i)) return;
        var meta = chart.getDatasetMeta(i);
        var scale = chart.scales[horizontal ? meta.xAxisID : meta.yAxisID];
        ctx.save();
        ctx.strokeStyle = ink;
        ctx.lineWidth = 1.25;
        meta.data.forEach(function (bar, j) {
          var w = ds.blisWhiskers[j];
          if (!w) return;
          var a = scale.getPixelForValue(w[0]);
          var b = scale.getPixelForValue(w[1]);
          var size = horizontal ? bar.height : bar.width;
          var cap = Math.max(3, Math.min(8, (size || 10) * 0.3));
          ctx.beginPath();
          if (horizontal) {
            ctx.moveTo(a, bar.y); ctx.lineTo(b, bar.y);
            ctx.moveTo(a, bar.y - cap); ctx.lineTo(a, bar.y + cap);
            ctx.moveTo(b, bar.y - cap); ctx.lineTo(b, bar.y + cap);
          } else {
            ctx.moveTo(bar.x, a); ctx.lineTo(bar.x, b);
            ctx.moveTo(bar.x - cap, a); ctx.lineTo(bar.x + cap, a);
            ctx.moveTo(bar.x - cap, b); ctx.lineTo(bar.x + cap, b);
          }
          ctx.stroke();
        });
        ctx.restore();
      });
    }
  };

  // Text next to points (Pareto cells), skipping labels that would overlap one already drawn.
  var pointLabels = {
    id: "blisPointLabels",
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx;
      var area = chart.chartArea;
      var placed = [];
      ctx.save();
      ctx.font = "11px " + Chart.defaults.font.family;
      ctx.fillStyle = ink;
      ctx.textBaseline = "middle";
      chart.data.datasets.forEach(function (ds, i) {
        if (!ds.blisPointLabels || !chart.isDatasetVisible(i)) return;
        var meta = chart.getDatasetMeta(i);
        meta.data.forEach(function (pt, j) {
          var text = ds.blisPointLabels[j];
          if (!text) return;
          var w = ctx.measureText(text).width;
          var h = 13;
          var tries = [[8, -9], [8, 9], [-8 - w, -9], [-8 - w, 9], [-w / 2, -16], [-w / 2, 16]];
          for (var k = 0; k < tries.length; k++) {
            var x = pt.x + tries[k][0];
            var y = pt.y + tries[k][1];
            var box = { l: x - 1, r: x + w + 1, t: y - h / 2, b: y + h / 2 };
            if (box.l < area.left || box.r > area.right || box.t < area.top || box.b > area.bottom) continue;
            var clash = placed.some(function (o) { return !(box.r < o.l || box.l > o.r || box.b < o.t || box.t > o.b); });
            if (clash) continue;
            placed.push(box);
            ctx.fillText(text, x, y);
            break;
          }
        });
      });
      ctx.restore();
    }
  };

  // Dashed reference lines (ratio = 1, …).
  var refLines = {
    id: "blisRefLines",
    afterDraw: function (chart) {
      var lines = chart.options.plugins.blisRefLines && chart.options.plugins.blisRefLines.lines;
      if (!lines || !lines.length) return;
      var ctx = chart.ctx;
      var area = chart.chartArea;
      ctx.save();
      ctx.strokeStyle = ink;
      ctx.fillStyle = ink;
      ctx.setLineDash([5, 4]);
      ctx.lineWidth = 1;
      ctx.font = "11px " + Chart.defaults.font.family;
      lines.forEach(function (l) {
        var scale = chart.scales[l.axis];
        if (!scale) return;
        var p = scale.getPixelForValue(l.value);
        ctx.beginPath();
        if (l.axis === "x") {
          if (p < area.left || p > area.right) return;
          ctx.moveTo(p, area.top); ctx.lineTo(p, area.bottom);
          ctx.stroke();
          if (l.label) ctx.fillText(l.label, p + 4, area.top + 10);
        } else {
          if (p < area.top || p > area.bottom) return;
          ctx.moveTo(area.left, p); ctx.lineTo(area.right, p);
          ctx.stroke();
          if (l.label) ctx.fillText(l.label, area.right - ctx.measureText(l.label).width - 4, p - 5);
        }
      });
      ctx.restore();
    }
  };
  Chart.register(whiskers, pointLabels, refLines);

  function splitLabel(s) {
    if (typeof s !== "string" || s.length <= 18) return s;
    var p = s.indexOf(" (");
    if (p > 0) return [s.slice(0, p), s.slice(p + 1)];
    if (s.indexOf(",") > 0) return s.split(",");
    return s;
  }

  function axis(type, label, percent, unitMin, unitMax, stacked, isIndex, soft) {
    var a = {
      type: type,
      title: { display: !!label, text: label, color: ink, font: { weight: "600" } },
      grid: { color: grid },
      ticks: {},
      stacked: !!stacked
    };
    if (type === "linear" || type === "logarithmic") {
      a.ticks.callback = function (v) { return percent ? pct(v) : fmt(v); };
      a.ticks.maxTicksLimit = 9;
    } else {
      a.ticks.autoSkip = true;
      a.ticks.autoSkipPadding = 10;
      a.ticks.maxRotation = 0;
      a.grid.display = false;
    }
    if (type === "logarithmic") a.ticks.maxTicksLimit = 8;
    if (soft) {
      // Padded bounds: let the scale round them to tick values.
      if (unitMin !== undefined) a.suggestedMin = unitMin;
      if (unitMax !== undefined) a.suggestedMax = unitMax;
    } else {
      if (unitMin !== undefined) a.min = unitMin;
      if (unitMax !== undefined) a.max = unitMax;
      if (type !== "category") a.ticks.includeBounds = false;
    }
    if (isIndex && type === "linear") a.grid.display = true;
    return a;
  }

  function build(spec) {
    var isBar = spec.kind === "bar";
    var isScatter = spec.kind === "scatter";
    var datasets = spec.datasets.map(function (d) {
      var type = d.type || (isBar ? "bar" : isScatter ? "scatter" : "line");
      var ds = {
        type: type,
        label: d.label,
        borderColor: d.color,
        backgroundColor: d.fillColor || d.color,
        hidden: !!d.hidden,
        blisNoLegend: !!d.noLegend,
        blisNotes: d.notes || null,
        blisPointLabels: d.pointLabels || null,
        blisWhiskers: d.whiskers || null
      };
      if (d.order !== undefined) ds.order = d.order;
      if (d.rightAxis) ds.yAxisID = "y2";
      if (type === "bar") {
        ds.data = d.base === undefined ? d.y : d.y.map(function (v) { return v === null ? null : [d.base, v]; });
        ds.skipNull = true;
        ds.borderWidth = 0;
        ds.backgroundColor = d.fillColor || d.color;
        if (spec.stacked) {
          ds.stack = d.stack || "s";
          ds.barPercentage = 1.0;
          ds.categoryPercentage = 0.96;
        } else {
          ds.barPercentage = 0.9;
          ds.categoryPercentage = 0.8;
          ds.maxBarThickness = 56;
        }
      } else {
        var xs = d.x || spec.x || [];
        ds.data = d.y.map(function (y, i) { return { x: xs[i], y: y }; });
        ds.borderWidth = d.width !== undefined ? d.width : 1.5;
        if (d.dash) ds.borderDash = d.dash;
        ds.pointRadius = d.radius !== undefined ? d.radius : type === "scatter" ? 4 : 0;
        ds.pointHoverRadius = Math.max(ds.pointRadius + 2, 3);
        ds.pointHitRadius = 6;
        if (d.pointStyle) ds.pointStyle = d.pointStyle;
        if (type === "line") {
          ds.fill = false;
          ds.tension = 0;
          ds.spanGaps = false;
          ds.backgroundColor = d.color;
          ds.showLine = true;
        } else {
          ds.showLine = false;
          ds.borderWidth = d.width !== undefined ? d.width : 1.25;
        }
      }
      return ds;
    });

    var legendShown = spec.legend !== undefined ? spec.legend : datasets.filter(function (d) { return !d.blisNoLegend; }).length > 1;
    var horizontal = !!spec.horizontal;
    var xType = spec.xScale || (isBar ? "category" : "linear");
    var yType = spec.yScale || "linear";
    var scales;
    if (isBar && horizontal) {
      scales = {
        x: axis(yType, spec.yLabel, spec.yPercent, spec.yMin, spec.yMax, spec.stacked, false),
        y: axis("category", spec.xLabel, false, undefined, undefined, spec.stacked, true)
      };
    } else {
      scales = {
        x: axis(xType, spec.xLabel, spec.xPercent, spec.xMin, spec.xMax, spec.stacked, true, isScatter),
        y: axis(yType, spec.yLabel, spec.yPercent, spec.yMin, spec.yMax, spec.stacked, false, isScatter)
      };
    }
    var labels = spec.labels ? spec.labels.map(splitLabel) : undefined;
    if (spec.allLabels && isBar) {
      var cat = horizontal ? scales.y : scales.x;
      cat.ticks.autoSkip = (spec.labels || []).length > 40;
      cat.ticks.maxRotation = 60;
    }
    if (spec.yInteger) (isBar && horizontal ? scales.x : scales.y).ticks.precision = 0;
    if (spec.datasets.some(function (d) { return d.base !== undefined; })) (horizontal ? scales.x : scales.y).beginAtZero = false;
    if (spec.datasets.some(function (d) { return d.rightAxis; })) {
      scales.y2 = axis(yType, spec.y2Label || "", spec.yPercent, 0, undefined, false, false);
      scales.y2.position = "right";
      scales.y2.grid = { drawOnChartArea: false };
    }
    // Keep whiskers and reference lines inside the value axis.
    var valueAxis = isBar && horizontal ? scales.x : scales.y;
    if (isBar && valueAxis.max === undefined) {
      var top = -Infinity;
      spec.datasets.forEach(function (d) {
        (d.whiskers || []).forEach(function (w) { if (w && w[1] > top) top = w[1]; });
      });
      (spec.refLines || []).forEach(function (l) { if (l.value * 1.04 > top) top = l.value * 1.04; });
      if (isFinite(top)) valueAxis.suggestedMax = top;
    }

    function valueText(v, percent, unit) {
      if (v === null || v === undefined) return "n/a";
      return percent ? pct(v) : withUnit(fmt(v), unit);
    }
    var tooltip = {
      mode: spec.tooltip === "index" ? "index" : "nearest",
      intersect: isBar || isScatter,
      axis: isScatter ? "xy" : horizontal ? "y" : "x",
      callbacks: {
        title: function (items) {
          if (!items.length) return "";
          var it = items[0];
          if (isBar) {
            var l = it.label;
            return Array.isArray(l) ? l.join(",") : l;
          }
          if (isScatter) return "";
          return withUnit(spec.xLabel.replace(/ [(].*[)]$/, ""), "") + ": " + valueText(it.parsed.x, spec.xPercent, spec.xUnit);
        },
        label: function (it) {
          var ds = it.dataset;
          var lines;
          if (isScatter) {
            var name = ds.blisNotes && ds.blisNotes[it.dataIndex] ? ds.blisNotes[it.dataIndex] : ds.label;
            return [name, spec.xLabel + ": " + valueText(it.parsed.x, spec.xPercent, spec.xUnit), spec.yLabel + ": " + valueText(it.parsed.y, spec.yPercent, spec.yUnit)];
          }
          var v = horizontal ? it.parsed.x : it.parsed.y;
          lines = [ds.label + ": " + valueText(v, spec.yPercent, spec.yUnit)];
          if (ds.blisWhiskers && ds.blisWhiskers[it.dataIndex]) {
            var w = ds.blisWhiskers[it.dataIndex];
            lines.push("  seeds: min " + valueText(w[0], spec.yPercent, spec.yUnit) + ", max " + valueText(w[1], spec.yPercent, spec.yUnit));
          }
          if (ds.blisNotes && ds.blisNotes[it.dataIndex]) lines.push("  " + ds.blisNotes[it.dataIndex]);
          return lines;
        }
      }
    };
    return {
      type: isBar ? "bar" : isScatter ? "scatter" : "line",
      data: { labels: labels, datasets: datasets },
      options: {
        indexAxis: horizontal ? "y" : "x",
        parsing: isBar ? undefined : false,
        normalized: !isBar && !isScatter,
        interaction: { mode: tooltip.mode, intersect: tooltip.intersect, axis: tooltip.axis },
        scales: scales,
        plugins: {
          legend: {
            display: legendShown,
            position: "top",
            align: "start",
            labels: {
              boxWidth: 14,
              boxHeight: 8,
              padding: 10,
              color: ink,
              filter: function (item, data) { return !data.datasets[item.datasetIndex].blisNoLegend; }
            }
          },
          tooltip: tooltip,
          blisRefLines: { lines: spec.refLines || [] }
        }
      }
    };
  }

  specs.forEach(function (spec) {
    var canvas = document.getElementById("chart-" + spec.id);
    if (!canvas) {
      state.failed.push(spec.id);
      console.error("blis report: no canvas for chart " + spec.id);
      return;
    }
    try {
      var chart = new Chart(canvas, build(spec));
      state.charts.push(chart);
      state.rendered++;
    } catch (e) {
      state.failed.push(spec.id);
      console.error("blis report: chart " + spec.id + " failed: " + (e && e.message ? e.message : e));
    }
  });

  // Printing: draw at a fixed page width and a higher pixel ratio, then restore.
  var printing = false;
  function beforePrint() {
    if (printing) return;
    printing = true;
    state.charts.forEach(function (c) {
      c.options.devicePixelRatio = 2;
      c.resize(680, c.canvas.parentNode.clientHeight || 280);
    });
  }
  function afterPrint() {
    if (!printing) return;
    printing = false;
    state.charts.forEach(function (c) {
      c.options.devicePixelRatio = undefined;
      c.resize();
    });
  }
  window.addEventListener("beforeprint", beforePrint);
  window.addEventListener("afterprint", afterPrint);
  if (window.matchMedia) {
    var mq = window.matchMedia("print");
    if (mq.addEventListener) mq.addEventListener("change", function (e) { if (e.matches) beforePrint(); else afterPrint(); });
  }
})();
`;
