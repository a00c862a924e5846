import * as v from 'valibot';
import { definePage } from '../page';
import { GenericRange, optBool, optInt, optString } from './common';

/**
 * HTTP push of alarms (vendor: Event > Http listening; vendor facts more §o.3): while `enable` is on with
 * `push_way` HTTP, the device calls `http://<addr>:<port>/<url>` on every alarm start and stop.
 */
export const EventPushTable = v.looseObject({
  push_way: optString,
  username: optString,
  password: optString,
  password_empty: optBool,
  addr: optString,
  port: optInt,
  url: optString,
  enable: optBool,
  method: optString,
  keep_alive_interval: optString,
  udp_method: optString,
  udp_addr: optString,
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
});
export const { Range: eventPushRange, Get: eventPushGet, Set: eventPushSet } = eventPushPage.operations;
