import { ALARM_TYPES, alarmTypesOf, recorderAlarmInputs } from '../../core/alarm-types';
import { NvrClient } from '../../core/client';
import { captureDevice, captureText } from '../../core/capture';
import { deviceUrl } from '../../core/transport';
import { DeviceError } from '../../core/errors';
import { rebootableChannels } from '../../core/reboot';
import { PAGE_NAME_PATTERN, pages, parsePageName } from '../../core/pages';
import type { DeviceNode } from './bind-device';
import { ALARM_TYPE_KEYS } from './alarm-event';
import { channelsFor, checkChannel, CONTROL_MODES, isControlMode, RESTART_PAYLOAD } from './control-modes';
import { clientOptions, type DeviceCredentials, type DeviceProps } from './device-config';
import { CLOSE_TIMEOUT_MS, settleWithin } from './device-session';
import { statusWords } from './channel-state';
import { asDeviceError } from './errors';
import { recordLogins, triesLeftText } from './login-failures';
import { LIVE_PARTS } from './live-parts';
import { pageForm } from './page-form';
import { normaliseChannel } from './request-node';
import type { AdminHandler, AdminResponse, RED } from './red';
import { nodeQuoter } from './secrets';

/** What the editor puts in a password field whose value is stored on the server. */
const PASSWORD_PLACEHOLDER = '__PWRD__';

/** Admin requests give up sooner than flows: a user is waiting in front of a dialog. */
const ADMIN_TIMEOUT_MS = 8000;

/** Body of the POST routes: the config dialog's current values (the node may not be deployed yet). */
interface DialogValues extends DeviceProps {
  id?: unknown;
  /** The form route: which page and channel. */
  page?: unknown;
  channel?: unknown;
  /** The hardware route: nvr-control's mode. */
  mode?: unknown;
  username?: unknown;
  password?: unknown;
}

export interface PageListEntry {
  name: string;
  title: string;
  operations: string[];
}

function pageList(): PageListEntry[] {
  return pages.map((p) => ({ name: p.name, title: p.title, operations: Object.keys(p.operations) }));
}

const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);

/**
 * Credentials for a dialog request: typed values win; an absent password or the placeholder means
 * "the one stored for this config node" (read on the server, never sent to the editor).
 */
function resolveCredentials(RED: RED, body: DialogValues): DeviceCredentials {
  const id = str(body.id);
  const stored = (id && RED.nodes.getCredentials(id)) || {};
  const username = str(body.username) || stored.username;
  const password = body.password === undefined || body.password === PASSWORD_PLACEHOLDER ? stored.password : str(body.password);
  return { username, password };
}

/**
 * Runs `fn` with a client for the dialog's values: the deployed config node's open session when the
 * dialog shows exactly its settings (no second login, which some devices answer by dropping the
 * first session), otherwise a short-lived client that is logged out afterwards.
 */
async function withClient<T>(RED: RED, body: DialogValues, fn: (client: NvrClient) => Promise<T>): Promise<T> {
  const id = str(body.id);
  const creds = resolveCredentials(RED, body);
  const props: DeviceProps = { url: body.url, tls_ca: body.tls_ca, tls_fingerprint: body.tls_fingerprint };
  const options = { ...clientOptions(props, creds), heartbeatMs: 0, timeoutMs: ADMIN_TIMEOUT_MS };
  deviceUrl(options.url); // the client's own rule: refused (bad_url) before anything else is looked at
  if (creds.password === undefined) {
    throw new DeviceError({
      kind: 'invalid_request',
      error_code: 'no_password',
      reason: 'no password typed and none stored for this device',
    });
  }
  const deployed = id ? (RED.nodes.getNode(id) as DeviceNode | null) : null;
  const open = deployed?.session?.current;
  try {
    // The deployed session counts its logins itself (nvr-device.ts); a short-lived client is counted here.
    if (open && deployed.session.matches(options)) return await fn(open);
    const client = new NvrClient({ ...options, onLogin: recordLogins(options) });
    client.on('error', () => undefined);
    try {
      return await fn(client);
    } finally {
      await settleWithin(client.close(), CLOSE_TIMEOUT_MS);
    }
  } catch (e) {
    throw withTriesLeft(asDeviceError(e), options);
  }
}

/**
 * The Diagnostics button: the device captured as `nvr2mqtt capture` captures it (core/capture.ts: every reading page,
 * nothing written, redacted), on a session of its own (a capture records what its own client reads), logged out after.
 */
async function diagnostics(RED: RED, body: DialogValues): Promise<unknown> {
  const creds = resolveCredentials(RED, body);
  const props: DeviceProps = { url: body.url, tls_ca: body.tls_ca, tls_fingerprint: body.tls_fingerprint };
  const options = { ...clientOptions(props, creds), timeoutMs: ADMIN_TIMEOUT_MS };
  deviceUrl(options.url);
  if (creds.password === undefined) {
    throw new DeviceError({
      kind: 'invalid_request',
      error_code: 'no_password',
      reason: 'no password typed and none stored for this device',
    });
  }
  try {
    const { file, redactor } = await captureDevice({
      client: { ...options, onLogin: recordLogins(options) },
      product: 'nvr2mqtt (Node-RED)',
      events: 0,
      say: () => undefined,
    });
    return { ok: true, capture: file, ...captureText(file, redactor).summary };
  } catch (e) {
    throw withTriesLeft(asDeviceError(e), options);
  }
}

/** A refused login, with how many tries are left before the device blocks logins (each press counts). */
function withTriesLeft(err: DeviceError, c: { url: string; username: string }): DeviceError {
  const left = triesLeftText(c, err);
  return left ? new DeviceError({ ...err.toJSON(), reason: `${err.reason}; ${left}` }) : err;
}

function deviceRoute(RED: RED, fn: (client: NvrClient, body: DialogValues) => Promise<unknown>): AdminHandler {
  return (req, res) => {
    const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as DialogValues;
    withClient(RED, body, (client) => fn(client, body))
      .then(
        (result) => res.json(result),
        (e: unknown) => sendError(res, asDeviceError(e)),
      )
      .catch(() => undefined);
  };
}

/** nvr-control's modes (target kind, settings shown), the page-name syntax, and nvr-event's alarm types and live parts, for the editor. */
function editorRules() {
  const modes = Object.fromEntries(
    Object.entries(CONTROL_MODES).map(([mode, row]) => [
      mode,
      {
        target: row.target.kind,
        settings: row.settings,
        ...(row.target.kind === 'channel' ? { label: row.target.label } : {}),
        ...(row.target.kind === 'device' && row.target.channel ? { channel: row.target.channel } : {}),
        ...(mode === 'restart' ? { payload: RESTART_PAYLOAD.words } : {}),
      },
    ]),
  );
  return { modes, pageName: PAGE_NAME_PATTERN, alarmTypes: ALARM_TYPE_KEYS, liveParts: LIVE_PARTS.map((p) => p.part) };
}

function sendError(res: AdminResponse, err: DeviceError) {
  const status = err.kind === 'invalid_request' ? 400 : 502;
  // error_code and reason only: never the request, so never a credential.
  res.status(status).json({ ok: false, error: { kind: err.kind, error_code: err.error_code, reason: nodeQuoter.redact(err.reason) } });
}

/** Registered once when the module loads (not per node), so they exist before anything is deployed. */
export function registerAdminRoutes(RED: RED): void {
  const read = RED.auth.needsPermission('nvr-device.read');
  const write = RED.auth.needsPermission('nvr-device.write');

  RED.httpAdmin.get('/nvr-device/pages', read, (_req, res) => res.json(pageList()));

  // The rules the dialogs check as the user types, as the runtime has them (never restated in the editor).
  RED.httpAdmin.get('/nvr-device/rules', read, (_req, res) => res.json(editorRules()));

  // POST: the body carries the dialog's credentials, which do not belong in a URL.
  RED.httpAdmin.post(
    '/nvr-device/channels',
    write,
    // With the status (Online, Offline, Sleep, NotConfigured...): the editor tells an empty slot from an offline camera.
    deviceRoute(RED, async (client) => ({
      ok: true,
      channels: (await client.channelSlots()).map((m) => ({
        channel: m.id,
        online: m.online,
        status: m.status,
        state: statusWords(m),
        name: m.name,
      })),
    })),
  );

  // The typed form of nvr-range / nvr-get / nvr-set: the page's fields, bounds and current values.
  RED.httpAdmin.post(
    '/nvr-device/form',
    write,
    deviceRoute(RED, async (client, body) => {
      const page = parsePageName(body.page, 'Range');
      const channel = normaliseChannel(body.channel);
      if (!page) throw new DeviceError({ kind: 'invalid_request', error_code: 'bad_page', reason: 'choose a page' });
      if (channel === null) throw new DeviceError({ kind: 'invalid_request', error_code: 'bad_channel', reason: 'not a channel id' });
      return { ok: true, ...(await pageForm(client, page, channel)) };
    }),
  );

  // nvr-control's dialog: the channels whose hardware has the mode's part, or the alarm outputs.
  RED.httpAdmin.post(
    '/nvr-device/hardware',
    write,
    deviceRoute(RED, async (client, body) => {
      if (!isControlMode(body.mode)) throw new DeviceError({ kind: 'invalid_request', error_code: 'bad_mode', reason: 'choose a mode' });
      const kind = CONTROL_MODES[body.mode].target.kind;
      // Restart mode: the cameras the NVR can restart (its IPCReboot Range), besides the recorder itself.
      const restartable = body.mode === 'restart' ? new Set(await rebootableChannels(client)) : undefined;
      const channels =
        kind === 'channel'
          ? channelsFor(body.mode, await client.channelSlots())
          : restartable?.size
            ? (await client.channelSlots()).filter((c) => restartable.has(c.id))
            : [];
      const outputs = kind === 'output' ? Object.keys(await client.manualAlarm()) : [];
      return { ok: true, channels: channels.map((c) => ({ id: c.id, name: c.name, online: c.online, state: statusWords(c) })), outputs };
    }),
  );

  // nvr-control's PTZ mode: what the chosen channel offers (stored presets, moves), to pick the node's command from.
  RED.httpAdmin.post(
    '/nvr-device/ptz',
    write,
    deviceRoute(RED, async (client, body) => {
      const channel = normaliseChannel(body.channel);
      if (!channel) throw new DeviceError({ kind: 'invalid_request', error_code: 'bad_channel', reason: 'choose a PTZ channel' });
      const slots = await client.channelSlots();
      const refused = checkChannel('ptz', channel, slots);
      if (refused) throw refused;
      const info = await client.ptzInfo(channel, slots.length);
      return { ok: true, channel, presets: info.presets, moves: info.moves };
    }),
  );

  // nvr-event's dialog: the configured channels and the alarm types each can raise (core's alarmTypesOf, as the
  // bridge announces them); nvr-snapshot's: the channels.
  RED.httpAdmin.post(
    '/nvr-device/alarms',
    write,
    deviceRoute(RED, async (client) => {
      const [slots, info] = await Promise.all([client.channelSlots(), client.deviceInfo().catch(() => undefined)]);
      const inputs = recorderAlarmInputs(info);
      const channels = slots
        .filter((c) => c.configured)
        .map((c) => ({ id: c.id, name: c.name, online: c.online, state: statusWords(c), types: alarmTypesOf(c, inputs) }));
      const offered = new Set(channels.flatMap((c) => c.types));
      const types = Object.entries(ALARM_TYPES)
        .filter(([key]) => offered.has(key as never))
        .map(([key, t]) => ({ key, label: t.label }));
      return { ok: true, channels, types };
    }),
  );

  // The Diagnostics button: the device's capture, for the owner to save and attach to an issue.
  RED.httpAdmin.post('/nvr-device/diagnostics', write, (req, res) => {
    const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as DialogValues;
    diagnostics(RED, body)
      .then(
        (result) => res.json(result),
        (e: unknown) => sendError(res, asDeviceError(e)),
      )
      .catch(() => undefined);
  });

  RED.httpAdmin.post(
    '/nvr-device/test',
    write,
    deviceRoute(RED, async (client) => {
      await client.login();
      const info = (await client.systemInfo()) as Record<string, unknown>;
      return {
        ok: true,
        device_type: info.device_type,
        software_version: info.software_version,
        channel_max: info.channel_max,
      };
    }),
  );
}
