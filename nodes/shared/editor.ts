/*
 * Editor helpers every nvr2mqtt node dialog shares, in the one global `NVR2MQTT`. Every node file
 * that needs them loads this script (resources/nvr2mqtt/shared/editor.js); Node-RED runs a
 * node file's scripts before its inline registration, in no set order among themselves, so each
 * node's script only adds to the namespace and calls these helpers later (from its callbacks).
 */
namespace NVR2MQTT {
  /** The runtime's rules (GET nvr-device/rules, nodes/shared/admin.ts): never restated here. */
  export interface Rules {
    pageName: string;
    modes: Record<string, ControlModeRule>;
    alarmTypes: string[];
    liveParts: string[];
  }
  export interface ControlModeRule {
    target: 'channel' | 'output' | 'device';
    settings: string[];
    label?: string;
    channel?: 'optional';
    /** What msg.payload the mode takes, in words (restart). */
    payload?: string;
  }
  /** A device's settings as the admin routes take them. */
  export interface DeviceValues {
    id: string;
    url?: string;
    tls_ca?: string;
    tls_fingerprint?: string;
    username?: string;
    password: string;
  }
  export interface PageInfo {
    name: string;
    title: string;
    operations: string[];
  }

  /** What the editor shows in a password field whose value is stored on the server. */
  export const PLACEHOLDER = '__PWRD__';
  /** The page list's choice "other page (type its path)". */
  export const CUSTOM = '__custom__';
  /** A channel id or its slug (the runtime's normaliseChannel accepts both). */
  const CHANNEL_RE = /^(CH|IP_CH|WIFI_CH)[1-9][0-9]*$/i;

  let rules: Rules | null = null;
  // Asked for as soon as the editor loads, so validators have the rules when the flows arrive.
  const rulesRequest = (window.nvr2mqttRules ??= $.getJSON<Rules>('nvr-device/rules'));
  rulesRequest.done((r) => (rules = r));
  let pagesRequest: JQueryPromise<PageInfo[]> | null = null;

  /** The runtime's rules once loaded (a promise of them). */
  export function loadRules(): JQueryPromise<Rules> {
    return rulesRequest;
  }

  /** The runtime's rules, or null until they arrive (validators then leave the check to the runtime). */
  export function loadedRules(): Rules | null {
    return rules;
  }

  /** The page registry, fetched once per editor session (again after a failure). */
  export function loadPages(): JQueryPromise<PageInfo[]> {
    if (!pagesRequest) {
      pagesRequest = $.getJSON<PageInfo[]>('nvr-device/pages');
      pagesRequest.fail(() => (pagesRequest = null));
    }
    return pagesRequest;
  }

  /** POST to one of nvr-device's admin routes; the body carries credentials, never the URL. */
  export function post<T>(route: string, body: object): JQueryPromise<T> {
    return $.ajax<T>({
      url: 'nvr-device/' + route,
      type: 'POST',
      contentType: 'application/json',
      data: JSON.stringify(body),
      dataType: 'json',
      timeout: 20000,
    });
  }

  export function errorText(xhr: JQueryXHR | undefined): string {
    const e = xhr?.responseJSON?.error;
    if (e) return e.error_code + ': ' + e.reason;
    return String(xhr?.statusText || xhr?.status || 'request failed');
  }

  /**
   * A config node's settings as the editor knows them, deployed or not. A password typed in this
   * session is sent as typed; otherwise the placeholder asks the server for the stored one.
   */
  export function deviceValues(deviceId: string | undefined): DeviceValues | null {
    const dev = deviceId ? RED.nodes.node(deviceId) : null;
    if (!dev) return null;
    const creds = dev.credentials ?? {};
    const typed = typeof creds.password === 'string' && creds.password !== '' && creds.password !== PLACEHOLDER;
    return {
      id: dev.id,
      url: dev.url,
      tls_ca: dev.tls_ca,
      tls_fingerprint: dev.tls_fingerprint,
      username: creds.username,
      password: typed ? creds.password! : PLACEHOLDER,
    };
  }

  /** Any spelling the runtime accepts (core parsePageName): /API/ prefix and surrounding slashes ignored. */
  export function validPage(v: string): boolean {
    if (!v || !rules) return true; // not loaded yet: the runtime checks again
    const page = String(v)
      .trim()
      .replace(/^\/+/, '')
      .replace(/^API\//, '')
      .replace(/\/+$/, '');
    return new RegExp(rules.pageName).test(page);
  }
  export function validChannel(v: string): boolean {
    return !v || CHANNEL_RE.test(v);
  }
  /** Channels separated by commas or spaces, each valid. */
  export function validChannelList(v: string): boolean {
    return (
      !v ||
      v
        .split(/[\s,]+/)
        .filter(Boolean)
        .every(validChannel)
    );
  }
  export function validJsonObject(v: string): boolean {
    return !v || jsonObject(v) !== null;
  }
  /** `v` parsed when it is a JSON object, else null. */
  export function jsonObject(v: string): Record<string, unknown> | null {
    try {
      const x: unknown = JSON.parse(v);
      return x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  /** The node's catalogue text for `key`, or `fallback` where the catalogue has none. */
  export function translated(node: EditorNode, key: string, fallback: string): string {
    const text = node._(key);
    return text === key && fallback ? fallback : text;
  }

  /** Every node type's label style: italic when the user named it. */
  export function labelStyle(this: EditorNode): string {
    return this.name ? 'node_label_italic' : '';
  }

  /** A property of a node type as the editor takes it (RED.nodes.registerType's `defaults`). */
  export interface Property {
    value: unknown;
    type?: string;
    required?: boolean;
    validate?: (this: any, v: any, opt?: object) => boolean | string; // eslint-disable-line @typescript-eslint/no-explicit-any
  }
  /** A node type's definition, as RED.nodes.registerType takes it. */
  export interface Definition {
    category: string;
    color?: string;
    defaults: Record<string, Property>;
    credentials?: Record<string, { type: 'text' | 'password' }>;
    inputs?: number;
    outputs?: number;
    icon: string;
    paletteLabel?: string;
    label: (this: EditorNode) => string;
    labelStyle?: (this: EditorNode) => string;
    oneditprepare?: (this: EditorNode) => void;
    oneditsave?: (this: EditorNode) => void;
  }
  /** What a flow node of the nvr2mqtt palette says of itself; `flowNode` adds what they all have. */
  export type OwnDefinition = Omit<Definition, 'category' | 'labelStyle'>;

  /**
   * A node type of the nvr2mqtt palette: its own definition over what every one has (the category, a colour,
   * one input and output, `name` and the `device` it uses first among its properties, the label style).
   * Called from each node file's registration (written by the build, scripts/copy-assets.js), when every script is loaded.
   */
  export function flowNode(own: OwnDefinition): Definition {
    return {
      category: 'nvr2mqtt',
      color: '#A6C9E2',
      inputs: 1,
      outputs: 1,
      labelStyle,
      ...own,
      defaults: { name: { value: '' }, device: { value: '', type: 'nvr-device', required: true }, ...own.defaults },
    };
  }

  /** Checkboxes in `$list`, one per choice, ticked when `chosen` has it (the value saved is the choice). */
  export function checkboxes($list: JQuery, choices: Array<{ value: string; text: string }>, chosen: string[], width: string): void {
    for (const c of choices) {
      $(`<label style="display:inline-block; width:${width}; margin:0">`)
        .append(
          $('<input type="checkbox" style="width:auto; margin:0 4px 0 0">').val(c.value).prop('checked', chosen.includes(c.value)),
          document.createTextNode(c.text),
        )
        .appendTo($list);
    }
  }
  /** The values of the ticked checkboxes under `selector`. */
  export function ticked(selector: string): string[] {
    return $(selector + ' input:checked')
      .map(function () {
        return this.value;
      })
      .get();
  }

  /**
   * Answers of the device for one dialog list: only the latest question's answer counts (switching device or mode
   * quickly answers out of order). `ask(promise, done, fail)`.
   */
  export function latestAnswer(): <T>(answer: JQueryPromise<T>, done: (value: T) => void, fail: (xhr: JQueryXHR) => void) => void {
    let asked = 0;
    return (answer, done, fail) => {
      const seq = ++asked;
      answer.done((v) => seq === asked && done(v)).fail((xhr) => seq === asked && fail(xhr));
    };
  }

  /** The configured channels of a device (the channels route), each as the dialogs show it. */
  export interface ChannelEntry {
    channel: string;
    name?: string;
    online?: boolean;
    status?: string;
    state?: string;
  }

  /** A `<select>`'s choices; a saved one the device no longer offers stays selectable (and visible as such). */
  export function fillSelect(
    $select: JQuery,
    values: Array<{ value: string; text: string }>,
    current: string,
    notListed: string,
    emptyText = '—',
  ): void {
    $select.empty().append($('<option>').val('').text(emptyText));
    for (const v of values) $('<option>').val(v.value).text(v.text).appendTo($select);
    if (current && !values.some((v) => v.value === current)) $('<option>').val(current).text(`${current} (${notListed})`).appendTo($select);
    $select.val(current || '');
  }

  /** "CH2 Garden", "IP_CH6 (offline)": a channel in the device's own words. */
  export function channelText(id: string, c: { name?: string; online?: boolean; state?: string }): string {
    const name = c.name && c.name !== id ? ' ' + c.name : '';
    return id + name + (c.online ? '' : ' (' + (c.state || 'offline') + ')');
  }
}
