/**
 * Browser driver for docs_browser_test.ts, run as its own process because Playwright needs
 * permissions (home directory, spawning Chromium) that the test run does not grant.
 *
 * Usage: deno run … docs_browser_driver.ts <chromium path> <server url>
 * Prints one JSON object describing what the pages showed; exits 1 with a message on failure.
 */

import { launchChromium } from "../browser.ts";

const [executablePath, base] = Deno.args;
if (!executablePath || !base) {
  console.error("usage: docs_browser_driver.ts <chromium path> <server url>");
  Deno.exit(2);
}

const browser = await launchChromium(executablePath);
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(20_000);
  const foreign: string[] = [];
  const failed: string[] = [];
  const consoleErrors: string[] = [];
  page.on("request", (req) => {
    if (!req.url().startsWith(base)) foreign.push(req.url());
  });
  page.on("requestfailed", (req) => failed.push(`${req.url()}: ${req.failure()?.errorText}`));
  page.on("response", (res) => {
    if (res.status() >= 400) failed.push(`${res.url()}: HTTP ${res.status()}`);
  });
  page.on("console", (msg) => {
    if (msg.type() === "error") consoleErrors.push(msg.text());
  });
  page.on("pageerror", (err) => consoleErrors.push(String(err)));

  await page.goto(`${base}/docs`);
  await page.waitForSelector("body[data-rendered]");
  const rendered = await page.getAttribute("body", "data-rendered");
  const title = await page.textContent("#title");
  const operations = await page.$$eval(".operation", (els) =>
    els.map((e) => ({
      method: e.querySelector(".method")?.textContent ?? "",
      path: e.querySelector(".path")?.textContent ?? "",
      summary: e.querySelector(".summary")?.textContent ?? "",
    })));

  const op = page.locator('.operation[data-path="/api/metrics"]');
  await op.locator("summary").click();
  const metricsFields = await op.locator("tr.field code").allTextContents();
  await op.locator("button.try").click();
  await op.locator("pre.result", { hasText: "200" }).waitFor();
  const tryResult = await op.locator("pre.result").textContent();

  await page.goto(`${base}/redoc`);
  await page.waitForSelector("body[data-rendered]");
  const redoc = {
    rendered: await page.getAttribute("body", "data-rendered"),
    sections: await page.locator("section.operation").count(),
    navLinks: await page.locator("nav a").count(),
    paths: await page.locator("section.operation .path").allTextContents(),
  };

  console.log(JSON.stringify({
    docs: { rendered, title, operations, metricsFields, tryResult },
    redoc,
    foreign,
    failed,
    consoleErrors,
  }));
} catch (err) {
  console.error(String(err));
  Deno.exitCode = 1;
} finally {
  await browser.close();
}
