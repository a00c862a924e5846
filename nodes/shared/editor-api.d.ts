/*
 * The little of jQuery and Node-RED's editor API the editor scripts use (the editor page provides both),
 * typed as we call them: not the libraries' full declarations.
 */

/** What a failed admin request gives a `fail` callback (our routes answer `{ error: {error_code, reason} }`). */
interface JQueryXHR {
  responseJSON?: { error?: { error_code: string; reason: string } };
  statusText?: string;
  status?: number;
}

interface JQueryPromise<T> {
  done(callback: (value: T) => void): JQueryPromise<T>;
  fail(callback: (xhr: JQueryXHR) => void): JQueryPromise<T>;
  always(callback: () => void): JQueryPromise<T>;
  then<U>(callback: (value: T) => U): JQueryPromise<U>;
}

type JQueryContent = JQuery | Text | string | null;

/** A selection; `val()` reads the inputs and single selects the dialogs have (always a string there). */
interface JQuery {
  readonly length: number;
  val(): string;
  val(value: string | number): JQuery;
  text(): string;
  text(value: string): JQuery;
  attr(name: string): string | undefined;
  attr(name: string, value: string | number): JQuery;
  prop(name: 'checked' | 'disabled', value: boolean): JQuery;
  data(name: string): unknown;
  data(name: string, value: unknown): JQuery;
  css(name: string, value: string): JQuery;
  is(selector: string): boolean;
  on(events: string, handler: (this: HTMLElement) => void): JQuery;
  trigger(event: string): JQuery;
  toggle(show?: boolean): JQuery;
  hide(): JQuery;
  empty(): JQuery;
  append(...content: JQueryContent[]): JQuery;
  appendTo(target: JQuery | string): JQuery;
  addClass(name: string): JQuery;
  toggleClass(name: string, state: boolean): JQuery;
  find(selector: string): JQuery;
  closest(selector: string): JQuery;
  first(): JQuery;
  filter(test: (this: HTMLInputElement) => boolean): JQuery;
  each(callback: (this: HTMLElement) => void): JQuery;
  map<T>(callback: (this: HTMLInputElement) => T): { get(): T[] };
  /** Node-RED's TypedInput widget. */
  typedInput(options: { default: string; types: unknown[]; typeField?: string }): JQuery;
  typedInput(method: 'type' | 'value'): string;
  typedInput(method: 'type' | 'value', value: string): JQuery;
}

interface JQueryAjaxOptions {
  url: string;
  type: 'POST';
  contentType: string;
  data: string;
  dataType: 'json';
  timeout: number;
}

interface JQueryStatic {
  (selector: string | HTMLElement): JQuery;
  getJSON<T>(url: string): JQueryPromise<T>;
  ajax<T>(options: JQueryAjaxOptions): JQueryPromise<T>;
}

declare const $: JQueryStatic;

/** A node as the editor holds it: its saved properties (each type declares the ones it reads) and `_` (its catalogue). */
interface EditorNode {
  id: string;
  name?: string;
  _(key: string): string;
}

/** A config node as RED.nodes.node gives it. */
interface EditorConfigNode extends EditorNode {
  url?: string;
  tls_ca?: string;
  tls_fingerprint?: string;
  credentials?: { username?: string; password?: string };
}

declare const RED: {
  nodes: { node(id: string): EditorConfigNode | null };
};

interface Window {
  /** The runtime's rules, fetched once however many node files load the shared script. */
  nvr2mqttRules?: JQueryPromise<NVR2MQTT.Rules>;
}
