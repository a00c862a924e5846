/**
 * Home Assistant add-on: options -> bridge settings (through the real config parser), and the broker from
 * the Supervisor's MQTT service, asked over real HTTP of a stand-in that answers as the Supervisor does.
 */
import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { suite } from 'uvu';
import { fetchMqttService, settingsFromAddonOptions, type MqttService } from '../../bridge/app/addon';
import { ConfigError, parseConfig } from '../../bridge/base/config';
import { parse as parseYaml } from 'yaml';

const test = suite('bridge: Home Assistant add-on options');

const SERVICE: MqttService = { host: 'core-mosquitto', port: 1883, ssl: false, username: 'addons', password: 'svc-secret-1' };
const device = { id: 'garage', url: 'http://192.168.1.20', username: 'admin', password: 'dev-secret-2' };

/** The settings the bridge would run with: the add-on's file plus its environment overrides. */
function bridgeConfig(options: unknown, service: MqttService | undefined) {
  const { settings, env } = settingsFromAddonOptions(options, service);
  assert.ok(!JSON.stringify(settings).includes('secret'), 'no password in the written settings');
  return parseConfig(settings, { env }).config;
}

test('no broker in the options: Home Assistant MQTT service, with its user', () => {
  const c = bridgeConfig({ mqtt: {}, devices: [device] }, SERVICE);
  assert.equal(c.mqtt.url, 'mqtt://core-mosquitto:1883');
  assert.equal(c.mqtt.username, 'addons');
  assert.equal(c.mqtt.password, 'svc-secret-1');
  assert.equal(c.devices[0].password, 'dev-secret-2');
  const tls = bridgeConfig({ devices: [device] }, { ...SERVICE, ssl: true, port: 8883 });
  assert.equal(tls.mqtt.url, 'mqtts://core-mosquitto:8883');
});

test('a broker in the options wins over the service, its own user and password', () => {
  const c = bridgeConfig({ mqtt: { url: 'mqtt://10.0.0.5:1883', username: 'me', password: 'my-secret-3' }, devices: [device] }, SERVICE);
  assert.equal(c.mqtt.url, 'mqtt://10.0.0.5:1883');
  assert.equal(c.mqtt.username, 'me');
  assert.equal(c.mqtt.password, 'my-secret-3');
});

test('flat device fields become the nested settings; cleared fields are not set', () => {
  const c = bridgeConfig(
    {
      mqtt: { base_topic: 'nvr_a', url: '' },
      homeassistant: { discovery_prefix: 'ha', status_topic: null },
      devices: [
        {
          ...device,
          url: 'https://192.168.1.20',
          name: '',
          poll_interval: '5s',
          channels: 'ch1, IP_CH5 ,',
          tls_fingerprint: 'AB'.repeat(32),
          tls_ca_file: '',
        },
        { ...device, id: 'cam', url: 'https://192.168.1.30', password: 'dev-secret-4', tls_ca_file: '/dev/null', alarm_code: '2580' },
      ],
      log_level: 'debug',
    },
    SERVICE,
  );
  assert.equal(c.mqtt.base_topic, 'nvr_a');
  assert.equal(c.homeassistant.status_topic, 'homeassistant/status', 'null: the default');
  assert.equal(c.homeassistant.discovery_prefix, 'ha');
  assert.equal(c.devices[0].name, 'garage', 'empty name: the id');
  assert.equal(c.devices[0].poll_interval, 5000);
  assert.deepEqual(c.devices[0].channels, ['CH1', 'IP_CH5']);
  assert.equal(c.devices[0].tls?.fingerprint, 'AB'.repeat(32));
  assert.equal(c.devices[0].tls?.ca, undefined);
  assert.equal(c.devices[1].password, 'dev-secret-4', 'each device its own password');
  assert.equal(c.devices[1].alarm_code, '2580', 'the panel code, through the environment like a password');
  assert.equal(c.devices[0].alarm_code, undefined);
  assert.equal(c.devices[1].tls?.ca, '');
  assert.equal(c.log_level, 'debug');
});

test('bad options: the config parser reports them by path, without the password', () => {
  const problems = (d: Record<string, unknown>) => {
    const { settings, env } = settingsFromAddonOptions({ devices: [{ ...device, ...d }] }, SERVICE);
    try {
      parseConfig(settings, { env });
    } catch (err) {
      assert.ok(err instanceof ConfigError && !err.message.includes('secret'));
      return err.problems;
    }
    return [];
  };
  assert.match(problems({ id: 'Bad Id' }).join('\n'), /^devices\[0\]\.id: expected lower-case letters/);
  assert.match(problems({ channels: 'CH1, dvr9' }).join('\n'), /^devices\[0\]\.channels\[1\]: expected a channel id/);
  assert.match(problems({ password: undefined }).join('\n'), /^devices\[0\]\.password: required/);
  assert.throws(() => settingsFromAddonOptions({ devices: [device] }, undefined), /no MQTT broker: set mqtt.url/);
  assert.throws(() => settingsFromAddonOptions([], SERVICE), /expected a mapping/);
});

const repo = join(__dirname, '..', '..', '..');

/** A value of the add-on schema's type (https://developers.home-assistant.io/docs/add-ons/configuration#options--schema). */
function sample(type: string | string[]): unknown {
  if (Array.isArray(type)) return [sample(type[0])];
  const t = type.replace(/\?$/, '');
  if (t === 'bool') return true;
  if (t === 'url') return 'https://192.168.1.30';
  if (t === 'password') return 'pw-secret-5';
  if (t.startsWith('list(')) return t.slice(5, -1).split('|')[0];
  return 'x';
}

test('addon/config.yaml: same version as the package, needs the MQTT service, every option a bridge setting', () => {
  const addon = parseYaml(readFileSync(join(repo, 'addon', 'config.yaml'), 'utf8')) as Record<string, any>;
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
  assert.equal(addon.version, pkg.version);
  assert.match(
    readFileSync(join(repo, 'addon', 'Dockerfile'), 'utf8'),
    new RegExp(`ARG NVR2MQTT_VERSION=${pkg.version.replace(/\./g, '\\.')}\n`),
  );
  assert.ok(addon.services.includes('mqtt:need'));
  // The default options, with a password given, are a valid configuration.
  const defaults = structuredClone(addon.options);
  defaults.devices[0].password = 'pw-secret-5';
  assert.equal(bridgeConfig(defaults, SERVICE).devices.length, 1);
  // Every option of the schema, set: the bridge knows each one (a setting renamed in one place only shows here).
  const schema = addon.schema as Record<string, any>;
  const every: Record<string, unknown> = {};
  for (const [key, type] of Object.entries(schema)) {
    if (Array.isArray(type))
      every[key] = [Object.fromEntries(Object.entries(type[0] as object).map(([k, t]) => [k, sample(t as string | string[])]))];
    else if (typeof type === 'object')
      every[key] = Object.fromEntries(Object.entries(type as object).map(([k, t]) => [k, sample(t as string | string[])]));
    else every[key] = sample(type as string);
  }
  const { settings, env } = settingsFromAddonOptions(every, SERVICE);
  let problems: string[] = [];
  try {
    parseConfig(settings, { env });
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    problems = err.problems;
  }
  assert.deepEqual(
    problems.filter((p) => p.includes('unknown setting')),
    [],
  );
});

/** Width and height of a PNG file (its IHDR chunk), or undefined when the file is no PNG. */
function pngSize(file: string): { width: number; height: number } | undefined {
  const b = readFileSync(file);
  if (b.subarray(0, 8).toString('hex') !== '89504e470d0a1a0a' || b.subarray(12, 16).toString() !== 'IHDR') return undefined;
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

test('addon/: what the add-on store shows: icon, logo, changelog of this version, a name and help for every option', () => {
  const addon = parseYaml(readFileSync(join(repo, 'addon', 'config.yaml'), 'utf8')) as Record<string, any>;
  assert.deepEqual(pngSize(join(repo, 'addon', 'icon.png')), { width: 128, height: 128 });
  const logo = pngSize(join(repo, 'addon', 'logo.png'));
  assert.ok(logo && logo.width > logo.height, 'a landscape logo.png');
  assert.ok(readFileSync(join(repo, 'addon', 'CHANGELOG.md'), 'utf8').includes(`\n## ${addon.version}\n`));
  // Each option and each field of a nested one has a name and a description in the UI's language file.
  const en = parseYaml(readFileSync(join(repo, 'addon', 'translations', 'en.yaml'), 'utf8')) as Record<string, any>;
  const keys = (schema: Record<string, unknown>, tr: Record<string, any> | undefined, at: string): string[] =>
    Object.entries(schema).flatMap(([key, type]) => {
      const t = tr?.[key];
      const own = typeof t?.name === 'string' && typeof t?.description === 'string' ? [] : [`${at}${key}`];
      const nested = Array.isArray(type) ? type[0] : type;
      return typeof nested === 'object' && nested !== null
        ? [...own, ...keys(nested as Record<string, unknown>, t?.fields, `${at}${key}.`)]
        : own;
    });
  assert.deepEqual(keys(addon.schema, en.configuration, ''), [], 'options without a name or description in translations/en.yaml');
  const extra = (tr: Record<string, any>, schema: Record<string, any>, at: string): string[] =>
    Object.entries(tr).flatMap(([key, t]) => {
      if (!(key in schema)) return [`${at}${key}`];
      const nested = Array.isArray(schema[key]) ? schema[key][0] : schema[key];
      return t.fields ? extra(t.fields, nested, `${at}${key}.`) : [];
    });
  assert.deepEqual(extra(en.configuration, addon.schema, ''), [], 'translations of options the schema does not have');
});

async function supervisor(
  answer: (req: IncomingMessage) => { status: number; body: unknown },
): Promise<{ server: Server; url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`);
    const a = answer(req);
    res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

test('fetchMqttService: the Supervisor answer, asked once with the add-on token', async () => {
  const s = await supervisor(() => ({
    status: 200,
    body: { result: 'ok', data: { ...SERVICE, protocol: '3.1.1', addon: 'core_mosquitto' } },
  }));
  try {
    const got = await fetchMqttService({ SUPERVISOR_TOKEN: 'tok' }, s.url);
    assert.deepEqual(got, SERVICE);
    assert.deepEqual(s.seen, ['GET /services/mqtt Bearer tok']);
  } finally {
    s.server.close();
  }
});

test('fetchMqttService: no token, no request; no broker set up (400): none; other failures are errors', async () => {
  let status = 400;
  let body: unknown = { result: 'error', message: 'No mqtt service' };
  const s = await supervisor(() => ({ status, body }));
  try {
    assert.equal(await fetchMqttService({}, s.url), undefined);
    assert.equal(s.seen.length, 0, 'not an add-on: the Supervisor is not asked');
    assert.equal(await fetchMqttService({ SUPERVISOR_TOKEN: 'tok' }, s.url), undefined);
    status = 500;
    await assert.rejects(fetchMqttService({ SUPERVISOR_TOKEN: 'tok' }, s.url), /Supervisor API: HTTP 500/);
    status = 200;
    body = { result: 'ok', data: { port: 1883 } };
    await assert.rejects(fetchMqttService({ SUPERVISOR_TOKEN: 'tok' }, s.url), /without host and port/);
  } finally {
    s.server.close();
  }
});

test.run();
