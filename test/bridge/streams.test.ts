/**
 * Stream addresses: the device's RTSP URLs never carry credentials once read (a device may embed its login), and
 * `nvr2mqtt streams` prints go2rtc, Frigate and generic-camera configuration for every channel of every device,
 * read from a real simulator over HTTP, with the password as a placeholder or an environment reference only.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import { parse as parseYaml } from 'yaml';
import { onHost, streamUrlsFrom, withoutCredentials } from '../../core';
import { StreamUrlAnswer } from '../../core/pages/stream-url';
import { passwordVariable, streamConfig, type DeviceStreams } from '../../bridge/app/streams';
import { startSimulator, type Simulator } from '../../simulator';
import * as v from 'valibot';

const test = suite('stream addresses and nvr2mqtt streams');
const CLI = join(__dirname, '..', '..', 'bridge', 'app', 'cli.js');
const BIN = join(__dirname, '..', '..', 'bridge', 'app', 'bin.js');
const PASSWORD = 'Str3am-s3cret!';

function runCli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, NVR2MQTT_CONFIG: '' } });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('exit', (code) => resolve({ code, out, err }));
  });
}

test('withoutCredentials removes the whole userinfo, also a password holding @, / or :', () => {
  const path = '/rtsp/streaming?channel=17&subtype=0';
  assert.equal(withoutCredentials(`rtsp://admin:pw@192.168.1.10:554${path}`), `rtsp://192.168.1.10:554${path}`);
  assert.equal(withoutCredentials(`rtsp://admin:p@ss/w:rd@192.168.1.10:554${path}`), `rtsp://192.168.1.10:554${path}`);
  assert.equal(withoutCredentials(`RTSP://admin@cam.local${path}`), `RTSP://cam.local${path}`);
  assert.equal(withoutCredentials(`rtsp://192.168.1.10:80${path}`), `rtsp://192.168.1.10:80${path}`);
});

test('streamUrlsFrom reads both spellings of the mobile stream and drops embedded logins (vendor sample and table)', () => {
  // The vendor's sample spells `mobile_stream_url`; the table `mobilestream_url`; a map keyed by channel is tolerated.
  const sample = v.parse(StreamUrlAnswer, {
    channel_info: [
      {
        channel: 'IP_CH1',
        mainstream_url: 'rtsp://admin:hunter2@172.16.3.10:80/rtsp/streaming?channel=17&subtype=0',
        substream_url: 'rtsp://172.16.3.10:80/rtsp/streaming?channel=17&subtype=1',
        mobile_stream_url: 'rtsp://u:p@172.16.3.10:80/rtsp/streaming?channel=17&subtype=2',
      },
    ],
  });
  assert.deepEqual(streamUrlsFrom(sample), [
    {
      channel: 'IP_CH1',
      main: 'rtsp://172.16.3.10:80/rtsp/streaming?channel=17&subtype=0',
      sub: 'rtsp://172.16.3.10:80/rtsp/streaming?channel=17&subtype=1',
      mobile: 'rtsp://172.16.3.10:80/rtsp/streaming?channel=17&subtype=2',
    },
  ]);
  const table = v.parse(StreamUrlAnswer, {
    channel_info: { CH1: { mobilestream_url: 'rtsp://10.0.0.2:554/rtsp/streaming?channel=1&subtype=2' } },
  });
  assert.deepEqual(streamUrlsFrom(table), [{ channel: 'CH1', mobile: 'rtsp://10.0.0.2:554/rtsp/streaming?channel=1&subtype=2' }]);
});

test('streamUrlsFrom with the configured host: the host the device reports is replaced, its port, path and query kept', () => {
  const sample = v.parse(StreamUrlAnswer, {
    channel_info: [
      {
        channel: 'CH1',
        mainstream_url: 'rtsp://admin:hunter2@172.16.10.169:80/rtsp/streaming?channel=1&subtype=0',
        substream_url: 'rtsp://172.16.10.169/rtsp/streaming?channel=1&subtype=1',
        mobile_stream_url: 'rtsp://[fe80::1]:554/rtsp/streaming?channel=1&subtype=2',
      },
    ],
  });
  assert.deepEqual(streamUrlsFrom(sample, 'nvr.example.net'), [
    {
      channel: 'CH1',
      main: 'rtsp://nvr.example.net:80/rtsp/streaming?channel=1&subtype=0',
      sub: 'rtsp://nvr.example.net/rtsp/streaming?channel=1&subtype=1',
      mobile: 'rtsp://nvr.example.net:554/rtsp/streaming?channel=1&subtype=2',
    },
  ]);
  assert.equal(onHost('rtsp://172.16.10.169:80/a?b=1', '[2001:db8::5]'), 'rtsp://[2001:db8::5]:80/a?b=1');
});

const DEVICES: DeviceStreams[] = [
  {
    id: 'front-door',
    username: 'ad min',
    channels: [
      {
        channel: 'IP_CH1',
        name: 'Porch',
        main: 'rtsp://172.16.3.10:80/rtsp/streaming?channel=17&subtype=0',
        sub: 'rtsp://172.16.3.10:80/rtsp/streaming?channel=17&subtype=1',
        mobile: 'rtsp://172.16.3.10:80/rtsp/streaming?channel=17&subtype=2',
      },
      { channel: 'CH2', sub: 'rtsp://172.16.3.10:80/rtsp/streaming?channel=2&subtype=1' },
    ],
  },
];

test('go2rtc: one stream per URL, the password an environment reference go2rtc expands', () => {
  const text = streamConfig(DEVICES, 'go2rtc', 'env');
  assert.equal(passwordVariable('go2rtc', 'front-door'), 'NVR_FRONT_DOOR_PASSWORD');
  assert.match(text, /# set NVR_FRONT_DOOR_PASSWORD to the password of front-door/);
  assert.deepEqual(parseYaml(text), {
    streams: {
      'front-door_ip_ch1': 'rtsp://ad%20min:${NVR_FRONT_DOOR_PASSWORD}@172.16.3.10:80/rtsp/streaming?channel=17&subtype=0',
      'front-door_ip_ch1_sub': 'rtsp://ad%20min:${NVR_FRONT_DOOR_PASSWORD}@172.16.3.10:80/rtsp/streaming?channel=17&subtype=1',
      'front-door_ip_ch1_mobile': 'rtsp://ad%20min:${NVR_FRONT_DOOR_PASSWORD}@172.16.3.10:80/rtsp/streaming?channel=17&subtype=2',
      'front-door_ch2_sub': 'rtsp://ad%20min:${NVR_FRONT_DOOR_PASSWORD}@172.16.3.10:80/rtsp/streaming?channel=2&subtype=1',
    },
  });
});

test('frigate: detect on the sub stream, record from the main one, Frigate-style reference; a lone stream does both', () => {
  const doc = parseYaml(streamConfig(DEVICES, 'frigate', 'env')) as { cameras: Record<string, { ffmpeg: { inputs: unknown[] } }> };
  const auth = 'ad%20min:{FRIGATE_NVR_FRONT_DOOR_PASSWORD}@';
  assert.deepEqual(doc.cameras['front-door_ip_ch1'].ffmpeg.inputs, [
    { path: `rtsp://${auth}172.16.3.10:80/rtsp/streaming?channel=17&subtype=0`, roles: ['record'] },
    { path: `rtsp://${auth}172.16.3.10:80/rtsp/streaming?channel=17&subtype=1`, roles: ['detect'] },
  ]);
  assert.deepEqual(doc.cameras['front-door_ch2'].ffmpeg.inputs, [
    { path: `rtsp://${auth}172.16.3.10:80/rtsp/streaming?channel=2&subtype=1`, roles: ['detect', 'record'] },
  ]);
});

test('generic camera: the channel name and the main stream with a placeholder; no environment mode', () => {
  const doc = parseYaml(streamConfig(DEVICES, 'generic', 'placeholder'));
  assert.deepEqual(doc, [
    {
      name: 'Porch',
      stream_source: 'rtsp://ad%20min:<password>@172.16.3.10:80/rtsp/streaming?channel=17&subtype=0',
      rtsp_transport: 'tcp',
    },
    {
      name: 'front-door_ch2',
      stream_source: 'rtsp://ad%20min:<password>@172.16.3.10:80/rtsp/streaming?channel=2&subtype=1',
      rtsp_transport: 'tcp',
    },
  ]);
  assert.throws(() => streamConfig(DEVICES, 'generic', 'env'), /generic camera reads no environment variables/);
});

let sims: Simulator[] = [];
let dir = '';
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'nvr2mqtt-streams-'));
  sims = [
    // Reports the LAN address it knows itself by (the vendor sample's), which this client does not reach it at.
    await startSimulator({ password: PASSWORD, channels: 4, analog: 2, lanAddress: '172.16.10.169' }),
    // Old firmware: the vendor sample's `mobile_stream_url` spelling.
    await startSimulator({ password: PASSWORD, profile: 'ipc', firmware: '8.2.3' }),
  ];
});
test.after(async () => {
  await Promise.all(sims.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

function configFile(devices: Array<{ id: string; url: string }>): string {
  const file = join(dir, `config-${devices.map((d) => d.id).join('-')}.yaml`);
  const lines = ['mqtt:', '  url: mqtt://127.0.0.1:1', 'devices:'];
  for (const d of devices) lines.push(`  - id: ${d.id}`, `    url: ${d.url}`, '    username: admin', `    password: "${PASSWORD}"`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

test('nvr2mqtt streams against simulators: every channel of every device, main/sub/mobile, never the password', async () => {
  const file = configFile([
    { id: 'nvr', url: sims[0].url },
    { id: 'cam', url: sims[1].url },
  ]);
  const r = await runCli(['streams', '--config', file]);
  assert.equal(r.code, 0, r.err);
  assert.ok(!r.out.includes(PASSWORD) && !r.err.includes(PASSWORD), 'the password is never printed');
  const streams = (parseYaml(r.out) as { streams: Record<string, string> }).streams;
  const port = new URL(sims[0].url).port;
  const expected = (
    [
      ['nvr', sims[0]],
      ['cam', sims[1]],
    ] as const
  ).flatMap(([id, sim]) =>
    sim.profile.channels.flatMap((ch) => ['', '_sub', '_mobile'].map((suffix) => `${id}_${ch.toLowerCase()}${suffix}`)),
  );
  assert.ok(expected.includes('nvr_ip_ch1_mobile'));
  assert.deepEqual(Object.keys(streams).sort(), expected.sort());
  assert.match(
    streams.nvr_ch2_sub,
    new RegExp(`^rtsp://admin:\\$\\{NVR_NVR_PASSWORD\\}@127\\.0\\.0\\.1:${port}/rtsp/streaming\\?channel=\\d+&subtype=1$`),
  );
  assert.match(streams.cam_ch1_mobile, /^rtsp:\/\/admin:\$\{NVR_CAM_PASSWORD\}@127\.0\.0\.1:\d+\/rtsp\/streaming\?channel=\d+&subtype=2$/);

  const generic = await runCli(['streams', '--config', file, '--format', 'generic']);
  assert.equal(generic.code, 0, generic.err);
  const cameras = sims[0].profile.channels.length + sims[1].profile.channels.length;
  assert.equal((parseYaml(generic.out) as unknown[]).length, cameras, 'one generic camera per channel');
  assert.ok(!generic.out.includes(PASSWORD));
});

test('nvr2mqtt streams: a device that does not answer is named on stderr, the others still printed, exit 1', async () => {
  const file = configFile([
    { id: 'gone', url: 'http://127.0.0.1:1' },
    { id: 'cam', url: sims[1].url },
  ]);
  const r = await runCli(['streams', '--config', file, '--format', 'frigate', '--password', 'placeholder']);
  assert.equal(r.code, 1);
  assert.match(r.err, /gone: no stream addresses/);
  const doc = parseYaml(r.out) as { cameras: Record<string, unknown> };
  assert.deepEqual(Object.keys(doc.cameras), ['cam_ch1']);
  assert.ok(!r.out.includes(PASSWORD) && !r.err.includes(PASSWORD));
});

test('nvr2mqtt streams: bad arguments are refused with the reason and usage, the device untouched', async () => {
  const file = configFile([{ id: 'nvr', url: sims[0].url }]);
  sims[0].clearLog();
  for (const [args, reason] of [
    [['--format', 'vlc'], /--format must be one of go2rtc, frigate, generic \(got "vlc"\)/],
    [['--format', 'generic', '--password', 'env'], /generic camera reads no environment variables/],
    [['--password', 'plain'], /--password must be one of env, placeholder/],
    [['--bogus'], /unknown argument "--bogus"/],
  ] as const) {
    const r = await runCli(['streams', '--config', file, ...args]);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.err, reason);
    assert.equal(r.out, '');
  }
  const none = await runCli(['streams']);
  assert.equal(none.code, 2);
  assert.match(none.err, /--config <file.yaml> is required/);
  assert.equal(sims[0].log.length, 0, 'no request reached the device');
});

/** The README's (or its docs/ page's) live-view recipe: the config, the command and its output, as documented. */
function documentedRecipe(): { config: string; command: string; output: string } {
  const repo = join(__dirname, '..', '..', '..');
  const docs = join(repo, 'docs');
  const files = ['README.md', ...(existsSync(docs) ? readdirSync(docs, { recursive: true }).map((f) => join('docs', String(f))) : [])];
  for (const file of files.filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(repo, file), 'utf8');
    const at = text.indexOf('<!-- live-view recipe:');
    if (at < 0) continue;
    const blocks = [...text.slice(at).matchAll(/```(\w+)\n([\s\S]*?)```/g)].slice(0, 3);
    assert.deepEqual(
      blocks.map((b) => b[1]),
      ['yaml', 'sh', 'yaml'],
      `${file}: the recipe is the config, the command, its output`,
    );
    return { config: blocks[0][2], command: blocks[1][2].trim(), output: blocks[2][2] };
  }
  throw new Error('no live-view recipe in README.md or docs/');
}

test("the README's live-view recipe: the documented command, run as documented against the simulator, prints what the README shows", async () => {
  const recipe = documentedRecipe();
  const sim = await startSimulator({ password: PASSWORD, profile: 'ipc' });
  try {
    const work = mkdtempSync(join(dir, 'recipe-'));
    const documentedUrl = /url: (\S+)/.exec(recipe.config)![1];
    writeFileSync(join(work, 'config.yaml'), recipe.config.replace(documentedUrl, sim.url));
    const passwordFile = /password_file: (\S+)/.exec(recipe.config)![1];
    writeFileSync(join(work, passwordFile), PASSWORD);
    const [program, ...args] = recipe.command.split(/\s+/);
    assert.equal(program, 'nvr2mqtt');
    // The command as installed (package.json `bin`), run in the folder the documented config.yaml is in.
    const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const c = spawn(process.execPath, [BIN, ...args], { cwd: work, env: { ...process.env, NVR2MQTT_CONFIG: '' } });
      let out = '';
      let err = '';
      c.stdout.on('data', (d) => (out += d));
      c.stderr.on('data', (d) => (err += d));
      c.on('exit', (code) => resolve({ code, out, err }));
    });
    assert.equal(r.code, 0, r.err);
    assert.ok(!r.out.includes(PASSWORD), 'the password is never printed');
    // The simulator serves its streams where it listens; the documented device at 192.168.1.20, RTSP on 554.
    const documentedHost = `${new URL(documentedUrl).hostname}:554`;
    assert.equal(r.out.replaceAll(new URL(sim.url).host, documentedHost), recipe.output);
  } finally {
    await sim.stop();
  }
});

test.run();
