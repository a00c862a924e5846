import { basename } from 'node:path';
import type { UpgradeInput } from '../../core/upgrade';
import { bindDevice } from '../shared/bind-device';
import { forDone, invalidRequest } from '../shared/errors';
import type { InputHandler, NodeDef, NodeMessage, RED, RedNode } from '../shared/red';
import { upgradeStatus } from '../shared/status';

const PAGE = 'Maintenance/SystemUpgrade';
const OPERATION = 'Token';
const where = { page: PAGE, operation: OPERATION };

/** Firmware from the message (Buffer, or path string) or else the node's `file` property. */
function firmwareInput(msg: NodeMessage, fileProperty: unknown): UpgradeInput {
  const named = typeof msg.file_name === 'string' ? msg.file_name : undefined;
  // A file-in node sets msg.filename to the path it read: its base name is the firmware's name.
  const fromFilename = typeof msg.filename === 'string' && msg.filename ? basename(msg.filename) : undefined;
  if (msg.payload instanceof Uint8Array) return { file: msg.payload, file_name: named ?? fromFilename };
  if (typeof msg.payload === 'string' && msg.payload.trim()) return { file: msg.payload.trim(), file_name: named };
  if (typeof fileProperty === 'string' && fileProperty.trim()) return { file: fileProperty.trim(), file_name: named };
  throw invalidRequest('invalid_firmware', 'no firmware: send a Buffer or a file path in msg.payload, or set the file property', where);
}

/**
 * `msg.auth` -> base_secondary_authentication `{seq, cipher}`: optional (flows of earlier versions set it); without it
 * core builds it from the device's password, as for the bridge's upgrades and restarts.
 */
function secondaryAuth(auth: unknown): { seq: number; cipher: string } | undefined {
  if (auth === undefined || auth === null) return undefined;
  const a = auth as { seq?: unknown; cipher?: unknown };
  if (typeof a !== 'object' || !Number.isInteger(a.seq) || typeof a.cipher !== 'string') {
    throw invalidRequest('bad_auth', 'msg.auth must be {seq: <integer>, cipher: <string>}', where);
  }
  return { seq: a.seq as number, cipher: a.cipher };
}

/**
 * `nvr-upgrade`: mode `upgrade` (the default of new nodes) does the whole local upgrade from a path or a Buffer:
 * limits checked (nothing sent otherwise), the secondary authentication built from the device's password, token,
 * upload of the file with `X-Upgrade-Token`; each step is shown on the node's status and listed in `msg.steps`; the
 * device's answer is the only signal. Mode `token` (nodes saved before the mode existed) only checks the file and
 * requests the token.
 */
export = function (RED: RED) {
  function NvrUpgradeNode(this: RedNode, def: NodeDef) {
    RED.nodes.createNode(this, def);
    const node = this;
    let closed = false;
    const binding = bindDevice(RED, node, def.device, () => {
      closed = true;
    });
    const largeCapacity = def.large_capacity === true || def.large_capacity === 'true';

    const wholeUpgrade = def.mode === 'upgrade';

    const upgrade = async (msg: NodeMessage) => {
      const input = firmwareInput(msg, def.file);
      const auth = secondaryAuth(msg.auth);
      const steps: Array<Record<string, unknown>> = [];
      const STATUS = { checked: 'checked', token: 'uploading', uploading: 'uploading', done: 'installed' } as const;
      const done = await binding!.client.upgradeFirmware({
        ...input,
        ...(auth ? { auth } : {}),
        largeCapacity,
        onStep: (step, detail) => {
          steps.push({ step, at: new Date().toISOString(), ...detail });
          if (!closed) node.status(upgradeStatus(STATUS[step]));
        },
      });
      msg.steps = steps;
      return { ...done, accepted: true };
    };

    const handle = async (msg: NodeMessage) => {
      if (!binding) throw invalidRequest('no_device', 'no nvr-device configured', where);
      node.status(upgradeStatus('reading'));
      if (wholeUpgrade) return upgrade(msg);
      const input = firmwareInput(msg, def.file);
      const auth = secondaryAuth(msg.auth);
      node.status(upgradeStatus('requesting'));
      const answer = await binding.client.upgradeToken({ ...input, ...(auth ? { auth } : {}), largeCapacity });
      return { upgrade_token: answer.upgrade_token, upgrade_timeout: answer.upgrade_timeout };
    };

    const onInput: InputHandler = (msg, send, done) => {
      if (binding) binding.muted = true;
      handle(msg)
        .finally(() => {
          if (binding) binding.muted = false;
        })
        .then(
          (payload) => {
            if (closed) return done();
            node.status(upgradeStatus(wholeUpgrade ? 'installed' : 'done'));
            msg.payload = payload;
            msg.page = PAGE;
            msg.operation = wholeUpgrade ? 'Upgrade' : OPERATION;
            send(msg);
            done();
          },
          (e: unknown) => {
            if (closed) return done();
            const err = forDone(e, where);
            node.status(upgradeStatus('failed', err));
            done(err);
          },
        )
        .catch(() => undefined);
    };
    node.on('input', onInput);
  }

  RED.nodes.registerType('nvr-upgrade', NvrUpgradeNode);
};
