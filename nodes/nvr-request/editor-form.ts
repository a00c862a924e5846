/*
 * The typed form of the request dialog: a page's fields for a channel, from the device's Range (POST
 * nvr-device/form), as controls, and a Set's data checked against them before deploy.
 */
namespace NVR2MQTT.form {
  /** One field of a page as the admin route describes it (nodes/shared/page-form.ts). */
  export interface Field {
    key: string;
    type?: 'bool' | 'int32' | 'string';
    options?: Array<string | number>;
    min?: number;
    max?: number;
    minLength?: number;
    maxLength?: number;
    unit?: string;
    readOnly?: boolean;
    description?: string;
    value?: unknown;
  }
  export interface Form {
    fields: Field[];
    valuesError?: string;
  }

  /** Edit distance, for "did you mean" on a field the Range lacks. */
  function distance(a: string, b: string): number {
    let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const cur = [i];
      for (let j = 1; j <= b.length; j++) {
        cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      }
      prev = cur;
    }
    return prev[b.length];
  }
  /** The field name closest to `key` (within half its length), or undefined. */
  export function nearest(key: string, names: string[]): string | undefined {
    let best: string | undefined;
    let bestD = Infinity;
    for (const n of names) {
      const d = distance(key, n);
      if (d < bestD) [bestD, best] = [d, n];
    }
    return bestD <= Math.max(2, Math.floor(key.length / 2)) ? best : undefined;
  }

  /** Why `value` does not fit `f` (the device's Range), or null when it does. */
  function fieldProblem(f: Field, value: unknown): string | null {
    if (f.readOnly) return f.key + ' is read-only';
    if (f.type === 'bool') return typeof value === 'boolean' ? null : f.key + ' must be true or false';
    if (f.options?.length && !f.options.includes(value as string | number)) {
      return f.key + ' must be one of ' + f.options.map((o) => JSON.stringify(o)).join(', ');
    }
    if (f.type === 'int32') {
      if (typeof value !== 'number' || Math.floor(value) !== value) return f.key + ' must be a whole number';
      if (f.min !== undefined && value < f.min) return f.key + ' must be at least ' + f.min;
      if (f.max !== undefined && value > f.max) return f.key + ' must be at most ' + f.max;
    }
    if (f.type === 'string') {
      if (typeof value !== 'string') return f.key + ' must be text';
      if (f.minLength !== undefined && value.length < f.minLength) return f.key + ' needs at least ' + f.minLength + ' characters';
      if (f.maxLength !== undefined && value.length > f.maxLength) return f.key + ' takes at most ' + f.maxLength + ' characters';
    }
    return null;
  }

  /** Keys that describe the request, not a field (see the runtime's wrapping of channel data). */
  const META_KEYS = ['page_type', 'chn_index', 'channel_info'];
  /** Every problem of a Set's data against the form's fields: unknown fields (with the nearest name), bounds. */
  export function dataProblems(fields: Field[], data: Record<string, unknown>): string[] {
    const byKey = new Map(fields.map((f) => [f.key, f]));
    const names = fields.map((f) => f.key);
    const problems: string[] = [];
    for (const k of Object.keys(data)) {
      if (META_KEYS.includes(k)) continue;
      const f = byKey.get(k);
      if (!f) {
        const near = nearest(k, names);
        problems.push(k + ' is not a field of this page' + (near ? ' (did you mean ' + near + '?)' : ''));
        continue;
      }
      const p = fieldProblem(f, data[k]);
      if (p) problems.push(p);
    }
    return problems;
  }

  /** The value of a form control as the Range types it. */
  export function controlValue(f: Field, $input: JQuery): unknown {
    if (f.type === 'bool') return $input.is(':checked');
    const raw = $input.val();
    if (f.type === 'int32') return raw === '' ? NaN : Number(raw);
    return raw;
  }

  const WIDE = 'width:100%; box-sizing:border-box';
  /** The control for a field: a checkbox, a list of its options, a number or text input with its bounds. */
  export function control(f: Field, value: unknown): JQuery {
    let $c: JQuery;
    if (f.type === 'bool') {
      $c = $('<input type="checkbox" style="width:auto; margin:0">').prop('checked', value === true);
    } else if (f.options?.length) {
      $c = $(`<select style="${WIDE}">`);
      for (const o of f.options) $('<option>').val(String(o)).text(String(o)).appendTo($c);
      if (value !== undefined) $c.val(String(value));
      if (f.type === 'int32') $c.data('nvrNumber', true);
    } else if (f.type === 'int32') {
      $c = $(`<input type="number" step="1" style="${WIDE}">`);
      if (f.min !== undefined) $c.attr('min', f.min);
      if (f.max !== undefined) $c.attr('max', f.max);
      if (value !== undefined) $c.val(value as number);
    } else if (f.type === 'string') {
      $c = $(`<input type="text" style="${WIDE}">`);
      if (f.maxLength !== undefined) $c.attr('maxlength', f.maxLength);
      if (value !== undefined) $c.val(value as string);
    } else {
      $c = $(`<input type="text" style="${WIDE}">`).val(value === undefined ? '' : JSON.stringify(value));
    }
    if (f.readOnly) $c.prop('disabled', true);
    return $c.addClass('nvr-field-input').attr('data-field', f.key);
  }

  /** "0…100, ≤ 31 chars, s, read-only": a field's bounds beside its name. */
  export function limitsText(f: Field): string {
    const parts: string[] = [];
    if (f.min !== undefined || f.max !== undefined) parts.push((f.min ?? '') + '…' + (f.max ?? ''));
    if (f.maxLength !== undefined) parts.push('≤ ' + f.maxLength + ' chars');
    if (f.unit) parts.push(f.unit);
    if (f.readOnly) parts.push('read-only');
    return parts.join(', ');
  }

  /** A field's current value as the form's "now" column shows it. */
  export function nowText(f: Field): string {
    return f.value === undefined ? '' : typeof f.value === 'object' ? JSON.stringify(f.value) : String(f.value);
  }
}
