import { filterOf, passes, type AlarmEvent } from './alarm-event';
import { bindDevice, type DeviceNode } from './bind-device';
import { forDone } from './errors';
import type { NodeDef, NodeMessage, RED, RedNode } from './red';

function eventMessage(device: string, e: AlarmEvent): NodeMessage {
  return {
    topic: `${e.channel}/${e.type}`,
    // `state` repeats `active` for flows written for version 1 of this node.
    payload: { device, channel: e.channel, type: e.type, active: e.active, time: e.time, state: e.active },
  };
}

/**
 * `nvr-event`: one message per alarm of the device that passes the node's filter (channels, alarm
 * types, starts only). The config node holds one event stream for all its nvr-event nodes; when
 * listening fails, each node reports it once per failure streak (status and Catch node).
 */
export = function (RED: RED) {
  function NvrEventNode(this: RedNode, def: NodeDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    const filter = filterOf(def);
    const device = typeof def.device === 'string' ? (RED.nodes.getNode(def.device) as DeviceNode | null) : null;
    const binding = bindDevice(RED, node, def.device, () => device?.events.unsubscribe(node.id));
    if (!binding || !device?.events) return;
    const deviceName = device.name || String((device as { url?: unknown }).url ?? '');
    let reported = false;
    device.events.subscribe(node.id, {
      event(e) {
        if (passes(filter, e)) node.send(eventMessage(deviceName, e));
      },
      failed(e) {
        const err = forDone(e, { page: 'Event', operation: 'Check' });
        binding.showFailure(err);
        // Once per failure streak, with a message so a Catch node can act on it; not every retry.
        if (!reported) node.error(err, { payload: err.toJSON() });
        reported = true;
      },
      recovered() {
        reported = false;
        binding.clearFailure();
      },
    });
  }

  RED.nodes.registerType('nvr-event', NvrEventNode);
};
