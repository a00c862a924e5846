import { isChannelId } from '../../core/channels';
import { bindDevice } from '../shared/bind-device';
import { forDone, invalidRequest } from '../shared/errors';
import type { InputHandler, NodeDef, NodeMessage, RED, RedNode } from '../shared/red';

const where = { page: 'Snapshot', operation: 'Get' };
const RESOLUTION = /^\d+ ?x ?\d+$/;

/** The channel asked for: `msg.channel`, a channel id in `msg.payload`, or the node's property. */
function channelOf(msg: NodeMessage, property: unknown): string {
  const given = [msg.channel, typeof msg.payload === 'string' ? msg.payload : undefined, property].find(
    (c): c is string => typeof c === 'string' && c.trim() !== '',
  );
  const channel = given?.trim().toUpperCase();
  if (!channel) throw invalidRequest('no_channel', 'no channel: set msg.channel (CH1, IP_CH1, ...) or the Channel property', where);
  if (!isChannelId(channel))
    throw invalidRequest('bad_channel', `${JSON.stringify(given)} is not a channel id such as CH1, IP_CH1 or WIFI_CH1`, where);
  return channel;
}

function resolutionOf(msg: NodeMessage, property: unknown): string | undefined {
  const r = [msg.resolution, property].find((x): x is string => typeof x === 'string' && x.trim() !== '');
  if (r === undefined) return undefined;
  if (!RESOLUTION.test(r.trim())) throw invalidRequest('bad_resolution', `resolution ${JSON.stringify(r)} is not like 1280x720`, where);
  return r.trim();
}

/**
 * `nvr-snapshot`: a JPEG of one channel now (`Snapshot/Get`). Output `msg.payload` is the JPEG Buffer, with
 * `msg.channel`, `msg.time` (the device's capture time, ISO 8601) and `msg.size` (bytes).
 */
export = function (RED: RED) {
  function NvrSnapshotNode(this: RedNode, def: NodeDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    let closed = false;
    const binding = bindDevice(RED, node, def.device, () => {
      closed = true;
    });

    const onInput: InputHandler = (msg, send, done) => {
      Promise.resolve()
        .then(async () => {
          if (!binding) throw invalidRequest('no_device', 'no nvr-device configured', where);
          const channel = channelOf(msg, def.channel);
          const resolution = resolutionOf(msg, def.resolution);
          const shot = await binding.client.snapshot(channel, resolution ? { resolution } : {});
          return { channel, shot };
        })
        .then(
          ({ channel, shot }) => {
            if (closed) return done();
            binding?.clearFailure();
            msg.payload = shot.jpeg;
            msg.channel = channel;
            msg.time = new Date(shot.time !== undefined ? shot.time * 1000 : Date.now()).toISOString();
            msg.size = shot.jpeg.length;
            msg.format = shot.format;
            send(msg);
            done();
          },
          (e: unknown) => {
            if (closed) return done();
            const err = forDone(e, where);
            binding?.showFailure(err);
            done(err);
          },
        )
        .catch(() => undefined);
    };
    node.on('input', onInput);
  }

  RED.nodes.registerType('nvr-snapshot', NvrSnapshotNode);
};
