/**
 * Browser driver for dashboard_test.ts, run as its own process because Playwright needs
 * permissions (home directory, spawning Chromium) that the test run does not grant.
 *
 * Usage: deno run … dashboard_browser_driver.ts <chromium path> <api url> <out dir>
 * Opens `/dashboard`, takes a screenshot once points are drawn and another a few seconds later;
 * prints one JSON object (the points drawn at each, the charts, foreign requests, errors).
 */

import { join } from "node:path";
import { launchChromium } from "../browser.ts";

const [executablePath, base, out] = Deno.args;
if (!executablePath || !base || !out) {
  console.error("usage: dashboard_browser_driver.ts <chromium path> <api url> <out dir>");
  Deno.exit(2);
}

const browser = await launchChromium(executablePath);
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.setDefaultTimeout(20_000);
  const foreign: string[] = [];
  const consoleErrors: string[] = [];
  page.on("request", (req) => {
    if (!req.url().startsWith(base)) foreign.push(req.url());
  });
  page.on("console", (msg) => {
    if (msg.type() === "error") consoleErrors.push(msg.text());
  });
  page.on("pageerror", (err) => consoleErrors.push(String(err)));

  await page.goto(`${base}/dashboard`);
  // Both sides drawn: a client chart and a server chart with points.
  await page.waitForSelector("#client-charts .chart canvas");
  await page.waitForSelector("#server-charts .chart canvas");
  const shot = async (name: string) => {
    const points = Number(await page.getAttribute("body", "data-points"));
    const status = await page.getAttribute("body", "data-status");
    const path = join(out, name);
    await page.screenshot({ path, fullPage: true });
    return { points, status, path };
  };
  const first = await shot("dashboard-1.png");
  await page.waitForTimeout(3000);
  const second = await shot("dashboard-2.png");
  const charts = await page.$$eval(".chart", (els) =>
    els.map((el) => ({
      id: el.id,
      group: el.parentElement?.id ?? "",
      title: el.querySelector(".u-title")?.textContent ?? "",
    })));
  console.log(JSON.stringify({ first, second, charts, foreign, consoleErrors }));
} catch (err) {
  console.error(String(err));
  Deno.exitCode = 1;
} finally {
  await browser.close();
}
