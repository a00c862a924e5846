import * as v from 'valibot';
import { definePage } from '../page';
import { ChannelRange, channelGet, channelOperations, channelSet, optBool, optInt, optString } from './common';

/** Spec 2.7: a supported channel; values and bounds are not shown (the Range has them). */
export const AudioChannel = v.looseObject({
  copy_ch: optString,
  audio_enable: optBool, // present on some channels
  audio_type: optString,
  in_volume: optInt,
  out_volume: optInt,
});
export type AudioChannel = v.InferOutput<typeof AudioChannel>;

export const AudioRangeData = ChannelRange;
export type AudioRangeData = v.InferOutput<typeof AudioRangeData>;
/** Unsupported channels answer `{reason: "Not support"}`. */
export const AudioGetResponse = channelGet(AudioChannel);
export type AudioGetResponse = v.InferOutput<typeof AudioGetResponse>;
export const AudioSetRequest = channelSet(AudioChannel);
export type AudioSetRequest = v.InferOutput<typeof AudioSetRequest>;

export const audioPage = definePage({
  name: 'DeviceConfig/Audio',
  title: 'Audio',
  operations: channelOperations(
    { Range: AudioRangeData, Get: AudioGetResponse, Set: AudioSetRequest },
    {
      Range: 'Audio: channels with audio and the limits of type and volumes.',
      Get: 'Audio settings per channel (input/output volume, type, enable).',
      Set: 'Change audio settings.',
    },
  ),
  write: 'block',
  channelScoped: true,
});
export const { Range: audioRange, Get: audioGet, Set: audioSet } = audioPage.operations;
