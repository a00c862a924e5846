import type { Violation } from './errors';
import { isPlainObject } from './json';
import { refused } from './live';
import type { Invoker } from './operation';
import { manualAlarmGet, manualAlarmSet } from './pages/manual-alarm';

/** Alarm outputs switched by hand (`PreviewChannel/ManualAlarm`): `Local->1` (recorder), `IP_CH1->1` (camera). */

function booleans(data: Record<string, unknown>): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [k, v] of Object.entries(data)) if (typeof v === 'boolean') out[k] = v;
  return out;
}

export async function readManualAlarm(c: Invoker, fresh = false): Promise<Record<string, boolean>> {
  return booleans(await c.invoke(manualAlarmGet, {}, { fresh }));
}

/** Only outputs the device lists (R2), only the ones that change are sent; read back. */
export async function writeManualAlarm(c: Invoker, outputs: Record<string, boolean>): Promise<Record<string, boolean>> {
  const where = { page: manualAlarmSet.page, operation: 'Set' };
  if (!isPlainObject(outputs)) throw refused(where, [{ path: '', problem: 'type', message: 'the outputs must be an object' }]);
  const current = await readManualAlarm(c, true);
  const violations = Object.entries(outputs).flatMap(([name, on]): Violation[] => {
    if (!Object.hasOwn(current, name)) {
      return [
        {
          path: name,
          problem: 'unsupported',
          message: `is not an alarm output of the device (it has ${Object.keys(current).join(', ') || 'none'})`,
        },
      ];
    }
    return typeof on === 'boolean' ? [] : [{ path: name, problem: 'type', message: `must be a boolean (got ${JSON.stringify(on)})` }];
  });
  if (violations.length) throw refused(where, violations);
  const change = Object.fromEntries(Object.entries(outputs).filter(([name, on]) => current[name] !== on));
  if (Object.keys(change).length === 0) return current;
  await c.invoke(manualAlarmSet, change, { skipRangeCheck: true });
  return readManualAlarm(c, true);
}
