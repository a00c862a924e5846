/**
 * nvr-recordings against the simulator (its clock in Europe/Berlin): a motion alarm found as a motion recording of
 * CH1 with ISO times in the zone and its playback URL (no credentials); the month calendar; a stored picture; a
 * bookmark added and removed; bad input refused before anything is sent, with its code at a Catch node.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import nvrRecordings from '../../nodes/nvr-recordings/nvr-recordings';
import { credentials, DEV, exchange, flowWith, helper, newPassword, NODES, useSimulator, type SimulatorContext } from './harness';
import type { Simulator } from '../../simulator';

const ZONE = 'Europe/Berlin';
const test = suite<SimulatorContext>('nodes: nvr-recordings', { password: newPassword() });
useSimulator(test, { timeZone: ZONE });

async function load(sim: Simulator, password: string, props: Record<string, unknown> = {}) {
  const flow = flowWith(sim.url, [
    {
      id: 'r1',
      type: 'nvr-recordings',
      name: '',
      device: DEV,
      action: 'list',
      channel: '',
      types: '',
      timeZone: ZONE,
      wires: [['out']],
      ...props,
    },
    { id: 'out', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: ['r1'], uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ]);
  await helper.load([...NODES, nvrRecordings], flow, credentials(password));
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const playback = (sim: Simulator, since: number) => sim.log.slice(since).filter((e) => e.path.includes('/Playback/'));

test("list today's motion recordings of CH1: ISO times in the zone, the playback URL without credentials", async ({ sim, password }) => {
  await load(sim!, password, { channel: 'CH1', types: 'motion' });
  const start = Date.now();
  sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: true });
  await sleep(1100);
  sim!.raiseAlarm({ channel: 'CH1', type: 'motion', active: false });
  const r = await exchange('r1', { topic: 'x' });
  assert.ok(r.out, JSON.stringify(r.caught?.error));
  const list = r.out.payload as any[];
  assert.is(list.length, 1);
  assert.equal(list[0].types, ['motion']);
  assert.ok(Math.abs(Date.parse(list[0].start) - start) < 1500);
  assert.match(list[0].start, /[+-]\d{2}:\d{2}$/);
  assert.match(list[0].playback_url, /^rtsp:\/\/127\.0\.0\.1:\d+\/rtsp\/playback\?channel=1&subtype=0&starttime=.*&localtime=true$/);
  assert.not.match(list[0].playback_url, new RegExp(`@|${password}`));
  assert.is(r.out.topic, 'x', 'the rest of the message is kept');
});

test('days, pictures and a bookmark through msg.action', async ({ sim, password }) => {
  await load(sim!, password, { channel: 'CH1' });
  const days = await exchange('r1', { action: 'days' });
  assert.ok((days.out!.payload as any[]).some((d) => d.types.includes('normal')));
  sim!.raiseAlarm({ channel: 'CH1', type: 'io', active: true });
  sim!.raiseAlarm({ channel: 'CH1', type: 'io', active: false });
  const pics = await exchange('r1', { action: 'pictures' });
  const tokens = pics.out!.payload.tokens as string[];
  assert.ok(tokens.length >= 1);
  const one = await exchange('r1', { action: 'pictures', picture: tokens[0] });
  assert.equal([...(one.out!.payload.jpeg as Buffer).subarray(0, 2)], [0xff, 0xd8]);
  const time = new Date(Date.now() - 10_000).toISOString().slice(0, 19) + 'Z';
  const add = await exchange('r1', { action: 'tag_add', channel: 'ch2', time, name: 'gate' });
  assert.ok(add.out, JSON.stringify(add.caught?.error));
  const tags = (await exchange('r1', { action: 'tags', channel: 'CH2' })).out!.payload as any[];
  assert.equal(
    tags.map((t) => t.name),
    ['gate'],
  );
  await exchange('r1', { action: 'tag_remove', channel: 'CH2', id: tags[0].id, time: tags[0].time });
  assert.equal((await exchange('r1', { action: 'tags', channel: 'CH2' })).out!.payload, []);
});

test('bad input: a Catch node gets the code and reason, nothing is sent', async ({ sim, password }) => {
  await load(sim!, password);
  await exchange('r1', { channel: 'CH1', action: 'days' }); // the channel list, read once
  const since = sim!.log.length;
  const today = new Intl.DateTimeFormat('sv-SE', { timeZone: ZONE }).format(Date.now());
  for (const [msg, code, reason] of [
    [{}, 'no_channel', /no channel/],
    [{ channel: 'camera 1' }, 'bad_channel', /not a channel id/],
    [{ channel: 'CH1', action: 'watch' }, 'bad_action', /not one of days, list/],
    [{ channel: 'CH1', from: `${today}T10:00:00`, to: `${today}T09:00:00` }, 'invalid_request', /reversed/],
    [
      { channel: 'CH1', from: `${today}T00:00:00`, to: Date.parse(`${today}T00:00:00Z`) + 30 * 3600_000 },
      'invalid_request',
      /at most a day/,
    ],
    [{ channel: 'CH1', types: ['ghosts'] }, 'invalid_request', /unknown recording type ghosts/],
  ] as const) {
    const r = await exchange('r1', { ...msg });
    assert.is(r.out, undefined);
    assert.is(r.caught?.error?.code, code, JSON.stringify(r.caught?.error));
    assert.match(r.caught?.error?.message, reason);
  }
  assert.equal(playback(sim!, since), [], 'no Playback request reached the device');
});

test.run();
