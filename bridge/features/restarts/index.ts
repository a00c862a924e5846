/**
 * Restarts as a DeviceFeature: restart buttons of the recorder and of the cameras it can restart (learned each time it
 * comes online).
 */
import type { DeviceFeature, FeatureOptions } from '../feature';
import { Restarts } from './restart';

export function restartFeature(o: FeatureOptions): DeviceFeature {
  const restarts = new Restarts({
    topics: o.topics,
    runtimes: o.runtimes,
    log: o.log.child('restart'),
    quoter: o.quoter,
    event: o.event,
    onChange: o.changed,
    state: o.state,
  });
  return {
    channelComponents: (device, ch, _slug, node) => restarts.channelComponents(device, ch, node),
    deviceComponents: (device, node) => restarts.deviceComponents(device, node),
    handle: (topic, retained) => restarts.handle(topic, retained),
    online: (rt) => void restarts.learn(rt),
  };
}
