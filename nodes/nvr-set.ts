import type { RED } from './red';
import { registerRequestNode } from './request-node';

/** `nvr-set`: Set of one device page (see nvr-set.html for the help text). */
export = function (RED: RED) {
  registerRequestNode(RED, 'nvr-set', 'Set');
};
