import * as v from 'valibot';
import { definePage } from '../page';
import { optString } from './common';

/** One channel's RTSP URLs; the table spells `mobilestream_url`, the sample `mobile_stream_url`. */
export const StreamUrlEntry = v.looseObject({
  channel: optString,
  mainstream_url: optString,
  substream_url: optString,
  mobilestream_url: optString,
  mobile_stream_url: optString,
});
export type StreamUrlEntry = v.InferOutput<typeof StreamUrlEntry>;

/** `channel_info` is an array (vendor); a map keyed by channel id is tolerated. */
export const StreamUrlAnswer = v.looseObject({
  channel_info: v.optional(v.union([v.array(StreamUrlEntry), v.record(v.string(), StreamUrlEntry)])),
});
export type StreamUrlAnswer = v.InferOutput<typeof StreamUrlAnswer>;

export const streamUrlPage = definePage({
  name: 'Preview/StreamUrl',
  title: 'Stream URLs',
  operations: {
    Get: {
      request: v.looseObject({ channel: v.optional(v.array(v.string())) }),
      response: StreamUrlAnswer,
      description: 'RTSP URLs (main, sub, mobile stream) of every channel.',
    },
  },
  readOnly: true,
});
export const { Get: streamUrlGet } = streamUrlPage.operations;
