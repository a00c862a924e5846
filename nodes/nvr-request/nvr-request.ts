import type { RED } from '../shared/red';
import { registerRequestNode, type RequestOperation } from '../shared/request-node';

/**
 * The three request node types, one per operation on a device page: one behaviour
 * (request-node.ts), one editor file (nvr-request.html: dialog and help text of each type).
 */
const REQUEST_NODES: ReadonlyArray<{ type: string; operation: RequestOperation }> = [
  { type: 'nvr-range', operation: 'Range' },
  { type: 'nvr-get', operation: 'Get' },
  { type: 'nvr-set', operation: 'Set' },
];

export = function (RED: RED) {
  for (const { type, operation } of REQUEST_NODES) registerRequestNode(RED, type, operation);
};
