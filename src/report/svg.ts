/**
 * Server-drawn SVG charts for the sweep report: points with their confidence intervals as error
 * bars on both axes, lines through each series, horizontal SLO lines, a highlighted front. Drawn
 * as plain SVG, the pictures need no script and look the same in any browser or a screenshot.
 */

/** One point: its value and, when known, its interval on each axis. */
export interface XYPoint {
  x: number;
  y: number;
  xLo?: number;
  xHi?: number;
  yLo?: number;
  yHi?: number;
  /** Shown on hover (`<title>`). */
  label?: string;
  /** A search probe's verdict: green or red. */
  mark?: "pass" | "fail";
}

/** A series: a server's or a sweep's points, in order. */
export interface XYSeries {
  name: string;
  color: string;
  points: XYPoint[];
  /** Join the points with a line (default true). */
  line?: boolean;
}

/** A chart. */
export interface XYChart {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: XYSeries[];
  /** Horizontal lines (SLOs), labelled. */
  hLines?: { y: number; label: string }[];
  /** A front to draw over the points (a step line through them, in x order). */
  front?: { x: number; y: number }[];
}

const W = 560;
const H = 340;
const M = { l: 64, r: 16, t: 30, b: 64 };

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** About five round ticks covering [lo, hi]. */
export function ticks(lo: number, hi: number): number[] {
  const span = hi - lo || Math.abs(hi) || 1;
  const raw = span / 5;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * p).find((s) => s >= raw) ?? 10 * p;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    out.push(+v.toPrecision(12));
  }
  return out;
}

function tickText(v: number): string {
  const a = Math.abs(v);
  return a >= 1e4
    ? v.toExponential(1)
    : a >= 100
    ? v.toFixed(0)
    : a >= 1
    ? String(+v.toFixed(2))
    : String(+v.toPrecision(2));
}

/** The chart as an `<svg>` element (with its id, class `xy`, and classes on each part). */
export function svgChart(c: XYChart): string {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const s of c.series) {
    for (const p of s.points) {
      xs.push(p.x, p.xLo ?? p.x, p.xHi ?? p.x);
      ys.push(p.y, p.yLo ?? p.y, p.yHi ?? p.y);
    }
  }
  for (const l of c.hLines ?? []) ys.push(l.y);
  const finite = (a: number[]) => a.filter(Number.isFinite);
  const fx = finite(xs);
  const fy = finite(ys);
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="xy" id="${
      esc(c.id)
    }" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(c.title)}">`,
    `<text class="title" x="${W / 2}" y="18" text-anchor="middle" font-weight="600">${
      esc(c.title)
    }</text>`,
  );
  if (fx.length === 0 || fy.length === 0) {
    parts.push(
      `<text x="${W / 2}" y="${H / 2}" text-anchor="middle" fill="#888">no data</text></svg>`,
    );
    return parts.join("");
  }
  // A quantity whose points are all non-negative gets an axis from 0: intervals reaching below
  // it are cut at the plot's edge.
  const pad = (all: number[], means: number[]): [number, number] => {
    const floor = means.every((v) => v >= 0) ? 0 : -Infinity;
    const lo = Math.max(floor, Math.min(...all));
    const hi = Math.max(...all);
    const d = (hi - lo) * 0.06 || Math.abs(hi) * 0.1 || 1;
    return [Math.max(floor, lo - d), hi + d];
  };
  const means = (k: "x" | "y") =>
    c.series.flatMap((s) => s.points.map((p) => p[k])).filter(Number.isFinite);
  const [x0, x1] = pad(fx, means("x"));
  const [y0, y1] = pad(fy, [...means("y"), ...(c.hLines ?? []).map((l) => l.y)]);
  const px = (x: number) => M.l + (x - x0) / (x1 - x0) * (W - M.l - M.r);
  const py = (y: number) => H - M.b - (y - y0) / (y1 - y0) * (H - M.t - M.b);
  const f = (v: number) => v.toFixed(1);
  // Axes, grid and ticks.
  parts.push(`<g class="axes" font-size="11" fill="#555">`);
  for (const t of ticks(x0, x1)) {
    parts.push(
      `<line x1="${f(px(t))}" x2="${f(px(t))}" y1="${M.t}" y2="${H - M.b}" stroke="#eee"/>`,
      `<text x="${f(px(t))}" y="${H - M.b + 14}" text-anchor="middle">${tickText(t)}</text>`,
    );
  }
  for (const t of ticks(y0, y1)) {
    parts.push(
      `<line x1="${M.l}" x2="${W - M.r}" y1="${f(py(t))}" y2="${f(py(t))}" stroke="#eee"/>`,
      `<text x="${M.l - 6}" y="${f(py(t) + 4)}" text-anchor="end">${tickText(t)}</text>`,
    );
  }
  parts.push(
    `<rect x="${M.l}" y="${M.t}" width="${W - M.l - M.r}" height="${
      H - M.t - M.b
    }" fill="none" stroke="#999"/>`,
    `<text x="${(M.l + W - M.r) / 2}" y="${H - M.b + 32}" text-anchor="middle" fill="#222">${
      esc(c.xLabel)
    }</text>`,
    `<text transform="translate(14 ${
      (M.t + H - M.b) / 2
    }) rotate(-90)" text-anchor="middle" fill="#222">${esc(c.yLabel)}</text>`,
    `</g>`,
  );
  for (const l of c.hLines ?? []) {
    parts.push(
      `<g class="slo"><line x1="${M.l}" x2="${W - M.r}" y1="${f(py(l.y))}" y2="${
        f(py(l.y))
      }" stroke="#d00" stroke-width="1.5" stroke-dasharray="6 4"/>`,
      `<text x="${W - M.r - 4}" y="${
        f(py(l.y) - 4)
      }" text-anchor="end" font-size="11" fill="#d00">${esc(l.label)}</text></g>`,
    );
  }
  const clip = `clip-${c.id.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  parts.push(
    `<clipPath id="${clip}"><rect x="${M.l}" y="${M.t}" width="${W - M.l - M.r}" height="${
      H - M.t - M.b
    }"/></clipPath>`,
  );
  for (const [i, s] of c.series.entries()) {
    parts.push(`<g class="series" data-series="${esc(s.name)}" clip-path="url(#${clip})">`);
    const pts = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    if (s.line !== false && pts.length > 1) {
      parts.push(
        `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${
          pts.map((p) => `${f(px(p.x))},${f(py(p.y))}`).join(" ")
        }"/>`,
      );
    }
    for (const p of pts) {
      const cx = px(p.x);
      const cy = py(p.y);
      if (p.yLo !== undefined && p.yHi !== undefined && p.yHi > p.yLo) {
        parts.push(
          `<path class="ci" d="M${f(cx)} ${f(py(p.yLo))}V${f(py(p.yHi))}M${f(cx - 4)} ${
            f(py(p.yLo))
          }h8M${f(cx - 4)} ${f(py(p.yHi))}h8" stroke="${s.color}" stroke-width="1.2" fill="none"/>`,
        );
      }
      if (p.xLo !== undefined && p.xHi !== undefined && p.xHi > p.xLo) {
        parts.push(
          `<path class="ci" d="M${f(px(p.xLo))} ${f(cy)}H${f(px(p.xHi))}M${f(px(p.xLo))} ${
            f(cy - 4)
          }v8M${f(px(p.xHi))} ${f(cy - 4)}v8" stroke="${s.color}" stroke-width="1.2" fill="none"/>`,
        );
      }
      const fill = p.mark === "pass" ? "#1a7f37" : p.mark === "fail" ? "#d00" : s.color;
      parts.push(
        `<circle class="point" cx="${f(cx)}" cy="${
          f(cy)
        }" r="4" fill="${fill}" stroke="#fff"><title>${esc(p.label ?? "")}</title></circle>`,
      );
    }
    // The legend, top left inside the plot.
    parts.push(
      `<rect x="${M.l + 8}" y="${M.t + 8 + i * 16}" width="10" height="10" fill="${s.color}"/>`,
      `<text class="legend" x="${M.l + 22}" y="${M.t + 17 + i * 16}" font-size="11">${
        esc(s.name)
      }</text>`,
      `</g>`,
    );
  }
  if (c.front && c.front.length > 0) {
    const fr = [...c.front].sort((a, b) => a.x - b.x);
    parts.push(
      `<polyline class="front" fill="none" stroke="#111" stroke-width="2.5" stroke-dasharray="2 3" points="${
        fr.map((p) => `${f(px(p.x))},${f(py(p.y))}`).join(" ")
      }"/>`,
    );
  }
  parts.push(`</svg>`);
  return parts.join("");
}
