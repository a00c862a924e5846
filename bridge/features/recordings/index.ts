/**
 * Recordings as a DeviceFeature: the `recordings` request (requests.ts) and "Recording now" per channel
 * (recording-state.ts: state key `record_state`, Home Assistant binary sensor "Recording now"), read on the slow schedule.
 */
import { perDevice, type DeviceFeature, type FeatureOptions } from '../feature';
import { RecordingStateReader, recordingComponents } from './recording-state';
import { RecordingRequests } from './requests';
import { ClipRequests } from './clips';

export function recordingFeature(o: FeatureOptions): DeviceFeature {
  const readers = perDevice(o, (rt, log) => new RecordingStateReader(rt.device, { intervalMs: rt.cfg.storage_interval, log }));
  const requests = new RecordingRequests(o.quoter);
  const clips = new ClipRequests({ quoter: o.quoter, clips: o.clips, event: o.event });
  return {
    channelComponents: (device, ch, slug, node) =>
      device.facts.recording?.[ch] !== undefined ? recordingComponents(o.topics.state(device.id, slug), node) : undefined,
    requests: { recordings: (rt, msg, mayWrite) => requests.run(rt, msg, mayWrite), clip: (rt, msg) => clips.run(rt, msg) },
    // Read with the structure: the device's discovery waits for it, so its Recording entities go out with the rest.
    restructured: (rt) => {
      requests.forget(rt.id);
      clips.forget(rt.id);
      return readers.get(rt.id)!.withStructure();
    },
    online: (rt) => readers.get(rt.id)!.online(),
    offline: (rt) => readers.get(rt.id)!.offline(),
    stop: () => Promise.all([...readers.values()].map((r) => r.stop())).then(() => undefined),
  };
}
