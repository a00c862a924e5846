import * as v from 'valibot';
import { DeviceError } from './errors';

/** Channel identifier (spec R3): analog `CH<n>`, digital `IP_CH<n>`, Wi-Fi `WIFI_CH<n>`, n >= 1. */
export type ChannelId = `CH${number}` | `IP_CH${number}` | `WIFI_CH${number}`;
export type ChannelKind = 'analog' | 'digital' | 'wifi';

// No leading zero: `CH01` is not an id a device reports, and accepting it would make two spellings of one channel.
const CHANNEL_RE = /^(CH|IP_CH|WIFI_CH)([1-9][0-9]*)$/;
const KIND_BY_PREFIX: Readonly<Record<string, ChannelKind>> = { CH: 'analog', IP_CH: 'digital', WIFI_CH: 'wifi' };

export function isChannelId(x: unknown): x is ChannelId {
  return typeof x === 'string' && CHANNEL_RE.test(x);
}

export const ChannelId = v.custom<ChannelId>(
  isChannelId,
  (issue) => `Invalid channel id: expected CH<n>, IP_CH<n> or WIFI_CH<n> (n >= 1) but received ${issue.received}`,
);

function parse(id: string): RegExpExecArray {
  const m = CHANNEL_RE.exec(id);
  if (!m) throw new Error(`not a channel id: ${JSON.stringify(id)} (expected CH<n>, IP_CH<n> or WIFI_CH<n>)`);
  return m;
}

export function channelKind(id: string): ChannelKind {
  return KIND_BY_PREFIX[parse(id)[1]];
}

export function channelNumber(id: string): number {
  return Number(parse(id)[2]);
}

/** MQTT/URL form of a channel id: `IP_CH5` -> `ip_ch5`. Throws on a string that is not a channel id. */
export function channelSlug(id: string): string {
  parse(id);
  return id.toLowerCase();
}

/** Inverse of {@link channelSlug}: `ip_ch5` -> `IP_CH5`; undefined when the slug names no channel. */
export function channelFromSlug(slug: string): ChannelId | undefined {
  const id = slug.toUpperCase();
  return isChannelId(id) ? id : undefined;
}

/** `channel` as a channel id, or the `invalid_request` DeviceError naming the operation; nothing is sent. */
export function requireChannel(channel: unknown, where: { page: string; operation: string }): ChannelId {
  if (isChannelId(channel)) return channel;
  throw new DeviceError({
    kind: 'invalid_request',
    error_code: 'invalid_request',
    ...where,
    reason: `not a channel id: ${JSON.stringify(channel)} (expected CH<n>, IP_CH<n> or WIFI_CH<n>)`,
  });
}
