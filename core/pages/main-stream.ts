import * as v from 'valibot';
import { definePage } from '../page';
import { RangeChannelInfo, channelGet, channelOperations, channelSet, optBool, optInt, optRange, optString } from './common';

/**
 * Spec 2.2. Value lists (resolution, encode type, bitrate...) are the device's Range business (R1): the schemas
 * type the fields, the Range validator checks the values.
 */
export const MainStreamChannel = v.looseObject({
  status: optString, // Offline / Online; digital channels only, absent when online
  resolution: optString,
  fps: optInt,
  video_encode_type: optString,
  bitrate_control: optString,
  video_quality: optString,
  bitrate_mode: optString,
  bitrate: optInt,
  // resolution key ("1920 * 1080") -> frame-rate key -> {default_value}; inner shape left open (reference data)
  bitrate_default: v.optional(v.record(v.string(), v.unknown())),
  custom_bitrate: optInt,
  audio: optBool,
  i_frame_interval: optInt,
  i_frame_interval_rate: optInt,
  etr: optBool,
  etr_resolution: optString,
  etr_fps: optInt,
  etr_bitrate: optInt,
  etr_custom_bitrate: optInt,
  etr_stream_type: optString,
  etr_video_encode_type: optString,
  etr_bitrate_control: optString,
  etr_video_quality: optString,
  etr_bitrate_mode: optString,
  etr_audio: optBool,
  etr_i_frame_interval: optString,
  copy_ch: optString,
  enable_stream: optBool,
  video_encode_level: optString,
  resolution_mode: optString,
  rtsp_enable: optBool,
  video_encode_type_resolution_range: optString,
  codeparam_setting_notice: optString,
  btn_get_default_data: optBool,
  mutual_exclusion: optString,
  etr_fps_unbind_etr_i_frame_interval: optBool,
  etr_disable: optString,
  record_switch: optBool,
  stream_mode: optString,
  prerecord: optBool,
  anr: optBool,
});
export type MainStreamChannel = v.InferOutput<typeof MainStreamChannel>;

/** Range `data` (spec 2.2): any field may be absent. */
export const MainStreamRangeData = v.looseObject({
  channel: optRange(v.array(v.string())),
  channel_info: v.optional(RangeChannelInfo),
  channel_max: optRange(v.number()),
  support_copy: optRange(v.boolean()),
  analog_max: optRange(v.number()),
  bandwidth: optRange(v.looseObject({ total_bandwidth: optInt, remaining_bandwidth: optInt })), // kbps
  etr_sync_items: optRange(v.array(v.string())),
});
export type MainStreamRangeData = v.InferOutput<typeof MainStreamRangeData>;

export const MainStreamGetResponse = channelGet(MainStreamChannel);
export type MainStreamGetResponse = v.InferOutput<typeof MainStreamGetResponse>;
export const MainStreamSetRequest = channelSet(MainStreamChannel);
export type MainStreamSetRequest = v.InferOutput<typeof MainStreamSetRequest>;

export const mainStreamPage = definePage({
  name: 'StreamConfig/MainStream',
  title: 'Main stream encoding',
  operations: channelOperations(
    { Range: MainStreamRangeData, Get: MainStreamGetResponse, Set: MainStreamSetRequest },
    {
      Range: 'Main stream encoding: supported channels and the limits of every parameter.',
      Get: 'Main stream encoding parameters per channel.',
      Set: 'Change main stream encoding parameters of one or more channels.',
    },
  ),
  write: 'block',
  channelScoped: true,
});
export const { Range: mainStreamRange, Get: mainStreamGet, Set: mainStreamSet } = mainStreamPage.operations;
