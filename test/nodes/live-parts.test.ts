/**
 * What nvr-event reports of the live parts (nodes/shared/live-parts.ts), on fake time: a part is reported
 * when it changes, once whoever says it (event or read-back); an event that contradicts a fresh
 * read-back may be older than it, so the channel is read again and what it is now is reported (never
 * an older state after a newer one); and the Set form carries the Range's description and unit.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LiveParts, READ_BACK_TRUST_MS, type PartChange } from '../../nodes/shared/live-parts';
import { pageForm } from '../../nodes/shared/page-form';
import type { NvrClient } from '../../core/client';
import type { LiveState } from '../../core/live';
import { withFakeTime } from '../helpers/fake-time';

const test = suite('nodes: live part changes for nvr-event');

function parts(now: () => Partial<LiveState>) {
  const reads: string[] = [];
  const seen: PartChange[] = [];
  const live = new LiveParts(async (channel) => {
    reads.push(channel);
    return { channel, ...now() };
  });
  live.listen('n1', (c) => seen.push(c));
  return { live, reads, seen };
}

test('a change is reported once, with its level; the same state from the other source is not repeated', () => {
  const { live, seen } = parts(() => ({}));
  live.update({ channel: 'CH1', floodlight: true, brightness: 80, siren: false, volume: 5 }, 'read-back');
  live.update({ channel: 'CH1', floodlight: true, brightness: 80, siren: false, volume: 5 }, 'device');
  live.update({ channel: 'CH1', floodlight: true, brightness: 60 }, 'device');
  assert.equal(seen, [
    { channel: 'CH1', part: 'floodlight', state: { floodlight: true, brightness: 80 }, source: 'read-back' },
    { channel: 'CH1', part: 'siren', state: { siren: false, volume: 5 }, source: 'read-back' },
    { channel: 'CH1', part: 'floodlight', state: { floodlight: true, brightness: 60 }, source: 'device' },
  ]);
});

test('an event contradicting a fresh read-back is settled by reading again: no older state after a newer one', async () => {
  await withFakeTime(async (clock) => {
    let device: Partial<LiveState> = { floodlight: false };
    const { live, reads, seen } = parts(() => device);
    live.update({ channel: 'CH1', floodlight: true }, 'read-back'); // switched on
    live.update({ channel: 'CH1', floodlight: false }, 'read-back'); // and off again
    // The device's event of the "on" arrives after the "off" was read back: it is older, not news.
    live.update({ channel: 'CH1', floodlight: true }, 'device');
    await clock.tickAsync(0);
    assert.equal(reads, ['CH1'], 'read again');
    assert.equal(
      seen.map((c) => c.state.floodlight),
      [true, false],
      'the stale "on" is not reported',
    );
    // Later, the device switches it on itself: an event long after the read-back is trusted as it is.
    await clock.tickAsync(READ_BACK_TRUST_MS + 1);
    device = { floodlight: true };
    live.update({ channel: 'CH1', floodlight: true }, 'device');
    assert.equal(
      seen.map((c) => [c.state.floodlight, c.source]),
      [
        [true, 'read-back'],
        [false, 'read-back'],
        [true, 'device'],
      ],
    );
    assert.is(reads.length, 1);
  });
});

test('an event that contradicts a fresh read-back and is true now (the device reacted) is reported after the read', async () => {
  await withFakeTime(async (clock) => {
    const { live, seen } = parts(() => ({ siren: true, volume: 3 }));
    live.update({ channel: 'CH2', siren: false }, 'read-back');
    live.update({ channel: 'CH2', siren: true, volume: 3 }, 'device');
    await clock.tickAsync(0);
    assert.equal(seen.at(-1), { channel: 'CH2', part: 'siren', state: { siren: true, volume: 3 }, source: 'read-back' });
  });
});

test("the Set form carries the Range's own description and unit of a field, where the device gives them", async () => {
  const range = {
    channel_info: {
      type: 'object',
      items: {
        CH1: {
          type: 'object',
          items: {
            siren_time: { type: 'int32', min: 5, max: 180, description: 'Warning alarm time.', unit: 's' },
            siren_value: { type: 'int32', min: 1, max: 10 },
          },
        },
      },
    },
  };
  const client = {
    range: async () => range,
    get: async () => ({ channel_info: { CH1: { siren_time: 10, siren_value: 5 } } }),
  } as unknown as NvrClient;
  const form = await pageForm(client, 'AlarmConfig/VoiceAlarm', 'CH1');
  const time = form.fields.find((f) => f.key === 'siren_time')!;
  assert.is(time.description, 'Warning alarm time.');
  assert.is(time.unit, 's');
  const volume = form.fields.find((f) => f.key === 'siren_value')!;
  assert.is(volume.description, undefined);
  assert.is(volume.unit, undefined);
});

test.run();
