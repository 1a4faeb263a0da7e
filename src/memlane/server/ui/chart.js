// The bi-temporal chart: valid time on x, transaction time on y (later is higher),
// one rectangle per stored version, a "now" marker, and a draggable "as of" point.
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const DAY = 86400000;
  const H = 300, MIN_W = 360, M = { right: 16, top: 22, bottom: 40 };
  const CHAR = 6.2; // width of a tick label's character at 10px, for layout

  function el(name, attrs, text) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const isoOf = (ms) => new Date(ms).toISOString();
  function day(ms) { return isoOf(ms).slice(0, 10); }

  // The time domains: from the earliest instant (or now) to a margin past the latest one,
  // so that open ends ("until further notice") reach the edge and stay visibly open.
  function domains(versions, now) {
    const vs = [now], ts = [now];
    for (const f of versions) {
      vs.push(Date.parse(f.valid_from));
      if (f.valid_to) vs.push(Date.parse(f.valid_to));
      ts.push(Date.parse(f.tx_from));
      if (f.tx_to) ts.push(Date.parse(f.tx_to));
    }
    const span = (lo, hi) => {
      const start = Math.floor(lo / DAY) * DAY;
      const pad = Math.max(DAY * 7, (hi - start) * 0.2);
      return [start, Math.ceil((hi + pad) / DAY) * DAY];
    };
    return { valid: span(Math.min(...vs), Math.max(...vs)), tx: span(Math.min(...ts), Math.max(...ts)) };
  }

  // A scale maps an instant to a fraction of its axis (0 at the start, 1 at the end) and
  // back; `stops` are the instants where beliefs change, which sliders snap to.
  function linear([lo, hi], stops) {
    return {
      domain: [lo, hi], stops,
      at: (ms) => Math.min(1, Math.max(0, (ms - lo) / (hi - lo))),
      from: (u) => lo + Math.min(1, Math.max(0, u)) * (hi - lo),
    };
  }
  // Transaction times cluster (corrections come days after months of quiet): each distinct
  // one opens an equal band, interpolated linearly within the band.
  function banded([lo, hi], instants) {
    const inner = [...new Set(instants)].filter((t) => t > lo && t < hi).sort((a, b) => a - b);
    const edges = [lo, ...inner, hi];
    const bands = edges.length - 1;
    return {
      domain: [lo, hi], stops: edges.slice(0, -1),
      at: (ms) => {
        const t = Math.min(hi, Math.max(lo, ms));
        let i = 0;
        while (i < bands - 1 && t >= edges[i + 1]) i += 1;
        return (i + (t - edges[i]) / (edges[i + 1] - edges[i])) / bands;
      },
      from: (u) => {
        const pos = Math.min(bands, Math.max(0, u * bands));
        const i = Math.min(bands - 1, Math.floor(pos));
        return edges[i] + (pos - i) * (edges[i + 1] - edges[i]);
      },
    };
  }
  function scales(versions, now) {
    const d = domains(versions, now);
    const valid = [], tx = [];
    for (const f of versions) {
      valid.push(Date.parse(f.valid_from));
      if (f.valid_to) valid.push(Date.parse(f.valid_to));
      tx.push(Date.parse(f.tx_from));
      if (f.tx_to) tx.push(Date.parse(f.tx_to));
    }
    return { valid: linear(d.valid, [...new Set(valid)].sort((a, b) => a - b)), tx: banded(d.tx, tx) };
  }

  // The instant at fraction `u` of a scale, snapped to a stop within `tolerance` (a
  // fraction), else to the minute: a slider can land exactly on every change of belief.
  function snapped(scale, u, tolerance) {
    for (const stop of scale.stops) if (Math.abs(scale.at(stop) - u) <= tolerance) return stop;
    return Math.round(scale.from(u) / 60000) * 60000;
  }

  // Labels of transaction times: the date, plus the time of day (to the precision that
  // tells them apart) for instants that share their date with another one.
  function txLabels(instants) {
    const byDate = new Map();
    for (const t of new Set(instants)) {
      const date = day(t);
      if (!byDate.has(date)) byDate.set(date, []);
      byDate.get(date).push(t);
    }
    const labels = new Map();
    for (const [date, group] of byDate) {
      if (group.length === 1) { labels.set(group[0], date); continue; }
      const widths = [16, 19, 23]; // minutes, seconds, milliseconds of "YYYY-MM-DDTHH:MM:SS.mmm"
      const width = widths.find((w) => new Set(group.map((t) => isoOf(t).slice(0, w))).size === group.length) || 23;
      for (const t of group) labels.set(t, isoOf(t).slice(0, width).replace("T", " "));
    }
    return labels;
  }

  // Labels of valid-time ticks: the year on the first one and wherever the year changes.
  function validLabels(instants) {
    let year = null;
    return instants.map((t) => {
      const date = day(t);
      const label = date.slice(0, 4) === year ? date.slice(5) : date;
      year = date.slice(0, 4);
      return label;
    });
  }

  function describe(f) {
    const value = typeof f.value === "string" ? f.value : JSON.stringify(f.value);
    const lines = [
      `${f.attribute} = ${value}`,
      `valid [${f.valid_from}, ${f.valid_to || "∞"})`,
      `known [${f.tx_from}, ${f.tx_to || "now"})`,
      f.tx_to ? "superseded" : "current belief",
    ];
    if (f.reason) lines.push(`reason: ${f.reason}`);
    if (f.source) lines.push(`source: ${f.source}`);
    return lines.join("\n");
  }

  function holds(f, v, t) {
    const vf = Date.parse(f.valid_from), vt = f.valid_to ? Date.parse(f.valid_to) : Infinity;
    const tf = Date.parse(f.tx_from), tt = f.tx_to ? Date.parse(f.tx_to) : Infinity;
    return vf <= v && v < vt && tf <= t && t < tt;
  }

  // The plot's geometry for one chart `width` pixels wide.
  function layout(versions, now, width) {
    const s = scales(versions, now);
    const labels = txLabels(versions.map((f) => Date.parse(f.tx_from)));
    const longest = Math.max(8, ...[...labels.values()].map((l) => l.length));
    const left = Math.round(longest * CHAR + 12);
    const W = Math.max(MIN_W, Math.round(width));
    const x = (ms) => left + s.valid.at(ms) * (W - left - M.right);
    const y = (ms) => H - M.bottom - s.tx.at(ms) * (H - M.top - M.bottom);
    const fromX = (px) => s.valid.from((px - left) / (W - left - M.right));
    const fromY = (py) => s.tx.from((H - M.bottom - py) / (H - M.top - M.bottom));
    return { s, labels, left, W, x, y, fromX, fromY };
  }

  function axes(svg, versions, now, g) {
    const { left, W, x, y, labels } = g;
    svg.appendChild(el("line", { class: "axis", x1: left, y1: H - M.bottom, x2: W - M.right, y2: H - M.bottom }));
    svg.appendChild(el("line", { class: "axis", x1: left, y1: M.top, x2: left, y2: H - M.bottom }));
    svg.appendChild(el("text", { x: W - M.right, y: H - 6, "text-anchor": "end" }, "valid time (UTC) →"));
    svg.appendChild(el("text", { x: 4, y: 12 }, "↑ known"));
    const ticks = [...new Set(versions.flatMap((f) => [Date.parse(f.valid_from)].concat(f.valid_to ? [Date.parse(f.valid_to)] : [])))]
      .sort((a, b) => a - b);
    let edge = -Infinity;
    validLabels(ticks).forEach((label, i) => {
      const px = x(ticks[i]);
      if (px - (label.length * CHAR) / 2 < edge + 4) return; // would overlap the previous label
      edge = px + (label.length * CHAR) / 2;
      svg.appendChild(el("text", { class: "tick valid-tick", x: px, y: H - M.bottom + 16, "text-anchor": "middle" }, label));
    });
    for (const [t, label] of labels) {
      svg.appendChild(el("text", { class: "tick tx-tick", x: left - 4, y: y(t) + 3, "text-anchor": "end" }, label));
    }
    const nx = x(now);
    const marker = el("g", { class: "now", "data-now": isoOf(now) });
    marker.append(el("line", { x1: nx, y1: M.top, x2: nx, y2: H - M.bottom }),
      el("text", { x: nx, y: M.top - 6, "text-anchor": "middle" }, "now"),
      el("title", {}, `now: ${isoOf(now)}`));
    svg.appendChild(marker);
  }

  function rectangles(versions, asOf, g) {
    const { s, x, y } = g;
    const group = el("g", { class: "versions" });
    for (const f of versions) {
      const x0 = x(Date.parse(f.valid_from)), x1 = x(f.valid_to ? Date.parse(f.valid_to) : s.valid.domain[1]);
      const y0 = y(Date.parse(f.tx_from)), y1 = y(f.tx_to ? Date.parse(f.tx_to) : s.tx.domain[1]);
      const state = f.tx_to ? "superseded" : "current";
      const rect = el("rect", {
        class: `version ${state}`, "data-version-id": f.id,
        x: x0, y: y1, width: Math.max(1, x1 - x0), height: Math.max(1, y0 - y1), rx: 2,
      });
      if (holds(f, asOf.valid, asOf.tx)) rect.classList.add("believed");
      rect.appendChild(el("title", {}, describe(f)));
      group.appendChild(rect);
      const value = typeof f.value === "string" ? f.value : JSON.stringify(f.value);
      if (x1 - x0 > 24 && y0 - y1 > 14) {
        group.appendChild(el("text", { x: x0 + 4, y: y0 - 5, "pointer-events": "none" }, value));
      }
    }
    return group;
  }

  // Draw `versions` of one attribute into `host`, as wide as `host`; `asOf` is {valid, tx}
  // in ms; `now` the server's now; `onMove(valid, tx, keyboard)` is called when the point moves.
  function render(host, versions, asOf, now, onMove) {
    host.textContent = "";
    const g = layout(versions, now, host.clientWidth || 760);
    const { s, W, x, y, fromX, fromY } = g;
    const attribute = versions.length ? versions[0].attribute : "";
    const svg = el("svg", {
      class: "chart", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
      "data-attribute": attribute,
      "aria-label": `Bi-temporal chart of ${attribute}: ${versions.length} stored versions`,
    });
    svg.appendChild(el("title", {}, `${attribute}: valid time (x) against transaction time (y)`));
    axes(svg, versions, now, g);
    svg.appendChild(rectangles(versions, asOf, g));
    const px = x(asOf.valid), py = y(asOf.tx);
    const vline = el("line", { class: "cross", x1: px, y1: M.top, x2: px, y2: H - M.bottom });
    const hline = el("line", { class: "cross", x1: g.left, y1: py, x2: W - M.right, y2: py });
    const handle = el("circle", {
      class: "handle", cx: px, cy: py, r: 7, tabindex: "0", role: "slider",
      "aria-label": "As of: valid time and transaction time (arrow keys move by a day)",
      "aria-valuetext": `valid ${day(asOf.valid)}, known ${day(asOf.tx)}`,
    });
    handle.appendChild(el("title", {}, `as of: valid ${day(asOf.valid)}, known ${day(asOf.tx)}`));
    svg.append(vline, hline, handle);
    host.appendChild(svg);

    const clampV = (v) => Math.min(s.valid.domain[1], Math.max(s.valid.domain[0], v));
    const clampT = (t) => Math.min(s.tx.domain[1], Math.max(s.tx.domain[0], t));
    const point = (evt) => {
      const box = svg.getBoundingClientRect();
      const sx = ((evt.clientX - box.left) / box.width) * W, sy = ((evt.clientY - box.top) / box.height) * H;
      return [clampV(Math.round(fromX(sx) / DAY) * DAY), clampT(Math.round(fromY(sy) / DAY) * DAY)];
    };
    let dragging = false;
    handle.addEventListener("pointerdown", (evt) => { dragging = true; handle.setPointerCapture(evt.pointerId); });
    handle.addEventListener("pointermove", (evt) => {
      if (!dragging) return;
      const [v, t] = point(evt);
      handle.setAttribute("cx", x(v)); handle.setAttribute("cy", y(t));
      vline.setAttribute("x1", x(v)); vline.setAttribute("x2", x(v));
      hline.setAttribute("y1", y(t)); hline.setAttribute("y2", y(t));
    });
    handle.addEventListener("pointerup", (evt) => {
      if (!dragging) return;
      dragging = false;
      const [v, t] = point(evt);
      onMove(v, t);
    });
    handle.addEventListener("keydown", (evt) => {
      const moves = { ArrowLeft: [-DAY, 0], ArrowRight: [DAY, 0], ArrowUp: [0, DAY], ArrowDown: [0, -DAY] };
      const move = moves[evt.key];
      if (!move) return;
      evt.preventDefault();
      onMove(clampV(asOf.valid + move[0]), clampT(asOf.tx + move[1]), true);
    });
    return { scales: s };
  }

  window.MemlaneChart = { render, domains, scales, snapped, txLabels, validLabels, holds, DAY };
})();
