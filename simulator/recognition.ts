/**
 * The recorder's face and plate recognition lists (vendor pages FDGroup/Get 53196121075, PlateGroup/Get 53408299226)
 * and the identity a recognition carries in `ai_snap_picture` (`FaceInfo`, `PlateInfo`; C1.3 Event/Check tables
 * 23-25). The AI pages answer a bare `{"data":{...}}` with an integer `Result` (0 = success), no `result` string.
 * Built-in groups as the vendor's samples have them: faces Allow List (0), Block List (1), Stranger (2); plates
 * Allow List (0), Block List (1), Unknown (2) (the sample's 白名单/黑名单/未知).
 */
import { raw } from './envelope';
import type { Route } from './route';

export type Obj = Record<string, unknown>;

export interface SimGroup {
  Id: number;
  Name: string;
  /** Faces: 0 allow, 1 block, 2 stranger, 3 internal, 4 advance; plates: 0 allow, 1 block, 2 unknown. */
  Policy: number;
  Enabled: 0 | 1;
  CanDel: 0 | 1;
  Similarity: number;
}

export interface SimFace {
  Id: number;
  GrpId: number;
  Name: string;
}

export interface SimPlate {
  /** The plate text (the member's key). */
  Id: string;
  GrpId: number;
  /** 0 blue, 1 green, 2 yellow, 3 black, 4 white, 5 other. */
  PlateColor: number;
  Owner: string;
}

/** What a recognition alarm names (raiseAlarm): a face by its name, a plate by its text. */
export interface RecognitionRequest {
  face?: string;
  plate?: string;
}

const bare = (data: Obj) => raw(JSON.stringify({ data }));

export class SimRecognition {
  readonly faceGroups: SimGroup[] = [
    { Id: 1, Name: 'Allow List', Policy: 0, Enabled: 1, CanDel: 0, Similarity: 70 },
    { Id: 2, Name: 'Block List', Policy: 1, Enabled: 1, CanDel: 0, Similarity: 70 },
    { Id: 3, Name: 'Stranger', Policy: 2, Enabled: 1, CanDel: 0, Similarity: 70 },
  ];
  readonly plateGroups: SimGroup[] = [
    { Id: 1, Name: 'Allow List', Policy: 0, Enabled: 1, CanDel: 0, Similarity: 1 },
    { Id: 2, Name: 'Block List', Policy: 1, Enabled: 1, CanDel: 0, Similarity: 1 },
    { Id: 3, Name: 'Unknown', Policy: 2, Enabled: 1, CanDel: 0, Similarity: 1 },
  ];
  readonly faces: SimFace[] = [];
  readonly plates: SimPlate[] = [];
  private nextFaceId = 1;

  constructor(private readonly channels: () => string[]) {}

  addFace(name: string, groupId: number): SimFace {
    const face = { Id: this.nextFaceId++, GrpId: groupId, Name: name };
    this.faces.push(face);
    return face;
  }

  addPlate(plate: string, groupId: number, color = 0, owner = ''): SimPlate {
    const p = { Id: plate, GrpId: groupId, PlateColor: color, Owner: owner };
    this.plates.push(p);
    return p;
  }

  routes(): Array<[string, Route]> {
    const r = (handler: Route['handler']): Route => ({ auth: 'session', handler });
    return [
      ['/API/AI/FDGroup/Get', r(({ data }) => this.groups(this.faceGroups, data, 0))],
      ['/API/AI/PlateGroup/Get', r(({ data }) => this.groups(this.plateGroups, data, 2))],
    ];
  }

  /** FDGroup/Get, PlateGroup/Get: `GroupsId` absent or empty = every group; `SimpleInfo` 1 = the short form. */
  private groups(list: SimGroup[], data: Obj, detectType: number) {
    const ids = Array.isArray(data.GroupsId) ? data.GroupsId.filter((x): x is number => typeof x === 'number') : [];
    const chosen = ids.length ? list.filter((g) => ids.includes(g.Id)) : list;
    const full = data.SimpleInfo !== 1;
    const n = this.channels().length;
    const Group = chosen.map((g) => ({
      ...g,
      DetectType: detectType,
      ...(detectType === 2 ? { EnableAlarm: 1 } : {}),
      ...(full ? { EnableChnAlarm: Array(Math.ceil(n / 8)).fill(255), AlarmOut: { Local: ['Local->1'], Ipc: [] } } : {}),
    }));
    const head = detectType === 2 ? { channel: this.channels() } : { MsgId: null, channel_max: n };
    return bare({ ...head, Result: 0, Count: Group.length, Group });
  }

  /**
   * The identity fields of a recognition's `FaceInfo` / `PlateInfo`: a known member with its group, else the
   * stranger / unknown group (Policy 2) and no name.
   */
  identity(kind: 'face' | 'plate', r: RecognitionRequest): Obj {
    if (kind === 'face') {
      const face = r.face !== undefined ? this.faces.find((f) => f.Name === r.face) : undefined;
      const stranger = this.faceGroups.find((g) => g.Policy === 2)?.Id ?? 0;
      return face
        ? { Id: face.Id, GrpId: face.GrpId, Name: face.Name, Similarity: 93.56932, ModifyCnt: 0 }
        : { Id: -1, GrpId: stranger, Name: '', Similarity: 0, ModifyCnt: 0 };
    }
    const text = r.plate ?? 'AB123CD';
    const plate = this.plates.find((p) => p.Id === text);
    const unknown = this.plateGroups.find((g) => g.Policy === 2)?.Id ?? 0;
    return plate
      ? { Id: plate.Id, GrpId: plate.GrpId, PlateColor: plate.PlateColor, Owner: plate.Owner }
      : { Id: text, GrpId: unknown, PlateColor: 0, Owner: '' };
  }
}
