import type { RED } from './red';
import { registerRequestNode } from './request-node';

/** `nvr-range`: Range of one device page (see nvr-range.html for the help text). */
export = function (RED: RED) {
  registerRequestNode(RED, 'nvr-range', 'Range');
};
