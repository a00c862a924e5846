/**
 * The pictures a device attaches to its alarms in `/API/Event/Check` (the vendor's Event/Check page, tables 5, 15
 * and 16; C1.3 parts `SnapedObjInfo`, `PlateInfo`, `FaceInfo`):
 * - `alarm_snap_data[]` `{chnnel (sic), chn_alias, img_id, img_encode, img_format, img_data}`, matched by the
 *   alarm entry's `take_alarm_snap` (= `img_id`); left out for a reader that subscribed with
 *   `snap_resolution: "no_snapshot"`;
 * - `ai_snap_picture`: one AI picture per answer, for readers subscribed with `{"aipushpic":["all"]}`: the C1.3
 *   wrapper (`{SnapedObjInfo: {...}}`, `{PlateInfo: {...}}`, `{FaceInfo: {...}}`) or the first set's flat form.
 * Pictures are the test pattern (test-pattern.ts) captioned as a camera stamps them (the camera's name and the time,
 * the alarm), with a comment segment that names the alarm, so a test can tell which picture arrived.
 */
import { stampTime, testPicture } from './test-pattern';

/** The size of alarm pictures (Event/Check's `snap_resolution` offers 640x480 and 1280x720). */
const ALARM_PICTURE = [640, 480] as const;
/** The size of the detected object cut out of an AI picture. */
const OBJECT_PICTURE = [192, 192] as const;

/** A channel's picture now: the test pattern of `width`x`height` with the camera's name, the time and what it shows. */
export function channelPicture(
  size: readonly [number, number],
  p: { channel: string; name: string; now: Date; shows?: string; comment?: string },
): Buffer {
  const lines = [p.name && p.name !== p.channel ? `${p.name} ${p.channel}` : p.channel, stampTime(p.now), ...(p.shows ? [p.shows] : [])];
  return testPicture(size[0], size[1], lines, p.comment);
}

export type Obj = Record<string, unknown>;

/** Which pictures the device attaches: none (default), ordinary alarm pictures, AI pictures, or both. */
export type AlarmPictures = 'none' | 'snap' | 'ai' | 'both';
/** `wrapped`: C1.3 `{SnapedObjInfo|PlateInfo|FaceInfo: {...}}`; `flat`: the first set's `{Chn, strChn, ..., backGround}`. */
export type AiPictureForm = 'wrapped' | 'flat';
/** What an AI picture shows (person/vehicle alarms: which of the two). */
export type PictureTarget = 'human' | 'vehicle' | 'non_vehicle';

/** `Type` of SnapedObjInfo (o.1) by `int_subtype`: [human, vehicle, non-vehicle]. Subtypes without object pictures are absent. */
const OBJECT_TYPES: Readonly<Record<string, readonly [number, number, number]>> = {
  pd: [1, 2, 7],
  pd_vd: [1, 2, 7],
  pid: [3, 4, 8],
  lcd: [5, 6, 9],
  intrusion: [11, 12, 13],
  region_entrance: [14, 15, 16],
  region_exiting: [17, 18, 19],
};
const TARGETS: readonly PictureTarget[] = ['human', 'vehicle', 'non_vehicle'];

export interface PictureSpec {
  channel: string;
  alias: string;
  /** The camera's name (ChannelInfo `channel_name`), stamped on the picture. */
  name: string;
  /** Picture id (`img_id` / `SnapId`). */
  id: number;
  /** The alarm (`motion`, `pd_vd`...), written into the JPEG comment. */
  label: string;
  subtype?: string;
  target?: PictureTarget;
  now: Date;
  /** Face and plate recognitions: who or which plate (`FaceInfo` / `PlateInfo` identity fields, recognition.ts). */
  identity?: Obj;
}

/** The `alarm_snap_data` item of an alarm start. */
export function snapItem(p: PictureSpec): Obj {
  return {
    chnnel: p.channel,
    chn_alias: p.alias,
    img_id: p.id,
    img_encode: 'base64',
    img_format: 'image/jpeg',
    img_data: channelPicture(ALARM_PICTURE, {
      channel: p.channel,
      name: p.name,
      now: p.now,
      shows: `Alarm: ${p.label}`,
      comment: `alarm ${p.id} ${p.channel} ${p.label}`,
    }).toString('base64'),
  };
}

/** The `ai_snap_picture` member of an AI alarm start; undefined for a subtype without AI pictures. */
export function aiPicture(p: PictureSpec, form: AiPictureForm): Obj | undefined {
  const seconds = Math.floor(p.now.getTime() / 1000);
  // The scene at an alarm picture's size, captioned with the alarm; the cut-out object (or face, plate) smaller.
  const scene = (what: string) =>
    channelPicture(what.startsWith('scene') ? ALARM_PICTURE : OBJECT_PICTURE, {
      channel: p.channel,
      name: p.name,
      now: p.now,
      shows: what.startsWith('scene') ? `Alarm: ${p.label}` : what.replace(/^object (\S+).*$/, '$1'),
      comment: `ai ${p.id} ${p.channel} ${p.label} ${what}`,
    }).toString('base64');
  const times = { StartTime: seconds, EndTime: seconds + 2 };
  if (p.subtype === 'fd') {
    return {
      FaceInfo: {
        Id: 0,
        ...p.identity,
        SnapId: p.id,
        Type: 0,
        ...times,
        Chn: 0,
        StrChn: p.channel,
        Score: 90,
        Image2: scene('face'),
        Image4: scene('scene'),
      },
    };
  }
  if (p.subtype === 'lpd') {
    return {
      PlateInfo: {
        Id: 'AB123CD',
        ...p.identity,
        SnapId: p.id,
        Type: 0,
        StrChn: p.channel,
        ...times,
        Chn: 0,
        PlateImg: scene('plate'),
        BgImg: scene('scene'),
      },
    };
  }
  const types = p.subtype !== undefined ? OBJECT_TYPES[p.subtype] : undefined;
  if (!types) return undefined;
  const target = p.target ?? (p.subtype === 'pd_vd' ? 'vehicle' : 'human');
  const Type = types[TARGETS.indexOf(target)];
  const label = `${target} ${Type}`;
  if (form === 'flat') {
    return {
      Chn: 0,
      strChn: p.channel,
      Chn_alias: p.alias,
      ...times,
      SnapId: p.id,
      Type,
      ImageAllInfo: Buffer.from([0x18, 0, 0, 0]).toString('base64'),
      ObjectImage: scene(`object ${label}`),
      backGround: scene(`scene ${label}`),
    };
  }
  return {
    SnapedObjInfo: {
      Chn: 0,
      StrChn: p.channel,
      ...times,
      SnapId: p.id,
      Type,
      ObjectImage: scene(`object ${label}`),
      Background: scene(`scene ${label}`),
    },
  };
}
