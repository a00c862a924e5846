/**
 * The typed Set form in a real browser (Debian's Chromium, headless) on the editor of real Node-RED
 * 4 and 5 runtimes with this package installed: the form of nvr-set shows the simulator's fields and
 * bounds for VoiceAlarm CH1 with the current values, an out-of-bounds value and an unknown field are
 * refused in the editor before deploy, and the Set built in the form takes effect on the device.
 * Then the example flows imported one after another: one shared nvr-device, no overlapping nodes.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startSimulator, type Simulator } from '../../simulator';
import { availableRuntimes, startNodeRed, repoRoot, type NodeRedRuntime, type RuntimeTarget } from '../helpers/nodered-runtime';
import { browserSkipReason, launchChromium } from '../helpers/browser';
import { missingSuite } from '../helpers/missing';

const VOICE = 'AlarmConfig/VoiceAlarm';
interface Ctx {
  sim?: Simulator;
  nr?: NodeRedRuntime;
  browser?: Browser;
  page?: Page;
  password: string;
  errors: string[];
}

const skip = browserSkipReason();
const voice = (sim: Simulator) => (sim.state as any)[VOICE].channel_info.CH1;
const fieldRow = (key: string) => `.nvr-form-table tr[data-field="${key}"]`;

function formSuite(target: RuntimeTarget) {
  const test = suite<Ctx>(`typed Set form in a real browser (${target.name})`, {
    password: randomBytes(12).toString('base64url'),
    errors: [],
  });

  test.before(async (ctx) => {
    ctx.sim = await startSimulator({ password: ctx.password, quiet: true });
    voice(ctx.sim).siren_value = 7;
    ctx.nr = await startNodeRed({ nodeRedDir: target.nodeRedDir, nodeBinary: target.nodeBinary });
    await ctx.nr.deploy([
      { id: 'tab1', type: 'tab', label: 'Flow 1' },
      {
        id: 'dev1',
        type: 'nvr-device',
        name: 'simulator',
        url: ctx.sim.url,
        heartbeat: '25',
        credentials: { username: 'admin', password: ctx.password },
      },
      {
        id: 'inj',
        type: 'inject',
        z: 'tab1',
        name: 'go',
        props: [{ p: 'payload' }],
        payload: '',
        payloadType: 'date',
        repeat: '',
        once: false,
        x: 120,
        y: 100,
        wires: [['s1']],
      },
      {
        id: 's1',
        type: 'nvr-set',
        z: 'tab1',
        name: '',
        device: 'dev1',
        page: VOICE,
        channel: 'CH1',
        data: '',
        x: 360,
        y: 100,
        wires: [[]],
      },
      { id: 'ev', type: 'nvr-event', z: 'tab1', name: '', device: 'dev1', x: 120, y: 300, wires: [[]] },
      {
        id: 'ctl',
        type: 'nvr-control',
        z: 'tab1',
        name: '',
        device: 'dev1',
        mode: 'floodlight',
        channel: 'CH1',
        output: '',
        brightness: '',
        volume: '',
        duration: '',
        x: 120,
        y: 400,
        wires: [[]],
      },
      // A device the editor cannot reach (nothing listens on port 9 here): the form falls back to JSON.
      {
        id: 'dev2',
        type: 'nvr-device',
        name: 'unreachable',
        url: 'http://127.0.0.1:9',
        heartbeat: '0',
        credentials: { username: 'admin', password: 'x' },
      },
      {
        id: 's2',
        type: 'nvr-set',
        z: 'tab1',
        name: '',
        device: 'dev2',
        page: VOICE,
        channel: 'CH1',
        data: '{"siren_value":3}',
        x: 360,
        y: 200,
        wires: [[]],
      },
    ]);
    ctx.browser = await launchChromium();
    ctx.page = await ctx.browser.newPage({ viewport: { width: 1400, height: 900 } });
    ctx.page.setDefaultTimeout(15_000);
    ctx.page.on('pageerror', (e) => ctx.errors.push(e.message));
    await ctx.page.goto(ctx.nr.adminUrl + '/');
    await ctx.page.waitForSelector('.red-ui-palette-node[data-palette-type="nvr-set"]', { timeout: 30_000 });
  });

  test.after(async (ctx) => {
    await ctx.browser?.close();
    await ctx.nr?.stop();
    await ctx.sim?.stop();
  });

  const openSet = async (p: Page) => {
    // The previous dialog's tray is gone before the next one opens (its inputs carry the same selectors).
    await p.waitForSelector('.nvr-form-table', { state: 'detached' });
    await p.evaluate(() => (globalThis as any).RED.editor.edit((globalThis as any).RED.nodes.node('s1')));
    await p.waitForSelector(fieldRow('siren_value') + ' .nvr-field-input', { state: 'visible' });
    await p.waitForFunction(() => (globalThis as any).document.querySelector('.nvr-form-note')?.textContent === '');
  };

  test('the form shows VoiceAlarm CH1 as the simulator declares it: controls, bounds, read-only fields, current values', async ({
    page,
  }) => {
    const p = page!;
    await openSet(p);
    // Labels come from the locales/en-US catalogue.
    assert.is((await p.textContent('.nvr-form-row label'))?.trim(), 'Fields');
    assert.is((await p.textContent('label[for="node-input-ignoreMsg"]'))?.trim(), 'Ignore msg.page, msg.channel and msg.payload');
    const value = p.locator(fieldRow('siren_value') + ' .nvr-field-input');
    assert.is(await value.getAttribute('type'), 'number');
    assert.is(await value.getAttribute('min'), '1');
    assert.is(await value.getAttribute('max'), '10');
    assert.is(await value.inputValue(), '7');
    assert.is((await p.textContent(fieldRow('siren_value') + ' .nvr-field-now'))?.trim(), '7');
    const time = p.locator(fieldRow('siren_time') + ' .nvr-field-input');
    assert.equal([await time.getAttribute('min'), await time.getAttribute('max')], ['5', '180']);
    assert.is(await p.locator(fieldRow('siren_switch') + ' .nvr-field-input').getAttribute('type'), 'checkbox');
    const sirenTypes = await p.$$eval(fieldRow('siren_type') + ' select option', (os) => os.map((o) => (o as any).value));
    assert.ok(sirenTypes.length > 0, 'siren_type is a dropdown of the Range items');
    assert.is(await p.locator(fieldRow('siren_file_name') + ' .nvr-field-input').getAttribute('maxlength'), '127');
    assert.ok(await p.locator(fieldRow('support_siren_schedule_hub') + ' .nvr-field-input').isDisabled(), 'read-only field not editable');
    assert.ok(
      await p.locator(fieldRow('support_siren_schedule_hub') + ' .nvr-field-tick').isDisabled(),
      'read-only field cannot be ticked',
    );
  });

  test('an out-of-bounds value and an unknown field are refused in the editor; the node is marked invalid', async ({ page }) => {
    const p = page!;
    await p.fill(fieldRow('siren_value') + ' .nvr-field-input', '99');
    await p.waitForFunction(() =>
      /siren_value must be at most 10/.test((globalThis as any).document.querySelector('.nvr-data-problems').textContent),
    );
    assert.ok((await p.locator(fieldRow('siren_value') + ' .nvr-field-input.input-error').count()) === 1, 'input marked');
    assert.ok(await p.locator(fieldRow('siren_value') + ' .nvr-field-tick').isChecked(), 'editing a field ticks it');
    assert.equal(JSON.parse(await p.inputValue('#node-input-data')), { siren_value: 99 });
    await p.click('#node-dialog-ok');
    assert.is(await p.evaluate(() => (globalThis as any).RED.nodes.node('s1').valid), false);
    // A field the Range does not have, typed as JSON: the nearest name is offered.
    await openSet(p);
    await p.evaluate(() => {
      const $ = (globalThis as any).$;
      $('#node-input-data').typedInput('value', '{"siren_volume": 3}');
      $('#node-input-data').trigger('change');
    });
    await p.waitForFunction(() =>
      /siren_volume is not a field of this page \(did you mean siren_value\?\)/.test(
        (globalThis as any).document.querySelector('.nvr-data-problems').textContent,
      ),
    );
    await p.click('#node-dialog-ok');
    assert.is(await p.evaluate(() => (globalThis as any).RED.nodes.node('s1').valid), false);
  });

  test("the Set form is readable at the editor's default tray width: every value fits its control (widths measured, PNG kept)", async (ctx) => {
    const p = ctx.page!;
    voice(ctx.sim!).siren_value = 10; // "10" showed as "1" in a 34 px column
    voice(ctx.sim!).siren_type = 'User-defined3'; // the longest siren type
    await openSet(p);
    await p.waitForFunction(
      () => (globalThis as any).document.querySelector('tr[data-field="siren_value"] .nvr-field-input')?.value === '10',
    );
    await p.waitForFunction(() => !!(globalThis as any).document.querySelector('#node-input-channel option[value="IP_CH3"]'));
    const m = await p.evaluate(() => {
      const doc = (globalThis as any).document;
      const ctx2d = doc.createElement('canvas').getContext('2d');
      /** Width the text needs in the element's own font. */
      const textWidth = (el: any, text: string) => {
        const cs = (globalThis as any).getComputedStyle(el);
        ctx2d.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        return ctx2d.measureText(text).width;
      };
      const inner = (el: any) => {
        const cs = (globalThis as any).getComputedStyle(el);
        return el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      };
      const rows = [...doc.querySelectorAll('.nvr-form-table tr[data-field]')].map((tr: any) => {
        const input = tr.querySelector('.nvr-field-input');
        const isSelect = input.tagName === 'SELECT';
        const shown = isSelect ? (input.options[input.selectedIndex]?.text ?? '') : input.type === 'checkbox' ? '' : String(input.value);
        // A select's text shares its box with the drop-down arrow (about 20 px).
        return {
          key: tr.getAttribute('data-field'),
          shown,
          room: inner(input) - (isSelect ? 20 : 0),
          need: textWidth(input, shown),
          width: input.getBoundingClientRect().width,
        };
      });
      const allChannels = doc.querySelector('#node-input-channel option[value=""]')?.textContent ?? '';
      const channelText = (id: string) => doc.querySelector(`#node-input-channel option[value="${id}"]`)?.textContent ?? '';
      return {
        tray: doc.querySelector('.red-ui-tray').getBoundingClientRect().width,
        rows,
        allChannels,
        offline: channelText('IP_CH2'),
        empty: channelText('IP_CH3'),
      };
    });
    const dir = join(repoRoot, '.tmp', 'screenshots');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `set-form-${target.name.replace(/\W+/g, '-')}.png`);
    await p.locator('.red-ui-tray').first().screenshot({ path: file });
    console.log(
      `  Set form at the default tray width (${m.tray} px), value controls ${m.rows.find((r) => r.key === 'siren_value')?.width.toFixed(0)} px: ${file}`,
    );
    await p.evaluate(() => (globalThis as any).$('#node-dialog-cancel').trigger('click'));
    const short = m.rows.filter((r) => r.shown && r.shown.length <= 16);
    assert.ok(short.length >= 3, JSON.stringify(m.rows));
    for (const r of short)
      assert.ok(r.room >= r.need, `${r.key}: "${r.shown}" needs ${r.need.toFixed(0)} px, has ${r.room.toFixed(0)} px (tray ${m.tray} px)`);
    // At the width the editor gives the dialog by default (about 600 px here): the form does not widen it.
    assert.ok(m.tray < 700, `the dialog was widened to ${m.tray} px`);
    const value = m.rows.find((r) => r.key === 'siren_value')!;
    assert.ok(value.width >= 100, `value column ${value.width.toFixed(0)} px wide (tray ${m.tray} px)`);
    assert.is(m.rows.find((r) => r.key === 'siren_type')!.shown, 'User-defined3');
    // The empty channel choice of a Set says what it means.
    assert.match(m.allChannels, /^No channel \(data names them/);
    // An offline camera and an empty slot are told apart in the channel list.
    assert.match(m.offline, /^IP_CH2\b.*\(offline\)$/);
    assert.match(m.empty, /^IP_CH3\b.*\(no camera\)$/);
    voice(ctx.sim!).siren_value = 7;
  });

  test('a device the editor cannot reach: the form says so, the JSON data stays editable and valid', async ({ page }) => {
    const p = page!;
    await p.waitForSelector('.nvr-form-table', { state: 'detached' });
    await p.evaluate(() => (globalThis as any).RED.editor.edit((globalThis as any).RED.nodes.node('s2')));
    await p.waitForFunction(
      () =>
        /Fields unavailable \(.+\): edit the data as JSON/.test(
          (globalThis as any).document.querySelector('.nvr-form-note')?.textContent ?? '',
        ),
      undefined,
      { timeout: 30_000 },
    );
    assert.is(await p.locator('.nvr-form-table tr[data-field]').count(), 0);
    assert.equal(JSON.parse(await p.inputValue('#node-input-data')), { siren_value: 3 });
    assert.is(await p.textContent('.nvr-data-problems'), '');
    await p.click('#node-dialog-ok');
    assert.is(await p.evaluate(() => (globalThis as any).RED.nodes.node('s2').valid), true);
  });

  test('the Set built in the form takes effect after deploy; the answer is the state read back', async (ctx) => {
    const p = ctx.page!;
    await openSet(p);
    await p.evaluate(() => (globalThis as any).$('#node-input-data').typedInput('value', ''));
    await p.fill(fieldRow('siren_value') + ' .nvr-field-input', '4');
    await p.check(fieldRow('siren_switch') + ' .nvr-field-input');
    await p.waitForFunction(() => (globalThis as any).document.querySelector('.nvr-data-problems').textContent === '');
    assert.equal(JSON.parse(await p.inputValue('#node-input-data')), { siren_value: 4, siren_switch: true });
    await p.click('#node-dialog-ok');
    assert.is(await p.evaluate(() => (globalThis as any).RED.nodes.node('s1').valid), true);
    await p.click('#red-ui-header-button-deploy');
    let saved: any;
    for (let i = 0; i < 100 && !saved?.data; i++) {
      await p.waitForTimeout(100);
      saved = ((await (await ctx.nr!.admin('/flows')).json()) as any[]).find((n) => n.id === 's1');
    }
    assert.equal(JSON.parse(saved.data), { siren_value: 4, siren_switch: true });
    assert.is(saved.dataType, 'json');
    const sets = () => ctx.sim!.log.filter((e) => e.path === `/API/${VOICE}/Set`).length;
    const before = sets();
    // Node-RED answers deploys before the new node has started; wait for its green dot, then fire.
    await p.waitForSelector('.red-ui-flow-node-status-dot-green', { state: 'attached' });
    const r = await ctx.nr!.admin('/inject/inj', { method: 'POST' });
    assert.is(r.status, 200);
    for (let i = 0; i < 100 && voice(ctx.sim!).siren_value !== 4; i++) await p.waitForTimeout(50);
    assert.is(voice(ctx.sim!).siren_value, 4);
    assert.is(voice(ctx.sim!).siren_switch, true);
    assert.is(sets() - before, 1);
    assert.equal(ctx.errors, [], 'page errors in the editor');
  });

  test('nvr-event dialog: channels, alarm types ticked from the list, start only; saved on the node', async ({ page }) => {
    const p = page!;
    await p.waitForSelector('.nvr-form-table', { state: 'detached' });
    await p.evaluate(() => (globalThis as any).RED.editor.edit((globalThis as any).RED.nodes.node('ev')));
    await p.waitForSelector('.nvr-event-types input[value="person"]', { state: 'visible' });
    assert.is((await p.textContent('label[for="node-input-startOnly"]'))?.trim(), 'Only when an alarm starts');
    await p.fill('#node-input-channels', 'CH1, IP_CH1');
    await p.check('.nvr-event-types input[value="person"]');
    await p.check('.nvr-event-types input[value="vehicle"]');
    await p.check('#node-input-startOnly');
    assert.is((await p.textContent('.nvr-event-live'))?.trim(), 'floodlightsirenred/blue light');
    await p.check('.nvr-event-live input[value="floodlight"]');
    await p.click('#node-dialog-ok');
    const saved = await p.evaluate(() => {
      const n = (globalThis as any).RED.nodes.node('ev');
      return { channels: n.channels, types: n.types, startOnly: n.startOnly, live: n.live, valid: n.valid };
    });
    assert.equal(saved, { channels: 'CH1, IP_CH1', types: ['person', 'vehicle'], startOnly: true, live: ['floodlight'], valid: true });
    await p.waitForSelector('#node-input-channels', { state: 'detached' });
  });

  test("nvr-control dialog: the channel dropdown lists only channels with the mode's hardware; saved on the node", async ({ page }) => {
    const p = page!;
    await p.waitForSelector('#node-input-channels', { state: 'detached' });
    await p.evaluate(() => (globalThis as any).RED.editor.edit((globalThis as any).RED.nodes.node('ctl')));
    const options = async () => p.$$eval('#node-input-channel option', (os) => os.map((o) => (o as any).value).filter(Boolean));
    await p.waitForFunction(() => (globalThis as any).document.querySelectorAll('#node-input-channel option').length > 1);
    assert.equal(await options(), ['CH1', 'CH2', 'CH4', 'IP_CH1'], 'floodlight channels');
    assert.ok(await p.isVisible('#node-input-brightness'));
    await p.selectOption('#node-input-mode', 'siren');
    await p.waitForFunction(() =>
      [...(globalThis as any).document.querySelectorAll('#node-input-channel option')].some((o: any) => o.value === 'CH3'),
    );
    assert.equal(await options(), ['CH1', 'CH2', 'CH3', 'IP_CH1', 'WIFI_CH1'], 'siren channels');
    assert.not.ok(await p.isVisible('#node-input-brightness'), 'no brightness for a siren');
    assert.ok(await p.isVisible('#node-input-volume'));
    await p.selectOption('#node-input-channel', 'CH3');
    await p.fill('#node-input-duration', '30');
    await p.click('#node-dialog-ok');
    const saved = await p.evaluate(() => {
      const n = (globalThis as any).RED.nodes.node('ctl');
      return { mode: n.mode, channel: n.channel, duration: n.duration, valid: n.valid };
    });
    assert.equal(saved, { mode: 'siren', channel: 'CH3', duration: '30', valid: true });
    await p.waitForSelector('#node-input-mode', { state: 'detached' });
  });

  test('the example flows imported one after another share one nvr-device; no two nodes overlap', async (ctx) => {
    const p = ctx.page!;
    const dir = join(repoRoot, 'examples');
    const examples = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
    // The first import keeps the ids; the next ones conflict on the device and take the editor's
    // "Import copy" (new ids, existing config nodes reused).
    const devices = await p.evaluate((flows) => {
      const RED = (globalThis as any).RED;
      flows.forEach((f: any, i: number) => RED.view.importNodes(f, { generateIds: i > 0, addFlow: false }));
      const out: string[] = [];
      RED.nodes.eachConfig((n: any) => {
        if (n.type === 'nvr-device' && n.id !== 'dev1' && n.id !== 'dev2') out.push(n.id);
      });
      return out;
    }, examples);
    assert.equal(devices, ['nvr2mqtt.dev']);
    // Each tab drawn in turn, so every node has its rendered width (long labels make nodes wide).
    const tabs: string[] = await p.evaluate(() => {
      const a: string[] = [];
      (globalThis as any).RED.nodes.eachWorkspace((w: any) => a.push(w.id));
      return a;
    });
    const overlaps: string[] = [];
    let measured = 0;
    for (const tab of tabs) {
      await p.evaluate((tab) => {
        const RED = (globalThis as any).RED;
        RED.workspaces.show(tab);
        RED.view.redraw(true);
      }, tab);
      // d3 draws on a later frame: wait until every node of the tab has its rendered size (a fixed wait was flaky under load).
      await p.waitForFunction((tab) => {
        let drawn = true;
        (globalThis as any).RED.nodes.eachNode((n: any) => {
          if (n.z === tab && !(n.w > 0 && n.h > 0)) drawn = false;
        });
        return drawn;
      }, tab);
      const boxes: Array<{ id: string; x: number; y: number; w: number; h: number }> = await p.evaluate((tab) => {
        const out: any[] = [];
        (globalThis as any).RED.nodes.eachNode((n: any) => {
          if (n.z === tab) out.push({ id: `${n.type} "${n.name || n.id}"`, x: n.x - n.w / 2, y: n.y - n.h / 2, w: n.w, h: n.h });
        });
        return out;
      }, tab);
      for (const b of boxes) assert.ok(b.w > 0 && b.h > 0, `${b.id} not drawn`);
      measured += boxes.length;
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i],
            b = boxes[j];
          if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h) overlaps.push(`${a.id} / ${b.id}`);
        }
      }
    }
    assert.ok(measured >= 20, `measured ${measured} nodes`);
    assert.equal(overlaps, []);
  });

  test.run();
}

if (skip) {
  missingSuite('typed Set form in a real browser', skip);
} else {
  const { targets, skipped } = availableRuntimes();
  for (const s of skipped) missingSuite('typed Set form in a real browser', s);
  targets.forEach(formSuite);
}
