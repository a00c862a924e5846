import type { NvrClient } from '../core/client';
import type { DeviceError } from '../core/errors';
import { asDeviceError } from './errors';
import type { DeviceSession } from './device-session';
import type { CloseHandler, NodeStatus, RED, RedNode } from './red';
import { connectionStatus, type ConnectionState } from './status';

/** What an `nvr-device` config node offers to the nodes that use it. */
export interface DeviceNode extends RedNode {
  session: DeviceSession;
}

export interface DeviceBinding {
  client: NvrClient;
  /** Latest connection state, for nodes that show something else for a while. */
  readonly state: ConnectionState;
  /** Shows the connection status again (after a progress or failure status). */
  showConnection(): void;
  /** While true, connection changes are tracked but not shown (a progress status is on display). */
  muted: boolean;
}

export const NO_DEVICE_STATUS: NodeStatus = { fill: 'red', shape: 'ring', text: 'no device configured' };

/**
 * Joins the shared session of the node's `nvr-device` and mirrors the connection in the node's
 * status; leaves the session when the node closes (last one out logs out). `onClose` runs first,
 * for the node's own clean-up. Returns undefined (and says so in the status) without a device.
 */
export function bindDevice(
  RED: RED,
  node: RedNode,
  deviceId: unknown,
  onClose: (removed: boolean) => Promise<void> | void = () => undefined,
): DeviceBinding | undefined {
  const device = typeof deviceId === 'string' && deviceId ? (RED.nodes.getNode(deviceId) as DeviceNode | null) : null;
  if (!device?.session) {
    node.status(NO_DEVICE_STATUS);
    node.on('close', ((removed, done) => {
      Promise.resolve().then(() => onClose(removed)).catch(() => undefined).finally(done);
    }) as CloseHandler);
    return undefined;
  }
  let state: ConnectionState = 'idle';
  let lastError: DeviceError | undefined;
  const show = () => node.status(connectionStatus(state, lastError));
  const binding: Omit<DeviceBinding, 'client'> = {
    muted: false,
    get state() {
      return state;
    },
    showConnection: show,
  };
  let client: NvrClient | undefined;
  let setupError: DeviceError | undefined;
  try {
    client = device.session.acquire(node.id, (s, err) => {
      state = s;
      lastError = err;
      if (s !== 'closed' && !binding.muted) show();
    });
  } catch (e) {
    setupError = asDeviceError(e); // unusable settings: shown already, and every request fails with it
  }
  node.on('close', ((removed, done) => {
    Promise.resolve()
      .then(() => onClose(removed))
      .catch(() => undefined)
      .then(() => device.session.release(node.id))
      .catch(() => undefined)
      .finally(done);
  }) as CloseHandler);
  return Object.defineProperty(binding, 'client', {
    enumerable: true,
    get() {
      if (!client) throw setupError;
      return client;
    },
  }) as DeviceBinding;
}
