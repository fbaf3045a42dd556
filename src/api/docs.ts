/**
 * `/docs` and `/redoc`: self-contained pages that render the OpenAPI document with no internet.
 * The renderer is a small script served by the program itself (a string in this module, so it
 * survives `deno compile` and `deno bundle`); a Content-Security-Policy keeps the pages from
 * loading anything from elsewhere.
 */

/** Where the renderer script is served. */
export const RENDERER_PATH = "/docs/assets/renderer.js";

/** The CSP of the documentation pages: only this server's own resources. */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6470; --bg: #fff; --panel: #f5f7f9;
  --line: #d9dee4; --get: #1f7a4d; --accent: #2457a6; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ed; --muted: #9aa4b0; --bg: #14171b;
  --panel: #1d2127; --line: #2f353d; --get: #4fbf85; --accent: #7aa7ea; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
code, pre, .path { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
header { padding: 18px 24px; border-bottom: 1px solid var(--line); }
header h1 { margin: 0; font-size: 22px; }
header p { margin: 4px 0 0; color: var(--muted); }
.version { font-size: 13px; color: var(--muted); margin-left: 8px; font-weight: normal; }
main { padding: 16px 24px 48px; max-width: 1100px; }
h2.tag { text-transform: capitalize; font-size: 17px; margin: 24px 0 8px; }
.tag-desc { color: var(--muted); margin: 0 0 8px; }
.operation { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; background: var(--panel); }
.operation > summary { cursor: pointer; padding: 8px 12px; display: flex; gap: 12px; align-items: baseline; }
.method { text-transform: uppercase; font-weight: 700; font-size: 12px; color: #fff;
  background: var(--get); border-radius: 4px; padding: 2px 8px; min-width: 48px; text-align: center; }
.path { font-weight: 600; }
.summary { color: var(--muted); }
.body { padding: 4px 16px 12px; border-top: 1px solid var(--line); background: var(--bg); }
table { border-collapse: collapse; margin: 6px 0; font-size: 14px; }
th, td { text-align: left; padding: 3px 10px 3px 0; vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
.req { color: #c2410c; font-size: 12px; }
.type { color: var(--accent); }
.nested { margin-left: 18px; }
button { font: inherit; padding: 3px 12px; border-radius: 4px; border: 1px solid var(--line);
  background: var(--panel); color: var(--fg); cursor: pointer; }
pre.result { max-height: 360px; overflow: auto; background: var(--panel); padding: 8px; border-radius: 4px; }
.error { color: #b91c1c; }
body.redoc { display: grid; grid-template-columns: 260px 1fr; min-height: 100vh; }
body.redoc header { grid-column: 1 / 3; }
body.redoc nav { border-right: 1px solid var(--line); padding: 12px 0; background: var(--panel); }
body.redoc nav a { display: block; padding: 4px 16px; color: var(--fg); text-decoration: none; font-size: 14px; }
body.redoc nav a:hover { background: var(--bg); }
body.redoc nav .nav-tag { padding: 10px 16px 2px; font-size: 12px; text-transform: uppercase; color: var(--muted); }
body.redoc .operation { background: var(--bg); padding: 4px 16px 12px; }
body.redoc .operation h3 { display: flex; gap: 12px; align-items: baseline; margin: 8px 0; font-size: 17px; }
`;

/** The HTML of `/docs` (`mode` "docs") or `/redoc` (`mode` "redoc"). */
export function docsPage(mode: "docs" | "redoc", title: string): string {
  const safeTitle = title.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${safeTitle}</title>
<style>${STYLE}</style>
</head>
<body class="${mode}" data-mode="${mode}" data-spec="/openapi.json">
<header><h1 id="title">${safeTitle}</h1><p id="description">Loading the API description…</p></header>
${mode === "redoc" ? '<nav id="nav" aria-label="Operations"></nav>' : ""}
<main id="operations" aria-live="polite"></main>
<noscript>This page needs JavaScript; the raw document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
<script src="${RENDERER_PATH}"></script>
</body>
</html>
`;
}

/**
 * The renderer: fetches the OpenAPI document and lists each operation with its method, path,
 * summary, description, parameters and response schemas. All text goes in through
 * `textContent`, never as HTML.
 */
export const RENDERER_JS = `"use strict";
(function () {
  var body = document.body;
  var mode = body.getAttribute("data-mode");
  var main = document.getElementById("operations");
  var nav = document.getElementById("nav");

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function deref(spec, schema) {
    var seen = 0;
    while (schema && schema.$ref && seen < 16) {
      var parts = schema.$ref.replace(/^#\\//, "").split("/");
      var target = spec;
      for (var i = 0; i < parts.length && target; i++) target = target[parts[i]];
      schema = target || {};
      seen++;
    }
    return schema || {};
  }

  function typeOf(spec, schema) {
    schema = deref(spec, schema);
    if (schema.enum) return schema.enum.map(function (v) { return JSON.stringify(v); }).join(" | ");
    var t = schema.type;
    if (Array.isArray(t)) t = t.join(" | ");
    if (!t && (schema.anyOf || schema.oneOf)) {
      t = (schema.anyOf || schema.oneOf).map(function (s) { return typeOf(spec, s); }).join(" | ");
    }
    if (t === "array" && schema.items) t = typeOf(spec, schema.items) + "[]";
    if (t === "object" && schema.additionalProperties && !schema.properties) {
      t = "map of " + (schema.additionalProperties === true ? "any" : typeOf(spec, schema.additionalProperties));
    }
    return t || "any";
  }

  function schemaTable(spec, schema, depth) {
    schema = deref(spec, schema);
    var wrap = el("div", depth ? "nested" : "schema");
    if (schema.description && depth === 0) wrap.appendChild(el("p", "schema-desc", schema.description));
    var target = schema;
    if (schema.type === "array" && schema.items) target = deref(spec, schema.items);
    if (target.type === "object" && !target.properties && target.additionalProperties &&
        typeof target.additionalProperties === "object") {
      target = deref(spec, target.additionalProperties);
    }
    var props = target.properties || {};
    var names = Object.keys(props);
    if (names.length === 0) {
      wrap.appendChild(el("div", "type", typeOf(spec, schema)));
      return wrap;
    }
    var required = target.required || [];
    var table = el("table");
    var head = el("tr");
    ["Field", "Type", "Description"].forEach(function (h) { head.appendChild(el("th", "", h)); });
    table.appendChild(head);
    names.forEach(function (name) {
      var p = deref(spec, props[name]);
      var tr = el("tr", "field");
      var td = el("td");
      td.appendChild(el("code", "", name));
      if (required.indexOf(name) >= 0) td.appendChild(el("span", "req", " required"));
      tr.appendChild(td);
      tr.appendChild(el("td", "type", typeOf(spec, p)));
      var desc = el("td", "", p.description || "");
      var inner = p.type === "array" && p.items ? deref(spec, p.items) : p;
      if (inner.type === "object" && inner.additionalProperties && typeof inner.additionalProperties === "object") {
        inner = deref(spec, inner.additionalProperties);
      }
      if (depth < 3 && inner.properties) desc.appendChild(schemaTable(spec, inner, depth + 1));
      tr.appendChild(desc);
      table.appendChild(tr);
    });
    wrap.appendChild(table);
    return wrap;
  }

  function tryIt(path, out) {
    var button = el("button", "try", "Try it");
    button.type = "button";
    button.addEventListener("click", function () {
      out.textContent = "…";
      out.className = "result";
      fetch(path, { headers: { Accept: "application/json, text/plain, */*" } })
        .then(function (r) {
          return r.text().then(function (t) {
            var shown = t;
            try { shown = JSON.stringify(JSON.parse(t), null, 2); } catch (_e) { /* not JSON */ }
            if (shown.length > 20000) shown = shown.slice(0, 20000) + "\\n…";
            out.textContent = r.status + " " + r.statusText + "\\n\\n" + shown;
          });
        })
        .catch(function (e) {
          out.className = "result error";
          out.textContent = String(e);
        });
    });
    return button;
  }

  function operationBody(spec, path, method, op) {
    var b = el("div", "body");
    if (op.description) b.appendChild(el("p", "description", op.description));
    if (op.parameters && op.parameters.length) {
      b.appendChild(el("h4", "", "Parameters"));
      var table = el("table", "params");
      op.parameters.forEach(function (p) {
        var tr = el("tr");
        var td = el("td");
        td.appendChild(el("code", "", p.name));
        tr.appendChild(td);
        tr.appendChild(el("td", "type", p.in + (p.required ? ", required" : "")));
        tr.appendChild(el("td", "", p.description || ""));
        table.appendChild(tr);
      });
      b.appendChild(table);
    }
    b.appendChild(el("h4", "", "Responses"));
    Object.keys(op.responses || {}).forEach(function (status) {
      var r = op.responses[status];
      var block = el("div", "response");
      var line = el("div", "response-line");
      line.appendChild(el("strong", "status", status));
      line.appendChild(document.createTextNode(" " + (r.description || "")));
      block.appendChild(line);
      Object.keys(r.content || {}).forEach(function (type) {
        block.appendChild(el("div", "content-type", type));
        var media = r.content[type];
        if (media && media.schema) block.appendChild(schemaTable(spec, media.schema, 0));
      });
      b.appendChild(block);
    });
    if (method === "get" && path.indexOf("{") < 0) {
      var out = el("pre", "result");
      out.hidden = true;
      var button = tryIt(path, out);
      button.addEventListener("click", function () { out.hidden = false; });
      b.appendChild(button);
      b.appendChild(out);
    }
    return b;
  }

  function render(spec) {
    document.getElementById("title").textContent = (spec.info && spec.info.title) || "API";
    var version = el("span", "version", spec.info && spec.info.version ? "v" + spec.info.version : "");
    document.getElementById("title").appendChild(version);
    document.getElementById("description").textContent = (spec.info && spec.info.description) || "";
    document.title = (spec.info && spec.info.title) || document.title;
    var byTag = {};
    var tagOrder = (spec.tags || []).map(function (t) { return t.name; });
    var tagDesc = {};
    (spec.tags || []).forEach(function (t) { tagDesc[t.name] = t.description; });
    Object.keys(spec.paths || {}).forEach(function (path) {
      var item = spec.paths[path];
      Object.keys(item).forEach(function (method) {
        var op = item[method];
        var tag = (op.tags && op.tags[0]) || "other";
        if (tagOrder.indexOf(tag) < 0) tagOrder.push(tag);
        (byTag[tag] = byTag[tag] || []).push({ path: path, method: method, op: op });
      });
    });
    main.textContent = "";
    var count = 0;
    tagOrder.forEach(function (tag) {
      var ops = byTag[tag];
      if (!ops) return;
      main.appendChild(el("h2", "tag", tag));
      if (tagDesc[tag]) main.appendChild(el("p", "tag-desc", tagDesc[tag]));
      if (nav) nav.appendChild(el("div", "nav-tag", tag));
      ops.forEach(function (o) {
        var id = "op-" + (o.op.operationId || (o.method + o.path).replace(/[^A-Za-z0-9]+/g, "-"));
        var section;
        if (mode === "redoc") {
          section = el("section", "operation");
          var h = el("h3");
          h.appendChild(el("span", "method", o.method));
          h.appendChild(el("span", "path", o.path));
          section.appendChild(h);
          section.appendChild(el("p", "summary", o.op.summary || ""));
          if (nav) {
            var a = el("a", "", o.op.summary || o.path);
            a.href = "#" + id;
            nav.appendChild(a);
          }
        } else {
          section = el("details", "operation");
          var s = el("summary");
          s.appendChild(el("span", "method", o.method));
          s.appendChild(el("span", "path", o.path));
          s.appendChild(el("span", "summary", o.op.summary || ""));
          section.appendChild(s);
        }
        section.id = id;
        section.setAttribute("data-method", o.method);
        section.setAttribute("data-path", o.path);
        section.appendChild(operationBody(spec, o.path, o.method, o.op));
        main.appendChild(section);
        count++;
      });
    });
    body.setAttribute("data-rendered", String(count));
  }

  fetch(body.getAttribute("data-spec"), { headers: { Accept: "application/json" } })
    .then(function (r) {
      if (!r.ok) throw new Error("GET /openapi.json answered " + r.status);
      return r.json();
    })
    .then(render)
    .catch(function (e) {
      main.appendChild(el("p", "error", "Cannot load the API description: " + e.message));
      body.setAttribute("data-rendered", "error");
    });
})();
`;
