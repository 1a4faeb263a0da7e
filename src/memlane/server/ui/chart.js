// The bi-temporal chart: valid time on x, transaction time on y (later is higher),
// one rectangle per stored version, and a draggable "as of" point.
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const DAY = 86400000;
  const W = 760, H = 300, M = { left: 86, right: 16, top: 16, bottom: 40 };

  function el(name, attrs, text) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function day(ms) { return new Date(ms).toISOString().slice(0, 10); }

  // The time domains: from the earliest instant to a margin past the latest one, so that
  // open ends ("until further notice") reach the edge and stay visibly open.
  function domains(versions) {
    const vs = [], ts = [];
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

  // Draw `versions` of one attribute into `host`; `asOf` is {valid, tx} in ms (clamped to
  // the domains); `onMove(valid, tx)` is called while the point is dragged.
  function render(host, versions, asOf, onMove) {
    host.textContent = "";
    const d = domains(versions);
    const x = (ms) => M.left + ((ms - d.valid[0]) / (d.valid[1] - d.valid[0])) * (W - M.left - M.right);
    // Transaction times cluster (corrections come days after months of quiet): give each
    // distinct one an equal band, interpolating linearly within a band.
    const stops = [...new Set(versions.map((f) => Date.parse(f.tx_from)).concat(
      versions.filter((f) => f.tx_to).map((f) => Date.parse(f.tx_to))))].sort((a, b) => a - b);
    if (stops[0] !== d.tx[0]) stops.unshift(d.tx[0]);
    stops.push(d.tx[1]);
    const band = (H - M.top - M.bottom) / (stops.length - 1);
    const y = (ms) => {
      let i = 0;
      while (i < stops.length - 2 && ms >= stops[i + 1]) i += 1;
      return H - M.bottom - (i + (ms - stops[i]) / (stops[i + 1] - stops[i])) * band;
    };
    const fromY = (py) => {
      const pos = Math.min(stops.length - 1, Math.max(0, (H - M.bottom - py) / band));
      const i = Math.min(stops.length - 2, Math.floor(pos));
      return stops[i] + (pos - i) * (stops[i + 1] - stops[i]);
    };
    const fromX = (px) => d.valid[0] + ((px - M.left) / (W - M.left - M.right)) * (d.valid[1] - d.valid[0]);
    const attribute = versions.length ? versions[0].attribute : "";
    const svg = el("svg", {
      class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img",
      "data-attribute": attribute,
      "aria-label": `Bi-temporal chart of ${attribute}: ${versions.length} stored versions`,
    });
    svg.appendChild(el("title", {}, `${attribute}: valid time (x) against transaction time (y)`));
    svg.appendChild(el("line", { class: "axis", x1: M.left, y1: H - M.bottom, x2: W - M.right, y2: H - M.bottom }));
    svg.appendChild(el("line", { class: "axis", x1: M.left, y1: M.top, x2: M.left, y2: H - M.bottom }));
    svg.appendChild(el("text", { x: W - M.right, y: H - 6, "text-anchor": "end" }, "valid time →"));
    svg.appendChild(el("text", { x: 4, y: M.top + 4 }, "↑ known"));
    const ticks = new Set();
    for (const f of versions) {
      ticks.add(Date.parse(f.valid_from));
      if (f.valid_to) ticks.add(Date.parse(f.valid_to));
    }
    for (const t of ticks) {
      svg.appendChild(el("text", { class: "tick", x: x(t), y: H - M.bottom + 14, "text-anchor": "middle" }, day(t).slice(5)));
    }
    const txTicks = new Set(versions.map((f) => Date.parse(f.tx_from)));
    for (const t of txTicks) {
      svg.appendChild(el("text", { class: "tick", x: M.left - 4, y: y(t) + 3, "text-anchor": "end" }, day(t)));
    }
    const group = el("g", { class: "versions" });
    for (const f of versions) {
      const x0 = x(Date.parse(f.valid_from)), x1 = x(f.valid_to ? Date.parse(f.valid_to) : d.valid[1]);
      const y0 = y(Date.parse(f.tx_from)), y1 = y(f.tx_to ? Date.parse(f.tx_to) : d.tx[1]);
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
    svg.appendChild(group);
    const px = x(asOf.valid), py = y(asOf.tx);
    const vline = el("line", { class: "cross", x1: px, y1: M.top, x2: px, y2: H - M.bottom });
    const hline = el("line", { class: "cross", x1: M.left, y1: py, x2: W - M.right, y2: py });
    const handle = el("circle", {
      class: "handle", cx: px, cy: py, r: 7, tabindex: "0", role: "slider",
      "aria-label": "As of: valid time and transaction time (arrow keys move by a day)",
      "aria-valuetext": `valid ${day(asOf.valid)}, known ${day(asOf.tx)}`,
    });
    handle.appendChild(el("title", {}, `as of: valid ${day(asOf.valid)}, known ${day(asOf.tx)}`));
    svg.append(vline, hline, handle);
    host.appendChild(svg);

    const clampV = (v) => Math.min(d.valid[1], Math.max(d.valid[0], v));
    const clampT = (t) => Math.min(d.tx[1], Math.max(d.tx[0], t));
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
    return { domains: d };
  }

  window.MemlaneChart = { render, domains, holds, DAY };
})();
