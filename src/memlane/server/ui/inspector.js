// The memlane inspector: a single page over the /v1 API, with the key in sessionStorage.
"use strict";
(function () {
  const KEY = "memlane.key";
  const THEME = "memlane.theme";
  const SECTIONS = ["topic", "facts", "open_items", "entities", "mood"];
  const view = () => document.getElementById("view");
  let me = null;

  // -- small DOM helpers (text always via textContent: memory content is never HTML) --
  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined) continue;
      node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return node;
  }
  function show(...nodes) { view().replaceChildren(...nodes.filter((n) => n !== null && n !== undefined)); }
  function status(text) { document.getElementById("status").textContent = text || ""; }
  function text(value) { return typeof value === "string" ? value : JSON.stringify(value); }

  // -- the API --
  class ApiFailure extends Error {
    constructor(status, body) {
      super((body && body.error && body.error.message) || `HTTP ${status}`);
      this.status = status;
    }
  }
  async function api(path, body) {
    const headers = { Authorization: `Bearer ${sessionStorage.getItem(KEY) || ""}` };
    const init = { headers };
    if (body !== undefined) {
      init.method = "POST";
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const data = await response.json().catch(() => null);
    if (!response.ok) throw new ApiFailure(response.status, data);
    return data;
  }
  function query(params) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== "") q.set(k, v);
    return q.toString();
  }
  function failure(err, what) {
    if (err instanceof ApiFailure && err.status === 403) {
      const role = me ? me.role : "this";
      return h("p", { class: "error", role: "alert", id: "denied" },
        `Access denied: the ${role} role may not open the ${what}. Ask for a key with a higher role.`);
    }
    if (err instanceof ApiFailure && err.status === 401) {
      logout();
      return h("p", { class: "error", role: "alert" }, "The key is no longer valid; log in again.");
    }
    if (err instanceof ApiFailure && err.status === 404) {
      return h("p", { class: "error", role: "alert" }, `Nothing found: ${err.message}`);
    }
    return h("p", { class: "error", role: "alert" }, `Error: ${err.message}`);
  }

  // -- theme --
  function applyTheme(theme) {
    if (theme) document.documentElement.setAttribute("data-theme", theme);
    else document.documentElement.removeAttribute("data-theme");
    const dark = theme ? theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
    document.getElementById("theme").setAttribute("aria-pressed", String(dark));
    document.getElementById("theme").textContent = dark ? "Light theme" : "Dark theme";
  }
  function toggleTheme() {
    const dark = document.getElementById("theme").getAttribute("aria-pressed") === "true";
    const next = dark ? "light" : "dark";
    localStorage.setItem(THEME, next);
    applyTheme(next);
  }

  // -- login --
  function logout() {
    sessionStorage.removeItem(KEY);
    me = null;
    document.getElementById("nav").hidden = true;
    document.getElementById("logout").hidden = true;
    document.getElementById("who").textContent = "";
  }
  function loginView(message) {
    const input = h("input", { id: "key", type: "password", autocomplete: "off", size: 50, required: true,
      "aria-describedby": "key-help" });
    const form = h("form", { id: "login", class: "panel", onsubmit: async (evt) => {
      evt.preventDefault();
      sessionStorage.setItem(KEY, input.value.trim());
      try { await identify(); location.hash = "#/"; route(); } catch (err) { logout(); loginView(err.message); }
    } },
      h("h2", {}, "Log in"),
      h("label", { for: "key" }, "API key "), input, " ", h("button", { type: "submit" }, "Log in"),
      h("p", { id: "key-help", class: "muted" },
        "Paste a key made with `memlane keys create`. It is kept in this tab only (sessionStorage)."),
      message ? h("p", { class: "error", role: "alert" }, message) : null);
    show(form);
    input.focus();
  }
  async function identify() {
    me = await api("/v1/whoami");
    const waiting = me.index.pending ? ` · ${me.index.pending} waiting to be embedded` : "";
    document.getElementById("who").textContent = `${me.tenant} · ${me.role} · key ${me.key_id}${waiting}`;
    document.getElementById("nav").hidden = false;
    document.getElementById("logout").hidden = false;
  }

  // -- subjects: a searchable, paginated directory, and lookup by identifier --
  const PAGE = 25;
  function searchView() {
    const q = h("input", { id: "subject-query", type: "search", required: true, autocomplete: "off",
      placeholder: "U-001 或 139-1111-2222", "aria-controls": "subject-list" });
    const attr = h("input", { id: "lookup-attribute", placeholder: "phone, email…" });
    const results = h("ul", { id: "results", "aria-live": "polite" });
    const form = h("form", { class: "panel row", id: "search", onsubmit: async (evt) => {
      evt.preventDefault();
      results.replaceChildren(h("li", { class: "muted" }, "Searching…"));
      const found = await findSubjects(q.value.trim(), attr.value.trim());
      results.replaceChildren(...(found.length
        ? found.map((s) => h("li", {}, subjectLink(s)))
        : [h("li", { class: "muted" }, "No subject with that id or identifier value.")]));
    } },
      h("label", {}, "Subject id, part of one, or identifier value", q),
      h("label", {}, "Identifier attribute (optional)", attr),
      h("button", { type: "submit" }, "Find"));
    const directory = subjectDirectory();
    let timer = null;
    q.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => directory.load(q.value.trim(), 0), 200);
    });
    show(h("h2", {}, "Subjects"), form, results, directory.section);
    directory.load("", 0);
    q.focus();
  }
  function subjectLink(subject) {
    return h("a", { href: `#/subject/${encodeURIComponent(subject)}` }, subject);
  }
  function subjectDirectory() {
    const list = h("ul", { id: "subject-list", class: "subjects" });
    const range = h("span", { id: "subject-range", class: "muted", "aria-live": "polite" });
    const prev = h("button", { type: "button", id: "subject-prev" }, "← Previous");
    const next = h("button", { type: "button", id: "subject-next" }, "Next →");
    const state = { filter: "", offset: 0 };
    async function load(filter, offset) {
      Object.assign(state, { filter, offset });
      let page;
      try {
        page = await api(`/v1/subjects?${query({ contains: filter, limit: PAGE, offset })}`);
      } catch (err) { list.replaceChildren(h("li", {}, failure(err, "subject list"))); return; }
      if (state.filter !== filter || state.offset !== offset) return; // a later load won
      list.replaceChildren(...(page.items.length ? page.items.map((s) => h("li", {}, subjectLink(s)))
        : [h("li", { class: "muted" }, filter ? `No subject contains “${filter}”.` : "No subjects yet.")]));
      range.textContent = page.total ? `${offset + 1}–${offset + page.items.length} of ${page.total}` : "";
      prev.disabled = offset === 0;
      next.disabled = offset + page.items.length >= page.total;
    }
    prev.addEventListener("click", () => load(state.filter, Math.max(0, state.offset - PAGE)));
    next.addEventListener("click", () => load(state.filter, state.offset + PAGE));
    const section = h("section", { id: "directory", "aria-labelledby": "directory-title" },
      h("h3", { id: "directory-title" }, "All subjects"), list,
      h("nav", { class: "pager", "aria-label": "Subject pages" }, prev, " ", range, " ", next));
    return { section, load };
  }
  async function findSubjects(value, attribute) {
    const found = new Set();
    try {
      await api(`/v1/facts/profile?${query({ subject: value })}`);
      found.add(value);
    } catch (err) { if (!(err instanceof ApiFailure) || err.status !== 404) throw err; }
    for (const a of attribute ? [attribute] : ["phone", "email"]) {
      try {
        const page = await api(`/v1/facts/lookup?${query({ attribute: a, value })}`);
        for (const s of page.items) found.add(s);
      } catch (err) { /* an attribute that is not an identifier here: nothing to find */ }
    }
    return [...found];
  }

  // -- subject page --
  const iso = (ms) => new Date(ms).toISOString().replace(".000Z", "Z");
  const serverNow = () => (me && Date.parse(me.now)) || Date.now();
  const STEPS = 1000; // slider resolution: a thousandth of the axis
  async function subjectView(subject) {
    show(h("h2", {}, `Subject ${subject}`), h("p", { class: "muted" }, "Loading…"));
    let versions, active, sessions;
    try {
      [versions, active, sessions] = await Promise.all([
        api(`/v1/facts/versions?${query({ subject, limit: 1000 })}`),
        api(`/v1/views/active?${query({ subject })}`),
        api(`/v1/summaries/sessions?${query({ subject })}`),
      ]);
    } catch (err) { show(h("h2", {}, `Subject ${subject}`), failure(err, "subject")); return; }
    const byAttribute = new Map();
    for (const f of versions.items) {
      if (!byAttribute.has(f.attribute)) byAttribute.set(f.attribute, []);
      byAttribute.get(f.attribute).push(f);
    }
    const now = serverNow();
    // The sliders use the scales of every version of the subject: the "Known at" slider
    // moves through the same transaction-time bands as the charts' y axes.
    const scale = MemlaneChart.scales(versions.items, now);
    const asOf = { valid: now, tx: now, now: true };
    const profile = h("table", { id: "profile" });
    const charts = h("div", { id: "charts" });
    const slider = (id, label) => h("input", { type: "range", id, min: 0, max: STEPS, step: 1, "aria-label": label });
    const validRange = slider("valid-range", "Valid time");
    const txRange = slider("known-range", "Known at (transaction time)");
    const validText = h("input", { id: "valid-at", "aria-label": "Valid at (ISO-8601)" });
    const txText = h("input", { id: "known-at", "aria-label": "Known at (ISO-8601)" });
    const caption = h("p", { id: "asof-caption", class: "muted" });

    function follow(range, axis, ms) {
      range.value = String(Math.round(axis.at(ms) * STEPS));
      range.setAttribute("aria-valuetext", iso(ms));
    }
    function drawCharts() {
      charts.replaceChildren();
      for (const [attribute, list] of byAttribute) {
        const host = h("figure", { class: "panel", "data-attribute": attribute });
        charts.appendChild(host);
        const box = h("div", { class: "chart-box" });
        host.append(h("figcaption", {}, h("strong", {}, attribute), ` — ${list.length} stored versions`), box);
        MemlaneChart.render(box, list, asOf, now, (v, t, keyboard) => {
          move(v, t);
          if (keyboard) {
            const again = charts.querySelector(`figure[data-attribute="${CSS.escape(attribute)}"] .handle`);
            if (again) again.focus();
          }
        });
      }
    }
    async function refresh(fetchProfile) {
      follow(validRange, scale.valid, asOf.valid);
      follow(txRange, scale.tx, asOf.tx);
      // An axis still at now shows its placeholder, "now (…)"; a field being typed into
      // keeps its text.
      if (document.activeElement !== validText) validText.value = asOf.valid === now ? "" : iso(asOf.valid);
      if (document.activeElement !== txText) txText.value = asOf.tx === now ? "" : iso(asOf.tx);
      validText.placeholder = txText.placeholder = `now (${iso(now)})`;
      caption.textContent = asOf.now ? `Profile as believed now (${iso(now)}).`
        : `Profile valid at ${iso(asOf.valid)} as believed at ${iso(asOf.tx)}.`;
      drawCharts();
      if (fetchProfile) await loadProfile();
    }
    async function loadProfile() {
      const params = asOf.now ? { subject } : { subject, valid_at: iso(asOf.valid), known_at: iso(asOf.tx) };
      try {
        const data = await api(`/v1/facts/profile?${query(params)}`);
        profile.replaceChildren(h("tr", {}, h("th", {}, "attribute"), h("th", {}, "value"), h("th", {}, "valid"), h("th", {}, "reason / source")),
          ...Object.entries(data.profile).map(([name, found]) => {
            const list = Array.isArray(found) ? found : [found];
            return h("tr", { "data-attribute": name }, h("td", {}, name),
              h("td", { class: "value" }, list.map((f) => text(f.value)).join(", ")),
              h("td", {}, list.map((f) => `[${f.valid_from.slice(0, 10)}, ${f.valid_to ? f.valid_to.slice(0, 10) : "∞"})`).join(" ")),
              h("td", {}, list.map((f) => [f.reason, f.source].filter(Boolean).join(" · ")).join(" ")));
          }));
        profile.setAttribute("data-state", asOf.now ? "now" : `${iso(asOf.valid)}|${iso(asOf.tx)}`);
      } catch (err) { profile.replaceChildren(h("tr", {}, h("td", {}, failure(err, "profile")))); }
    }
    let timer = null;
    function move(v, t) {
      asOf.valid = v; asOf.tx = t; asOf.now = false;
      clearTimeout(timer);
      refresh(false);
      timer = setTimeout(loadProfile, 120);
    }
    const fromSlider = (range, axis) => MemlaneChart.snapped(axis, Number(range.value) / STEPS, 1 / STEPS);
    validRange.addEventListener("input", () => move(fromSlider(validRange, scale.valid), asOf.tx));
    txRange.addEventListener("input", () => move(asOf.valid, fromSlider(txRange, scale.tx)));
    for (const field of [validText, txText]) {
      field.addEventListener("change", () => {
        const v = validText.value ? Date.parse(validText.value) : asOf.valid;
        const t = txText.value ? Date.parse(txText.value) : asOf.tx;
        if (Number.isNaN(v) || Number.isNaN(t)) { status("Times must be ISO-8601, e.g. 2026-05-15"); return; }
        status("");
        move(v, t);
      });
    }
    let width = 0;
    new ResizeObserver(() => {
      if (charts.clientWidth && charts.clientWidth !== width) { width = charts.clientWidth; drawCharts(); }
    }).observe(charts);
    const reset = h("button", { type: "button", id: "asof-now", onclick: () => {
      asOf.valid = now; asOf.tx = now; asOf.now = true; refresh(true);
    } }, "Back to now");
    const asofPanel = h("div", { class: "panel", role: "group", "aria-labelledby": "asof-title" },
      h("h3", { id: "asof-title" }, "As of"),
      h("div", { class: "asof" },
        h("label", { for: "valid-range" }, "Valid time"), validRange, validText,
        h("label", { for: "known-range" }, "Known at"), txRange, txText),
      h("p", {}, reset, " ", h("span", { class: "legend" }, "Legend:", h("span", { class: "swatch current" }), "current belief",
        h("span", { class: "swatch superseded" }), "superseded")));
    const auditLink = me && me.permissions.includes("audit")
      ? h("p", {}, h("a", { href: `#/audit/${encodeURIComponent(subject)}` }, "Audit view (every version, deleted ones flagged)")) : null;
    show(h("h2", {}, `Subject ${subject}`), auditLink,
      h("section", { "aria-labelledby": "profile-title" }, h("h3", { id: "profile-title" }, "Profile"), caption, profile),
      asofPanel,
      h("section", { "aria-labelledby": "charts-title" }, h("h3", { id: "charts-title" }, "Versions (valid time × transaction time)"), charts),
      sessionsSection(sessions.items, active.storyline),
      notesSection(active.notes));
    await refresh(true);
  }
  function summaryBlock(s, title) {
    return h("article", { class: "panel summary", "data-session-id": s.session_id || "" },
      h("h4", {}, title),
      h("p", { class: "muted" }, `${(s.period_from || "").slice(0, 16)} → ${(s.period_to || "").slice(0, 16)} · version ${s.version}`),
      h("dl", {}, SECTIONS.flatMap((name) => [h("dt", {}, name.replace("_", " ")),
        h("dd", {}, (s[name] || []).length ? h("ul", {}, s[name].map((line) => h("li", {}, line))) : h("span", { class: "muted" }, "—"))])));
  }
  function sessionsSection(items, storyline) {
    return h("section", { id: "sessions", "aria-labelledby": "sessions-title" },
      h("h3", { id: "sessions-title" }, "Sessions"),
      storyline ? summaryBlock(storyline, "Storyline") : null,
      items.length ? items.map((s) => summaryBlock(s, `Session ${s.session_id}`)) : h("p", { class: "muted" }, "No session summaries."));
  }
  function notesSection(notes) {
    return h("section", { id: "notes", "aria-labelledby": "notes-title" },
      h("h3", { id: "notes-title" }, "Notes"),
      notes.length ? h("ul", {}, notes.map((n) => h("li", {}, h("span", { class: "muted" }, `${(n.at || "").slice(0, 10)} `), n.text)))
        : h("p", { class: "muted" }, "No notes."));
  }

  // -- recall playground --
  function recallView() {
    const subject = h("input", { id: "recall-subject", placeholder: "U-001" });
    const q = h("textarea", { id: "recall-query", rows: 2, cols: 60, required: true, placeholder: "用户现在住在哪里?" });
    const out = h("div", { id: "recall-out", "aria-live": "polite" });
    const form = h("form", { class: "panel", id: "recall", onsubmit: async (evt) => {
      evt.preventDefault();
      out.replaceChildren(h("p", { class: "muted" }, "Recalling…"));
      try {
        const r = await api("/v1/recall", { subject: subject.value.trim() || null, query: q.value });
        out.replaceChildren(
          h("h3", {}, `Plan (${r.ms} ms)`),
          h("table", { id: "plan" }, h("tr", {}, ["lane", "asked", "why", "ms", "found"].map((c) => h("th", {}, c))),
            r.plan.map((p) => h("tr", { "data-lane": p.lane, "data-asked": String(p.asked) },
              h("td", {}, p.lane), h("td", {}, p.asked ? "yes" : "no"), h("td", {}, p.reason), h("td", {}, String(p.ms)), h("td", {}, String(p.found))))),
          h("h3", {}, `Items (${r.items.length})`),
          h("table", { id: "items" }, h("tr", {}, ["lane", "status", "score", "text"].map((c) => h("th", {}, c))),
            r.items.map((i) => h("tr", { "data-status": i.status },
              h("td", {}, i.lane), h("td", { class: `status-${i.status}` }, i.status), h("td", {}, String(i.score)), h("td", {}, i.text)))),
          h("h3", {}, `Prompt block (${r.tokens}/${r.budget_tokens} tokens)`),
          h("pre", {}, r.text || "(empty)"));
      } catch (err) { out.replaceChildren(failure(err, "recall")); }
    } },
      h("div", { class: "row" }, h("label", {}, "Subject (optional)", subject), h("label", {}, "Query", q),
        h("button", { type: "submit" }, "Recall")));
    show(h("h2", {}, "Recall playground"), form, out);
    q.focus();
  }

  // -- workflows --
  async function workflowsView() {
    try {
      const page = await api("/v1/workflows?limit=1000");
      show(h("h2", {}, "Workflows"), page.items.length ? h("div", { id: "workflows" }, page.items.map((w) =>
        h("article", { class: "panel" }, h("h3", {}, w.task_type),
          h("p", {}, w.description), h("p", { class: "muted" },
            `version ${w.version} · support ${w.support} · success ${(w.success_rate * 100).toFixed(0)}% · ${w.runs} runs`),
          h("ol", {}, w.steps.map((s) => h("li", {}, `${s.action} ${Object.entries(s.args).map(([k, v]) => `${k}=${v}`).join(" ")}${s.optional ? " (optional)" : ""}`))))))
        : h("p", { class: "muted" }, "No workflows yet."));
    } catch (err) { show(h("h2", {}, "Workflows"), failure(err, "workflows")); }
  }

  // -- audit and compliance --
  async function auditView(subject) {
    try {
      const data = await api(`/v1/views/audit?${query({ subject })}`);
      show(h("h2", {}, `Audit: ${subject}`), h("table", { id: "audit" },
        h("tr", {}, ["attribute", "value", "valid", "known", "deleted", "reason"].map((c) => h("th", {}, c))),
        data.facts.map((f) => h("tr", { "data-version-id": f.id },
          h("td", {}, f.attribute), h("td", {}, text(f.value)),
          h("td", {}, `[${f.valid_from}, ${f.valid_to || "∞"})`), h("td", {}, `[${f.tx_from}, ${f.tx_to || "now"})`),
          h("td", {}, f.deleted_at || ""), h("td", {}, f.reason || "")))));
    } catch (err) { show(h("h2", {}, `Audit: ${subject}`), failure(err, "audit view")); }
  }
  async function complianceView() {
    let log;
    try { log = await api("/v1/views/compliance?limit=1000"); } catch (err) {
      show(h("h2", {}, "Compliance"), failure(err, "compliance view")); return;
    }
    const subject = h("input", { id: "forget-subject", required: true });
    const attribute = h("input", { id: "forget-attribute", placeholder: "(every attribute)" });
    const form = h("form", { class: "panel row", id: "forget", onsubmit: (evt) => {
      evt.preventDefault();
      confirmForget(subject.value.trim(), attribute.value.trim() || null);
    } }, h("label", {}, "Subject", subject), h("label", {}, "Attribute (optional)", attribute),
      h("button", { type: "submit", class: "danger" }, "Forget…"));
    show(h("h2", {}, "Compliance"), h("h3", {}, "Forget"), form, h("h3", {}, "Deletion log"),
      h("table", { id: "deletions" }, h("tr", {}, ["requested", "subject", "scope", "by", "reason", "purge due", "purged"].map((c) => h("th", {}, c))),
        log.items.map((d) => h("tr", { "data-deletion-id": d.id }, h("td", {}, d.requested_at), h("td", {}, d.subject),
          h("td", {}, d.scope), h("td", {}, d.requested_by || ""), h("td", {}, d.reason || ""), h("td", {}, d.purge_due || ""), h("td", {}, d.purged_at || "")))));
  }
  function confirmForget(subject, attribute) {
    const dialog = document.getElementById("confirm");
    document.getElementById("confirm-text").textContent =
      `Forget ${attribute ? `the attribute "${attribute}" of` : "everything about"} ${subject}, in every lane? ` +
      "It disappears from every read at once and is purged after retention.";
    document.getElementById("confirm-reason").value = "";
    dialog.onclose = async () => {
      if (dialog.returnValue !== "ok") { status("Nothing forgotten."); return; }
      try {
        await api("/v1/forget", { subject, attribute, reason: document.getElementById("confirm-reason").value || null });
        status(`Forgot ${subject}.`);
        complianceView();
      } catch (err) { view().prepend(failure(err, "compliance view")); }
    };
    dialog.showModal();
    document.getElementById("confirm-cancel").focus();
  }

  // -- routing --
  async function route() {
    status("");
    if (!sessionStorage.getItem(KEY)) { loginView(); return; }
    if (!me) {
      try { await identify(); } catch (err) { logout(); loginView("That key was refused."); return; }
    }
    const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
    const page = parts[0] || "";
    if (page === "subject" && parts[1]) await subjectView(parts[1]);
    else if (page === "audit" && parts[1]) await auditView(parts[1]);
    else if (page === "recall") recallView();
    else if (page === "workflows") await workflowsView();
    else if (page === "compliance") await complianceView();
    else searchView();
    document.getElementById("main").setAttribute("data-page", page || "search");
  }

  document.addEventListener("DOMContentLoaded", () => {
    applyTheme(localStorage.getItem(THEME));
    document.getElementById("theme").addEventListener("click", toggleTheme);
    document.getElementById("logout").addEventListener("click", () => { logout(); location.hash = "#/"; loginView(); });
    window.addEventListener("hashchange", route);
    route();
  });
})();
