import type { NvrClient } from '../../core/client';
import type { DeviceError } from '../../core/errors';
import { filterOf, identityFiltered, passes, passesIdentity, type AlarmEvent } from '../shared/alarm-event';
import { bindDevice, type DeviceNode } from '../shared/bind-device';
import { forDone } from '../shared/errors';
import { isLivePart, type LivePart, type PartChange } from '../shared/live-parts';
import { recognitionOf } from '../shared/recognition';
import { clockTime, shortReason } from '../shared/status';
import type { NodeDef, NodeMessage, RED, RedNode } from '../shared/red';

function eventMessage(device: string, e: AlarmEvent): NodeMessage {
  return {
    topic: `${e.channel}/${e.type}`,
    // `state` repeats `active` for flows written for version 1 of this node.
    payload: { device, channel: e.channel, type: e.type, active: e.active, time: e.time, state: e.active },
  };
}

/**
 * Pictures read for alarm starts that came without one: one read per device at a time, and nodes (or starts) that
 * ask for the same channel while it is read or waiting share it. Keyed by the config node.
 */
class PictureReads {
  private readonly chain = new Map<string, Promise<unknown>>();
  private readonly pending = new Map<string, Promise<Buffer>>();

  read(device: string, client: NvrClient, channel: string): Promise<Buffer> {
    const key = `${device}\u0000${channel}`;
    const shared = this.pending.get(key);
    if (shared) return shared;
    const before = this.chain.get(device) ?? Promise.resolve();
    const p = before
      .then(() => client.snapshot(channel))
      .then((shot) => shot.jpeg)
      .finally(() => {
        if (this.pending.get(key) === p) this.pending.delete(key);
        if (this.chain.get(device) === settled) this.chain.delete(device);
      });
    const settled = p.catch(() => undefined);
    this.pending.set(key, p);
    this.chain.set(device, settled);
    return p;
  }
}

/**
 * `msg.picture` (JPEG Buffer), `msg.object` (the AI object cut-out: the face or plate of a recognition) and
 * `msg.pictureSource` of an alarm start.
 */
function withPicture(msg: NodeMessage, jpeg: Buffer, source: string, object?: Buffer, target?: string): NodeMessage {
  msg.picture = jpeg;
  msg.pictureSource = source;
  if (object) msg.object = object;
  if (target) msg.pictureTarget = target;
  return msg;
}

/**
 * A live part change as nvr-control answers a command (`msg.payload.floodlight`, `msg.control`), so
 * one "switch position" node serves both; `msg.source` says who saw it: the device's event or a read-back.
 */
function liveMessage(device: string, c: PartChange): NodeMessage {
  return {
    topic: `${c.channel}/${c.part}`,
    channel: c.channel,
    control: c.part,
    source: c.source,
    payload: { device, channel: c.channel, ...c.state },
  };
}

/** The saved `live` property: the parts to report (none for flows saved before it existed). */
const liveParts = (x: unknown): LivePart[] => (Array.isArray(x) ? x.filter(isLivePart) : []);

/** The error with when the next try is, in its message (Catch nodes and the debug sidebar show the message). */
function retryError(err: DeviceError, retry: Date): DeviceError {
  err.message = `${err.message}; listening again at ${retry.toISOString()}`;
  return err;
}

/**
 * `nvr-event`: one message per alarm of the device that passes the node's filter (channels, alarm
 * types, starts only; for faces and plates recognised also names, plates, lists, policies: `msg.recognition` with
 * the pictures), and with `live` one per change of the chosen live parts. The config node
 * holds one event stream for all its nvr-event nodes; when listening fails, each node reports it
 * once per failure streak (Catch node), its status saying when the next try is.
 */
export = function (RED: RED) {
  const reads = new PictureReads();
  function NvrEventNode(this: RedNode, def: NodeDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    const filter = filterOf(def);
    const device = typeof def.device === 'string' ? (RED.nodes.getNode(def.device) as DeviceNode | null) : null;
    const binding = bindDevice(RED, node, def.device, () => device?.events.unsubscribe(node.id));
    if (!binding || !device?.events) return;
    const deviceName = device.name || String((device as { url?: unknown }).url ?? '');
    // Live part changes (floodlight, siren, red/blue light) of the chosen parts, in nvr-control's answer shape.
    const parts = liveParts(def.live);
    if (parts.length) {
      device.live.listen(node.id, (c) => {
        if (parts.includes(c.part) && (!filter.channels.length || filter.channels.includes(c.channel)))
          node.send(liveMessage(deviceName, c));
      });
      node.on('close', () => device.live.unlisten(node.id));
    }
    let reported: string | undefined;
    // "Attach picture": alarm starts carry the device's picture, or one read for them (then they wait for it; the
    // messages of this node stay in the device's order).
    const attach = def.picture === true || def.picture === 'true';
    let order: Promise<void> = Promise.resolve();
    let closed = false;
    node.on('close', () => (closed = true));
    // Sends in the device's order: a message whose picture is read waits, and those after it wait behind it.
    const enqueue = (next: () => NodeMessage | undefined | Promise<NodeMessage | undefined>) => {
      order = order
        .then(next)
        .then((m) => {
          if (m && !closed) node.send(m);
        })
        .catch((err: unknown) => node.error(err));
    };
    const send = (e: AlarmEvent) => {
      const msg = eventMessage(deviceName, e);
      const p = e.picture;
      // A face or plate recognised: who or which plate, its list and policy (the lists read once), and its pictures;
      // the node's name / plate / list / policy filter applies to these only.
      const identity = p?.identity;
      if (identityFiltered(filter) && !identity) return;
      if (p && identity) {
        return enqueue(async () => {
          const recognition = await recognitionOf(binding.client, identity);
          if (!passesIdentity(filter, recognition)) return undefined;
          msg.recognition = recognition;
          return withPicture(msg, p.jpeg, p.source, p.object, p.target);
        });
      }
      if (!attach || !e.active) return enqueue(() => msg);
      if (p) return enqueue(() => withPicture(msg, p.jpeg, p.source, p.object, p.target));
      const read = reads.read(String(def.device), binding.client, e.channel).then(
        (jpeg) => withPicture(msg, jpeg, 'snapshot'),
        (err: unknown) => {
          msg.pictureError = forDone(err, { page: 'Snapshot', operation: 'Get' }).message;
          return msg;
        },
      );
      enqueue(() => read);
    };
    device.events.subscribe(node.id, {
      event(e) {
        if (passes(filter, e)) send(e);
      },
      failed(e, retryAt) {
        const err = forDone(e, { page: 'Event', operation: 'Check' });
        const retry = new Date(retryAt);
        // The status says when the next try is (the connection status would hide it: muted until recovered).
        binding.muted = true;
        node.status({ fill: 'red', shape: 'ring', text: `${shortReason(err)}; retry ${clockTime(retry)}` });
        // Once per failure streak (and again only when the failure changes), with a message so a Catch
        // node can act on it; never every retry.
        if (reported === err.error_code) return;
        reported = err.error_code;
        const payload = { ...err.toJSON(), retry_at: retry.toISOString() };
        node.error(retryError(err, retry), { topic: 'error', payload });
      },
      recovered() {
        reported = undefined;
        binding.muted = false;
        binding.showConnection();
      },
    });
  }

  RED.nodes.registerType('nvr-event', NvrEventNode);
};
