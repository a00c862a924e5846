/**
 * The pictures a device attaches to its alarms in `/API/Event/Check` (the vendor's Event/Check page, tables 5, 15
 * and 16; C1.3 parts `SnapedObjInfo`, `PlateInfo`, `FaceInfo`):
 * - `alarm_snap_data[]` `{chnnel (sic), chn_alias, img_id, img_encode, img_format, img_data}`, matched by the
 *   alarm entry's `take_alarm_snap` (= `img_id`); left out for a reader that subscribed with
 *   `snap_resolution: "no_snapshot"`;
 * - `ai_snap_picture`: one AI picture per answer, for readers subscribed with `{"aipushpic":["all"]}`: the C1.3
 *   wrapper (`{SnapedObjInfo: {...}}`, `{PlateInfo: {...}}`, `{FaceInfo: {...}}`) or the first set's flat form.
 * Pictures are small valid JPEGs whose comment names the alarm, so a test can tell which picture arrived.
 */
/** A 1x1 grey baseline JPEG: every snapshot answers it. */
export const SNAPSHOT_JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEAYABgAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwgJC4nICIsIxwcKDcpLDAxNDQ0Hyc5PTgyPC4zNDL/wAALCAABAAEBAREA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/9oACAEBAAA/APn+iiigD//Z',
  'base64',
);

export type Obj = Record<string, unknown>;

/** Which pictures the device attaches: none (default), ordinary alarm pictures, AI pictures, or both. */
export type AlarmPictures = 'none' | 'snap' | 'ai' | 'both';
/** `wrapped`: C1.3 `{SnapedObjInfo|PlateInfo|FaceInfo: {...}}`; `flat`: the first set's `{Chn, strChn, ..., backGround}`. */
export type AiPictureForm = 'wrapped' | 'flat';
/** What an AI picture shows (person/vehicle alarms: which of the two). */
export type PictureTarget = 'human' | 'vehicle' | 'non_vehicle';

/** A valid JPEG with `text` as a comment segment (FF FE) right after its start: bytes that name the picture. */
export function labelledJpeg(text: string): Buffer {
  const body = Buffer.from(text, 'latin1');
  const head = Buffer.from([0xff, 0xfe, (body.length + 2) >> 8, (body.length + 2) & 0xff]);
  return Buffer.concat([SNAPSHOT_JPEG.subarray(0, 2), head, body, SNAPSHOT_JPEG.subarray(2)]);
}

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
  /** Picture id (`img_id` / `SnapId`). */
  id: number;
  /** The alarm (`motion`, `pd_vd`...), written into the JPEG comment. */
  label: string;
  subtype?: string;
  target?: PictureTarget;
  now: Date;
}

/** The `alarm_snap_data` item of an alarm start. */
export function snapItem(p: PictureSpec): Obj {
  return {
    chnnel: p.channel,
    chn_alias: p.alias,
    img_id: p.id,
    img_encode: 'base64',
    img_format: 'image/jpeg',
    img_data: labelledJpeg(`alarm ${p.id} ${p.channel} ${p.label}`).toString('base64'),
  };
}

/** The `ai_snap_picture` member of an AI alarm start; undefined for a subtype without AI pictures. */
export function aiPicture(p: PictureSpec, form: AiPictureForm): Obj | undefined {
  const seconds = Math.floor(p.now.getTime() / 1000);
  const scene = (what: string) => labelledJpeg(`ai ${p.id} ${p.channel} ${p.label} ${what}`).toString('base64');
  const times = { StartTime: seconds, EndTime: seconds + 2 };
  if (p.subtype === 'fd') {
    return {
      FaceInfo: {
        Id: 0,
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
