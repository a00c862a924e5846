import { registerAdminRoutes } from './admin';
import type { DeviceNode } from './bind-device';
import { clientOptions, type DeviceProps } from './device-config';
import { DeviceSession } from './device-session';
import type { CloseHandler, NodeDef, RED } from './red';

/**
 * `nvr-device` config node: where a device is and how to log in. It holds the one session shared by
 * every node that uses it (see DeviceSession); credentials live in Node-RED's credential store.
 */
export = function (RED: RED) {
  function NvrDeviceNode(this: DeviceNode, def: NodeDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    const creds = node.credentials ?? {};
    const log = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => {
      if (level === 'debug') node.debug(message);
      else if (level === 'info') node.log(message);
      else node.warn(message);
    };
    node.session = new DeviceSession(
      clientOptions(def as DeviceProps, { username: creds.username, password: creds.password }, log),
    );
    node.on('close', ((_removed, done) => {
      node.session.close().finally(done);
    }) as CloseHandler);
  }

  RED.nodes.registerType('nvr-device', NvrDeviceNode, {
    credentials: { username: { type: 'text' }, password: { type: 'password' } },
  });
  registerAdminRoutes(RED);
};
