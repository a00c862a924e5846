import * as v from 'valibot';
import { members } from '../members';
import { definePage } from '../page';
import { GenericRange, optBool, optInt, optString } from './common';

/**
 * HTTP push of alarms (vendor: Event > Http listening; vendor facts more §o.3): while `enable` is on with
 * `push_way` HTTP, the device calls `http://<addr>:<port>/<url>` on every alarm start and stop.
 */
export const EventPushTable = v.looseObject({
  ...members(['push_way', 'username', 'password'], optString),
  password_empty: optBool,
  addr: optString,
  port: optInt,
  url: optString,
  enable: optBool,
  ...members(['method', 'keep_alive_interval', 'udp_method', 'udp_addr'], optString),
  udp_port: optInt,
});
export type EventPushTable = v.InferOutput<typeof EventPushTable>;

/** Get and Set data: `{params: {name, table}}` (vendor samples). */
export const EventPushData = v.looseObject({
  params: v.optional(v.looseObject({ name: optString, table: v.optional(EventPushTable) })),
});
export type EventPushData = v.InferOutput<typeof EventPushData>;

/** Written by the bridge's push of alarms (core/event-push.ts), not through update(): the password is never echoed. */
export const eventPushPage = definePage({
  name: 'AlarmConfig/EventPush',
  title: 'Alarm push (HTTP)',
  operations: {
    Range: { response: GenericRange, description: 'HTTP push of alarms: bounds of the server address, port, URL and method.' },
    Get: {
      response: EventPushData,
      description: 'HTTP push of alarms: where the device sends alarm starts and stops, and whether it does.',
    },
    Set: {
      request: EventPushData,
      description: 'Set where the device pushes alarms (server address, port, URL, method) and switch it on or off.',
    },
  },
  readOnly: true,
  // While the bridge holds the push, `url` is its listener's secret path: anyone who reads it can post fake alarms.
  secretMembers: ['url'],
});
export const { Range: eventPushRange, Get: eventPushGet, Set: eventPushSet } = eventPushPage.operations;
