import * as v from 'valibot';
import { definePage } from '../page';
import { GenericRange, META_KEYS, channelMap, channelSetMap, optBool, optInt, optString } from './common';

/** Spec 2.4: fields as they appear; meaning, units and bounds are not shown (the Range page has them). */
export const CrossCountingTime = v.looseObject({
  start_hour: optInt,
  start_minute: optInt,
  start_second: optInt,
  end_hour: optInt,
  end_minute: optInt,
  end_second: optInt,
});

export const CrossCountingChannel = v.looseObject({
  buzzer: optString,
  alarm_out: v.optional(v.array(v.unknown())),
  latch_time: optString,
  record_enable: optBool,
  http_listening: optBool,
  record_channel: v.optional(v.array(v.string())),
  post_recording: optString,
  show_message: optBool,
  send_email: optBool,
  full_screen: optBool,
  ftp_picture_upload: optBool,
  ftp_video_upload: optBool,
  picture_to_cloud: optBool,
  video_to_cloud: optBool,
  voice_prompts_index: v.optional(v.array(v.pipe(v.number(), v.integer()))), // 12 elements seen
  voice_prompts_select: v.optional(v.array(v.pipe(v.number(), v.integer()))), // 2 elements seen
  voice_prompts_time: v.optional(v.array(CrossCountingTime)), // 12 elements seen
  copy_ch: optString,
  chn_index: optString,
});
export type CrossCountingChannel = v.InferOutput<typeof CrossCountingChannel>;

export const CrossCountingRequest = v.looseObject({ page_type: v.optional(v.string(), 'AlarmConfig') });
export type CrossCountingRequest = v.InferInput<typeof CrossCountingRequest>;

export const CrossCountingGetResponse = v.looseObject({
  channel_info: v.optional(channelMap(CrossCountingChannel)),
  page_type: optString,
});
export type CrossCountingGetResponse = v.InferOutput<typeof CrossCountingGetResponse>;

export const CrossCountingSetRequest = v.looseObject({
  page_type: v.optional(v.string(), 'AlarmConfig'),
  channel_info: channelSetMap(CrossCountingChannel),
});
export type CrossCountingSetRequest = v.InferInput<typeof CrossCountingSetRequest>;

export const crossCountingPage = definePage({
  name: 'AlarmConfig/Intelligent/CC',
  title: 'Cross counting',
  operations: {
    Range: {
      request: CrossCountingRequest,
      response: GenericRange,
      metaKeys: META_KEYS,
      description: 'Cross counting alarm settings: limits per channel.',
    },
    Get: {
      request: CrossCountingRequest,
      response: CrossCountingGetResponse,
      metaKeys: META_KEYS,
      // This Get answers {"version": "1.0", "data": {...}} instead of {"result": "success", "data": {...}}.
      envelope: 'version',
      description: 'Cross counting alarm settings per channel.',
    },
    Set: { request: CrossCountingSetRequest, metaKeys: META_KEYS, description: 'Change cross counting alarm settings.' },
  },
  getRequest: { page_type: 'AlarmConfig' },
  setMembers: (ch) => ({ chn_index: ch }),
  write: 'block',
  channelScoped: true,
});
export const { Range: crossCountingRange, Get: crossCountingGet, Set: crossCountingSet } = crossCountingPage.operations;
