/**
 * Browser driver for report_test.ts, run as its own process because Playwright needs
 * permissions (home directory, spawning Chromium) that the test run does not grant.
 *
 * Usage: deno run … report_browser_driver.ts <chromium path> <report.html> <screenshot.png>
 * Prints one JSON object describing the rendered charts; exits 1 with a message on failure.
 */

import { launchChromium } from "../browser.ts";
import { pathToFileURL } from "node:url";

const [executablePath, reportPath, screenshot] = Deno.args;
if (!executablePath || !reportPath || !screenshot) {
  console.error("usage: report_browser_driver.ts <chromium path> <report.html> <screenshot.png>");
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
  const rendered = Number(await page.getAttribute("body", "data-rendered"));
  // Each chart: its id, legend labels, and how many canvas pixels were painted.
  const charts = await page.$$eval(".chart", (els) =>
    els.map((el) => {
      const canvas = el.querySelector("canvas");
      let painted = 0;
      if (canvas) {
        const ctx = canvas.getContext("2d")!;
        const px = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
        for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) painted++;
      }
      return {
        id: el.id,
        section: el.parentElement?.id ?? "",
        top: el.getBoundingClientRect().top + (el.ownerDocument.documentElement?.scrollTop ?? 0),
        title: el.querySelector(".u-title")?.textContent ?? "",
        series: [...el.querySelectorAll(".u-legend .u-series .u-label")].map((s) => s.textContent),
        width: canvas?.width ?? 0,
        painted,
      };
    }));
  const comparisonRows = await page.$$eval("#comparison tbody tr", (rows) => rows.length);
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(JSON.stringify({ rendered, charts, comparisonRows, foreign, consoleErrors }));
} finally {
  await browser.close();
}
