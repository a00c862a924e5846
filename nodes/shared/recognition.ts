import type { NvrClient } from '../../core/client';
import { RecognitionGroups, recognitionFields, recognitionGroup, type RecognitionIdentity } from '../../core/recognition';

/** One copy of a device's face and plate lists for all its nodes (read on the first recognition, core keeps it). */
const lists = new WeakMap<NvrClient, RecognitionGroups>();

/** What a recognition says (core's recognitionFields: event type, who or which plate, list, policy). */
export async function recognitionOf(client: NvrClient, identity: RecognitionIdentity): Promise<Record<string, unknown>> {
  let groups = lists.get(client);
  if (!groups) lists.set(client, (groups = new RecognitionGroups((path, data) => client.call(path, data))));
  // The lists unreadable: the recognition still goes on, without its list's name and policy.
  return recognitionFields(identity, await recognitionGroup(groups, identity));
}
