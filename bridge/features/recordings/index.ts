/**
 * Recordings as a DeviceFeature: the `recordings` request (requests.ts) and "Recording now" per channel
 * (recording-state.ts: state key `record_state`, Home Assistant binary sensor "Recording now"), read on the slow schedule.
 */
import { channelOnline } from '../../device/state';
import { perDevice, type DeviceFeature, type FeatureOptions } from '../feature';
import { RecordingStateReader, recordingComponents } from './recording-state';
import { RecordingRequests } from './requests';

export function recordingFeature(o: FeatureOptions): DeviceFeature {
  const readers = perDevice(o, (rt, log) => new RecordingStateReader(rt.device, { intervalMs: rt.cfg.storage_interval, log }));
  const requests = new RecordingRequests(o.quoter);
  return {
    // An offline channel shows `online` only (as its state); its entity comes back with it.
    channelComponents: (device, ch, slug, node) =>
      device.facts.recording?.[ch] !== undefined && channelOnline(device.facts, ch)
        ? recordingComponents(o.topics.state(device.id, slug), node)
        : undefined,
    requests: { recordings: (rt, msg, mayWrite) => requests.run(rt, msg, mayWrite) },
    restructured: (rt) => requests.forget(rt.id),
    online: (rt) => readers.get(rt.id)!.online(),
    offline: (rt) => readers.get(rt.id)!.offline(),
    stop: () => Promise.all([...readers.values()].map((r) => r.stop())).then(() => undefined),
  };
}
