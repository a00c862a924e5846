import type { DeviceEvent } from '../core/events';
import { bindDevice } from './bind-device';
import { CLOSE_TIMEOUT_MS, settleWithin } from './device-session';
import { forDone } from './errors';
import type { NodeDef, NodeMessage, RED, RedNode } from './red';

/** After the event stream ends with an error: wait, doubling, up to the cap (a lock-out waits anyway). */
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

function eventMessage(event: DeviceEvent): NodeMessage {
  const topic = event.kind === 'alarm' ? `${event.channel}/${event.type}` : event.kind === 'live' ? `${event.channel}/live` : 'disk';
  return { topic, payload: event };
}

/** Waits `ms` or until `signal` aborts; leaves no timer behind. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const finish = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      resolve();
    };
    const timer = setTimeout(finish, ms);
    signal.addEventListener('abort', finish, { once: true });
  });
}

/**
 * `nvr-event`: listens to the device's event long poll while deployed and sends one message per
 * alarm. The client re-subscribes on reader errors itself; when its stream ends with an error (device
 * unreachable, lock-out) this node reports it once and listens again after a growing pause.
 */
export = function (RED: RED) {
  function NvrEventNode(this: RedNode, def: NodeDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    const stop = new AbortController();
    let running: Promise<void> = Promise.resolve();
    const binding = bindDevice(RED, node, def.device, async () => {
      stop.abort();
      await settleWithin(running, CLOSE_TIMEOUT_MS);
    });
    if (!binding) return;

    const listen = async () => {
      let retryMs = FIRST_RETRY_MS;
      let reported = false;
      while (!stop.signal.aborted) {
        try {
          for await (const event of binding.client.events({ signal: stop.signal })) {
            if (stop.signal.aborted) break;
            retryMs = FIRST_RETRY_MS;
            reported = false;
            binding.clearFailure();
            node.send(eventMessage(event));
          }
        } catch (e) {
          if (stop.signal.aborted) break;
          const err = forDone(e, { page: 'Event', operation: 'Check' });
          binding.showFailure(err);
          // Once per failure streak, with a message so a Catch node can act on it; not every retry.
          if (!reported) node.error(err, { payload: err.toJSON() });
          reported = true;
        }
        await pause(retryMs, stop.signal);
        retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
      }
    };
    running = listen().catch(() => undefined);
  }

  RED.nodes.registerType('nvr-event', NvrEventNode);
};
