import type { RED } from './red';
import { registerRequestNode } from './request-node';

/** `nvr-get`: Get of one device page (see nvr-get.html for the help text). */
export = function (RED: RED) {
  registerRequestNode(RED, 'nvr-get', 'Get');
};
