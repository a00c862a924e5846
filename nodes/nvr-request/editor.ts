/*
 * The dialog of nvr-range, nvr-get and nvr-set (one for the three): page, channel and data TypedInputs,
 * and the typed form built from the device's Range (editor-form.ts).
 *  #nvr-page-source, #nvr-channel-source  TypedInputs: "list" (the dropdowns below) or msg/flow/global/env/JSONata
 *  #node-input-page, #node-input-channel  dropdowns of the registry's pages and the device's channels
 *  .nvr-form                              the page's fields for the channel, from the device's Range (Set: tick to send)
 *  #node-input-data                       TypedInput JSON/msg/...: the data sent (nvr-set: built from the ticked fields)
 */
namespace NVR2MQTT.request {
  type Operation = 'Range' | 'Get' | 'Set';
  interface RequestNode extends EditorNode {
    device?: string;
    page?: string;
    pageType?: string;
    channel?: string;
    channelType?: string;
    dataType?: string;
  }
  interface ChannelInfo {
    channel: string;
    name?: string;
    online?: boolean;
    state?: string;
  }

  /** Fields of the last form loaded for device|page|channel, so a node's data can be checked while its dialog is closed. */
  const forms = new Map<string, NVR2MQTT.form.Field[]>();
  function formKey(device: string | undefined, page: string, channel: string | null | undefined): string {
    return [device, page, channel || ''].join('|');
  }
  /** What the empty channel choice means for each operation. */
  const ALL_CHANNELS: Record<Operation, string> = {
    Range: 'All channels (the whole page, every channel)',
    Get: 'All channels (the whole page, every channel)',
    Set: 'No channel (data names them: {"channel_info": {"CH1": {…}}})',
  };
  const OTHER_PAGE = 'Other page (type its path)';
  const literal = (type: string | undefined) => !type || type === 'str';

  /**
   * A request type's own definition: its default page, validators, label and dialog callbacks. Its (empty) template
   * gets the one dialog copied in: the editor inserts a node file into the page before it runs the file's inline
   * scripts, whose registration calls this (through `definitions`).
   */
  function requestType(type: string, operation: Operation, page: string): OwnDefinition {
    const verb = operation.toLowerCase();
    $(`script[data-template-name="${type}"]`).text($('#nvr-request-dialog').text());
    return {
      defaults: {
        page: {
          value: page,
          validate(this: RequestNode, v: string): boolean {
            return !literal(this.pageType) || NVR2MQTT.validPage(v);
          },
        },
        pageType: { value: 'str' },
        channel: {
          value: '',
          validate(this: RequestNode, v: string): boolean {
            return !literal(this.channelType) || NVR2MQTT.validChannel(v);
          },
        },
        channelType: { value: 'str' },
        data: {
          value: '',
          // Two parameters: Node-RED shows a validator's text as the reason only when it takes two (its 3.x form).
          validate(this: RequestNode, v: string, _opt?: object): boolean | string {
            return validData(this, v, operation);
          },
        },
        dataType: { value: 'json' },
        output: { value: 'payload' },
        ignoreMsg: { value: false },
      },
      icon: 'nvr2mqtt-camera.svg',
      paletteLabel: 'nvr ' + verb,
      label(this: RequestNode): string {
        return requestLabel(this, verb);
      },
      oneditsave(): void {
        saveRequestDialog();
      },
      oneditprepare(this: RequestNode): void {
        new RequestDialog(this, operation).prepare();
      },
    };
  }

  /** The data property's validator: a JSON object, and for nvr-set within the last form loaded for it. */
  function validData(node: RequestNode, v: string, operation: Operation): boolean | string {
    if (node.dataType && node.dataType !== 'json') return true;
    if (!NVR2MQTT.validJsonObject(v)) return false;
    if (operation !== 'Set' || !v || !literal(node.channelType)) return true;
    const fields = forms.get(formKey(node.device, node.page ?? '', node.channel));
    if (!fields) return true; // never loaded (device unreachable): the runtime checks the Range before sending
    const problems = NVR2MQTT.form.dataProblems(fields, NVR2MQTT.jsonObject(v)!);
    return problems.length ? problems.join('; ') : true;
  }

  function requestLabel(node: RequestNode, verb: string): string {
    if (node.name) return node.name;
    const page = literal(node.pageType) ? (node.page || '').replace(/^\/?(API\/)?/, '') : node.pageType + '.' + node.page;
    const channel = node.channel ? (literal(node.channelType) ? node.channel : node.channelType + '.' + node.channel) : '';
    return verb + ' ' + (page || 'page') + (channel ? ' ' + channel : '');
  }

  function option(value: string, text: string): JQuery {
    return $('<option>').val(value).text(text);
  }

  /** Turns "list" choices (and "other page") into the node's page and channel before Node-RED reads the inputs. */
  function saveRequestDialog(): void {
    const $page = $('#node-input-page');
    const force = ($select: JQuery, value: string) => {
      if (
        !$select.find('option').filter(function () {
          return this.value === value;
        }).length
      )
        $select.append(option(value, value));
      $select.val(value);
    };
    if ($('#nvr-page-source').typedInput('type') !== 'str') force($page, $('#nvr-page-source').typedInput('value'));
    else if ($page.val() === NVR2MQTT.CUSTOM) force($page, ($('#node-input-page-custom').val() || '').trim());
    if ($('#nvr-channel-source').typedInput('type') !== 'str')
      force($('#node-input-channel'), $('#nvr-channel-source').typedInput('value'));
  }

  const DYNAMIC = ['msg', 'flow', 'global', 'env', 'jsonata'];
  const LIST_TYPE = { value: 'str', label: 'list', icon: 'fa fa-list', hasValue: false };

  /** One opening of the dialog: its inputs, and the answers it waits for (only the latest of each counts). */
  class RequestDialog {
    readonly $page = $('#node-input-page');
    readonly $custom = $('#node-input-page-custom');
    readonly $channel = $('#node-input-channel');
    readonly $device = $('#node-input-device');
    readonly $data = $('#node-input-data');
    readonly $table = $('.nvr-form-table');
    readonly $formNote = $('.nvr-form-note');
    readonly isSet: boolean;
    readonly currentChannel: string;
    fields: NVR2MQTT.form.Field[] | null = null;
    formRequest = 0;
    formShown: string | null = null;
    channelsRequest = 0;

    constructor(
      readonly node: RequestNode,
      readonly operation: Operation,
    ) {
      this.isSet = operation === 'Set';
      this.currentChannel = literal(node.channelType) ? node.channel || '' : '';
    }

    prepare(): void {
      this.typedInputs();
      this.pageList();
      this.setChannels([], '');
      this.syncSources();
      $('#node-input-channel-refresh').on('click', () => {
        this.loadChannels();
        this.loadForm(true);
      });
      this.$device.on('change', () => {
        if (this.$device.val() && this.$device.val() !== '_ADD_') {
          this.loadChannels();
          this.loadForm();
        }
      });
      this.$page.on('change', () => {
        this.syncCustom();
        this.loadForm();
      });
      this.$custom.on('change', () => this.loadForm());
      this.$channel.on('change', () => this.loadForm());
      $('#nvr-page-source, #nvr-channel-source').on('change', () => {
        this.syncSources();
        this.loadForm();
      });
      this.$data.on('change', () => this.showProblems());
      this.loadChannels();
    }

    typedInputs(): void {
      const node = this.node;
      const source = (id: string, type: string | undefined, value: string | undefined, typeField: string) => {
        $(id).typedInput({ default: 'str', types: [LIST_TYPE, ...DYNAMIC], typeField });
        $(id).typedInput('type', type || 'str');
        if (!literal(type)) $(id).typedInput('value', value || '');
      };
      source('#nvr-page-source', node.pageType, node.page, '#node-input-pageType');
      source('#nvr-channel-source', node.channelType, node.channel, '#node-input-channelType');
      this.$data.typedInput({ default: 'json', types: ['json', ...DYNAMIC], typeField: '#node-input-dataType' });
      this.$data.typedInput('type', node.dataType || 'json');
      $('#node-input-output').typedInput({ default: 'msg', types: ['msg'] });
      if (!$('#node-input-output').typedInput('value')) $('#node-input-output').typedInput('value', 'payload');
    }

    /** The registry's pages for this operation; until it arrives the stored page is the only choice, so Done keeps it. */
    pageList(): void {
      const $page = this.$page;
      const current = literal(this.node.pageType) ? this.node.page || '' : '';
      $page
        .empty()
        .append(option(current, current || '(none)'))
        .append(option(NVR2MQTT.CUSTOM, OTHER_PAGE));
      $page.val(current);
      this.$custom.val(current);
      NVR2MQTT.loadPages().done((pages) => {
        const value = $page.val();
        $page.empty();
        const offered = pages.filter((p) => p.operations.includes(this.operation));
        for (const p of offered) $page.append(option(p.name, p.title + ' (' + p.name + ')'));
        $page.append(option(NVR2MQTT.CUSTOM, OTHER_PAGE));
        const known = offered.some((p) => p.name === value);
        $page.val(known ? value : value && value !== NVR2MQTT.CUSTOM ? NVR2MQTT.CUSTOM : value || $page.find('option').first().val());
        this.syncCustom();
        this.loadForm();
      });
    }

    listed(source: '#nvr-page-source' | '#nvr-channel-source'): boolean {
      return $(source).typedInput('type') === 'str';
    }
    syncCustom(): void {
      $('.nvr-page-custom-row').toggle(this.listed('#nvr-page-source') && this.$page.val() === NVR2MQTT.CUSTOM);
    }
    syncSources(): void {
      $('.nvr-page-list-row').toggle(this.listed('#nvr-page-source'));
      $('.nvr-channel-list-row').toggle(this.listed('#nvr-channel-source'));
      this.syncCustom();
    }
    chosenPage(): string {
      if (!this.listed('#nvr-page-source')) return '';
      return this.$page.val() === NVR2MQTT.CUSTOM ? (this.$custom.val() || '').trim() : this.$page.val();
    }
    /** The channel chosen from the list ('' for none), or null when it comes from a message or context. */
    chosenChannel(): string | null {
      return this.listed('#nvr-channel-source') ? this.$channel.val() || '' : null;
    }

    /* ---- the form ---- */

    /** The data as a JSON object ({} when empty), or null when it is not one or not JSON. */
    dataObject(): Record<string, unknown> | null {
      if (this.$data.typedInput('type') !== 'json') return null;
      const v = this.$data.typedInput('value');
      return v ? NVR2MQTT.jsonObject(v) : {};
    }
    /** Shows what is wrong with the data (JSON or fields) in the dialog, before deploy. */
    showProblems(): void {
      let problems: string[] = [];
      const data = this.dataObject();
      if (data === null && this.$data.typedInput('type') === 'json') problems.push('not a JSON object');
      if (data && this.fields && this.isSet) problems = NVR2MQTT.form.dataProblems(this.fields, data);
      $('.nvr-data-problems').text(problems.join('; '));
      this.$table.find('.nvr-field-input').each(function () {
        const key = $(this).attr('data-field');
        $(this).toggleClass(
          'input-error',
          problems.some((p) => p.startsWith(key + ' ')),
        );
      });
    }
    /** nvr-set: the ticked fields become the data (JSON), merged over keys the form does not show. */
    buildData(): void {
      const data = this.dataObject() ?? {};
      for (const f of this.fields ?? []) {
        if (f.readOnly) continue;
        const $row = this.$table.find(`tr[data-field="${f.key}"]`);
        if ($row.find('.nvr-field-tick').is(':checked')) {
          const $input = $row.find('.nvr-field-input');
          let value = NVR2MQTT.form.controlValue(f, $input);
          if ($input.data('nvrNumber')) value = Number(value);
          data[f.key] = typeof value === 'number' && isNaN(value) ? $input.val() : value;
        } else {
          delete data[f.key];
        }
      }
      this.$data.typedInput('type', 'json');
      this.$data.typedInput('value', Object.keys(data).length ? JSON.stringify(data) : '');
      this.showProblems();
    }
    renderForm(form: NVR2MQTT.form.Form): void {
      const isSet = this.isSet;
      this.fields = form.fields;
      forms.set(formKey(this.$device.val(), this.chosenPage(), this.chosenChannel()), form.fields);
      this.$table.empty();
      const data = this.dataObject() ?? {};
      // Fixed columns (percentages of the tray): the value column never shrinks to a caret.
      $('<colgroup>')
        .append(
          isSet ? $('<col class="nvr-col-tick" style="width:28px">') : null,
          $('<col class="nvr-col-field" style="width:40%">'),
          $('<col class="nvr-col-value" style="width:36%">'),
          $('<col class="nvr-col-now">'),
        )
        .appendTo(this.$table);
      $('<tr>')
        .append(isSet ? $('<th>').text('set') : null, $('<th>').text('field'), $('<th>').text('value'), $('<th>').text('now'))
        .css('text-align', 'left')
        .appendTo(this.$table);
      for (const f of form.fields) this.fieldRow(f, Object.prototype.hasOwnProperty.call(data, f.key), data[f.key]);
      this.$formNote.text(form.valuesError ? 'Current values unavailable: ' + form.valuesError : '');
      this.showProblems();
    }
    /** A field's row: (Set) its tick, its name, description and bounds, its control, the device's value now. */
    fieldRow(f: NVR2MQTT.form.Field, has: boolean, value: unknown): void {
      const $input = NVR2MQTT.form.control(f, has ? value : f.value);
      if (!this.isSet) $input.prop('disabled', true);
      const $tick = $('<input type="checkbox" class="nvr-field-tick" style="width:auto; margin:0">')
        .prop('checked', has)
        .prop('disabled', !!f.readOnly);
      const now = NVR2MQTT.form.nowText(f);
      $('<tr>')
        .attr('data-field', f.key)
        .append(
          this.isSet ? $('<td>').append($tick) : null,
          $('<td style="overflow-wrap:anywhere; padding:2px 4px 2px 0">').append(
            $('<code>').text(f.key),
            f.description ? $('<div class="nvr-field-description" style="font-size:0.85em">').text(f.description) : null,
            $('<div class="nvr-field-limits" style="font-size:0.85em; opacity:0.7">').text(NVR2MQTT.form.limitsText(f)),
          ),
          $('<td style="padding:2px 4px 2px 0">').append($input),
          $('<td class="nvr-field-now" style="opacity:0.8; overflow-wrap:anywhere">')
            .attr('title', now)
            .text(now.length > 24 ? now.slice(0, 23) + '…' : now),
        )
        .css('vertical-align', 'top')
        .appendTo(this.$table);
      if (this.isSet && !f.readOnly) {
        $input.on('change input', () => {
          $tick.prop('checked', true);
          this.buildData();
        });
        $tick.on('change', () => this.buildData());
      }
    }
    /** Reads the form for the chosen device, page and channel; again only when one of them changed (or `force`). */
    loadForm(force?: boolean): void {
      const page = this.chosenPage();
      const channel = this.chosenChannel();
      const values = NVR2MQTT.deviceValues(this.$device.val());
      const key = formKey(this.$device.val(), page, channel);
      if (key === this.formShown && force !== true) return;
      this.formShown = key;
      this.fields = null;
      this.$table.empty();
      this.showProblems();
      if (!page || channel === null || !values?.url) {
        this.$formNote.text(
          channel === null || !page ? 'The form needs a page and channel from the lists.' : "Choose a device to see the page's fields.",
        );
        return;
      }
      const seq = ++this.formRequest;
      this.$formNote.text("Reading the page's Range from the device…");
      NVR2MQTT.post<NVR2MQTT.form.Form>('form', { ...values, page, channel })
        .done((form) => {
          if (seq === this.formRequest) this.renderForm(form);
        })
        .fail((xhr) => {
          if (seq !== this.formRequest) return;
          this.formShown = null; // unreachable now: ask again on the next change
          this.$formNote.text('Fields unavailable (' + NVR2MQTT.errorText(xhr) + '): edit the data as JSON.');
        });
    }

    /* ---- the channels ---- */

    setChannels(list: ChannelInfo[], note: string): void {
      const value = this.$channel.val() || this.currentChannel;
      this.$channel.empty().append(option('', ALL_CHANNELS[this.operation]));
      for (const c of list) this.$channel.append(option(c.channel, NVR2MQTT.channelText(c.channel, c)));
      if (value && !list.some((c) => c.channel === value)) this.$channel.append(option(value, value));
      this.$channel.val(value || '');
      const $note = $('.nvr-channel-note');
      $note.text(note);
      $note.closest('.form-row').toggle(!!note);
    }
    loadChannels(): void {
      const values = NVR2MQTT.deviceValues(this.$device.val());
      const seq = ++this.channelsRequest;
      if (!values?.url) return this.setChannels([], 'Choose a device to list its channels.');
      // Another device's channels are not this one's: none are offered until this device answers, and only its answer counts.
      this.setChannels([], 'Asking the device for its channels…');
      NVR2MQTT.post<{ channels: ChannelInfo[] }>('channels', values)
        .done((res) => {
          if (seq === this.channelsRequest) this.setChannels(res.channels, '');
        })
        .fail((xhr) => {
          if (seq === this.channelsRequest) this.setChannels([], 'Channels unavailable: ' + NVR2MQTT.errorText(xhr));
        });
    }
  }

  /** The three request types (nvr-request.html registers them): one dialog, each its operation, default page and colour. */
  const TYPES: Array<{ type: string; operation: Operation; page: string; color?: string }> = [
    { type: 'nvr-range', operation: 'Range', page: 'AlarmConfig/Deterrence' },
    { type: 'nvr-get', operation: 'Get', page: 'AlarmConfig/Deterrence' },
    { type: 'nvr-set', operation: 'Set', page: 'AlarmConfig/VoiceAlarm', color: '#E2B98F' },
  ];

  export function definitions(): Record<string, Definition> {
    return Object.fromEntries(
      TYPES.map(({ type, operation, page, color }) => {
        const own = requestType(type, operation, page);
        return [type, NVR2MQTT.flowNode(color ? { ...own, color } : own)];
      }),
    );
  }
}
