import * as v from 'valibot';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ChannelId, channelFromSlug, channelKind, channelNumber, channelSlug, isChannelId } from '../../core/channels';

const test = suite('channel ids');

test('the three forms of R3 are channel ids', () => {
  for (const id of ['CH1', 'CH16', 'IP_CH5', 'IP_CH128', 'WIFI_CH1', 'WIFI_CH8']) assert.ok(isChannelId(id), id);
});

test('anything else is not: n = 0, leading zeros, lower case, other prefixes, non-strings', () => {
  for (const id of ['CH0', 'CH01', 'ch1', 'IP_CH', 'IPCH1', 'WIFI_CH0', 'CH1 ', 'CH-1', 'channel_info', '', 1, null]) {
    assert.not.ok(isChannelId(id), String(id));
  }
});

test('kinds and numbers', () => {
  assert.equal(['CH3', 'IP_CH5', 'WIFI_CH8'].map(channelKind), ['analog', 'digital', 'wifi']);
  assert.is(channelNumber('IP_CH12'), 12);
  assert.throws(() => channelKind('CAM1'), /not a channel id/);
});

test('slugs are lower-case and round-trip', () => {
  assert.is(channelSlug('IP_CH5'), 'ip_ch5');
  assert.is(channelSlug('WIFI_CH1'), 'wifi_ch1');
  for (const id of ['CH1', 'IP_CH3', 'WIFI_CH2']) assert.is(channelFromSlug(channelSlug(id)), id);
  assert.is(channelFromSlug('ip_ch0'), undefined);
  assert.is(channelFromSlug('bridge'), undefined);
  assert.throws(() => channelSlug('ch1'), /not a channel id/);
});

test('the valibot schema accepts ids and explains a bad one', () => {
  assert.is(v.parse(ChannelId, 'IP_CH7'), 'IP_CH7');
  const r = v.safeParse(ChannelId, 'CH0');
  assert.not.ok(r.success);
  assert.match(r.issues![0].message, 'expected CH<n>, IP_CH<n> or WIFI_CH<n>');
});

test.run();
