/**
 * The dialogs that pick from the device, in a real browser (Debian's Chromium, headless) on the editor of real
 * Node-RED 4 and 5 runtimes with this package installed, against the simulator: nvr-control's PTZ mode offers the
 * channel's stored presets and moves as its Command, restart mode says what payload it takes, nvr-snapshot and
 * nvr-event pick channels from the device, nvr-event offers only the alarm types the device's channels can raise,
 * nvr-upgrade's Mode list fits its width and its help opens with what it does, and Test connection with a wrong
 * password says how many tries are left. Each dialog's picture is kept in .tmp/screenshots/dialog-<name>-<runtime>.png.
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

interface Ctx {
  sim?: Simulator;
  nr?: NodeRedRuntime;
  browser?: Browser;
  page?: Page;
  password: string;
  errors: string[];
}

const skip = browserSkipReason();
const SHOTS = join(repoRoot, '.tmp', 'screenshots');

/** The flow the dialogs are opened on: one node of each kind whose dialog changed, all on the simulator. */
function flow(url: string, password: string): object[] {
  const node = (id: string, type: string, y: number, props: Record<string, unknown>) => ({
    id,
    type,
    z: 'tab1',
    name: '',
    device: 'dev1',
    x: 200,
    y,
    wires: type === 'nvr-event' ? [[]] : [[]],
    ...props,
  });
  return [
    { id: 'tab1', type: 'tab', label: 'dialogs' },
    { id: 'dev1', type: 'nvr-device', name: 'simulator', url, heartbeat: '25', credentials: { username: 'admin', password } },
    node('ptz', 'nvr-control', 80, { mode: 'ptz', channel: 'IP_CH1', output: '', brightness: '', volume: '', duration: '', ptz: '' }),
    node('rst', 'nvr-control', 160, { mode: 'restart', channel: '', output: '', brightness: '', volume: '', duration: '', ptz: '' }),
    node('snap', 'nvr-snapshot', 240, { channel: '', resolution: '' }),
    node('ev', 'nvr-event', 320, { channels: '', types: [], startOnly: false, live: [], picture: false }),
    node('up', 'nvr-upgrade', 400, { mode: 'upgrade', file: '', large_capacity: false }),
  ];
}

function dialogSuite(target: RuntimeTarget) {
  const tag = target.name.replace(/ on Node.*/, '').replace(/\W+/g, '');
  const test = suite<Ctx>(`dialogs that pick from the device, in a real browser (${target.name})`, {
    password: randomBytes(12).toString('base64url'),
    errors: [],
  });

  test.before(async (ctx) => {
    ctx.sim = await startSimulator({ password: ctx.password, quiet: true });
    ctx.nr = await startNodeRed({ nodeRedDir: target.nodeRedDir, nodeBinary: target.nodeBinary });
    await ctx.nr.deploy(flow(ctx.sim.url, ctx.password));
    ctx.browser = await launchChromium();
    ctx.page = await ctx.browser.newPage({ viewport: { width: 1400, height: 900 } });
    ctx.page.setDefaultTimeout(15_000);
    ctx.page.on('pageerror', (e) => ctx.errors.push(e.message));
    await ctx.page.goto(ctx.nr.adminUrl + '/');
    await ctx.page.waitForSelector('.red-ui-palette-node[data-palette-type="nvr-control"]', { timeout: 30_000 });
    mkdirSync(SHOTS, { recursive: true });
  });

  test.after(async (ctx) => {
    await ctx.browser?.close();
    await ctx.nr?.stop();
    await ctx.sim?.stop();
  });

  /** Opens the node's dialog (the previous one closed first). */
  const open = async (p: Page, id: string) => {
    await p.waitForSelector('.red-ui-tray', { state: 'detached' });
    await p.evaluate((id) => (globalThis as any).RED.editor.edit((globalThis as any).RED.nodes.node(id)), id);
    await p.waitForSelector('#node-input-device', { state: 'attached' });
  };
  const shoot = async (p: Page, name: string) => {
    await p.waitForTimeout(700); // the tray's slide-in
    const file = join(SHOTS, `dialog-${name}-${tag}.png`);
    await p.locator('.red-ui-tray').first().screenshot({ path: file });
    console.log(`  ${name}: ${file}`);
  };
  const saved = (p: Page, id: string, props: string[]) =>
    p.evaluate(
      ({ id, props }) => {
        const n = (globalThis as any).RED.nodes.node(id);
        return Object.fromEntries(props.map((k) => [k, n[k]]));
      },
      { id, props },
    );
  const texts = (p: Page, selector: string) => p.$$eval(selector, (os) => os.map((o) => (o.textContent ?? '').trim()));

  test("nvr-control, PTZ: the Command lists the channel's stored presets and moves; the one picked is saved", async ({ page }) => {
    const p = page!;
    await open(p, 'ptz');
    await p.waitForSelector('#node-input-ptz option[value="3"]', { state: 'attached' });
    const presets = await texts(p, '#node-input-ptz optgroup:first-of-type option');
    assert.ok(presets.includes('3 Garden'), presets.join(' | '));
    const values = await p.$$eval('#node-input-ptz option', (os) => os.map((o) => (o as any).value));
    for (const v of ['', '3', 'left', 'zoom_in', 'stop']) assert.ok(values.includes(v), `${v}: ${values.join(' ')}`);
    assert.match((await p.textContent('#nvr-control-note')) ?? '', /unless msg\.payload names one of its own/);
    await p.selectOption('#node-input-ptz', '3');
    // The list unfolded for the picture (a native dropdown does not show in screenshots).
    await p.$eval('#node-input-ptz', (el: any) => (el.size = 12));
    await shoot(p, 'control-ptz');
    await p.$eval('#node-input-ptz', (el: any) => (el.size = 0));
    await p.click('#node-dialog-ok');
    assert.equal(await saved(p, 'ptz', ['mode', 'channel', 'ptz', 'valid']), { mode: 'ptz', channel: 'IP_CH1', ptz: '3', valid: true });
  });

  test('nvr-control, restart: the dialog says what payload it takes (a default inject works)', async ({ page }) => {
    const p = page!;
    await open(p, 'rst');
    await p.waitForFunction(() =>
      /Each message restarts/.test((globalThis as any).document.querySelector('#nvr-control-note')?.textContent),
    );
    const note = (await p.textContent('#nvr-control-note')) ?? '';
    assert.match(note, /msg\.payload true, "restart" or a timestamp \(an inject as it comes\)/);
    assert.not.ok(await p.isVisible('#node-input-ptz'), 'no PTZ command in restart mode');
    // The channel: none is the recorder itself (said once), or a camera the NVR can restart.
    await p.waitForSelector('#node-input-channel option[value="IP_CH1"]', { state: 'attached' });
    assert.equal(await texts(p, '#node-input-channel option[value=""]'), ['the recorder itself']);
    await shoot(p, 'control-restart');
    await p.click('#node-dialog-cancel');
  });

  test("nvr-snapshot: the channel is picked from the device's list (names, offline state; no empty slot)", async ({ page }) => {
    const p = page!;
    await open(p, 'snap');
    await p.waitForSelector('#node-input-channel option[value="IP_CH1"]', { state: 'attached' });
    const values = await p.$$eval('#node-input-channel option', (os) => os.map((o) => (o as any).value));
    assert.equal(values, ['', 'CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'WIFI_CH1']);
    assert.match((await p.textContent('#node-input-channel option[value=""]')) ?? '', /from msg\.channel/);
    assert.match((await p.textContent('#node-input-channel option[value="IP_CH2"]')) ?? '', /\(offline\)$/);
    await p.selectOption('#node-input-channel', 'IP_CH1');
    await p.$eval('#node-input-channel', (el: any) => (el.size = 9));
    await shoot(p, 'snapshot');
    await p.$eval('#node-input-channel', (el: any) => (el.size = 0));
    await p.click('#node-dialog-ok');
    assert.equal(await saved(p, 'snap', ['channel', 'valid']), { channel: 'IP_CH1', valid: true });
  });

  test("nvr-event: channels ticked from the device's list; only the alarm types the device can raise", async ({ page }) => {
    const p = page!;
    await open(p, 'ev');
    await p.waitForSelector('.nvr-event-channel-list input[value="IP_CH1"]', { state: 'attached' });
    await p.waitForSelector('.nvr-event-types input[value="person"]', { state: 'attached' });
    const offered = await p.$$eval('.nvr-event-types input', (os) => os.map((o) => (o as any).value));
    for (const t of ['motion', 'pir', 'person', 'line_crossing', 'object', 'video_loss'])
      assert.ok(offered.includes(t), `${t}: ${offered.join(' ')}`);
    for (const t of ['fire', 'plate', 'temperature', 'queue']) assert.not.ok(offered.includes(t), `${t} offered: ${offered.join(' ')}`);
    assert.ok((await texts(p, '.nvr-event-types label')).includes('Line crossing'), 'labelled as the bridge names them');
    await p.check('.nvr-event-channel-list input[value="CH1"]');
    await p.check('.nvr-event-channel-list input[value="IP_CH1"]');
    assert.is(await p.inputValue('#node-input-channels'), 'CH1, IP_CH1');
    await p.check('.nvr-event-types input[value="person"]');
    await shoot(p, 'event');
    await p.click('#node-dialog-ok');
    assert.equal(await saved(p, 'ev', ['channels', 'types', 'valid']), { channels: 'CH1, IP_CH1', types: ['person'], valid: true });
  });

  test('nvr-upgrade: the Mode list fits its width (measured); the help opens with what the node does', async ({ page }) => {
    const p = page!;
    await open(p, 'up');
    const m = await p.evaluate(() => {
      const doc = (globalThis as any).document;
      const select = doc.querySelector('#node-input-mode');
      const cs = (globalThis as any).getComputedStyle(select);
      const ctx2d = doc.createElement('canvas').getContext('2d');
      ctx2d.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      const room = select.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20; // the arrow
      const row = select.closest('.form-row').getBoundingClientRect();
      const box = select.getBoundingClientRect();
      return {
        options: [...select.options].map((o: any) => ({ text: o.text, need: ctx2d.measureText(o.text).width })),
        room,
        inside: box.right <= row.right + 0.5,
      };
    });
    for (const o of m.options) assert.ok(o.need <= m.room, `"${o.text}" needs ${o.need.toFixed(0)} px, has ${m.room.toFixed(0)} px`);
    assert.ok(m.inside, 'the list stays inside its row');
    await shoot(p, 'upgrade');
    const help = await p.evaluate(() => String((globalThis as any).RED.nodes.getNodeHelp('nvr-upgrade')));
    const first = /<p>([\s\S]*?)<\/p>/.exec(help)?.[1].replace(/\s+/g, ' ') ?? '';
    assert.match(first, /^Installs a firmware file on the recorder or camera/);
    assert.not.match(help, /from the device's own tools/);
    await p.click('#node-dialog-cancel');
  });

  test('Test connection with a wrong password says how many tries are left before the device blocks logins', async (ctx) => {
    const p = ctx.page!;
    await open(p, 'snap');
    await p.click('#node-input-btn-device-edit');
    await p.waitForSelector('#node-config-input-url', { state: 'visible' });
    await p.fill('#node-config-input-password', 'not-the-password');
    await p.click('#node-config-test');
    await p.waitForFunction(() =>
      /Connected|Failed/.test((globalThis as any).document.querySelector('#node-config-test-result').textContent),
    );
    const result = (await p.textContent('#node-config-test-result')) ?? '';
    assert.match(result, /^Failed: verify_failed: .*4 tries left before the device blocks logins \(as the device counts\)/);
    assert.not.ok(result.includes(ctx.password));
    await p.waitForTimeout(700);
    await p
      .locator('.red-ui-tray')
      .first()
      .screenshot({ path: join(SHOTS, `dialog-device-test-${tag}.png`) });
    console.log(`  device-test: ${join(SHOTS, `dialog-device-test-${tag}.png`)}`);
    await p.click('#node-config-dialog-cancel');
    await p.waitForSelector('#node-config-input-url', { state: 'detached' });
    await p.click('#node-dialog-cancel');
    assert.equal(ctx.errors, [], 'page errors in the editor');
  });

  test.run();
}

if (skip) {
  missingSuite('dialogs that pick from the device', skip);
} else {
  const { targets, skipped } = availableRuntimes();
  for (const s of skipped) missingSuite('dialogs that pick from the device', s);
  targets.forEach(dialogSuite);
}
