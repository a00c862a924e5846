import * as v from 'valibot';
import { identityOf, type RecognitionIdentity } from './recognition';

/**
 * The pictures an `/API/Event/Check` answer may carry (vendor facts o; the vendor's Event/Check page, tables 5, 15
 * and 16, and the C1.3 parts of o.1):
 * - `alarm_snap_data[]` `{chnnel (sic), chn_alias, img_id, img_encode, img_format, img_data}`: the picture of an
 *   ordinary alarm, matched by the `take_alarm_snap` of its `channel_alarm[]` entry (= `img_id`);
 * - `ai_snap_picture`: the AI "push picture" (subscribed with `{"aipushpic":["all"]}`), either flat (first set:
 *   `{Chn, strChn, SnapId, Type, ObjectImage, backGround, ...}`) or wrapped (C1.3: `{SnapedObjInfo, PlateInfo,
 *   FaceInfo}`, each an object or, as devices send it, an array of them).
 * Tolerant by item: a picture that is not base64 JPEG, or names no channel, is dropped, never the answer.
 */

/** What an AI picture shows (its `Type`, o.1). */
export type PictureTarget = 'face' | 'human' | 'vehicle' | 'non_vehicle' | 'plate';

/** One alarm picture, decoded. */
export interface AlarmPicture {
  /** The scene, JPEG bytes. */
  jpeg: Buffer;
  /** AI pictures: the detected object (face, person, vehicle or plate) cut out, JPEG bytes. */
  object?: Buffer;
  /** `alarm`: `alarm_snap_data`; `ai`: `ai_snap_picture`. */
  source: 'alarm' | 'ai';
  /** The device's picture id (`img_id` / `SnapId`). */
  id?: number;
  /** AI pictures: what was detected. */
  target?: PictureTarget;
  /** Face and plate recognitions (`FaceInfo`, `PlateInfo`): who or which plate, and the group it matched. */
  identity?: RecognitionIdentity;
}

/** An AI picture with the channel it belongs to (`StrChn`). */
export interface AiPicture {
  channel: string;
  picture: AlarmPicture;
  /** The `int_subtype`s of the AI alarms this picture can belong to (its part and `Type`, o.1); empty: any. */
  subtypes: readonly string[];
  /** `StartTime`, in seconds since 1970 (the device sends seconds or, on some firmware, milliseconds). */
  start?: number;
}

/** `Type` of SnapedObjInfo (o.1): 0 Face, 1 HumanBody, 2 Vehicle, 3/4 PID human/vehicle, 5/6 LCD ..., 7-9 NonVehicle, 10 plate, 11-19 intrusion/entrance/exiting human/vehicle/non-vehicle. */
export function pictureTarget(type: number | undefined): PictureTarget | undefined {
  if (type === undefined || !Number.isInteger(type) || type < 0) return undefined;
  if (type === 0) return 'face';
  if (type === 10) return 'plate';
  if (type <= 6) return type % 2 ? 'human' : 'vehicle';
  if (type <= 9) return 'non_vehicle';
  if (type <= 19) return (['human', 'vehicle', 'non_vehicle'] as const)[(type - 11) % 3];
  return undefined;
}

/**
 * The detectors whose alarms a picture's `Type` (o.1) comes from: 0 face (FD), 1/2/7 the person-vehicle detector
 * (`pd` for a person, `pd_vd` for all three), 3/4/8 PID, 5/6/9 LCD, 10 plate, 11-13 intrusion, 14-16 region entrance,
 * 17-19 region exiting. Empty for a Type outside the list: the picture may then go with any AI alarm.
 */
export function pictureSubtypes(type: number | undefined): readonly string[] {
  if (type === undefined || !Number.isInteger(type) || type < 0) return [];
  if (type === 0) return ['fd'];
  if (type === 1) return ['pd', 'pd_vd'];
  if (type === 2 || type === 7) return ['pd_vd'];
  if (type === 3 || type === 4 || type === 8) return ['pid'];
  if (type === 5 || type === 6 || type === 9) return ['lcd'];
  if (type === 10) return ['lpd'];
  if (type <= 19) return [(['intrusion', 'region_entrance', 'region_exiting'] as const)[Math.floor((type - 11) / 3)]];
  return [];
}

const opt = <T extends v.GenericSchema>(schema: T) => v.fallback(v.optional(schema), undefined);

/** JPEG bytes of a base64 string; undefined when it is empty, not base64 or not a JPEG. */
export function jpegOf(data: unknown): Buffer | undefined {
  if (typeof data !== 'string' || data.length < 8) return undefined;
  const s = data.replace(/^data:image\/jpe?g;base64,/i, '');
  if (!/^[A-Za-z0-9+/\s]+=*\s*$/.test(s)) return undefined;
  const b = Buffer.from(s, 'base64');
  return b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff ? b : undefined;
}

const SnapItem = v.looseObject({
  /** The vendor spells it `chnnel`; some firmwares `channel`. */
  chnnel: opt(v.string()),
  channel: opt(v.string()),
  img_id: v.number(),
  img_encode: opt(v.string()),
  img_format: opt(v.string()),
  img_data: v.string(),
});

/** `alarm_snap_data[]` by `img_id`: the pictures of ordinary alarms. */
export function alarmSnaps(list: unknown): Map<number, AlarmPicture> {
  const out = new Map<number, AlarmPicture>();
  if (!Array.isArray(list)) return out;
  for (const x of list) {
    const r = v.safeParse(SnapItem, x);
    if (!r.success) continue;
    const { img_id, img_encode, img_format, img_data } = r.output;
    if (img_encode !== undefined && img_encode.toLowerCase() !== 'base64') continue;
    if (img_format !== undefined && !/^image\/jpe?g$/i.test(img_format)) continue;
    const jpeg = jpegOf(img_data);
    if (jpeg) out.set(img_id, { jpeg, source: 'alarm', id: img_id });
  }
  return out;
}

/** One AI picture in any of its forms (SnapedObjInfo, first-set flat, PlateInfo, FaceInfo). */
const AiItem = v.looseObject({
  StrChn: opt(v.string()),
  strChn: opt(v.string()),
  SnapId: opt(v.number()),
  Type: opt(v.number()),
  StartTime: opt(v.number()),
  ObjectImage: opt(v.string()),
  Background: opt(v.string()),
  backGround: opt(v.string()),
  PlateImg: opt(v.string()),
  BgImg: opt(v.string()),
  Image2: opt(v.string()),
  Image3: opt(v.string()),
  Image4: opt(v.string()),
});

type AiPart = 'object' | 'plate' | 'face';

function aiPicture(x: unknown, part: AiPart): AiPicture | undefined {
  const r = v.safeParse(AiItem, x);
  if (!r.success) return undefined;
  const a = r.output;
  const channel = a.StrChn ?? a.strChn;
  if (!channel) return undefined;
  const [scene, object] =
    part === 'plate'
      ? [a.BgImg, a.PlateImg]
      : part === 'face'
        ? [a.Image4 ?? a.Image3, a.Image2]
        : [a.Background ?? a.backGround, a.ObjectImage];
  const objectJpeg = jpegOf(object);
  const jpeg = jpegOf(scene) ?? objectJpeg;
  if (!jpeg) return undefined;
  const target = part === 'plate' ? 'plate' : part === 'face' ? 'face' : pictureTarget(a.Type);
  const subtypes = part === 'plate' ? ['lpd'] : part === 'face' ? ['fd'] : pictureSubtypes(a.Type);
  const identity = part === 'object' ? undefined : identityOf(x, part);
  const start = a.StartTime !== undefined && a.StartTime > 0 ? (a.StartTime > 1e11 ? a.StartTime / 1000 : a.StartTime) : undefined;
  return {
    channel,
    subtypes,
    ...(start !== undefined ? { start } : {}),
    picture: {
      jpeg,
      ...(objectJpeg && objectJpeg !== jpeg ? { object: objectJpeg } : {}),
      source: 'ai',
      ...(a.SnapId !== undefined ? { id: a.SnapId } : {}),
      ...(target ? { target } : {}),
      ...(identity ? { identity } : {}),
    },
  };
}

const WRAPPED: ReadonlyArray<[string, AiPart]> = [
  ['SnapedObjInfo', 'object'],
  ['PlateInfo', 'plate'],
  ['FaceInfo', 'face'],
];

/** The AI pictures of `ai_snap_picture` (flat or wrapped; each part an object or an array), in the device's order. */
export function aiPictures(member: unknown): AiPicture[] {
  if (typeof member !== 'object' || member === null || Array.isArray(member)) return [];
  const m = member as Record<string, unknown>;
  const out: AiPicture[] = [];
  if (WRAPPED.some(([k]) => k in m)) {
    for (const [key, part] of WRAPPED) {
      const value = m[key];
      for (const x of Array.isArray(value) ? value : [value]) {
        const p = aiPicture(x, part);
        if (p) out.push(p);
      }
    }
    return out;
  }
  const p = aiPicture(m, 'object');
  return p ? [p] : [];
}
