/**
 * Voice prompts (vendor-facts-next 3.1, 3.2): the recorder's audio files (`AlarmConfig/VoicePrompts`: upload in
 * packets, text to speech, remove, play now on the recorder's speaker or a camera's) and, on an NVR, the prompts of
 * the cameras behind it (`Extended/IPCVoicePrompts`: list, audio index per camera, play and stop). Nothing is
 * sounded: every play goes into `playLog`, which tests read. Text to speech stores a stand-in file.
 */
import type { Device } from './device';
import { isPlainObject } from './descriptors';
import { Reply, failure, paramError, success } from './envelope';
import type { ChannelSpec, Profile } from './profiles';
import type { Route } from './route';

type Obj = Record<string, unknown>;

/** The 34 languages of the vendor's Range sample, and those it hides. */
export const PROMPT_LANGUAGES: readonly string[] = [
  '简体中文',
  '繁體中文',
  'ČEŠTINA',
  'DANSK',
  'ENGLISH',
  'FINNISH',
  'FRANÇAIS',
  'DEUTSCH',
  'ΕΛΛΗΝΙΚΑ',
  'עברית',
  'MAGYAR',
  'ITALIANO',
  '日 本 語',
  'POLSKI',
  'PORTUGUÊS',
  'РУССКИЙ',
  'ESPAÑOL',
  'ไ ท ย',
  'SLOVENIA',
  'ROMANIAN',
  'BULGARIAN',
  'ARABIC',
  'HINDI',
  'VIETNAM',
  'HOLLAND',
  'TURKEY',
  'PERSIAN',
  'SVENSKA',
  'KOREAN',
  'INDONESIA',
  'BRAZILE',
  'TFLEMISH',
  'Українська',
  'SLOVENSKY',
];
const HIDDEN_LANGUAGES = [
  '简体中文',
  'ČEŠTINA',
  'SLOVENIA',
  'VIETNAM',
  'SVENSKA',
  'INDONESIA',
  'BRAZILE',
  'TFLEMISH',
  'Українська',
  'SLOVENSKY',
];

const COMMANDS = ['Upload', 'Remove', 'Transform', 'Exit', 'Play'];
const CONTROL_TYPES = ['Normal', 'AiFace', 'AiPlate'];
/** The Set table lists LocalText too; the Range lists File and NetworkText. */
const CONVERT_MODES = ['File', 'LocalText', 'NetworkText'];
/** The Get table's formats (the Range lists g711a, wav, mp3). */
const DOWNLOAD_MODES = ['g711a', 'aac', 'wav', 'mp4', 'mp3'];
/** Range: one packet at most 512000 bytes (the Set table says a packet may not exceed 1.5 MB: the Range is stricter). */
export const PACKAGE_SIZE_MAX = 512_000;
/** Whole file: Normal 1 B-5 MB (Range `file_data` 5242880), AiFace at most 500 KB. */
const FILE_MAX: Readonly<Record<string, number>> = { Normal: 5_242_880, AiFace: 512_000, AiPlate: 5_242_880 };
const TEXT_MAX = 200;
const LIST_MAX = 100;
/** `ipc_channel_info` value naming the recorder's own speaker. */
const LOCAL = 255;

/** Members the vendor's Set samples carry; the import sample also repeats the packet under browser names. */
const SET_MEMBERS = new Set([
  'command',
  'control_type',
  'convert_mode',
  'packet_index',
  'file_count',
  'file_name',
  'file_data',
  'package_size',
  'text',
  'language',
  'index',
  'download_mode',
  'ipc_channel_info',
  'license_plate',
  'fileIndex',
  'fileName',
  'chunkSize',
  'chunkIndex',
  'data',
]);

export interface PromptFile {
  /** The serial number the device gave the file: `audio_list` entries are `<index>_<name>`, Play/Remove name it. */
  index: number;
  name: string;
  data: Buffer;
  /** Where it came from: a file upload or the text converter (its text and language). */
  source: { kind: 'file' } | { kind: 'text'; text: string; language: string };
}

export interface PlayEntry {
  time: number;
  /** `VoicePrompts` Play (recorder's files) or `IPCVoicePrompts` PlayAudio / StopPlaying (the camera's files). */
  page: 'VoicePrompts' | 'IPCVoicePrompts';
  action: 'play' | 'stop';
  /** The file's serial number and name (absent for a stop). */
  index?: number;
  name?: string;
  /** `local` (the recorder's speaker) or channel ids. */
  targets: string[];
}

interface Pending {
  control: string;
  name: string;
  count: number;
  next: number;
  chunks: Buffer[];
  size: number;
}

/** The device's own speaker (DeviceInfo `support_speaker`, Play target 255): an NVR has one; a camera when it has audio. */
export const hasLocalSpeaker = (p: Profile): boolean => p.name === 'nvr' || p.channels.some((c) => c.audio);

const isInt = (x: unknown, min: number, max: number): x is number => Number.isInteger(x) && (x as number) >= min && (x as number) <= max;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export class VoicePrompts {
  readonly files: PromptFile[] = [];
  readonly playLog: PlayEntry[] = [];
  /** Packets accepted (tests count them). */
  packets = 0;
  private pending?: Pending;
  /** Serial numbers continue from the vendor's samples (45 removed, 46 transformed, the next upload 47). */
  private nextIndex = 45;
  /** The files of the cameras behind an NVR (vendor IPCVoicePrompts sample) and each camera's chosen file. */
  readonly cameraFiles: readonly string[] = ['5_13227.mp3', '6_9528.mp3', '7_AlienBoi.mp3'];
  private readonly audioIndex = new Map<string, number>();

  constructor(private readonly device: Device) {
    // A fresh device holds two prompts (so a client has something to list and play).
    this.store('doorbell.mp3', Buffer.from('ID3 stand-in doorbell'), { kind: 'file' });
    this.store('warning.mp3', Buffer.from('ID3 stand-in warning'), { kind: 'file' });
    for (const c of this.ipcs()) this.audioIndex.set(c.id, 5);
  }

  /** The upload in progress: its name and the packets received so far. */
  get upload(): { name: string; received: number; count: number } | undefined {
    const p = this.pending;
    return p && { name: p.name, received: p.next, count: p.count };
  }

  routes(host: () => string): Array<[string, Route]> {
    const r = (handler: Route['handler']): Route => ({ auth: 'session', handler });
    const out: Array<[string, Route]> = [
      ['/API/AlarmConfig/VoicePrompts/Range', r(({ data }) => this.range(data))],
      ['/API/AlarmConfig/VoicePrompts/Get', r(({ data }) => this.get(data, host()))],
      ['/API/AlarmConfig/VoicePrompts/Set', r(({ data }) => this.set(data, host()))],
    ];
    if (this.device.profile.name === 'nvr') {
      // The Get and Set pages carry the same commands (vendor tables); both are served alike.
      out.push(
        ['/API/Extended/IPCVoicePrompts/Get', r(({ data }) => this.ipc(data))],
        ['/API/Extended/IPCVoicePrompts/Set', r(({ data }) => this.ipc(data))],
      );
    }
    return out;
  }

  /** Channels whose camera can sound a prompt: online, with audio (ChannelInfo `TalkHalf`). */
  speakers(): ChannelSpec[] {
    return this.device.profile.channels.filter((c) => c.configured && c.audio && this.device.isOnline(c.id));
  }

  private list(): string[] {
    return this.files.map((f) => `${f.index}_${f.name}`);
  }

  private store(name: string, data: Buffer, source: PromptFile['source']): void {
    this.files.push({ index: this.nextIndex++, name, data, source });
  }

  private range(data: Obj): Reply {
    const bad = this.controlProblem(data);
    if (bad) return paramError(bad);
    // The vendor's Range sample, member for member.
    return success({
      language: { type: 'string', items: PROMPT_LANGUAGES, hide_items: HIDDEN_LANGUAGES },
      command: { type: 'string', items: COMMANDS },
      control_type: { type: 'string', items: CONTROL_TYPES },
      file_name: { type: 'string', min_len: 1, max_len: 64 },
      text: { type: 'string', min_len: 1, max_len: TEXT_MAX },
      index: { type: 'int32', min: 0, max: 65535 },
      convert_mode: { type: 'string', items: ['File', 'NetworkText'] },
      packet_index: { type: 'int32', min: 0, max: 65535 },
      file_count: { type: 'int32', min: 1, max: 65535 },
      package_size: { type: 'int32', min: 1, max: PACKAGE_SIZE_MAX },
      download_mode: { type: 'string', items: ['g711a', 'wav', 'mp3'] },
      url: { type: 'string', min_len: 1, max_len: 128 },
      license_plate: { type: 'string', min_len: 1, max_len: 15 },
      tips_support_import: { type: 'bool' },
      tips_max_length: { type: 'string', min_len: 0, max_len: 16 },
      volume: { type: 'int32', min: 0, max: 100 },
      file_data: { type: 'string', min_len: 1, max_len: FILE_MAX.Normal },
      audio_list: { type: 'array', min_size: 0, max_size: LIST_MAX, items: [] },
    });
  }

  /** control_type (absent: Normal) and, for AiPlate, the plate. */
  private controlProblem(data: Obj): string | undefined {
    const ct = data.control_type ?? 'Normal';
    if (typeof ct !== 'string' || !CONTROL_TYPES.includes(ct)) return `control_type: must be one of ${CONTROL_TYPES.join(', ')}`;
    if (ct === 'AiPlate' && !(typeof data.license_plate === 'string' && data.license_plate.length >= 1 && data.license_plate.length <= 15))
      return 'license_plate: required with control_type AiPlate (1-15 characters)';
    return undefined;
  }

  private info(host: string): Obj {
    return {
      language: 'ENGLISH',
      ipc_channel_info: this.device.profile.name === 'nvr' ? this.speakers().map((c) => c.id) : [],
      url: `http://${host}/VoicePromptsTransform/api/`,
    };
  }

  private get(data: Obj, host: string): Reply {
    const bad = this.controlProblem(data);
    if (bad) return paramError(bad);
    // The Get sample sends `command: "GetAudioFilesList "` (with its trailing space): a command is accepted and
    // changes nothing.
    if (data.command !== undefined && typeof data.command !== 'string') return paramError('command: must be a string');
    if (data.download_mode !== undefined && !DOWNLOAD_MODES.includes(data.download_mode as string))
      return paramError(`download_mode: must be one of ${DOWNLOAD_MODES.join(', ')}`);
    return success({ audio_list: this.list(), info: this.info(host) });
  }

  private set(data: Obj, host: string): Reply {
    const extra = Object.keys(data).filter((k) => !SET_MEMBERS.has(k));
    if (extra.length) return paramError(`${extra.join(', ')}: unsupported field`);
    const bad = this.controlProblem(data);
    if (bad) return paramError(bad);
    if (typeof data.command !== 'string' || !COMMANDS.includes(data.command))
      return paramError(`command: must be one of ${COMMANDS.join(', ')}`);
    if (data.download_mode !== undefined && !DOWNLOAD_MODES.includes(data.download_mode as string))
      return paramError(`download_mode: must be one of ${DOWNLOAD_MODES.join(', ')}`);
    switch (data.command) {
      case 'Upload':
        return data.convert_mode === 'File' ? this.packet(data) : this.convert(data);
      case 'Remove':
        return this.remove(data);
      case 'Transform':
        return this.file(data) ? success({}) : this.unknownIndex(data);
      case 'Exit':
        return success({});
      default:
        return this.play(data, host);
    }
  }

  private file(data: Obj): PromptFile | undefined {
    return this.files.find((f) => f.index === data.index);
  }

  private unknownIndex(data: Obj): Reply {
    return paramError(`index: no file ${JSON.stringify(data.index)} in audio_list (${this.list().join(', ') || 'empty'})`);
  }

  /** One packet of a file: in order, each the size it says, the whole within the control type's limit. */
  private packet(data: Obj): Reply {
    const control = (data.control_type as string | undefined) ?? 'Normal';
    const { file_name: name, file_count: count, packet_index: at, package_size: size, file_data: b64 } = data;
    const problems: string[] = [];
    if (typeof name !== 'string' || name.length < 1 || name.length > 64) problems.push('file_name: required, 1-64 characters');
    if (!isInt(count, 1, 65535)) problems.push('file_count: required, an integer 1-65535');
    if (!isInt(at, 0, 65535)) problems.push('packet_index: required, an integer 0-65535');
    if (!isInt(size, 1, PACKAGE_SIZE_MAX)) problems.push(`package_size: required, an integer 1-${PACKAGE_SIZE_MAX}`);
    if (typeof b64 !== 'string' || b64.length === 0 || b64.length % 4 !== 0 || !BASE64.test(b64))
      problems.push('file_data: required, base64 of the packet');
    if (problems.length) return paramError(problems.join('; '));
    const bytes = Buffer.from(b64 as string, 'base64');
    if (bytes.length !== size) return this.abort(`package_size: ${size as number} but file_data holds ${bytes.length} bytes`);
    if ((at as number) >= (count as number)) return this.abort(`packet_index: ${at as number} beyond file_count ${count as number}`);
    if (at === 0) {
      if (this.files.length >= LIST_MAX) return paramError(`audio_list: full (${LIST_MAX} files); remove one first`);
      // A new upload replaces one that never finished.
      this.pending = { control, name: name as string, count: count as number, next: 0, chunks: [], size: 0 };
    }
    const p = this.pending;
    if (!p) return paramError(`packet_index: ${at as number} without an upload begun at packet 0`);
    if (at !== p.next) return this.abort(`packet_index: ${at as number} out of order (expected ${p.next})`);
    if (name !== p.name || count !== p.count || control !== p.control)
      return this.abort('file_name, file_count, control_type: must stay the same for every packet of a file');
    if (p.size + bytes.length > FILE_MAX[control])
      return this.abort(`file_data: the file exceeds ${FILE_MAX[control]} bytes (control_type ${control})`);
    p.chunks.push(bytes);
    p.size += bytes.length;
    p.next++;
    this.packets++;
    if (p.next < p.count) return success({ audio_list: this.list() });
    this.pending = undefined;
    this.store(p.name, Buffer.concat(p.chunks), { kind: 'file' });
    return success({ audio_list: this.list() });
  }

  /** A refused packet ends the upload: what came before it is dropped. */
  private abort(reason: string): Reply {
    this.pending = undefined;
    return paramError(reason);
  }

  /** Text to speech: the converter's file is a stand-in holding the text, named `file_name` or after the text. */
  private convert(data: Obj): Reply {
    const { convert_mode: mode, text: words, language, file_name: name } = data;
    const problems: string[] = [];
    if (typeof mode !== 'string' || !CONVERT_MODES.includes(mode))
      problems.push(`convert_mode: must be one of ${CONVERT_MODES.join(', ')}`);
    if (typeof words !== 'string' || words.length < 1 || words.length > TEXT_MAX) problems.push(`text: required, 1-${TEXT_MAX} characters`);
    if (typeof language !== 'string' || !PROMPT_LANGUAGES.includes(language))
      problems.push(`language: must be one of the Range's languages (${JSON.stringify(language)})`);
    if (name !== undefined && (typeof name !== 'string' || name.length < 1 || name.length > 64))
      problems.push('file_name: 1-64 characters');
    if (problems.length) return paramError(problems.join('; '));
    if (this.files.length >= LIST_MAX) return paramError(`audio_list: full (${LIST_MAX} files); remove one first`);
    const fileName = (name as string | undefined) ?? (words as string).replace(/[^\p{L}\p{N}]+/gu, '_').slice(0, 64);
    this.store(fileName, Buffer.from(`TTS ${language as string}: ${words as string}`), {
      kind: 'text',
      text: words as string,
      language: language as string,
    });
    return success({ audio_list: this.list() });
  }

  private remove(data: Obj): Reply {
    const f = this.file(data);
    if (!f) return this.unknownIndex(data);
    this.files.splice(this.files.indexOf(f), 1);
    return success({ audio_list: this.list() });
  }

  /** Play now: `ipc_channel_info` names speakers, 255 the recorder's own, others a camera by 0-based channel. */
  private play(data: Obj, host: string): Reply {
    const f = this.file(data);
    if (!f) return this.unknownIndex(data);
    const wanted = data.ipc_channel_info ?? [LOCAL];
    if (!Array.isArray(wanted) || wanted.length === 0 || !wanted.every((n) => isInt(n, 0, 255)))
      return paramError('ipc_channel_info: an array of channel numbers (0-based; 255 the recorder itself)');
    const targets: string[] = [];
    for (const n of wanted) {
      if (n === LOCAL) {
        if (!hasLocalSpeaker(this.device.profile)) return failure(400, 'no_support', 'The device has no speaker');
        targets.push('local');
        continue;
      }
      const ch = this.device.profile.channels.find((c) => c.index - 1 === n);
      const able = ch && this.speakers().includes(ch);
      if (!ch || !able)
        return failure(
          400,
          'no_support',
          `ipc_channel_info: ${n} is not among the channels able to play (${JSON.stringify(this.info(host).ipc_channel_info)})`,
        );
      targets.push(ch.id);
    }
    this.playLog.push({ time: Date.now(), page: 'VoicePrompts', action: 'play', index: f.index, name: f.name, targets });
    return success({});
  }

  private ipcs(): ChannelSpec[] {
    return this.device.profile.channels.filter((c) => c.configured && c.kind === 'digital');
  }

  /** A camera named as the table does (`IP_CH1`) or as the sample does (`CH1`, taken as the first IP camera). */
  private camera(name: unknown): ChannelSpec | undefined {
    if (typeof name !== 'string') return undefined;
    const ipcs = this.ipcs();
    return ipcs.find((c) => c.id === name) ?? ipcs.find((c) => c.id === name.replace(/^CH(\d+)$/, 'IP_CH$1'));
  }

  private ipc(data: Obj): Reply {
    const cmd = data.command;
    if (cmd === 'GetAudioFilesList') return success({ audio_list: this.cameraFiles });
    if (cmd === 'GetAudioIndex') return success({ channel_info: this.audioIndexInfo(this.ipcs()) });
    if (cmd === 'ConfigureAudioIndex') return this.configure(data.channel_info);
    if (cmd !== 'PlayAudio' && cmd !== 'StopPlaying')
      return paramError('command: must be one of GetAudioFilesList, GetAudioIndex, ConfigureAudioIndex, PlayAudio, StopPlaying');
    const names = data.channel;
    if (!Array.isArray(names) || names.length === 0) return paramError('channel: an array of IP channel names');
    const chans: ChannelSpec[] = [];
    for (const n of names) {
      const c = this.camera(n);
      if (!c) return paramError(`channel: ${JSON.stringify(n)} is not an IP channel`);
      if (!this.device.isOnline(c.id) || !c.audio) return failure(400, 'no_support', `${c.id}: ${c.audio ? 'offline' : 'no speaker'}`);
      chans.push(c);
    }
    const play = cmd === 'PlayAudio';
    const index = (c: ChannelSpec) => this.audioIndex.get(c.id)!;
    const file = (i: number) => this.cameraFiles.find((f) => f.startsWith(`${i}_`));
    for (const c of chans)
      this.playLog.push({
        time: Date.now(),
        page: 'IPCVoicePrompts',
        action: play ? 'play' : 'stop',
        ...(play ? { index: index(c), name: file(index(c))?.replace(/^\d+_/, '') } : {}),
        targets: [c.id],
      });
    return success({});
  }

  private audioIndexInfo(chans: readonly ChannelSpec[]): Obj {
    return Object.fromEntries(
      chans.map((c) => [c.id, { status: this.device.isOnline(c.id) ? 'Online' : 'Offline', audio_index: this.audioIndex.get(c.id) }]),
    );
  }

  private configure(info: unknown): Reply {
    if (!isPlainObject(info) || Object.keys(info).length === 0) return paramError('channel_info: an object of IP channels');
    const changes: Array<[ChannelSpec, number]> = [];
    for (const [id, block] of Object.entries(info)) {
      const c = this.ipcs().find((x) => x.id === id);
      if (!c) return paramError(`channel_info: ${id} is not an IP channel`);
      const i = isPlainObject(block) ? block.audio_index : undefined;
      // The vendor's samples configure numbers its own list sample lacks (2, 3 beside 5-7): any number is taken.
      if (!isInt(i, 0, 65535)) return paramError(`channel_info.${id}.audio_index: an integer 0-65535`);
      changes.push([c, i]);
    }
    for (const [c, i] of changes) this.audioIndex.set(c.id, i);
    return success({ channel_info: this.audioIndexInfo(changes.map(([c]) => c)) });
  }
}
