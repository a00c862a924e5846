import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Simulator, startSimulator } from '../../simulator';
import { PASSWORD, RawClient, RawResponse } from '../simulator/raw-client';
import { REQUEST_SAMPLES, RequestSample } from './vendor';

/**
 * The second direction of conformance: every vendor REQUEST sample of a page the simulator serves is sent to the
 * simulator (by a raw client, nothing from core), and answered as the page says: success, or the refusal the page's
 * own Range implies. A sample the simulator cannot take fails here with its page named; none is skipped.
 */

const test = suite('conformance: vendor request samples sent to the simulator');

type Device = RequestSample['device'];
const sims = new Map<string, Promise<Simulator>>();
const simFor = (device: Device): Promise<Simulator> => {
  const key = JSON.stringify(device ?? {});
  let sim = sims.get(key);
  if (!sim) {
    sim = startSimulator({ password: PASSWORD, ...device });
    sims.set(key, sim);
  }
  return sim;
};
test.after(async () => {
  for (const sim of sims.values()) await (await sim).stop();
});

/** The sample with its channels renamed to the simulator's channels of the same hardware (keys and values). */
function retarget(x: unknown, as: Readonly<Record<string, string>> = {}): unknown {
  if (typeof x === 'string') return as[x] ?? x;
  if (Array.isArray(x)) return x.map((e) => retarget(e, as));
  if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [as[k] ?? k, retarget(v, as)]));
  return x;
}

async function send(sample: RequestSample): Promise<RawResponse> {
  const sim = await simFor(sample.device);
  const c = new RawClient(sim.url);
  const data = retarget(sample.data, sample.channelAs) as Record<string, unknown>;
  if (sample.path === '/API/Web/Login') return c.login(undefined, data);
  assert.is((await c.login()).status, 200);
  if (sample.path === '/API/Event/Check' && 'reader_id' in data) {
    // The sample continues a subscription: its cursor is the one the device handed out.
    const { reader_id: _r, sequence: _s, lap_number: _l, ...subscribe } = data;
    const first = await c.post(sample.path, subscribe);
    assert.is(first.status, 200, first.text);
    return c.post(sample.path, { ...data, reader_id: first.json.data.reader_id, sequence: first.json.data.sequence });
  }
  return c.post(sample.path, data);
}

for (const sample of REQUEST_SAMPLES) {
  const verdict = sample.refused ? `refused (${sample.refused.why})` : 'accepted';
  test(`${sample.page}: ${sample.path} ${verdict}`, async () => {
    const res = await send(sample);
    if (sample.refused) {
      assert.equal([res.status, res.json?.error_code], [400, sample.refused.error_code], res.text);
      assert.match(res.json.reason, sample.refused.reason);
    } else {
      assert.is(res.status, 200, `${sample.page}: ${res.text.slice(0, 400)}`);
      assert.is(res.json?.result, 'success', sample.page);
    }
  });
}

test('every page the simulator serves with a vendor request sample is covered (no page left out)', async () => {
  const sim = await simFor(undefined);
  const covered = new Set(REQUEST_SAMPLES.map((s) => s.path.replace('/Intelligent/PIR/', '/PIR/')));
  // Pages of the vendor's documents the simulator serves; the spec-only pages (stream, PTZ linkage, cross counting,
  // developer mode, audio, LinkageManage, event settings, upgrade token) have no vendor request sample.
  const vendorPages = sim.paths.filter((p) =>
    /\/API\/(Login|SystemInfo|Event\/Check|Preview|Snapshot|AlarmConfig\/(Disarming|Deterrence|VoiceAlarm|VoicePrompts|Motion|PIR|IO)|Extended\/IPCVoicePrompts|Maintenance\/(FtpUpgrade|SystemUpgrade\/Upgrade|TransKey|DeviceReboot)|ChannelConfig\/ImageControl|RecordConfig|StorageConfig|IPCMaintaint\/IPCReboot)/.test(
      p,
    ),
  );
  assert.equal(
    vendorPages.filter((p) => !covered.has(p)),
    [],
  );
});

test.run();
