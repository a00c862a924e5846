/**
 * Editor admin routes through the test helper's request API: page list, channel list and "test
 * connection" from a dialog's values before any deploy, with a stored password behind the
 * placeholder, and never a password in an answer.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePageName } from '../../core/pages';
import { ALARM_TYPE_KEYS } from '../../nodes/shared/alarm-event';
import { CONTROL_MODES } from '../../nodes/shared/control-modes';
import { LIVE_PARTS } from '../../nodes/shared/live-parts';
import nvrDevice from '../../nodes/nvr-device/nvr-device';
import {
  helper,
  credentials,
  DEV,
  flowWith,
  load,
  newPassword,
  paths,
  statusesOf,
  waitFor,
  useSimulator,
  type SimulatorContext,
} from './harness';

type Ctx = SimulatorContext;
const test = suite<Ctx>('nodes: admin routes', { password: newPassword() });

const PLACEHOLDER = '__PWRD__';

useSimulator(test);

/** Nothing deployed but a tab: the routes exist as soon as the module is loaded. */
const empty = () => load([{ id: 'tab1', type: 'tab', label: 'empty' }]);

async function post(route: string, body: object) {
  const res = await helper.request().post(`/nvr-device/${route}`).send(body).set('content-type', 'application/json');
  return { status: res.status as number, body: res.body, text: res.text as string };
}

test('routes are registered once, at module load, with nvr-device.read / nvr-device.write', () => {
  const routes: string[] = [];
  const fakeRed = {
    nodes: { registerType() {}, createNode() {}, getNode: () => null, getCredentials: () => undefined },
    auth: { needsPermission: (p: string) => Object.assign(() => undefined, { permission: p }) },
    httpAdmin: {
      get: (path: string, perm: any) => routes.push(`GET ${path} ${perm.permission}`),
      post: (path: string, perm: any) => routes.push(`POST ${path} ${perm.permission}`),
    },
    log: { warn() {}, debug() {}, error() {}, info() {} },
  };
  nvrDevice(fakeRed as never);
  assert.equal(routes, [
    'GET /nvr-device/pages nvr-device.read',
    'GET /nvr-device/rules nvr-device.read',
    'POST /nvr-device/channels nvr-device.write',
    'POST /nvr-device/form nvr-device.write',
    'POST /nvr-device/hardware nvr-device.write',
    'POST /nvr-device/ptz nvr-device.write',
    'POST /nvr-device/alarms nvr-device.write',
    'POST /nvr-device/diagnostics nvr-device.write',
    'POST /nvr-device/test nvr-device.write',
  ]);
});

test("GET rules: nvr-control's modes, the page-name syntax, nvr-event's alarm types and live parts, as the runtime has them (the editor restates none)", async () => {
  await empty();
  const res = await helper.request().get('/nvr-device/rules').expect(200);
  assert.equal(Object.keys(res.body.modes), Object.keys(CONTROL_MODES));
  assert.equal(res.body.modes.siren, { target: 'channel', settings: ['volume', 'duration'], label: 'siren' });
  assert.equal(res.body.modes.disarm, { target: 'device', settings: [] });
  assert.equal(res.body.alarmTypes, [...ALARM_TYPE_KEYS]);
  assert.equal(
    res.body.liveParts,
    LIVE_PARTS.map((p) => p.part),
  );
  const editor = new RegExp(res.body.pageName);
  for (const page of ['AlarmConfig/Deterrence', 'Maintenance/SystemUpgrade/Token', 'Alarm Config', '1st/Page', 'A/B/C/D/E/F', 'A//B']) {
    assert.is(editor.test(page), parsePageName(page) !== undefined, page);
  }
});

test("GET pages: the registry, with each page's operations", async () => {
  await empty();
  const res = await helper.request().get('/nvr-device/pages').expect(200);
  const deterrence = res.body.find((p: any) => p.name === 'AlarmConfig/Deterrence');
  assert.equal(deterrence.operations, ['Range', 'Get', 'Set']);
  assert.type(deterrence.title, 'string');
  assert.ok(res.body.some((p: any) => p.name === 'Maintenance/SystemUpgrade' && p.operations.includes('Token')));
});

test("POST channels before any deploy, from the dialog's values; the short-lived session logs out", async ({ sim, password }) => {
  await empty();
  const r = await post('channels', { url: sim!.url, username: 'admin', password });
  assert.is(r.status, 200, r.text);
  assert.equal(
    r.body.channels.map((c: any) => c.channel),
    ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'IP_CH3', 'WIFI_CH1'],
  );
  assert.is(r.body.channels.find((c: any) => c.channel === 'IP_CH2').online, false);
  assert.ok(paths(sim!).includes('/API/Web/Logout'), 'temporary session closed');
  assert.not.ok(r.text.includes(password));
});

test('POST test: ok with the model and firmware; wrong password: 502 with the code, no password echoed', async ({ sim, password }) => {
  await empty();
  const ok = await post('test', { url: sim!.url, username: 'admin', password });
  assert.is(ok.status, 200, ok.text);
  assert.is(ok.body.ok, true);
  assert.type(ok.body.device_type, 'string');
  assert.type(ok.body.software_version, 'string');
  const bad = await post('test', { url: sim!.url, username: 'admin', password: 'wrong-' + password });
  assert.is(bad.status, 502);
  assert.equal(bad.body, { ok: false, error: { kind: 'lockout', error_code: 'verify_failed', reason: bad.body.error.reason } });
  assert.not.ok(bad.text.includes(password));
});

test('POST diagnostics: the capture of every reading page, no write, no password or serial in it; wrong password: 502', async ({
  sim,
  password,
}) => {
  await empty();
  sim!.clearLog();
  const r = await post('diagnostics', { url: sim!.url, username: 'admin', password });
  assert.is(r.status, 200, r.text);
  assert.is(r.body.capture.format, 'nvr2mqtt-capture');
  assert.is(r.body.capture.exchanges.length, r.body.answers);
  assert.ok(r.body.capture.exchanges.some((x: any) => x.path === '/API/AlarmConfig/Deterrence/Range'));
  const writes = paths(sim!).filter((p) => !/\/(Range|Get|Check|Login|Logout|Heartbeat)$/.test(p));
  assert.equal(writes, []);
  assert.ok(paths(sim!).includes('/API/Web/Logout'), 'its session closed');
  assert.not.ok(r.text.includes(password));
  assert.not.match(r.text, /"serialNum":"SIM/);
  const bad = await post('diagnostics', { url: sim!.url, username: 'admin', password: 'wrong-' + password });
  assert.is(bad.status, 502);
  assert.is(bad.body.error.error_code, 'verify_failed');
});

test("stored password: the placeholder (or no password) uses the config node's credentials", async ({ sim, password }) => {
  await load(flowWith(sim!.url, []), credentials(password));
  const withPlaceholder = await post('test', { id: DEV, url: sim!.url, username: 'admin', password: PLACEHOLDER });
  assert.is(withPlaceholder.status, 200, withPlaceholder.text);
  const withNothing = await post('channels', { id: DEV, url: sim!.url });
  assert.is(withNothing.status, 200, withNothing.text);
  assert.is(withNothing.body.channels.length, 8);
  // A typed password wins over the stored one.
  const typed = await post('test', { id: DEV, url: sim!.url, username: 'admin', password: 'typed-wrong' });
  assert.is(typed.status, 502);
  // The placeholder of a node with nothing stored is no password at all.
  const unknown = await post('test', { id: 'nope', url: sim!.url, username: 'admin', password: PLACEHOLDER });
  assert.is(unknown.status, 400, unknown.text);
  for (const r of [withPlaceholder, withNothing, typed, unknown]) assert.not.ok(r.text.includes(password));
});

test('a deployed device in use: the dialog shares its session (no second login)', async ({ sim, password }) => {
  await load(
    flowWith(sim!.url, [{ id: 'g1', type: 'nvr-get', device: DEV, page: 'AlarmConfig/Deterrence', channel: '', data: '', wires: [[]] }]),
    credentials(password),
  );
  await waitFor(() => statusesOf('g1').some((s) => s.fill === 'green'), 'connected');
  sim!.clearLog();
  const r = await post('channels', { id: DEV, url: sim!.url, username: 'admin', password: PLACEHOLDER });
  assert.is(r.status, 200, r.text);
  assert.equal(paths(sim!), ['/API/Login/ChannelInfo/Get']);
});

test('POST form: VoiceAlarm CH1 as the simulator declares it, with the current values; read-only fields marked', async ({
  sim,
  password,
}) => {
  await empty();
  (sim!.state as any)['AlarmConfig/VoiceAlarm'].channel_info.CH1.siren_value = 7;
  const r = await post('form', { url: sim!.url, username: 'admin', password, page: 'AlarmConfig/VoiceAlarm', channel: 'CH1' });
  assert.is(r.status, 200, r.text);
  assert.is(r.body.channel, 'CH1');
  assert.ok(r.body.channels.includes('CH1'));
  const byKey = Object.fromEntries(r.body.fields.map((f: any) => [f.key, f]));
  assert.equal(byKey.siren_value, { key: 'siren_value', type: 'int32', readOnly: false, min: 1, max: 10, value: 7 });
  assert.equal(byKey.siren_time.min, 5);
  assert.equal(byKey.siren_time.max, 180);
  assert.is(byKey.siren_switch.type, 'bool');
  assert.type(byKey.siren_switch.value, 'boolean');
  assert.ok(Array.isArray(byKey.siren_type.options) && byKey.siren_type.options.length > 0, JSON.stringify(byKey.siren_type));
  assert.is(byKey.siren_file_name.maxLength, 127);
  assert.is(byKey.support_siren_schedule_hub.readOnly, true);
  assert.is(byKey.siren_support_format.readOnly, true);
  // Range and Get only: nothing is written while the form is built.
  assert.not.ok(
    paths(sim!).some((p) => p.endsWith('/Set')),
    paths(sim!).join(' '),
  );
  assert.not.ok(r.text.includes(password));
});

test('POST form: a channel the page lacks, a page the device lacks, no page: clear errors', async ({ sim, password }) => {
  await empty();
  const base = { url: sim!.url, username: 'admin', password };
  const lacking = await post('form', { ...base, page: 'AlarmConfig/VoiceAlarm', channel: 'CH99' });
  assert.is(lacking.status, 502);
  assert.is(lacking.body.error.error_code, 'unknown_channel');
  const noPage = await post('form', { ...base, page: 'Vendor/Nothing', channel: 'CH1' });
  assert.is(noPage.status, 502);
  assert.is(noPage.body.error.error_code, 'not_found');
  const none = await post('form', { ...base });
  assert.is(none.status, 400);
  assert.is(none.body.error.error_code, 'bad_page');
});

test("POST ptz: the channel's stored presets and its moves, for nvr-control's Command; a channel without PTZ refused", async ({
  sim,
  password,
}) => {
  await empty();
  const base = { url: sim!.url, username: 'admin', password };
  const r = await post('ptz', { ...base, channel: 'ip_ch1' });
  assert.is(r.status, 200, r.text);
  assert.is(r.body.channel, 'IP_CH1');
  assert.ok(
    r.body.presets.some((p: any) => p.no === 3 && p.name === 'Garden'),
    JSON.stringify(r.body.presets),
  );
  assert.ok(r.body.presets.every((p: any) => Number.isInteger(p.no)));
  assert.ok(
    ['left', 'zoom_in'].every((m) => r.body.moves.includes(m)),
    JSON.stringify(r.body.moves),
  );
  const none = await post('ptz', { ...base, channel: 'CH1' });
  assert.is(none.status, 400);
  assert.match(none.body.error.reason, /CH1 has no PTZ/);
  assert.not.ok(paths(sim!).includes('/API/PreviewChannel/PTZ/Control'), 'read only');
});

test('POST alarms: the configured channels with the alarm types each can raise, and only the types the device offers', async ({
  sim,
  password,
}) => {
  await empty();
  const r = await post('alarms', { url: sim!.url, username: 'admin', password });
  assert.is(r.status, 200, r.text);
  const byId = Object.fromEntries(r.body.channels.map((c: any) => [c.id, c]));
  // IP_CH3 is an empty slot: not listed. IP_CH2 is offline: it can only report its video loss.
  assert.equal(Object.keys(byId), ['CH1', 'CH2', 'CH3', 'CH4', 'IP_CH1', 'IP_CH2', 'WIFI_CH1']);
  assert.equal(byId.IP_CH2.types, ['video_loss']);
  assert.is(byId.IP_CH2.state, 'offline');
  assert.ok(
    ['motion', 'person', 'line_crossing', 'object'].every((t) => byId.IP_CH1.types.includes(t)),
    byId.IP_CH1.types,
  );
  assert.not.ok(byId.CH4.types.includes('person'), 'CH4 has no person detection');
  const offered = r.body.types.map((t: any) => t.key);
  assert.ok(offered.includes('person') && offered.includes('object'));
  for (const absent of ['fire', 'plate', 'temperature', 'avd']) assert.not.ok(offered.includes(absent), absent);
  assert.equal(
    r.body.types.find((t: any) => t.key === 'line_crossing'),
    { key: 'line_crossing', label: 'Line crossing' },
  );
});

test('bad input: a url that is not http(s) is refused without a request', async ({ sim }) => {
  await empty();
  const r = await post('channels', { url: 'file:///etc/passwd', username: 'admin', password: 'x' });
  assert.is(r.status, 400);
  assert.is(r.body.error.error_code, 'bad_url');
  assert.equal(paths(sim!), []);
});

test.run();
