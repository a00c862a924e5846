import type { Priority } from './transport';
import * as v from 'valibot';

/** One device operation: `POST /API/<page>/<operation>` with its request and response schemas. */
export interface OperationDef<Req extends v.GenericSchema = v.GenericSchema, Res extends v.GenericSchema = v.GenericSchema> {
  /** Path between `/API/` and the operation, e.g. `AlarmConfig/Deterrence`. */
  page: string;
  /** `Range`, `Get`, `Set`, or a maintenance verb such as `Token`. */
  operation: string;
  /** Whole request path, e.g. `/API/AlarmConfig/Deterrence/Get`. */
  path: string;
  request: Req;
  response: Res;
  /** Cross counting Get answers `{version, data}` instead of `{result, data}`. */
  envelope?: 'result' | 'version';
  /** Request keys that are not parameters (page_type, chn_index...): exempt from Range checks. */
  metaKeys?: readonly string[];
  description: string;
}

export type RequestOf<O extends OperationDef> = v.InferInput<O['request']>;
export type ResponseOf<O extends OperationDef> = v.InferOutput<O['response']>;

export function defineOperation<Req extends v.GenericSchema, Res extends v.GenericSchema>(
  def: Omit<OperationDef<Req, Res>, 'path'>,
): OperationDef<Req, Res> {
  return { ...def, path: `/API/${def.page}/${def.operation}` };
}

/** Options every caller of an operation may pass (the client's InvokeOptions satisfy it). */
export interface CallOptions {
  skipRangeCheck?: boolean;
  timeoutMs?: number;
  /** Do not share an identical read already in flight (a read-back after a Set must see the Set). */
  fresh?: boolean;
  /** Queued 'command' calls leave before queued 'poll' calls (pictures and stream addresses go as 'poll'). */
  priority?: Priority;
}

/** What feature modules need of a client: one typed call. */
export interface Invoker {
  invoke<O extends OperationDef>(op: O, data?: RequestOf<O>, opts?: CallOptions): Promise<ResponseOf<O>>;
}
