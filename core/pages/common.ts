import * as v from 'valibot';
import { ChannelId } from '../channels';
import { RangeDescriptor, rangeField } from '../range';

/**
 * A channel answered without parameters (spec 7): `{reason: "Not configured"}`, or in voice alarm Get
 * `{status: "Offline", reason: "Not support"}`.
 */
export const ChannelMarker = v.looseObject({ reason: v.string(), status: v.optional(v.string()) });
export type ChannelMarker = v.InferOutput<typeof ChannelMarker>;

export function isChannelMarker(x: unknown): x is ChannelMarker {
  return typeof x === 'object' && x !== null && typeof (x as { reason?: unknown }).reason === 'string';
}

// Presence, not type, picks the marker schema: `{reason: 5}` is a broken marker, not a parameter block.
const hasReason = (x: unknown) => typeof x === 'object' && x !== null && 'reason' in x;

/**
 * Get response channel map: channel id to parameters or a marker. Dispatching on `reason` (rather than a union)
 * keeps error paths precise: every parameter field is optional, so a union would match a marker both ways.
 */
export function channelMap<S extends v.GenericSchema>(params: S) {
  return v.record(
    v.string(),
    v.lazy((input) => (hasReason(input) ? ChannelMarker : params)),
  );
}

/** Set request channel map: keys must be channel ids (R3). */
export function channelSetMap<S extends v.GenericSchema>(params: S) {
  return v.record(ChannelId, params);
}

/** Range `channel_info`: an object descriptor whose `items` map channel ids to channel descriptors. */
export const RangeChannelInfo = v.pipe(
  RangeDescriptor,
  v.check((d) => d.type === 'object', 'channel_info must be an object descriptor'),
);

/**
 * Request keys that address a block rather than set a parameter (`page_type: "ChannelConfig"`, a Deterrence block's
 * `chn_index`): no Range lists them, so the Range check must let them through.
 */
export const META_KEYS = ['page_type', 'chn_index'] as const;

export const optBool = v.optional(v.boolean());
export const optInt = v.optional(v.pipe(v.number(), v.integer()));
export const optString = v.optional(v.string());

/** Range field that is a descriptor or a plain value of the given schema. */
export const optRange = <S extends v.GenericSchema>(plain: S) => v.optional(rangeField(plain));

/** Request of an operation without parameters, or whose parameters the spec does not show: any object. */
export const AnyRequest = v.looseObject({});
/** Response the spec does not show (Set answers): any object, kept as is. */
export const AnyResponse = v.looseObject({});

/** Range `data` of a `channel_info.<CH>` page: the channel count and each channel's descriptors. */
export const ChannelRange = v.looseObject({ channel_max: optRange(v.number()), channel_info: v.optional(RangeChannelInfo) });

/** Get `data` of a `channel_info.<CH>` page: each channel's parameters or a marker (unsupported channels). */
export const channelGet = <S extends v.GenericSchema>(params: S) => v.looseObject({ channel_info: v.optional(channelMap(params)) });

/** Set `data` of a `channel_info.<CH>` page: the blocks of the channels it changes. */
export const channelSet = <S extends v.GenericSchema>(params: S) => v.looseObject({ channel_info: channelSetMap(params) });

/** A generic Range `data` for pages whose fields the spec does not list: descriptors and plain values. */
export const GenericRange = v.looseObject({ channel_info: v.optional(RangeChannelInfo) });

/** Range, Get and Set of a `channel_info.<CH>` page whose Get and Set carry block addressing (META_KEYS). */
export function channelOperations<R extends v.GenericSchema, G extends v.GenericSchema, S extends v.GenericSchema>(
  schemas: { Range: R; Get: G; Set: S },
  what: { Range: string; Get: string; Set: string },
) {
  return {
    Range: { response: schemas.Range, description: what.Range },
    Get: { response: schemas.Get, metaKeys: META_KEYS, description: what.Get },
    Set: { request: schemas.Set, metaKeys: META_KEYS, description: what.Set },
  };
}
