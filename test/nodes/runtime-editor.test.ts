/**
 * A real browser (Debian's Chromium, headless, driven by playwright-core) on the editor of a real
 * Node-RED 4 runtime that has this package installed: search the palette, drag `nvr-get` onto the
 * workspace, open its dialog, pick the deployed nvr-device, and see the page dropdown filled from the
 * registry and the channel dropdown filled from the simulator through the admin routes. Then a second
 * device created inside the dialog (never deployed) fills the channels too, a deploy from the editor
 * keeps its password out of the flow, and a page typed as "other page" is deployed and shown again.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startSimulator, type Simulator } from '../../simulator';
import { availableRuntimes, startNodeRed, repoRoot, type NodeRedRuntime, type RuntimeTarget } from '../helpers/nodered-runtime';
import { browserSkipReason, launchChromium } from '../helpers/browser';
import { missingSuite } from '../helpers/missing';
import { NODE_TYPES, PALETTE_TYPES } from './node-types';

const PAGE = 'AlarmConfig/Deterrence';
/** A path the page registry does not know. */
const CUSTOM_PAGE = 'VendorConfig/Custom';
const CHANNELS = ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'IP_CH3', 'WIFI_CH1'];

interface Ctx {
  sim?: Simulator;
  sim2?: Simulator;
  nr?: NodeRedRuntime;
  browser?: Browser;
  page?: Page;
  password: string;
  password2: string;
  errors: string[];
  newDevice?: string;
}

const skip = browserSkipReason();

/** Values of a <select>'s options. */
const optionValues = (page: Page, selector: string) => page.$$eval(`${selector} option`, (os) => os.map((o) => (o as any).value));

/** Waits until the select lists every wanted value; returns what it lists. */
async function waitForOptions(page: Page, selector: string, wanted: string[], timeout = 15_000): Promise<string[]> {
  await page
    .waitForFunction(
      ({ selector, wanted }) => {
        const values = Array.from((globalThis as any).document.querySelectorAll(`${selector} option`)).map((o: any) => o.value);
        return wanted.every((w) => values.includes(w));
      },
      { selector, wanted },
      { timeout },
    )
    .catch(() => undefined);
  return optionValues(page, selector);
}

/** One suite per runtime; screenshots .tmp/editor.png (Node-RED 4), .tmp/editor-nr5.png (Node-RED 5), ... */
function editorSuite(target: RuntimeTarget, shot: string) {
  const test = suite<Ctx>(`editor in a real browser (${target.name})`, {
    password: randomBytes(12).toString('base64url'),
    password2: randomBytes(12).toString('base64url'),
    errors: [],
  });
  const SCREENSHOT = join(repoRoot, '.tmp', shot);
  test.before(async (ctx) => {
    const t0 = Date.now();
    ctx.sim = await startSimulator({ password: ctx.password, quiet: true });
    // A second, smaller device for the one created inside the dialog: its channels tell the two apart.
    ctx.sim2 = await startSimulator({ password: ctx.password2, quiet: true, channels: 4 });
    ctx.nr = await startNodeRed({ nodeRedDir: target.nodeRedDir, nodeBinary: target.nodeBinary });
    // The device the dialog picks: deployed beforehand, credentials through the admin API.
    await ctx.nr.deploy([
      { id: 'tab1', type: 'tab', label: 'Flow 1' },
      {
        id: 'dev1',
        type: 'nvr-device',
        name: 'deployed simulator',
        url: ctx.sim.url,
        heartbeat: '25',
        credentials: { username: 'admin', password: ctx.password },
      },
    ]);
    ctx.browser = await launchChromium();
    ctx.page = await ctx.browser.newPage({ viewport: { width: 1400, height: 900 } });
    ctx.page.setDefaultTimeout(15_000); // one failing step must not cascade into minutes of timeouts
    ctx.page.on('pageerror', (e) => ctx.errors.push(e.message));
    await ctx.page.goto(ctx.nr.adminUrl + '/');
    await ctx.page.waitForSelector('.red-ui-palette-node[data-palette-type="nvr-get"]', { timeout: 30_000 });
    console.log(`  editor ready in ${Date.now() - t0} ms`);
  });

  test.after(async (ctx) => {
    await ctx.browser?.close();
    await ctx.nr?.stop();
    await ctx.sim?.stop();
    await ctx.sim2?.stop();
  });

  test('the palette has an nvr2mqtt category with the eight node types, their icons, and help for all nine', async ({ page }) => {
    const p = page!;
    assert.match((await p.textContent('#red-ui-palette-header-nvr2mqtt')) ?? '', 'nvr2mqtt');
    const inCategory = await p.$$eval('#red-ui-palette-container-nvr2mqtt .red-ui-palette-node', (ns) =>
      ns.map((n) => `${(n as any).dataset.paletteType} ${(n as any).querySelector('.red-ui-palette-icon')?.style.backgroundImage ?? ''}`),
    );
    const types = inCategory.map((s) => s.split(' ')[0]).sort();
    assert.equal(types, [...PALETTE_TYPES]);
    for (const entry of inCategory) assert.match(entry, /icons\/nvr2mqtt\/nvr2mqtt-\w+\.svg/, entry);
    // Help text for every type, including the config node, as the editor's help sidebar reads it.
    const help = await p.evaluate((types) => types.map((t) => String((globalThis as any).RED.nodes.getNodeHelp(t) ?? '')), NODE_TYPES);
    for (const h of help) assert.ok(h.length > 300 && h.includes('<h3>'), h.slice(0, 80));
  });

  test('palette search, drag nvr-get onto the workspace, open its dialog', async ({ page }) => {
    const p = page!;
    await p.locator('#red-ui-palette-search input').pressSequentially('nvr-get', { delay: 20 });
    const item = p.locator('.red-ui-palette-node[data-palette-type="nvr-get"]');
    await item.waitFor({ state: 'visible' });
    // the filter is debounced: other node types disappear shortly after typing
    await p.locator('.red-ui-palette-node[data-palette-type="inject"]').waitFor({ state: 'hidden', timeout: 5000 });
    await item.dragTo(p.locator('#red-ui-workspace-chart'), { targetPosition: { x: 350, y: 200 } });
    const types = await p.evaluate(() => {
      const a: string[] = [];
      (globalThis as any).RED.nodes.eachNode((n: any) => a.push(n.type));
      return a;
    });
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
    // The same dialog with the channel list unfolded (a native dropdown does not show in screenshots).
    await p.$eval('#node-input-channel', (el: any) => {
      el.size = 10;
    });
    await p.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-channels.png') });
    await p.$eval('#node-input-channel', (el: any) => {
      el.size = 0;
    });
  });

  test('test connection with the stored password of the deployed device', async ({ page }) => {
    const p = page!;
    await p.click('#node-input-btn-device-edit');
    await p.waitForSelector('#node-config-input-url', { state: 'visible' });
    // The editor never receives the stored password, only a placeholder.
    assert.is(await p.inputValue('#node-config-input-password'), '__PWRD__');
    await p.click('#node-config-test');
    await p.waitForFunction(() =>
      /Connected|Failed/.test((globalThis as any).document.querySelector('#node-config-test-result').textContent),
    );
    assert.match((await p.textContent('#node-config-test-result')) ?? '', /^Connected: /);
    await p.click('#node-config-dialog-cancel');
    await p.waitForSelector('#node-config-input-url', { state: 'detached' });
  });

  test('a device added inside the dialog (not deployed) fills the channel dropdown', async (ctx) => {
    const p = ctx.page!;
    await p.click('#node-input-btn-device-add');
    await p.waitForSelector('#node-config-input-url', { state: 'visible' });
    await p.fill('#node-config-input-name', 'added in the dialog');
    await p.fill('#node-config-input-url', ctx.sim2!.url);
    await p.fill('#node-config-input-username', 'admin');
    await p.fill('#node-config-input-password', ctx.password2);
    await p.click('#node-config-test');
    await p.waitForFunction(() =>
      /Connected|Failed/.test((globalThis as any).document.querySelector('#node-config-test-result').textContent),
    );
    assert.match((await p.textContent('#node-config-test-result')) ?? '', /^Connected: /);
    await p.click('#node-config-dialog-ok');
    await p.waitForSelector('#node-config-input-url', { state: 'detached' });
    ctx.newDevice = await p.inputValue('#node-input-device');
    assert.ok(ctx.newDevice && ctx.newDevice !== 'dev1' && ctx.newDevice !== '_ADD_', ctx.newDevice);
    const wanted = ['CH1', 'CH2', 'IP_CH1', 'WIFI_CH1'];
    // Exactly this device's channels: its list is a subset of the deployed device's (vendor numbering), so waiting for
    // the wanted ids alone could read the other device's list before this one's answer replaced it.
    await p
      .waitForFunction(
        (want) => {
          const values = Array.from((globalThis as any).document.querySelectorAll('#node-input-channel option'))
            .map((o: any) => o.value)
            .filter(Boolean);
          return values.join() === want.join();
        },
        wanted,
        { timeout: 15_000 },
      )
      .catch(() => undefined);
    const channels = await optionValues(p, '#node-input-channel');
    assert.equal(channels.filter(Boolean), wanted);
    await p.selectOption('#node-input-channel', 'IP_CH1');
  });

  test('done and deploy from the editor: the flow holds the choices, no password anywhere', async (ctx) => {
    const p = ctx.page!;
    const nr = ctx.nr!;
    await p.click('#node-dialog-ok');
    await p.click('#red-ui-header-button-deploy');
    let flows: any[] = [];
    for (let i = 0; i < 100; i++) {
      flows = (await (await nr.admin('/flows')).json()) as any[];
      if (flows.some((n) => n.type === 'nvr-get')) break;
      await p.waitForTimeout(100);
    }
    const get = flows.find((n) => n.type === 'nvr-get');
    assert.ok(get, 'nvr-get not deployed');
    assert.is(get.device, ctx.newDevice);
    assert.is(get.page, PAGE);
    assert.is(get.channel, 'IP_CH1');
    const added = flows.find((n) => n.id === ctx.newDevice);
    assert.is(added?.url, ctx.sim2!.url);
    const text = JSON.stringify(flows);
    assert.not.ok(text.includes(ctx.password) || text.includes(ctx.password2), 'password in GET /flows');
    const creds = (await (await nr.admin('/credentials/nvr-device/' + ctx.newDevice)).json()) as Record<string, unknown>;
    assert.equal(creds, { username: 'admin', has_password: true });
    // The deployed node logs in with the password typed in the dialog: its status turns green.
    await p.waitForSelector('.red-ui-flow-node-status-dot-green', { state: 'attached', timeout: 15_000 });
    await p.screenshot({ path: SCREENSHOT.replace(/\.png$/, '-deployed.png') });
    assert.equal(ctx.errors, [], 'page errors in the editor');
  });

  test('"other page": a typed path is deployed, and the dialog shows it again as typed', async (ctx) => {
    const p = ctx.page!;
    const openDialog = async () => {
      await p.locator('.red-ui-flow-node-group').first().dblclick();
      await p.waitForSelector('#node-input-page', { state: 'visible' });
      await waitForOptions(p, '#node-input-page', [PAGE]); // the registry has arrived
    };
    await openDialog();
    await p.selectOption('#node-input-page', '__custom__');
    await p.waitForSelector('#node-input-page-custom', { state: 'visible' });
    await p.fill('#node-input-page-custom', CUSTOM_PAGE);
    await p.click('#node-dialog-ok');
    await p.click('#red-ui-header-button-deploy');
    let get: any;
    for (let i = 0; i < 100 && get?.page !== CUSTOM_PAGE; i++) {
      await p.waitForTimeout(100);
      get = ((await (await ctx.nr!.admin('/flows')).json()) as any[]).find((n) => n.type === 'nvr-get');
    }
    assert.is(get?.page, CUSTOM_PAGE);
    await openDialog();
    assert.is(await p.inputValue('#node-input-page'), '__custom__');
    assert.is(await p.inputValue('#node-input-page-custom'), CUSTOM_PAGE);
    await p.click('#node-dialog-cancel');
    assert.equal(ctx.errors, [], 'page errors in the editor');
  });
  test.run();
}

if (skip) {
  missingSuite('editor in a real browser', skip);
} else {
  const { targets, skipped } = availableRuntimes();
  for (const s of skipped) missingSuite('editor in a real browser', s);
  targets.forEach((t, i) => editorSuite(t, i === 0 ? 'editor.png' : `editor-nr${t.name.match(/Node-RED (\d+)/)?.[1] ?? i}.png`));
}
