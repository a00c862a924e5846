/**
 * Shared set-up of the client suites: a fake device and a client talking to it, closed together after each test.
 * Not a test file itself (no `.test` in the name).
 */
import * as assert from 'uvu/assert';
import { NvrClient, type ClientOptions } from '../../core/client';
import { DeviceError } from '../../core/errors';
import { fakeDevice, type FakeOptions } from './fake-device';

/** The VoiceAlarm page the fake devices of the client suites serve. */
export const VOICE_ALARM = '/API/AlarmConfig/VoiceAlarm';

/** The vendor's VoiceAlarm Range (two channels), trimmed to the fields the client suites write. */
export const VOICE_RANGE = {
  channel_max: 2,
  channel_info: {
    type: 'object',
    items: {
      CH1: {
        type: 'object',
        items: {
          siren_switch: { type: 'bool', mode: 'rw' },
          siren_time: { type: 'int32', min: 5, max: 180, default_value: 10 },
          siren_value: { type: 'int32', min: 1, max: 10, default_value: 5 },
          siren_type: { type: 'string', items: ['Alarm1', 'Alarm2'] },
        },
      },
    },
  },
};

export type Closable = { close(): Promise<void> };

/** `setup()` opens a fake device with `password` and a client of it; `closeAll()` (after each test) closes them. */
export function clientRig(password: string) {
  const open: Closable[] = [];
  async function setup(device: Partial<FakeOptions> = {}, client: Partial<ClientOptions> = {}) {
    const dev = await fakeDevice({ password, ...device });
    const logs: string[] = [];
    const c = new NvrClient({
      url: dev.url,
      username: 'admin',
      password,
      heartbeatMs: 0,
      timeoutMs: 2_000,
      log: (level, msg) => logs.push(`${level} ${msg}`),
      ...client,
    });
    open.push(c, dev);
    return { dev, c, logs };
  }
  async function closeAll(): Promise<void> {
    while (open.length) await open.pop()!.close();
  }
  return { setup, open, closeAll };
}

/** The DeviceError a promise rejects with (fails the test when it resolves or throws something else). */
export async function rejection(p: Promise<unknown>): Promise<DeviceError> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, DeviceError);
    return err as DeviceError;
  }
  throw new Error('expected a rejection');
}

export { until } from '../helpers/until';
