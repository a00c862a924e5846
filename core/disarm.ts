import { DeviceError } from './errors';
import type { Invoker } from './operation';
import { disarmingGet } from './pages/disarming';
import { linkageManageGet } from './pages/linkage-manage';

/**
 * The recorder's one switch "disarmed": `AlarmConfig/Disarming` `disarming` where the device has that page,
 * `LinkageConfig/LinkageManage` `enable` otherwise (the design's quirk list). One rule, here.
 */

export type DisarmPage = 'AlarmConfig/Disarming' | 'LinkageConfig/LinkageManage';

export interface DisarmState {
  page: DisarmPage;
  /** Undefined when the page does not report it. */
  disarmed?: boolean;
}

/** The member of each page that says "disarmed now". */
export const DISARM_MEMBER: Readonly<Record<DisarmPage, string>> = {
  'AlarmConfig/Disarming': 'disarming',
  'LinkageConfig/LinkageManage': 'enable',
};

function state(page: DisarmPage, data: Record<string, unknown>): DisarmState {
  const v = data[DISARM_MEMBER[page]];
  return typeof v === 'boolean' ? { page, disarmed: v } : { page };
}

/** The Get answer of the page the device has (`known`: the page found before, skipping the probe). */
export async function readDisarmAnswer(c: Invoker, known?: DisarmPage): Promise<{ page: DisarmPage; data: Record<string, unknown> }> {
  if (known !== 'LinkageConfig/LinkageManage') {
    try {
      return { page: 'AlarmConfig/Disarming', data: await c.invoke(disarmingGet) };
    } catch (err) {
      if (known || !(err instanceof DeviceError && err.kind === 'unsupported')) throw err;
    }
  }
  return { page: 'LinkageConfig/LinkageManage', data: await c.invoke(linkageManageGet) };
}

/** Read the state from the page the device has (`known`: the page found before, skipping the probe). */
export async function readDisarm(c: Invoker, known?: DisarmPage): Promise<DisarmState> {
  const { page, data } = await readDisarmAnswer(c, known);
  return state(page, data);
}
