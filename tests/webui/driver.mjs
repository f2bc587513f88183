// Drives the Desktop page in Debian's chromium through playwright-core, one JSON command per
// stdin line, one JSON answer per stdout line, so a pytest test can interleave browser steps
// with desktop checks (AT-SPI, moving windows, an MCP client waiting for approval).
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

// playwright-core lives in the test tools' node directory (scripts/install-deps.sh), not here.
const require = createRequire(`${process.env.MCP_CU_NODE_DIR || "/var/tmp/mcp-cu-node"}/`);
const { chromium } = require("playwright-core");

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--proxy-server=direct://"],
});
let context = null;
let page = null;

async function image() {
  const box = await page.locator("#screen").boundingBox();
  const geometry = JSON.parse((await page.locator("#frame").getAttribute("data-geometry")) || "null");
  return { box, geometry };
}

const commands = {
  async open({ url, viewport }) {
    if (context) await context.close();
    context = await browser.newContext({ viewport: viewport ? { width: viewport[0], height: viewport[1] } : { width: 1280, height: 900 } });
    page = await context.newPage();
    const response = await page.goto(url);
    return { status: response.status(), url: page.url(), title: await page.title() };
  },
  async get({ url }) {
    const fresh = await browser.newContext();
    const response = await fresh.request.get(url, { maxRedirects: 0 });
    const status = response.status();
    await fresh.close();
    return { status };
  },
  async windows() {
    await page.waitForFunction(() => document.querySelectorAll("#window option").length > 1);
    return { options: await page.locator("#window option").allTextContents() };
  },
  async select({ title, id }) {
    const find = ([t, i]) => {
      const options = [...document.querySelectorAll("#window option")];
      const found = options.find((o) => (i ? o.value === i : o.textContent.startsWith(t)));
      return found ? found.value : null;
    };
    let value = null;
    for (let tries = 0; !value && tries < 50; tries++) {
      value = await page.evaluate(find, [title, id]);
      if (!value) { await page.click("#refresh"); await page.waitForTimeout(300); } // a window opened after the page
    }
    if (!value) throw new Error(`no window ${id || title} in the page's list`);
    await page.selectOption("#window", value);
    await page.waitForFunction(() => document.querySelector("#frame").dataset.geometry && document.querySelector("#screen").naturalWidth > 0);
    return await image();
  },
  async status() {
    return { status: await page.locator("#status").textContent() };
  },
  async front() {
    await page.click("#front");
    await page.waitForFunction(() => document.querySelector("#screen").naturalWidth > 0 && !document.querySelector("#status").classList.contains("error"), null, { timeout: 20000 });
    return await image();
  },
  async choose({ id }) {
    // Chooses a window without waiting for its image (it may not be capturable yet).
    for (let tries = 0; tries < 50; tries++) {
      if (await page.evaluate((i) => [...document.querySelectorAll("#window option")].some((o) => o.value === i), id)) break;
      await page.click("#refresh");
      await page.waitForTimeout(300);
    }
    await page.selectOption("#window", id);
    return {};
  },
  async wait_status({ contains }) {
    await page.waitForFunction((t) => document.querySelector("#status").textContent.includes(t), contains, { timeout: 20000 });
    return { status: await page.locator("#status").textContent() };
  },
  async pause({ paused }) {
    await page.evaluate((p) => { window.cuView.paused = p; }, paused);
    return {};
  },
  async click_at({ x, y }) {
    const { box, geometry } = await image();
    const before = await page.locator("#status").textContent();
    // Every status the page shows from now on is recorded as it appears (a refresh of the view
    // can replace the click's status right after), and read on a timer rather than once per
    // animation frame, which a browser whose window is covered may not draw.
    await page.evaluate(() => {
      const s = document.querySelector("#status");
      window.__statuses = [];
      window.__watch?.disconnect();
      window.__watch = new MutationObserver(() =>
        window.__statuses.push({ status: s.textContent, error: s.getAttribute("class") === "error" }));
      window.__watch.observe(s, { childList: true, characterData: true, subtree: true, attributes: true });
    });
    await page.mouse.click(box.x + ((x + 0.5) / geometry.w) * box.width, box.y + ((y + 0.5) / geometry.h) * box.height);
    const seen = await page.waitForFunction(
      (b) => window.__statuses.find((s) => s.status !== b) || false,
      before,
      { timeout: 15000, polling: 20 },
    );
    return await seen.jsonValue();
  },
  async type({ text }) {
    await page.fill("#text", text);
    await page.click("#text-form button");
    // Typing characters the keymap lacks (Hebrew, emoji) remaps spare keycodes per character.
    // The status is read in the same moment it appears (a refresh can replace it right after).
    const seen = await page.waitForFunction(() => {
      const t = document.querySelector("#status").textContent;
      return /Sent text|:/.test(t) && t;
    }, null, { timeout: 45000, polling: 20 });
    return { status: await seen.jsonValue() };
  },
  async geometry() {
    return await image();
  },
  async wait_geometry({ not }) {
    await page.waitForFunction((n) => document.querySelector("#frame").dataset.geometry !== n, JSON.stringify(not), { timeout: 15000 });
    return await image();
  },
  async wait_approval() {
    await page.waitForSelector("li.approval", { timeout: 40000 });
    const li = page.locator("li.approval").first();
    return { text: await li.locator(".what").textContent(), crop: await li.locator("img").count() };
  },
  async decide({ approve }) {
    await page.locator(`li.approval .${approve ? "approve" : "deny"}`).first().click();
    await page.waitForFunction(() => document.querySelectorAll("li.approval").length === 0, null, { timeout: 15000 });
    return {};
  },
  async audit_contains({ text }) {
    await page.waitForFunction((t) => document.querySelector("#audit").textContent.includes(t), text, { timeout: 20000 });
    return {};
  },
  async overflow() {
    return await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  },
  async quit() {
    return {};
  },
  async screenshot({ path }) {
    await page.screenshot({ path, fullPage: true });
    return { path };
  },
};

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const command = JSON.parse(line);
  let answer;
  try {
    answer = { ok: true, ...(await commands[command.cmd](command)) };
  } catch (e) {
    answer = { ok: false, error: String(e && e.message ? e.message : e) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
  if (command.cmd === "quit") break;
}
await Promise.race([browser.close(), new Promise((done) => setTimeout(done, 5000))]);
process.exit(0);
