/** Bridge configuration: schema, every problem by path, environment overrides, secrets from files. */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import { ConfigError, loadConfigFile, parseConfig, parseDuration } from '../../bridge/base/config';
import { findPage } from '../../core';
import { TABLE, POLLED_PAGES, rowsFor } from '../../bridge/device/table';
import { clientIdFor } from '../../bridge/mqtt/link';
import { Topics } from '../../bridge/mqtt/topics';

const test = suite('bridge config');
const dev = { id: 'nvr', url: 'http://192.168.1.20', username: 'admin', password: 'x' };

function problems(input: unknown, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseConfig(input, { env });
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems;
  }
  return [];
}

test('defaults', () => {
  const { config } = parseConfig({ devices: [dev] }, { env: {} });
  assert.equal(config.mqtt.url, undefined);
  assert.equal(config.mqtt.base_topic, 'nvr2mqtt');
  assert.equal(config.mqtt.retain, true);
  assert.deepEqual(config.homeassistant, { enabled: true, discovery_prefix: 'homeassistant', status_topic: 'homeassistant/status' });
  assert.equal(config.devices[0].poll_interval, 15_000, 'events on: polls every 15 s');
  assert.equal(config.devices[0].name, 'nvr');
  assert.equal(config.log_level, 'info');
});

test('events: on by default, 1 s checks, alarms cleared after 60 s; polls every 10 s with events off', () => {
  const d = parseConfig({ devices: [dev] }, { env: {} }).config.devices[0];
  assert.equal(d.events, true);
  assert.equal(d.event_interval, 1000);
  assert.equal(d.alarm_clear_after, 60_000);
  const off = parseConfig({ devices: [{ ...dev, events: false }] }, { env: {} }).config.devices[0];
  assert.equal(off.events, false);
  assert.equal(off.poll_interval, 10_000);
  const set = parseConfig({ devices: [{ ...dev, event_interval: '2s', alarm_clear_after: '5m', poll_interval: 4 }] }, { env: {} }).config
    .devices[0];
  assert.deepEqual([set.event_interval, set.alarm_clear_after, set.poll_interval], [2000, 300_000, 4000]);
  const env = parseConfig({ devices: [dev] }, { env: { NVR2MQTT_DEVICES_0_EVENTS: 'false', NVR2MQTT_DEVICES_0_ALARM_CLEAR_AFTER: '90s' } })
    .config.devices[0];
  assert.equal(env.events, false);
  assert.equal(env.alarm_clear_after, 90_000);
});

test('events: bad values are refused by path, a faster check than 0.5 s too (it would flood the device)', () => {
  const p = problems({ devices: [{ ...dev, events: 'yes', event_interval: 0.1, alarm_clear_after: 'soon' }] });
  assert.ok(
    p.some((x) => /^devices\[0\]\.events: /.test(x)),
    p.join('\n'),
  );
  assert.ok(
    p.some((x) => /^devices\[0\]\.event_interval: must be between 0.5 s and 60 s/.test(x)),
    p.join('\n'),
  );
  assert.ok(
    p.some((x) => /^devices\[0\]\.alarm_clear_after: expected seconds/.test(x)),
    p.join('\n'),
  );
});

test('request_api.allow_pages: page names as core spells them (a pasted /API/ path too), anything else refused by path', () => {
  const { config } = parseConfig(
    { devices: [dev], request_api: { allow_pages: ['/API/Maintenance/DeveloperMode/', 'NetworkConfig/Ftp'] } },
    { env: {} },
  );
  assert.deepEqual(config.request_api.allow_pages, ['Maintenance/DeveloperMode', 'NetworkConfig/Ftp']);
  const bad = problems({ devices: [dev], request_api: { allow_pages: ['Maintenance/../Users', 42] } });
  assert.ok(
    bad.some((p) => p.startsWith('request_api.allow_pages[0]') && /page name/.test(p)),
    bad.join('\n'),
  );
  assert.ok(
    bad.some((p) => p.startsWith('request_api.allow_pages[1]')),
    bad.join('\n'),
  );
});

test('durations', () => {
  assert.equal(parseDuration(5), 5000);
  assert.equal(parseDuration('5s'), 5000);
  assert.equal(parseDuration('2m'), 120_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('1.5'), 1500);
  assert.ok(Number.isNaN(parseDuration('soon')));
  assert.equal(parseConfig({ devices: [{ ...dev, poll_interval: '2m' }] }, { env: {} }).config.devices[0].poll_interval, 120_000);
});

test('every problem, by path', () => {
  const p = problems({
    mqtt: { url: 'http://broker', base_topic: 'a/#', bogus: 1 },
    homeassistant: { enabled: 'yes' },
    devices: [
      dev,
      { id: 'Bad Id', url: 'ftp://x', username: 'admin', password: 'x', poll_interval: 'soon', channels: ['CH0', 'ip_ch5'] },
      { id: 'c', url: 'http://u:p@host', username: '' },
    ],
    log_level: 'loud',
  });
  const expect = [
    /^mqtt\.url: expected an MQTT URL/,
    /^mqtt\.base_topic: .*wildcards/,
    /^mqtt\.bogus: unknown setting/,
    /^homeassistant\.enabled: /,
    /^devices\[1\]\.id: expected lower-case/,
    /^devices\[1\]\.url: expected an http or https URL/,
    /^devices\[1\]\.poll_interval: expected seconds/,
    /^devices\[1\]\.channels\[0\]: expected a channel id/,
    /^devices\[2\]\.url: must not contain a user name or password/,
    /^devices\[2\]\.username: must not be empty/,
    /^log_level: expected one of/,
  ];
  for (const re of expect)
    assert.ok(
      p.some((x) => re.test(x)),
      `${re} in:\n${p.join('\n')}`,
    );
  assert.match(problems({ devices: [] })[0], /^devices: at least one device/);
  assert.match(problems({})[0], /^devices: /);
});

test('device ids that collide in Home Assistant ids are refused, both named', () => {
  const p = problems({
    devices: [
      { ...dev, id: 'garage' },
      { ...dev, id: 'garage_ch1' },
      { ...dev, id: 'garage_ip_ch5_x' },
      { ...dev, id: 'garage_2' },
      { ...dev, id: 'shed' },
    ],
  });
  assert.ok(
    p.some((x) => x.startsWith('devices[1].id: "garage_ch1" collides with device "garage" (devices[0])') && x.includes('channel CH1')),
    p.join('\n'),
  );
  assert.ok(
    p.some((x) => x.startsWith('devices[2].id: "garage_ip_ch5_x" collides with device "garage"') && x.includes('IP_CH5')),
    p.join('\n'),
  );
  assert.equal(p.length, 2, p.join('\n'));
  assert.deepEqual(
    problems({
      devices: [
        { ...dev, id: 'garage' },
        { ...dev, id: 'garage_2' },
        { ...dev, id: 'garagech1' },
      ],
    }),
    [],
  );
});

test('MQTT client id: stable, from the base topic, unless mqtt.client_id', () => {
  assert.equal(clientIdFor('nvr2mqtt'), 'nvr2mqtt_nvr2mqtt');
  assert.equal(clientIdFor('home/cams'), 'nvr2mqtt_home_cams');
  assert.ok(clientIdFor('x'.repeat(100)).length <= 64);
  const { config } = parseConfig({ mqtt: { client_id: 'mine' }, devices: [dev] }, { env: {} });
  assert.equal(config.mqtt.client_id, 'mine');
});

test('duplicate ids, reserved id, passwords', () => {
  const p = problems({ devices: [dev, { ...dev }, { ...dev, id: 'bridge' }, { id: 'np', url: 'http://h', username: 'u' }] });
  assert.ok(p.includes('devices[1].id: duplicate device id "nvr" (also devices[0])'), p.join('\n'));
  assert.ok(p.some((x) => x.startsWith('devices[2].id: "bridge" is reserved')));
  assert.ok(p.includes('devices[3].password: required (or password_file)'));
  const both = problems({ devices: [{ ...dev, password_file: '/nonexistent' }] });
  assert.match(both[0], /give either password or password_file/);
});

test('password_file read and trimmed; relative to the config file; missing file reported', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-cfg-'));
  try {
    writeFileSync(join(dir, 'nvr.pw'), 's3cret-from-file\n');
    writeFileSync(join(dir, 'mqtt.pw'), '  mqtt-pw  \n');
    writeFileSync(
      join(dir, 'config.yaml'),
      [
        'mqtt:',
        '  url: mqtt://broker:1883',
        '  username: bridge',
        '  password_file: mqtt.pw',
        'devices:',
        '  - id: nvr',
        '    url: http://192.168.1.20',
        '    username: admin',
        '    password_file: nvr.pw',
        '    poll_interval: 5s',
        '    channels: [CH1, ip_ch5]',
      ].join('\n'),
    );
    const { config } = loadConfigFile(join(dir, 'config.yaml'), { env: {} });
    assert.equal(config.devices[0].password, 's3cret-from-file');
    assert.equal(config.mqtt.password, 'mqtt-pw');
    assert.deepEqual(config.devices[0].channels, ['CH1', 'IP_CH5']);
    assert.equal(config.devices[0].poll_interval, 5000);
    writeFileSync(join(dir, 'bad.yaml'), 'devices:\n  - id: nvr\n    url: http://h\n    username: u\n    password_file: missing.pw\n');
    assert.throws(
      () => loadConfigFile(join(dir, 'bad.yaml'), { env: {} }),
      (e: ConfigError) => /devices\[0\]\.password_file: cannot read .*missing\.pw: ENOENT/.test(e.problems[0]),
    );
    writeFileSync(join(dir, 'broken.yaml'), 'devices: [\n');
    assert.throws(() => loadConfigFile(join(dir, 'broken.yaml'), { env: {} }), /not valid YAML/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("cameras: each camera's own password, given or from a file, by channel id or slug; problems by path, never quoted", () => {
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-cfg-'));
  try {
    writeFileSync(join(dir, 'cam2.pw'), 'cam-two-pw\n');
    const { config } = parseConfig(
      { devices: [{ ...dev, cameras: { ip_ch1: { password: 'cam-one-pw' }, IP_CH2: { password_file: 'cam2.pw' } } }] },
      { env: {}, baseDir: dir },
    );
    assert.deepEqual(config.devices[0].camera_passwords, { IP_CH1: 'cam-one-pw', IP_CH2: 'cam-two-pw' });
    assert.equal(parseConfig({ devices: [dev] }, { env: {} }).config.devices[0].camera_passwords, undefined, 'none: the recorder password');
    const found = problems({
      devices: [{ ...dev, cameras: { IP_CH1: {}, IP_CH3: { password: 'sEcret-x', password_file: 'f' }, door: { password: 'sEcret-y' } } }],
    });
    assert.ok(found.includes('devices[0].cameras.IP_CH1.password: required (or password_file)'), found.join('\n'));
    assert.ok(found.includes('devices[0].cameras.IP_CH3.password_file: give either password or password_file, not both'), found.join('\n'));
    assert.ok(
      found.some((p) => p.startsWith('devices[0].cameras.door') && /channel id/.test(p)),
      found.join('\n'),
    );
    assert.ok(!found.join('\n').includes('sEcret'), 'no password quoted');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('environment overrides', () => {
  const { config, warnings } = parseConfig(
    { devices: [{ ...dev, password: undefined }] },
    {
      env: {
        NVR2MQTT_MQTT_URL: 'mqtts://broker:8883',
        NVR2MQTT_MQTT_USERNAME: 'bridge',
        NVR2MQTT_MQTT_PASSWORD: 'from-env',
        NVR2MQTT_MQTT_RETAIN: 'false',
        NVR2MQTT_MQTT_BASE_TOPIC: 'home/nvr',
        NVR2MQTT_HOMEASSISTANT_DISCOVERY_PREFIX: 'ha',
        NVR2MQTT_DEVICES_0_PASSWORD: 'dev-pw',
        NVR2MQTT_DEVICES_0_CHANNELS: 'CH1, CH2',
        NVR2MQTT_DEVICES_1_ID: 'cam',
        NVR2MQTT_DEVICES_1_URL: 'https://cam.local',
        NVR2MQTT_DEVICES_1_USERNAME: 'admin',
        NVR2MQTT_DEVICES_1_PASSWORD: 'cam-pw',
        NVR2MQTT_DEVICES_1_POLL_INTERVAL: '30',
        NVR2MQTT_LOG_LEVEL: 'debug',
        NVR2MQTT_NOPE: 'x',
        NVR2MQTT_CONFIG: '/etc/nvr2mqtt.yaml',
        OTHER: 'ignored',
      },
    },
  );
  assert.equal(config.mqtt.url, 'mqtts://broker:8883');
  assert.equal(config.mqtt.password, 'from-env');
  assert.equal(config.mqtt.retain, false);
  assert.equal(config.mqtt.base_topic, 'home/nvr');
  assert.equal(config.homeassistant.discovery_prefix, 'ha');
  assert.equal(config.devices[0].password, 'dev-pw');
  assert.deepEqual(config.devices[0].channels, ['CH1', 'CH2']);
  assert.equal(config.devices[1].id, 'cam');
  assert.equal(config.devices[1].poll_interval, 30_000);
  assert.equal(config.log_level, 'debug');
  assert.deepEqual(warnings, ['environment NVR2MQTT_NOPE: no such setting (ignored)']);
});

test("one run lists every problem: the schema's and those across settings (passwords, ids, files)", () => {
  const p = problems({
    mqtt: { url: 'mqtt://broker', username: 'bridge', password_file: '/nonexistent/mqtt.pw' },
    devices: [
      { id: 'nvr', url: 'ftp://x', username: 'admin' },
      { ...dev, poll_interval: 'soon' },
      { ...dev, url: 'http://h2' },
    ],
  });
  for (const re of [
    /^devices\[0\]\.url: expected an http or https URL/,
    /^devices\[1\]\.poll_interval: /,
    /^devices\[0\]\.password: required/,
    /^devices\[2\]\.id: duplicate device id "nvr"/,
    /^mqtt\.password_file: cannot read/,
  ])
    assert.ok(
      p.some((x) => re.test(x)),
      `${re} in:\n${p.join('\n')}`,
    );
});

test('a password is never quoted in a problem; digits-only passwords are asked to be quoted', () => {
  const p = problems({
    mqtt: { username: 'u', password: 31415926 },
    devices: [
      { ...dev, password: 27182818 },
      { ...dev, id: 'b', password: ['s3cr3t-in-a-list'] },
    ],
  });
  const all = p.join('\n');
  for (const secret of ['31415926', '27182818', 's3cr3t-in-a-list']) assert.ok(!all.includes(secret), all);
  assert.ok(
    p.some((x) => /^mqtt\.password: expected text; put a password made of digits in quotes/.test(x)),
    all,
  );
  assert.ok(
    p.some((x) => /^devices\[0\]\.password: expected text; put/.test(x)),
    all,
  );
  assert.ok(!p.some((x) => /password: required/.test(x)), 'a password of the wrong type is not also "missing"');
});

test("an environment password replaces the file's password_file, and the other way round", () => {
  const dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-env-'));
  try {
    writeFileSync(join(dir, 'nvr.pw'), 'from-file\n');
    const file = {
      mqtt: { username: 'u', password: 'in-yaml' },
      devices: [{ id: 'nvr', url: 'http://h', username: 'admin', password_file: 'nvr.pw' }],
    };
    const { config } = parseConfig(file, {
      baseDir: dir,
      env: { NVR2MQTT_DEVICES_0_PASSWORD: 'from-env', NVR2MQTT_MQTT_PASSWORD_FILE: join(dir, 'nvr.pw') },
    });
    assert.equal(config.devices[0].password, 'from-env');
    assert.equal(config.mqtt.password, 'from-file');
    // Both ways in the environment: that is a conflict again.
    const p = problems(file, { NVR2MQTT_DEVICES_0_PASSWORD: 'a', NVR2MQTT_DEVICES_0_PASSWORD_FILE: join(dir, 'nvr.pw') });
    assert.match(p.join('\n'), /devices\[0\]\.password_file: give either password or password_file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('TLS settings where the URL does not use TLS are a problem (they would be ignored)', () => {
  const fp = 'AB'.repeat(32);
  const p = problems({ mqtt: { url: 'mqtt://broker', tls: { fingerprint: fp } }, devices: [{ ...dev, tls: { fingerprint: fp } }] });
  assert.ok(
    p.some((x) => /^mqtt\.tls: set, but the url does not use TLS/.test(x)),
    p.join('\n'),
  );
  assert.ok(
    p.some((x) => /^devices\[0\]\.tls: set, but the url does not use TLS/.test(x)),
    p.join('\n'),
  );
  assert.match(problems({ mqtt: { tls: { fingerprint: fp } }, devices: [dev] }).join('\n'), /^mqtt\.tls: set, but there is no url/);
  const ok = parseConfig(
    { mqtt: { url: 'mqtts://broker', tls: { fingerprint: fp } }, devices: [{ ...dev, url: 'https://cam', tls: { fingerprint: fp } }] },
    { env: {} },
  );
  assert.equal(ok.config.devices[0].tls?.fingerprint, fp);
});

test('TLS options: fingerprint format, files', () => {
  const tlsDev = { ...dev, url: 'https://192.168.1.20' };
  const p = problems({ devices: [{ ...tlsDev, tls: { fingerprint: 'abc', ca_file: '/nonexistent/ca.pem' } }] });
  assert.ok(
    p.some((x) => x.startsWith('devices[0].tls.fingerprint: expected a SHA-256 fingerprint')),
    p.join('\n'),
  );
  const fp = Array.from({ length: 32 }, () => 'ab').join(':');
  const { config } = parseConfig({ devices: [{ ...tlsDev, tls: { fingerprint: fp } }] }, { env: {} });
  assert.equal(config.devices[0].tls?.fingerprint, 'AB'.repeat(32));
  assert.match(
    problems({ devices: [{ ...tlsDev, tls: { ca_file: '/nonexistent/ca.pem' } }] })[0],
    /devices\[0\]\.tls\.ca_file: cannot read/,
  );
});

const rowFor = (level: 'device' | 'channel', key: string) => rowsFor(level, key)[0];

test('the table: one row per key and level (or per page offering it), pages declared in core, topics parse', () => {
  const seen = new Set<string>();
  for (const row of TABLE) {
    const id = `${row.level}/${row.key}/${row.source.kind === 'page' ? row.source.page : row.source.kind}`;
    assert.ok(!seen.has(id), `duplicate row ${id}`);
    seen.add(id);
    assert.match(row.key, /^[a-z0-9_]+$/);
    // The table names pages; how they are requested and written is core's declaration.
    if (row.source.kind === 'page') assert.ok(findPage(row.source.page)?.operations.Set, row.source.page);
  }
  assert.deepEqual([...POLLED_PAGES].sort(), [
    'AlarmConfig/Deterrence',
    'AlarmConfig/Disarming',
    'AlarmConfig/Motion',
    'AlarmConfig/PIR',
    'AlarmConfig/VoiceAlarm',
    'ChannelConfig/ImageControl',
    'ChannelConfig/VideoCover',
    'DeviceConfig/Audio',
    'LinkageConfig/LinkageManage',
    'RecordConfig',
  ]);
  // A key offered by two pages (Disarming or LinkageManage) is one key with one row per page.
  assert.deepEqual(
    rowsFor('device', 'disarm_mobile_push').map((r) => r.source.kind === 'page' && r.source.page),
    ['AlarmConfig/Disarming', 'LinkageConfig/LinkageManage'],
  );
  assert.equal(rowFor('device', 'disarmed')?.platform, 'alarm_control_panel');
  assert.equal(rowFor('channel', 'disarmed')?.platform, 'switch');
  // Alarm reaction settings are config switches; `floodlight` and `siren` are kept for the live light and siren.
  assert.equal(rowFor('channel', 'floodlight_on_alarm')?.name, 'Floodlight on alarm');
  assert.equal(rowFor('channel', 'siren_on_alarm')?.category, 'config');
  // `floodlight` and `siren` are the live light and siren (what they do now).
  assert.equal(rowFor('channel', 'floodlight')?.platform, 'light');
  assert.equal(rowFor('channel', 'siren')?.platform, 'siren');
  assert.equal(rowFor('channel', 'siren_volume')?.source.kind, 'page');
  const t = new Topics('nvr2mqtt', 'homeassistant');
  assert.deepEqual(t.parse('nvr2mqtt/nvr/ch1/set'), { kind: 'set', device: 'nvr', channel: 'ch1' });
  assert.deepEqual(t.parse('nvr2mqtt/nvr/ch1/set/siren_on_alarm'), { kind: 'set', device: 'nvr', channel: 'ch1', key: 'siren_on_alarm' });
  assert.deepEqual(t.parse('nvr2mqtt/nvr/set/disarmed'), { kind: 'set', device: 'nvr', key: 'disarmed' });
  assert.deepEqual(t.parse('nvr2mqtt/nvr/get'), { kind: 'get', device: 'nvr' });
  assert.deepEqual(t.parse('nvr2mqtt/bridge/request/set'), { kind: 'request', op: 'set' });
  assert.equal(t.parse('nvr2mqtt/nvr/ch1'), undefined);
  assert.equal(t.parse('other/nvr/set'), undefined);
  assert.equal(new Topics('home/NVR 1', 'ha').node('front', 'ip_ch5'), 'home_nvr_1_front_ip_ch5');
});

test.run();
