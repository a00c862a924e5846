/**
 * A real browser (Debian's Chromium, headless, driven by playwright-core) on the editor of a real
 * Node-RED 4 runtime that has this package installed: search the palette, drag `nvr-get` onto the
 * workspace, open its dialog, pick the deployed nvr-device, and see the page dropdown filled from the
 * registry and the channel dropdown filled from the simulator through the admin routes. Then a second
 * device created inside the dialog (never deployed) fills the channels too, and a deploy from the
 * editor keeps its password out of the flow.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startSimulator, type Simulator } from '../../simulator';
import { availableRuntimes, startNodeRed, repoRoot, type NodeRedRuntime } from '../helpers/nodered-runtime';
import { browserSkipReason, launchChromium } from '../helpers/browser';

const PAGE = 'AlarmConfig/Deterrence';
const CHANNELS = ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH5', 'IP_CH6', 'IP_CH7', 'WIFI_CH8'];
const SCREENSHOT = join(repoRoot, '.tmp', 'editor.png');

interface Ctx { sim?: Simulator; nr?: NodeRedRuntime; browser?: Browser; page?: Page; password: string; errors: string[] }

const test = suite<Ctx>('editor in a real browser (Node-RED 4)', { password: randomBytes(12).toString('base64url'), errors: [] });
const skip = browserSkipReason();

/** Values of a <select>'s options. */
const optionValues = (page: Page, selector: string) =>
  page.$$eval(`${selector} option`, (os) => os.map((o) => (o as any).value));

/** Waits until the select lists every wanted value; returns what it lists. */
async function waitForOptions(page: Page, selector: string, wanted: string[], timeout = 15_000): Promise<string[]> {
  await page.waitForFunction(
    ({ selector, wanted }) => {
      const values = Array.from((globalThis as any).document.querySelectorAll(`${selector} option`)).map((o: any) => (o as any).value);
      return wanted.every((w) => values.includes(w));
    },
    { selector, wanted }, { timeout },
  ).catch(() => undefined);
  return optionValues(page, selector);
}

if (skip) {
  console.log(`SKIP editor in a real browser: ${skip}`);
} else {
  test.before(async (ctx) => {
    const t0 = Date.now();
    const nr4 = availableRuntimes().targets[0];
    ctx.sim = await startSimulator({ password: ctx.password, quiet: true });
    ctx.nr = await startNodeRed({ nodeRedDir: nr4.nodeRedDir, nodeBinary: nr4.nodeBinary });
    // The device the dialog picks: deployed beforehand, credentials through the admin API.
    await ctx.nr.deploy([
      { id: 'tab1', type: 'tab', label: 'Flow 1' },
      { id: 'dev1', type: 'nvr-device', name: 'deployed simulator', url: ctx.sim.url, heartbeat: '25', credentials: { username: 'admin', password: ctx.password } },
    ]);
    ctx.browser = await launchChromium();
    ctx.page = await ctx.browser.newPage({ viewport: { width: 1400, height: 900 } });
    ctx.page.on('pageerror', (e) => ctx.errors.push(e.message));
    await ctx.page.goto(ctx.nr.adminUrl + '/');
    await ctx.page.waitForSelector('.red-ui-palette-node[data-palette-type="nvr-get"]', { timeout: 30_000 });
    console.log(`  editor ready in ${Date.now() - t0} ms`);
  });

  test.after(async (ctx) => {
    await ctx.browser?.close();
    await ctx.nr?.stop();
    await ctx.sim?.stop();
  });

  test('palette search, drag nvr-get onto the workspace, open its dialog', async ({ page }) => {
    const p = page!;
    await p.locator('#red-ui-palette-search input').pressSequentially('nvr-get', { delay: 20 });
    const item = p.locator('.red-ui-palette-node[data-palette-type="nvr-get"]');
    await item.waitFor({ state: 'visible' });
    assert.is(await p.locator('.red-ui-palette-node[data-palette-type="inject"]').isVisible(), false, 'palette search did not filter');
    await item.dragTo(p.locator('#red-ui-workspace-chart'), { targetPosition: { x: 350, y: 200 } });
    const types = await p.evaluate(() => { const a: string[] = []; (globalThis as any).RED.nodes.eachNode((n: any) => a.push(n.type)); return a; });
    assert.equal(types, ['nvr-get']);
    await p.locator('.red-ui-flow-node-group').first().dblclick();
    await p.waitForSelector('#node-input-device', { state: 'visible', timeout: 10_000 });
  });

  test('the deployed device fills the page and channel dropdowns', async ({ page }) => {
    const p = page!;
    await p.selectOption('#node-input-device', 'dev1');
    const pages = await waitForOptions(p, '#node-input-page', [PAGE]);
    assert.ok(pages.includes(PAGE), `page dropdown: ${pages.join(', ')}`);
    assert.ok(pages.includes('StreamConfig/MainStream'), `page dropdown: ${pages.join(', ')}`);
    const channels = await waitForOptions(p, '#node-input-channel', CHANNELS);
    for (const c of CHANNELS) assert.ok(channels.includes(c), `channel dropdown lacks ${c}: ${channels.join(', ')}`);
    await p.selectOption('#node-input-page', PAGE);
    await p.selectOption('#node-input-channel', 'CH1');
    await p.waitForTimeout(300); // the tray's slide-in animation, for the screenshot
    mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
    await p.screenshot({ path: SCREENSHOT });
  });

  test('done and deploy from the editor: the flow holds the choices, no password', async ({ page, nr, password, errors }) => {
    const p = page!;
    await p.click('#node-dialog-ok');
    await p.click('#red-ui-header-button-deploy');
    let flows: any[] = [];
    for (let i = 0; i < 100; i++) {
      flows = (await (await nr!.admin('/flows')).json()) as any[];
      if (flows.some((n) => n.type === 'nvr-get')) break;
      await p.waitForTimeout(100);
    }
    const get = flows.find((n) => n.type === 'nvr-get');
    assert.ok(get, 'nvr-get not deployed');
    assert.is(get.device, 'dev1');
    assert.is(get.page, PAGE);
    assert.is(get.channel, 'CH1');
    assert.not.ok(JSON.stringify(flows).includes(password));
    assert.equal(errors, [], 'page errors in the editor');
  });
}

test.run();
