import * as v from 'valibot';
import { ChannelId } from '../channels';
import { members } from '../members';
import { definePage } from '../page';
import { optBool, optInt, optString } from './common';

/**
 * Recordings (vendor-facts-next §1): the month calendar, a day's segments, stored pictures, bookmarks (Record Tag) and
 * "recording now". Dates and times are the device's local `MM/DD/YYYY` and `hh:mm:ss` (device-time.ts converts them).
 */
const DeviceDate = v.pipe(v.string(), v.regex(/^\d{2}\/\d{2}\/\d{4}$/, 'a date must be MM/DD/YYYY'));
const DeviceTime = v.pipe(v.string(), v.regex(/^\d{2}:\d{2}:\d{2}$/, 'a time must be hh:mm:ss'));
const Channels = v.pipe(v.array(ChannelId), v.minLength(1, 'name at least one channel'));
const Uint32 = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(4294967295));
const Stream = v.picklist(['Mainstream', 'Substream']);
const Span = { start_date: DeviceDate, start_time: DeviceTime, end_date: DeviceDate, end_time: DeviceTime };

export const SEARCH_MONTH_TYPES = ['Record', 'Picture', 'FD', 'PVD', 'PidLcd', 'Repeat', 'FaceAttendance'] as const;

/** `Playback/SearchMonth/Get` (53602251523): `channel` empty = every channel; `start_date` picks the month. */
export const SearchMonthRequest = v.looseObject({
  channel: v.array(ChannelId),
  search_type: v.picklist(SEARCH_MONTH_TYPES),
  start_date: DeviceDate,
  stream_type: v.optional(Stream),
});
/** One entry per day of the month (31 always): `is_has_rec` 1 = footage, `record_type` the day's type mask. */
export const SearchMonthAnswer = v.looseObject({
  is_has_rec: v.array(v.number()),
  record_type: v.optional(v.array(v.number())),
});
export type SearchMonthAnswer = v.InferOutput<typeof SearchMonthAnswer>;

/** `Playback/SearchRecord/Search` (53269952863). */
export const SearchRecordRequest = v.looseObject({
  channel: Channels,
  ...Span,
  record_type: Uint32,
  record_type_ex: v.optional(v.array(Uint32)),
  stream_mode: v.optional(Stream),
  smart_region: v.optional(v.array(v.number())),
  enable_smart_search: optInt,
});
export type SearchRecordRequest = v.InferInput<typeof SearchRecordRequest>;

/** One recorded segment; the table spells `Size`, the sample `size`; `lock` and `new_record_type` are in the sample only. */
export const RecordSegment = v.looseObject({
  channel: v.string(),
  stream_mode: optString,
  record_type: v.number(),
  ...members(['start_date', 'end_date'], v.string()),
  ...members(['start_time', 'end_time'], v.string()),
  ...members(['size', 'Size', 'record_id', 'disk_event_id'], optInt),
  lock: optBool,
  new_record_type: optString,
});
export type RecordSegment = v.InferOutput<typeof RecordSegment>;

/** `record`: one array per channel asked for. */
export const SearchRecordAnswer = v.looseObject({ record: v.optional(v.array(v.array(RecordSegment)), []) });

/** `Playback/Picture/Get` first phase (C1.3 66388985826): the list of stored pictures as opaque tokens. */
export const PictureSearchRequest = v.looseObject({
  channel: Channels,
  ...Span,
  record_type: v.optional(Uint32),
  record_type_ex: v.optional(v.array(Uint32)),
  pic_sort: v.optional(v.picklist([0, 1])),
  pic_width: v.optional(v.union([v.string(), v.number()])),
  pic_height: v.optional(v.union([v.string(), v.number()])),
  msg_type: optString,
});
/** Second phase: one picture by its token. */
export const PictureFetchRequest = v.looseObject({ pic_info: v.pipe(v.string(), v.minLength(1)) });

export const PictureAnswer = v.looseObject({
  overload: optBool,
  all_pic_num: optInt,
  all_pic_info: v.optional(v.array(v.looseObject({ pic_info: v.string() }))),
  picture: v.optional(v.looseObject({ channel: v.string(), time: v.string(), image: v.string() })),
  msg_type: optString,
});
export type PictureAnswer = v.InferOutput<typeof PictureAnswer>;

/** `Playback/Tag/Get` (53402648133). */
export const TagGetRequest = v.looseObject({ ...Span, channel: Channels, Keyword: v.optional(v.string(), '') });
export const TagInfo = v.looseObject({
  Tag_date: v.string(),
  Tag_time: v.string(),
  channel: v.string(),
  chNum: optInt,
  label_id: v.number(),
  record_id: optInt,
  Tag_name: v.string(),
});
export type TagInfo = v.InferOutput<typeof TagInfo>;
export const TagGetAnswer = v.looseObject({
  'Pre-play': optString,
  'Post-play': optString,
  all_tag_num: optInt,
  all_tag_info: v.optional(v.array(v.looseObject({ tag_info: TagInfo })), []),
});

/** `operate` is not listed on the page; a client tested on hardware uses 0 add, 1 delete, 2 rename. */
export const TAG_OPERATE = { add: 0, remove: 1, rename: 2 } as const;
/** `Playback/Tag/Set` (53667240038); `Tag_name` 1-39 characters (Range, from a hardware client's notes). */
export const TagSetRequest = v.looseObject({
  Tag_name: v.pipe(v.string(), v.minLength(1, 'a tag name is 1-39 characters'), v.maxLength(39, 'a tag name is 1-39 characters')),
  Tag_date: DeviceDate,
  Tag_time: DeviceTime,
  label_id: v.pipe(v.number(), v.integer()),
  record_id: v.pipe(v.number(), v.integer()),
  operate: v.picklist([0, 1, 2]),
  channel: v.pipe(Channels, v.maxLength(1, 'a tag belongs to one channel')),
});

/** `SystemInfo/Record/Get` (53518448226): idle channels carry only state and switch; `record_switch` bool or "Enable". */
export const RecordingNowChannel = v.looseObject({
  record_state: optString,
  record_switch: v.optional(v.union([v.boolean(), v.string()])),
  ...members(['stream_type', 'resolution', 'fps', 'bitrate'], optString),
});
export const RecordInfoAnswer = v.looseObject({
  channel_info: v.optional(v.record(v.string(), RecordingNowChannel), {}),
  channel_max: optInt,
});
export type RecordInfoAnswer = v.InferOutput<typeof RecordInfoAnswer>;

export const searchMonthPage = definePage({
  name: 'Playback/SearchMonth',
  title: 'Recordings: month calendar',
  operations: {
    Get: {
      request: SearchMonthRequest,
      response: SearchMonthAnswer,
      description: 'Days of a month with footage (or pictures) and their types.',
    },
  },
  readOnly: true,
});
export const searchRecordPage = definePage({
  name: 'Playback/SearchRecord',
  title: 'Recordings: search',
  operations: {
    Search: {
      request: SearchRecordRequest,
      response: SearchRecordAnswer,
      description: 'Recorded segments of channels in a time range, by type.',
    },
  },
  readOnly: true,
});
export const recordedPicturePage = definePage({
  name: 'Playback/Picture',
  title: 'Recordings: stored pictures',
  operations: {
    Get: {
      request: v.union([PictureFetchRequest, PictureSearchRequest]),
      response: PictureAnswer,
      description: 'Stored pictures: the list (tokens) of a range, then one picture (base64 JPEG) by its token.',
    },
  },
  readOnly: true,
});
export const recordTagPage = definePage({
  name: 'Playback/Tag',
  title: 'Recordings: bookmarks',
  operations: {
    Get: { request: TagGetRequest, response: TagGetAnswer, description: 'Bookmarks (record tags) of channels in a range.' },
    Set: { request: TagSetRequest, description: 'Add (operate 0), remove (1) or rename (2) a bookmark.' },
  },
  readOnly: true,
});
export const recordInfoPage = definePage({
  name: 'SystemInfo/Record',
  title: 'Recording now',
  operations: {
    Get: { response: RecordInfoAnswer, description: 'Per channel whether it records now (record_state On/Off) and its streams.' },
  },
  readOnly: true,
});
export const { Get: searchMonthGet } = searchMonthPage.operations;
export const { Search: searchRecordSearch } = searchRecordPage.operations;
export const { Get: recordedPictureGet } = recordedPicturePage.operations;
export const { Get: recordTagGet, Set: recordTagSet } = recordTagPage.operations;
export const { Get: recordInfoGet } = recordInfoPage.operations;
