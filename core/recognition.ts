import * as v from 'valibot';

/**
 * Who or which plate a recognition names, and the lists that say what it means (vendor facts next §2):
 * - identity: the fields of `ai_snap_picture`'s `FaceInfo` (`Id`, `GrpId`, `Name`, `Similarity`) and `PlateInfo`
 *   (`Id` = the plate text, `GrpId`, `PlateColor`, `Owner`) (C1.3 Event/Check tables 23-25, processAlarm page);
 * - groups: `/API/AI/FDGroup/Get` and `/API/AI/PlateGroup/Get` (pages 53196121075, 53408299226), answered as a bare
 *   `{"data":{Result, Count, Group[]}}` with an integer `Result` (the AORT codes below; 0 = success).
 * A group's `Policy` turns a `GrpId` into allow / block / stranger (faces) or allow / block / unknown (plates).
 */

export type RecognitionKind = 'face' | 'plate';

/** `PlateColor`: 0 blue, 1 green, 2 yellow, 3 black, 4 white, 5 other. */
export const PLATE_COLORS = ['blue', 'green', 'yellow', 'black', 'white', 'other'] as const;
export type PlateColor = (typeof PLATE_COLORS)[number];

export interface FaceIdentity {
  kind: 'face';
  /** The enrolled face's id; absent for a stranger (`Id` -1 or 0). */
  id?: number;
  /** The enrolled name; absent for a stranger. */
  name?: string;
  groupId?: number;
  /** 0-100 (the device sends a float). */
  similarity?: number;
}

export interface PlateIdentity {
  kind: 'plate';
  /** The plate text read. */
  plate: string;
  color?: PlateColor;
  groupId?: number;
  owner?: string;
}

export type RecognitionIdentity = FaceIdentity | PlateIdentity;

const opt = <T extends v.GenericSchema>(schema: T) => v.fallback(v.optional(schema), undefined);

const FaceFields = v.looseObject({
  Id: opt(v.number()),
  GrpId: opt(v.number()),
  Name: opt(v.string()),
  Similarity: opt(v.number()),
});

const PlateFields = v.looseObject({
  Id: opt(v.union([v.string(), v.number()])),
  GrpId: opt(v.number()),
  PlateColor: opt(v.number()),
  Owner: opt(v.string()),
});

const nonEmpty = (s: string | undefined) => (s !== undefined && s.trim() !== '' ? s.trim() : undefined);

/** The identity in one `FaceInfo` / `PlateInfo` item; undefined when it names nothing (a plate without text). */
export function identityOf(item: unknown, kind: RecognitionKind): RecognitionIdentity | undefined {
  if (kind === 'face') {
    const r = v.safeParse(FaceFields, item);
    if (!r.success) return undefined;
    const { Id, GrpId, Name, Similarity } = r.output;
    const name = nonEmpty(Name);
    return {
      kind: 'face',
      ...(Id !== undefined && Id > 0 ? { id: Id } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(GrpId !== undefined && GrpId > 0 ? { groupId: GrpId } : {}),
      ...(Similarity !== undefined && Similarity >= 0 && Similarity <= 100 ? { similarity: Math.round(Similarity * 100) / 100 } : {}),
    };
  }
  const r = v.safeParse(PlateFields, item);
  if (!r.success) return undefined;
  const { Id, GrpId, PlateColor, Owner } = r.output;
  const plate = nonEmpty(Id === undefined ? undefined : String(Id));
  if (plate === undefined) return undefined;
  const color = PlateColor !== undefined ? PLATE_COLORS[PlateColor] : undefined;
  const owner = nonEmpty(Owner);
  return {
    kind: 'plate',
    plate,
    ...(color !== undefined ? { color } : {}),
    ...(GrpId !== undefined && GrpId > 0 ? { groupId: GrpId } : {}),
    ...(owner !== undefined ? { owner } : {}),
  };
}

/** What a group does with a match: faces 0 allow, 1 block, 2 stranger, 3 internal, 4 advance; plates 0 allow, 1 block, 2 unknown. */
export type GroupPolicy = 'allow' | 'block' | 'stranger' | 'internal' | 'advance' | 'unknown';

const POLICIES: Readonly<Record<RecognitionKind, readonly GroupPolicy[]>> = {
  face: ['allow', 'block', 'stranger', 'internal', 'advance'],
  plate: ['allow', 'block', 'unknown'],
};

export interface RecognitionGroup {
  id: number;
  name: string;
  policy: GroupPolicy;
  enabled: boolean;
  /** `CanDel` 0: a built-in group (cannot be removed). */
  builtIn: boolean;
}

/** The AORT result codes of the AI database pages (53196121075, 53330936458). */
export const AI_RESULTS: Readonly<Record<number, string>> = {
  [-1]: 'no database',
  [-2]: 'database operation failed',
  [-3]: 'could not extract the face features',
  [-4]: 'cancelled',
  [-5]: 'no disk',
  [-6]: 'disk error',
  [-7]: 'already exists',
  [-8]: 'group invalid',
  [-9]: 'not found',
  [-10]: 'file already exists',
  [-11]: 'search error',
  [-12]: 'over the maximum count',
  [-13]: 'features are being updated',
  [-14]: 'no camera free to compute features',
  [-15]: 'invalid parameter',
  [-16]: 'bad format',
  [-17]: 'bad resolution',
  [-18]: 'file too large',
  [-19]: 'create failed',
  [-20]: 'MD5 mismatch',
  [-21]: 'position error',
  [-22]: 'size error',
  [-23]: 'not ready',
  [-24]: 'invalid database',
  [-25]: 'group invalid or built-in',
  [-26]: 'face group full',
  [-27]: 'no permission',
  [-28]: 'plate group full',
};

/** A refusal of an AI database page, by its integer `Result`. */
export class AiResultError extends Error {
  constructor(
    readonly path: string,
    readonly result: number,
  ) {
    super(`${path}: ${AI_RESULTS[result] ?? 'refused'} (Result ${result})`);
    this.name = 'AiResultError';
  }
}

const GroupItem = v.looseObject({
  Id: v.number(),
  Name: opt(v.string()),
  /** The FDGroup page's table spells it `name`. */
  name: opt(v.string()),
  Policy: v.number(),
  Enabled: opt(v.number()),
  CanDel: opt(v.number()),
});

const GroupsAnswer = v.looseObject({ Result: opt(v.number()), Group: opt(v.array(v.unknown())) });

export const GROUP_PAGES: Readonly<Record<RecognitionKind, string>> = {
  face: '/API/AI/FDGroup/Get',
  plate: '/API/AI/PlateGroup/Get',
};

/** The groups of a FDGroup/Get or PlateGroup/Get answer; an AiResultError for a Result other than 0. Bad items are left out. */
export function groupsOf(answer: unknown, kind: RecognitionKind): RecognitionGroup[] {
  const r = v.safeParse(GroupsAnswer, answer);
  if (!r.success) return [];
  const { Result, Group } = r.output;
  if (Result !== undefined && Result !== 0) throw new AiResultError(GROUP_PAGES[kind], Result);
  const out: RecognitionGroup[] = [];
  for (const x of Group ?? []) {
    const g = v.safeParse(GroupItem, x);
    if (!g.success) continue;
    const policy = POLICIES[kind][g.output.Policy];
    if (!policy) continue;
    out.push({
      id: g.output.Id,
      name: g.output.Name ?? g.output.name ?? '',
      policy,
      enabled: g.output.Enabled !== 0,
      builtIn: g.output.CanDel === 0,
    });
  }
  return out;
}

/** The request of a group read: every group, short form (vendor samples). */
export const GROUP_REQUESTS: Readonly<Record<RecognitionKind, object>> = {
  face: { MsgId: null, TypeFlags: 1, DefaultVal: 0, WithInternal: 0, SimpleInfo: 1 },
  plate: { MsgId: null, DefaultVal: 0, SimpleInfo: 1 },
};

/**
 * A device's face and plate groups, read once on first need and kept; read again when a recognition names a group
 * the copy lacks (a group added since; a group still missing after that is not asked for again until the lists are
 * read anew), or after `invalidate` (the lists changed).
 */
export class RecognitionGroups {
  private readonly lists = new Map<RecognitionKind, Promise<RecognitionGroup[]>>();
  /** Group ids a fresh read did not have, per kind (no read again for them). */
  private readonly absent = new Map<RecognitionKind, Set<number>>();

  constructor(private readonly call: (path: string, data: object) => Promise<unknown>) {}

  /** The group `id` of `kind` (undefined when the device does not have it). */
  async group(kind: RecognitionKind, id: number): Promise<RecognitionGroup | undefined> {
    const found = (await this.groups(kind)).find((g) => g.id === id);
    if (found || this.absent.get(kind)?.has(id)) return found;
    const again = (await this.groups(kind, true)).find((g) => g.id === id);
    if (!again) this.absent.get(kind)?.add(id);
    return again;
  }

  /** Every group of `kind`; `fresh` reads them again. */
  groups(kind: RecognitionKind, fresh = false): Promise<RecognitionGroup[]> {
    const kept = this.lists.get(kind);
    if (kept && !fresh) return kept;
    const groups = this.call(GROUP_PAGES[kind], GROUP_REQUESTS[kind]).then((answer) => groupsOf(answer, kind));
    this.lists.set(kind, groups);
    this.absent.set(kind, new Set());
    // A failed read is not kept: the next recognition asks again.
    groups.catch(() => this.lists.get(kind) === groups && this.lists.delete(kind));
    return groups;
  }

  /** The lists changed (a group added, renamed, removed): read them again on next need. */
  invalidate(kind?: RecognitionKind): void {
    for (const k of kind ? [kind] : (['face', 'plate'] as const)) this.lists.delete(k);
  }
}

/** The event type a recognition is (Home Assistant's "Recognition" entity, Node-RED): by its group's policy. */
export type RecognitionEventType = 'face_known' | 'face_blocked' | 'face_stranger' | 'plate_allowed' | 'plate_blocked' | 'plate_unknown';

/** A face in a block list is blocked; in an allow list, or any named face elsewhere, known; else a stranger. Plates by their list. */
export function recognitionEventType(identity: RecognitionIdentity, group: RecognitionGroup | undefined): RecognitionEventType {
  const policy = group?.policy;
  if (identity.kind === 'face')
    return policy === 'block' ? 'face_blocked' : policy === 'allow' || identity.name ? 'face_known' : 'face_stranger';
  return policy === 'block' ? 'plate_blocked' : policy === 'allow' ? 'plate_allowed' : 'plate_unknown';
}

/**
 * What a recognition says, as MQTT and Node-RED carry it: `event_type`, who (`name`, `face_id`, `similarity`) or
 * which plate (`plate`, `color`, `owner`), the list (`group`, `group_id`) and its `policy` (a face or plate in no
 * list the device named: `stranger` / `unknown`). Absent values are null, so every recognition has every key.
 */
export function recognitionFields(identity: RecognitionIdentity, group: RecognitionGroup | undefined): Record<string, unknown> {
  const who =
    identity.kind === 'face'
      ? { name: identity.name ?? null, face_id: identity.id ?? null, similarity: identity.similarity ?? null }
      : { plate: identity.plate, color: identity.color ?? null, owner: identity.owner ?? null };
  return {
    event_type: recognitionEventType(identity, group),
    ...who,
    group: group?.name ?? null,
    group_id: identity.groupId ?? null,
    policy: group?.policy ?? (identity.kind === 'face' ? 'stranger' : 'unknown'),
  };
}

/** The group of a recognition's identity, or undefined (no group named, or the lists could not be read). */
export async function recognitionGroup(
  groups: RecognitionGroups,
  identity: RecognitionIdentity,
  onError?: (err: unknown) => void,
): Promise<RecognitionGroup | undefined> {
  if (identity.groupId === undefined) return undefined;
  try {
    return await groups.group(identity.kind, identity.groupId);
  } catch (err) {
    onError?.(err);
    return undefined;
  }
}
