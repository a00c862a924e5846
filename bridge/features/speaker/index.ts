/**
 * The speaker as a DeviceFeature: `set/say`, `set/play_prompt`, `set/prompt` on the recorder and on cameras with a
 * speaker; Home Assistant's notify "Speaker", select "Prompt" and button "Play prompt". Uploads (the request API's
 * `bridge/request/prompt`) go through `upload`.
 */
import type { Prompt, PromptUpload } from '../../../core';
import { Refusal } from '../../device/refusal';
import { perDevice, type DeviceFeature, type FeatureOptions } from '../feature';
import { DeviceSpeaker, isSpeakerKey, speakerComponents } from './speaker';

/** Upload a prompt to a device (its speaker feature reads the list again afterwards). */
export type PromptUploads = (device: string, input: Omit<PromptUpload, 'limits'>) => Promise<Prompt>;

export function speakerFeature(o: FeatureOptions): { feature: DeviceFeature; uploads: PromptUploads } {
  const { link, topics } = o;
  const speakers = perDevice(o, (rt, log, onChange) => new DeviceSpeaker(rt.device, { link, topics, log, onChange }));
  const feature: DeviceFeature = {
    channelComponents(device, ch, slug, node) {
      const s = speakers.get(device.id);
      return s?.has(ch) ? speakerComponents(topics, device.id, slug, node, s.prompts()) : undefined;
    },
    deviceComponents(device, node) {
      const s = speakers.get(device.id);
      return s?.has(undefined) ? speakerComponents(topics, device.id, undefined, node, s.prompts()) : undefined;
    },
    owns: isSpeakerKey,
    plan(rt, channel, key, raw) {
      if (!isSpeakerKey(key)) throw new Refusal(`${key}: not a speaker key`, { key });
      return speakers.get(rt.id)!.plan(channel, key, raw);
    },
    restructured: (rt) => speakers.get(rt.id)!.load(),
    stop: () => speakers.forEach((s) => s.stop()),
  };
  return { feature, uploads: (device, input) => speakers.get(device)!.upload(input) };
}
