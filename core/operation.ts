import * as v from 'valibot';

/** One device operation: `POST /API/<page>/<operation>` with its request and response schemas. */
export interface OperationDef<
  Req extends v.GenericSchema = v.GenericSchema,
  Res extends v.GenericSchema = v.GenericSchema,
> {
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
