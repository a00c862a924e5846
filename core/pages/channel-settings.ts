/**
 * Channel settings pages users change every week (vendor-facts-more k, l, p): image control (day/night IR-cut, IR
 * LEDs), motion and PIR detection, record configuration (recording on/off), video cover (privacy mask). Each is a
 * `channel_info.<CH>` page whose Set sends the touched channel blocks whole (the vendor's Set samples do), with the
 * addressing its samples carry. Bounds and value lists come from each device's Range, never from here.
 */
import * as v from 'valibot';
import { definePage, type PageDef } from '../page';
import { ChannelRange, META_KEYS, channelMap, channelSetMap, optBool, optInt, optString } from './common';

/** Day/night and IR (k): the legacy camera's flat members; the full-colour sets (`DayNightMode`, `FullColorMode`) kept as they come. */
export const ImageControlChannel = v.looseObject({
  status: optString,
  support_default: optBool,
  ir_cut_mode: optString, // AutoMode, ColorMode, BlackWhiteMode, VideoMode/ImageMode, TimeSchedule; new: Auto, Day, Night, Image, Schedule
  ir_cut_delay: optInt,
  ir_led: optString, // Off, On, Auto, Manual
  start_time: optString,
  end_time: optString,
  image_setting: optString, // FullColorMode, DayNightMode, Schedule (full-colour cameras)
  white_light: optString, // Auto, Manual, Schedule, OFF: where a firmware answers it flat (Default sample)
  /** White light of a full-colour camera, as the Get nests it; the Range lists these members flat (`rangeFlattens`). */
  FullColorMode: v.optional(v.looseObject({ white_light: optString, light_distance: optInt })),
  mirror_mode: optString,
  angle_rotation: optString,
});
export type ImageControlChannel = v.InferOutput<typeof ImageControlChannel>;

/** Motion and PIR (l): detection switch and sensitivity beside the alarm's linkage (email, recording...). */
export const AlarmDetectionChannel = v.looseObject({
  status: optString,
  switch: optBool,
  sensitivity: optInt,
  send_email: optBool,
  record_enable: optBool,
  record_channel: v.optional(v.array(v.string())),
  alarm_out: v.optional(v.array(v.string())),
  buzzer: optString,
  latch_time: optString,
  post_recording: optString,
  show_message: optBool,
  http_listening: optBool,
});
export type AlarmDetectionChannel = v.InferOutput<typeof AlarmDetectionChannel>;

/** Record configuration (p). */
export const RecordChannel = v.looseObject({
  record_switch: optBool,
  stream_mode: optString, // Mainstream, DualStream (NVR/DVR)
  prerecord: optBool,
  anr: optBool,
  manual_record: optBool,
  net_break_record: optBool,
});
export type RecordChannel = v.InferOutput<typeof RecordChannel>;

/** Video cover (p): privacy mask; zones on a 704x576 grid. */
export const VideoCoverChannel = v.looseObject({
  status: optString,
  privacy_zone_enable: optBool,
  zone_info: v.optional(
    v.array(
      v.looseObject({
        zone_no: optInt,
        zone_enable: optBool,
        rect: v.optional(v.looseObject({ left: optInt, top: optInt, width: optInt, height: optInt })),
      }),
    ),
  ),
});
export type VideoCoverChannel = v.InferOutput<typeof VideoCoverChannel>;

/** A channel page of this family: Range, Get and Set, the Set carrying the touched blocks whole. */
function channelPage<S extends v.GenericSchema>(p: {
  name: string;
  title: string;
  channel: S;
  /** `data` the Get and Range need (`page_type`), carried by the Set too. */
  getRequest?: Record<string, string>;
  /** Members each channel block of a Set carries (`chn_index`, the UI's `page`). */
  setMembers?: (ch: string) => Record<string, string>;
  what: string;
  /** Groups the Get nests while the Range lists their members flat (PageDef `rangeFlattens`). */
  rangeFlattens?: readonly string[];
}): PageDef {
  const metaKeys = [...META_KEYS, ...Object.keys(p.setMembers?.('CH1') ?? {})];
  const Get = v.looseObject({ page_type: optString, channel_info: v.optional(channelMap(p.channel)) });
  // The request schema supplies the addressing the page needs (`page_type`) when the caller leaves it out.
  const Request = v.looseObject(
    Object.fromEntries(Object.entries(p.getRequest ?? {}).map(([k, value]) => [k, v.optional(v.string(), value)])),
  );
  const operations = {
    Range: { request: Request, response: ChannelRange, metaKeys, description: `${p.what}: channels that have it and its limits.` },
    Get: { request: Request, response: Get, metaKeys, description: `${p.what} per channel.` },
    Set: {
      request: v.looseObject({ ...Request.entries, channel_info: channelSetMap(p.channel) }),
      metaKeys,
      description: `Change ${p.what.toLowerCase()} of one or more channels (channel blocks whole).`,
    },
  };
  return definePage({
    name: p.name,
    title: p.title,
    operations,
    getRequest: p.getRequest,
    setMembers: p.setMembers ?? ((ch) => ({ chn_index: ch })),
    write: 'block',
    channelScoped: true,
    ...(p.rangeFlattens ? { rangeFlattens: p.rangeFlattens } : {}),
  });
}

export const imageControlPage = channelPage({
  name: 'ChannelConfig/ImageControl',
  title: 'Image control (day/night, IR, white light)',
  channel: ImageControlChannel,
  setMembers: (ch) => ({ chn_index: ch, page: 'chn_imgCtrl' }),
  what: 'Day/night switching, IR LEDs and white light',
  rangeFlattens: ['FullColorMode'],
});

/** Motion and PIR are read as the alarm page (`page_type: "AlarmConfig"`), where detection and linkage members meet. */
const detectionPage = (name: string, what: string) =>
  channelPage({ name: `AlarmConfig/${name}`, title: what, channel: AlarmDetectionChannel, getRequest: { page_type: 'AlarmConfig' }, what });

export const motionPage = detectionPage('Motion', 'Motion detection');
export const pirPage = detectionPage('PIR', 'PIR detection');

export const recordConfigPage = channelPage({
  name: 'RecordConfig',
  title: 'Record configuration',
  channel: RecordChannel,
  what: 'Recording',
});

export const videoCoverPage = channelPage({
  name: 'ChannelConfig/VideoCover',
  title: 'Video cover (privacy mask)',
  channel: VideoCoverChannel,
  what: 'Privacy mask',
});
