/**
 * SharedEventStream with a stand-in for the device client (the stream's only dependency is
 * `client.events()`): one stream for all subscribers, started by the first, stopped by the last;
 * failures reach every subscriber, and a stream that works again says so.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NvrClient } from '../../core/client';
import { DeviceError } from '../../core/errors';
import type { DeviceEvent } from '../../core/events';
import type { AlarmEvent } from '../../nodes/shared/alarm-event';
import { SharedEventStream, type EventSubscriber } from '../../nodes/shared/event-stream';

/** A client whose event stream the test feeds: an event, an error (fails the stream), or a keep-alive answer. */
function fakeClient() {
  const calls: AbortSignal[] = [];
  let wake: (() => void) | undefined;
  const queue: Array<DeviceEvent | Error | 'keep-alive'> = [];
  const client = {
    async *events({ signal, onAnswer }: { signal: AbortSignal; onAnswer?: () => void }) {
      calls.push(signal);
      while (!signal.aborted) {
        const next = queue.shift();
        if (next instanceof Error) throw next;
        if (next) onAnswer?.(); // like core: every answered Event/Check, before its events
        if (next === 'keep-alive') continue;
        if (next) {
          yield next;
          continue;
        }
        await new Promise<void>((r) => {
          wake = r;
          signal.addEventListener('abort', () => r(), { once: true });
        });
      }
    },
  };
  const feed = (x: DeviceEvent | Error | 'keep-alive') => {
    queue.push(x);
    wake?.();
  };
  return { client: client as unknown as NvrClient, calls, feed };
}

function recorder() {
  const log: string[] = [];
  const sub: EventSubscriber = {
    event: (e: AlarmEvent) => log.push(`${e.channel} ${e.type} ${e.active}`),
    failed: (err) => log.push(`failed ${err.error_code}`),
    recovered: () => log.push('recovered'),
  };
  return { log, sub };
}

const until = async (cond: () => boolean, what: string) => {
  for (let i = 0; i < 600 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(cond(), what);
};

test('one stream for every subscriber: started by the first, kept by the others, stopped by the last', async () => {
  const { client, calls, feed } = fakeClient();
  const stream = new SharedEventStream(() => client);
  const a = recorder();
  const b = recorder();
  stream.subscribe('a', a.sub);
  stream.subscribe('b', b.sub);
  await until(() => calls.length === 1, 'the stream started');
  feed({ kind: 'alarm', channel: 'CH1', type: 'motion', active: true });
  await until(() => a.log.length === 1 && b.log.length === 1, 'both got the event');
  assert.equal(a.log, ['CH1 motion true']);
  await stream.unsubscribe('a');
  assert.not.ok(calls[0].aborted, 'still running for b');
  feed({ kind: 'alarm', channel: 'CH2', type: 'pir', active: false });
  await until(() => b.log.length === 2, 'b got the second event');
  assert.equal(a.log, ['CH1 motion true'], 'a left: no more events');
  await stream.unsubscribe('b');
  assert.ok(calls[0].aborted, 'the last one out stopped the stream');
  assert.is(calls.length, 1);
});

test('a failure reaches every subscriber; the first answer after it (a keep-alive) says the stream recovered', async () => {
  const { client, calls, feed } = fakeClient();
  const stream = new SharedEventStream(() => client);
  const a = recorder();
  stream.subscribe('a', a.sub);
  await until(() => calls.length === 1, 'started');
  feed(new DeviceError({ kind: 'transport', error_code: 'ECONNREFUSED', reason: 'refused' }));
  await until(() => a.log.includes('failed ECONNREFUSED'), 'failure reported');
  await until(() => calls.length === 2, 'listening again after the first pause (1 s)');
  feed('keep-alive');
  await until(() => a.log.length === 2, 'recovered without an alarm');
  assert.equal(a.log, ['failed ECONNREFUSED', 'recovered']);
  feed({ kind: 'alarm', channel: 'CH1', type: 'io', active: true });
  await until(() => a.log.length === 3, 'event after the failure');
  assert.equal(a.log, ['failed ECONNREFUSED', 'recovered', 'CH1 io true']);
  await stream.close();
});

test.run();
