/**
 * Routing table: request path -> handler. Configuration pages come from the one page list (pages.ts); login,
 * heartbeat and event settings are written out, firmware.ts has the upgrade pages; device-routes.ts has the rest.
 */
import type { Auth } from './auth';
import type { Device } from './device';
import { DeviceServices, deviceRoutes } from './device-routes';
import type { SimIpcFirmware } from './ipc-firmware';
import { type SimFirmware, UPGRADE_HEAD_SIZE as HEAD, UPLOAD_PATH } from './firmware';
import type { Ctx, Route } from './route';
import { ALARM_PAGE_TYPES, type SimPage } from './page-def';
import { PAGES } from './pages';
import { Reply, digestChallenge, failure, paramError, raw, success } from './envelope';
import { MetaRules, checkSet } from './check';
import { isPlainObject } from './descriptors';
import { FACE_ABILITIES, eventSettingsRange } from './ranges';
import { applySet, getView } from './state';

interface Services extends DeviceServices {
  device: Device;
  auth: Auth;
  tokenInBody: boolean;
  /** `LinkageConfig/LinkageManage` served (not in the vendor's pages; some firmwares have it). */
  linkageManage: boolean;
  /** Local and online upgrade, the reboot window (firmware.ts). */
  firmware: SimFirmware;
  /** Firmware of the cameras behind an NVR (ipc-firmware.ts). */
  ipcFirmware: SimIpcFirmware;
}

export { UPGRADE_HEAD_SIZE, UPGRADE_TIMEOUT } from './firmware';

function rotated(s: Pick<Services, 'auth'>, ctx: Ctx) {
  const token = ctx.session ? s.auth.rotate(ctx.session) : undefined;
  return token ? { 'X-csrftoken': token } : undefined;
}

/** A Get request's `page_type` (the only meta a Get carries) against the page's allowed values. */
function metaProblem(meta: MetaRules, data: Record<string, unknown>): string | undefined {
  const allowed = meta.page_type;
  if ('page_type' in data && typeof allowed === 'object' && !allowed.includes(data.page_type as string)) {
    return `page_type: must be one of ${allowed.join(', ')}`;
  }
  return undefined;
}

/** page_type is accepted on every page (clients send it generically); pages that name theirs are strict. */
const DEFAULT_META: MetaRules = { page_type: ['ChannelConfig', 'AlarmConfig'] };

function configRoutes(s: Services, page_: SimPage): Array<[string, Route]> {
  const { device } = s;
  const def = { ...page_, meta: { ...DEFAULT_META, ...page_.meta } };
  const channels = new Set(device.profile.channels.map((c) => c.id));
  const { page } = def;
  const out: Array<[string, Route]> = [];
  for (const op of def.ops) {
    const path = `/API/${page}/${op}`;
    if (op === 'Range') {
      const route: Route = {
        auth: 'session',
        handler: ({ data }) => {
          if (def.rangeNeedsPageType && !ALARM_PAGE_TYPES.includes(data.page_type as string)) {
            return paramError(`page_type: required, one of ${ALARM_PAGE_TYPES.join(', ')}`);
          }
          return raw(device.range(page).body);
        },
      };
      out.push([path, route]);
      if (def.alias) out.push([`/API/${def.alias}/${op}`, route]);
    } else if (op === 'Get') {
      out.push([
        path,
        {
          auth: 'session',
          handler: ({ data }) => {
            const bad = metaProblem(def.meta, data);
            if (bad) return paramError(bad);
            const view = getView(page, device.state[page], device.profile, device.isOnline);
            return def.versionEnvelope ? { status: 200, body: `{"version":"1.0","data":${JSON.stringify(view)}}` } : success(view);
          },
        },
      ]);
    } else {
      out.push([
        path,
        {
          auth: 'session',
          handler: (ctx) => {
            let data = ctx.data;
            const beside = ctx.body.channel_info;
            if (def.channelInfoBesideVersion && isPlainObject(beside)) {
              const inside = isPlainObject(data.channel_info) ? data.channel_info : {};
              data = { ...data, channel_info: { ...beside, ...inside } };
            }
            if (def.normalizeSet) data = def.normalizeSet(data);
            const current = getView(page, device.state[page], device.profile, device.isOnline);
            const problems = checkSet(data, device.range(page).data, {
              topMeta: def.meta,
              channelMeta: def.channelMeta,
              flatGroups: def.flatGroups,
              channels,
              current,
            });
            if (problems.length) return paramError(problems.join('; '));
            applySet(page, device.state[page], data, Object.keys(def.meta));
            return success({}, rotated(s, ctx));
          },
        },
      ]);
    }
  }
  return out;
}

function login(s: Pick<Services, 'auth' | 'tokenInBody'>, ctx: Ctx): Reply {
  const r = s.auth.login(ctx.req);
  if (r.kind === 'challenge') return digestChallenge(r.headers);
  if (r.kind === 'failed') return failure(401, r.code, r.reason, undefined, r.data);
  const token = r.session.tokens[0];
  const headers = { 'Set-Cookie': s.auth.setCookie(r.session), ...(s.tokenInBody ? {} : { 'X-csrftoken': token }) };
  return success(s.tokenInBody ? { token } : {}, headers);
}

/** Event settings Range (spec 2.10): request `channel`, `abilities` (or `ability`), `oper_type`. */
function eventSettings(s: Services, data: Record<string, unknown>): Reply {
  const { device } = s;
  const intelligent = device.profile.channels.filter((c) => c.intelligent);
  let channels = intelligent;
  if (data.channel !== undefined) {
    const ch = typeof data.channel === 'string' ? device.channel(data.channel) : undefined;
    if (!ch) return paramError(`channel: unknown channel ${JSON.stringify(data.channel)}`);
    if (!ch.intelligent) return failure(400, 'no_support', `channel: ${ch.id} is not an intelligent channel`);
    channels = [ch];
  }
  let abilities: unknown[] = [];
  if (data.abilities !== undefined) {
    if (!Array.isArray(data.abilities)) return paramError('abilities: must be an array');
    abilities = data.abilities;
  }
  if (data.ability !== undefined) abilities = [...abilities, data.ability];
  const unknown = abilities.find((a) => typeof a !== 'string' || !FACE_ABILITIES.includes(a));
  if (unknown !== undefined) return paramError(`abilities: ${JSON.stringify(unknown)} is not one of ${FACE_ABILITIES.join(', ')}`);
  if (data.oper_type !== undefined && data.oper_type !== 'get_default_data') return paramError('oper_type: must be get_default_data');
  const face = abilities.length === 0 || abilities.includes('FaceDetection');
  return success(eventSettingsRange(device.profile, channels, face, device.isOnline));
}

/** Login, logout and heartbeat: the session's own routes (also what a replay of a capture serves, replay.ts). */
export function sessionRoutes(s: Pick<Services, 'auth' | 'tokenInBody'>): Array<[string, Route]> {
  return [
    ['/API/Web/Login', { auth: 'none', handler: (ctx) => login(s, ctx) }],
    [
      '/API/Web/Logout',
      {
        auth: 'none',
        handler: ({ req }) => {
          const session = s.auth.sessionOf(req);
          if (session) s.auth.logout(session);
          return success();
        },
      },
    ],
    [
      '/API/Login/Heartbeat',
      {
        auth: 'heartbeat',
        handler: (ctx) => {
          if (ctx.data.keep_alive !== undefined && typeof ctx.data.keep_alive !== 'boolean')
            return paramError('keep_alive: must be a bool');
          return success({}, rotated(s, ctx));
        },
      },
    ],
  ];
}

export function buildRoutes(s: Services): Map<string, Route> {
  const routes = new Map<string, Route>();
  for (const def of PAGES) {
    if (def.optional && !s[def.optional]) continue;
    for (const [path, r] of configRoutes(s, def)) routes.set(path, r);
  }
  for (const [path, r] of deviceRoutes(s)) routes.set(path, r);
  for (const [path, r] of sessionRoutes(s)) routes.set(path, r);
  for (const [path, r] of s.firmware.routes()) routes.set(path, r);
  for (const [path, r] of s.ipcFirmware.routes()) routes.set(path, r);
  routes.set(UPLOAD_PATH, {
    auth: 'session',
    handler: () => paramError('upload route'),
    upload: { headBytes: HEAD, handle: (req, session, size, head) => s.firmware.upload(session, req, size, head) },
  });
  routes.set('/API/Event/SettingConfig/Range', { auth: 'session', handler: ({ data }) => eventSettings(s, data) });
  return routes;
}
