/**
 * The recorder's optional panel code (`alarm_code` in the config): Home Assistant's alarm panel asks for it and
 * sends it with the action (`{"action": "DISARM", "code": "..."}`, the panel's command template); the bridge checks
 * it before arming or disarming. The code itself is never published (discovery says only that one is asked for:
 * `REMOTE_CODE`), never logged and never repeated in a refusal.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isPlainObject } from '../../core/json';
import { Refusal } from '../device/refusal';
import type { Json } from '../device/state';

/** What the panel's discovery says when the device has a code: Home Assistant asks for one and sends it along. */
export function panelCodeOptions(code: string): Json {
  return {
    // A keypad for a code of digits, a text field otherwise.
    code: /^\d+$/.test(code) ? 'REMOTE_CODE' : 'REMOTE_CODE_TEXT',
    code_arm_required: true,
    code_disarm_required: true,
    command_template: "{{ {'action': action, 'code': code} | to_json }}",
  };
}

/** A panel command: a bare word (DISARM, ARM_AWAY, ON...) or `{"action": <word>, "code": <code>}`. */
export function panelCommand(key: string, raw: unknown): { action: unknown; code?: unknown } {
  if (!isPlainObject(raw)) return { action: raw };
  const extra = Object.keys(raw).filter((k) => k !== 'action' && k !== 'code');
  if (extra.length || raw.action === undefined)
    throw new Refusal(`${key}: expected a word such as DISARM or ARM_AWAY, or {"action": ..., "code": ...}`, { key });
  return { action: raw.action, code: raw.code };
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Refuses (without repeating what was given) unless `given` is the configured code; no code configured: any. */
export function checkCode(key: string, expected: string | undefined, given: unknown): void {
  if (expected === undefined) return;
  if (typeof given !== 'string' && typeof given !== 'number')
    throw new Refusal(`${key}: this recorder asks for its code (alarm_code) to arm or disarm; none was given`, { key });
  // Equal-length digests compared in constant time: the answer's timing says nothing about the code.
  if (!timingSafeEqual(digest(String(given)), digest(expected))) throw new Refusal(`${key}: wrong code`, { key });
}
