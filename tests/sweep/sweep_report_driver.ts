/**
 * Browser driver for the sweep report test, run as its own process (Playwright needs
 * permissions the test run does not grant).
 *
 * Usage: deno run … sweep_report_driver.ts <chromium path> <report.html> <screenshot.png>
 * Prints one JSON object describing the drawn charts; exits 1 with a message on failure.
 */

import { launchChromium } from "../browser.ts";
import { pathToFileURL } from "node:url";

const [executablePath, reportPath, screenshot] = Deno.args;
if (!executablePath || !reportPath || !screenshot) {
  console.error("usage: sweep_report_driver.ts <chromium path> <report.html> <screenshot.png>");
  Deno.exit(2);
}

const browser = await launchChromium(executablePath);
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(20_000);
  const url = pathToFileURL(reportPath).href;
  const foreign: string[] = [];
  const consoleErrors: string[] = [];
  page.on("request", (req) => {
    if (req.url() !== url) foreign.push(req.url());
  });
  page.on("console", (msg) => {
    if (msg.type() === "error") consoleErrors.push(msg.text());
  });
  page.on("pageerror", (err) => consoleErrors.push(String(err)));
  await page.goto(url);
  await page.waitForSelector("body[data-rendered]");
  // Each chart as the browser laid it out: its parts and their drawn size.
  const charts = await page.$$eval("svg.xy", (svgs) =>
    svgs.map((svg) => {
      const box = (el: { getBoundingClientRect(): { width: number; height: number } } | null) => {
        const r = el?.getBoundingClientRect();
        return r ? { w: r.width, h: r.height } : null;
      };
      return {
        id: svg.id,
        size: box(svg),
        series: [...svg.querySelectorAll("g.series")].map((g) => ({
          name: g.getAttribute("data-series"),
          points: g.querySelectorAll("circle.point").length,
          intervals: [...g.querySelectorAll("path.ci")].filter((p) => {
            const r = p.getBoundingClientRect();
            return r.width > 0 || r.height > 0;
          }).length,
          line: box(g.querySelector("polyline")),
        })),
        slo: [...svg.querySelectorAll("g.slo text")].map((t) => t.textContent),
        sloLine: box(svg.querySelector("g.slo line")),
        front: svg.querySelectorAll("polyline.front").length,
      };
    }));
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(JSON.stringify({ charts, foreign, consoleErrors }));
} finally {
  await browser.close();
}
