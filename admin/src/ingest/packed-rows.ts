import { INTEGRATIONS } from '@adnet/schemas/events';
import { CAMPAIGN_FORMATS } from '@adnet/schemas/formats';
import { COUNTRY_CODES } from '@adnet/schemas/geo';
import { EVENT_COLUMNS, ROW_BINARY_TYPES, TS_MAX_MS, UINT32_MAX, misfitReason } from './event-rows.ts';
import type { RowBinaryWriter } from './row-binary-writer.ts';

/** An event of an entry left out of the body: its place in the entry and why. */
export interface EntryRejection {
  event: number;
  reason: string;
}

/**
 * Writes one stream entry's events (a msgpack list of maps, the field `b`) straight into a RowBinary body,
 * without building the events as objects: decoding them and reading them back was most of the ingester's
 * build time per event (bench/results/ab-history.md, goal 5). The rows are the ones `eventsRowBinary`
 * writes from the decoded events, byte for byte, and the same events are rejected with the same reasons
 * (`packed-rows.test.ts` checks both against the decoded path).
 *
 * Only what engines write is read here: a list of maps with string keys, and values that are nil, booleans,
 * integers up to 32 bits, 64-bit floats or ASCII strings. Anything else in the entry (a 64-bit integer, a
 * 32-bit float, binary, an extension, a nested list or map, non-ASCII text, a non-string key, an event that
 * is not a map, a truncated entry or bytes after it) returns `undefined` with nothing written, and the caller
 * decodes that entry as objects, where the decoder's own rules (and errors) apply.
 */
export function writePackedEntry(
  w: RowBinaryWriter,
  src: Uint8Array,
): { events: number; rejected: EntryRejection[] } | undefined {
  const entryStart = w.at;
  const r = new Reader(src);
  const events = r.listLength();
  const rejected: EntryRejection[] = [];
  for (let e = 0; e < events && r.ok; e++) {
    if (!r.readEvent()) break;
    const reason = writeSlots(w, src);
    if (reason === FALL_BACK) {
      r.ok = false;
      break;
    }
    if (reason !== undefined) rejected.push({ event: e, reason });
  }
  if (!r.ok || r.pos !== src.length) {
    w.at = entryStart;
    return undefined;
  }
  return { events, rejected };
}

/** What a column of `events` does with an event's field (event-rows.ts `rowFacts`). */
const enum Rule {
  /** A string with no default (id, type, engine): absent is a misfit. */
  RequiredString,
  /** Milliseconds, a safe integer within the hourly tables' range. */
  Ts,
  /** A string, empty when absent. */
  String,
  UInt32,
  Int64,
  /** An ISO code engines write, empty for any other value. */
  Country,
  /** 1 for any truthy value. */
  Invalid,
  /** A string cut to 64 characters. */
  Source,
  /** A name of `INTEGRATIONS`, '' for any other text; absent (or not text), `openrtb` for an event of a partner's request. */
  Integration,
  /** A name of `CAMPAIGN_FORMATS` (the event's `format`), '' for anything else. */
  Format,
}

const RULES: Rule[] = EVENT_COLUMNS.map((column, c) => {
  if (column === 'country') return Rule.Country;
  if (column === 'invalid') return Rule.Invalid;
  if (column === 'source') return Rule.Source;
  if (column === 'integration') return Rule.Integration;
  if (column === 'ad_format') return Rule.Format;
  if (column === 'ts') return Rule.Ts;
  if (column === 'id' || column === 'type' || column === 'engine') return Rule.RequiredString;
  const type = ROW_BINARY_TYPES[c];
  if (type === 'UInt32') return Rule.UInt32;
  if (type === 'Int64') return Rule.Int64;
  if (type === 'String') return Rule.String;
  // A column added to the table with a rule this reader does not know must be taught here, not guessed.
  throw new Error(`packed-rows: no rule for column ${column} (${String(type)})`);
});
const SOURCE_MAX = 64;
const SOURCE = EVENT_COLUMNS.indexOf('source');
const PARTNER = EVENT_COLUMNS.indexOf('partner_id');
const INTEGRATION_MAX = Math.max(...INTEGRATIONS.map((i) => i.length));
const KNOWN_INTEGRATIONS: ReadonlySet<string> = new Set(INTEGRATIONS);
const OPENRTB = new TextEncoder().encode('openrtb');
const FORMAT_MAX = Math.max(...CAMPAIGN_FORMATS.map((f) => f.length));
const KNOWN_FORMATS: ReadonlySet<string> = new Set(CAMPAIGN_FORMATS);
const COUNTRY_MAX = Math.max(...[...COUNTRY_CODES].map((c) => c.length));

const enum Kind {
  Absent,
  Nil,
  Number,
  String,
  False,
  True,
}

/** The slot a key that is no column reads its value into, past the columns' own. */
const SCRATCH = EVENT_COLUMNS.length;
// One event's fields by column, filled as its map is read; strings as byte ranges of the entry.
const kind = new Uint8Array(SCRATCH + 1);
const num = new Float64Array(SCRATCH + 1);
const strAt = new Int32Array(SCRATCH + 1);
const strLen = new Int32Array(SCRATCH + 1);
const FALL_BACK = '';

/** Columns by name: a key not seen before at its place (`keyColumn`) is looked up here. */
const COLUMN_OF = new Map<string, number>(EVENT_COLUMNS.map((c, i) => [c, i]));
// The event's `format` is the column `ad_format` (migration step 11); no event has a key named `ad_format`.
COLUMN_OF.set('format', EVENT_COLUMNS.indexOf('ad_format'));
COLUMN_OF.delete('ad_format');

// Keys read at each place of earlier events (a few per place: one per event type), and their columns (-1: none).
interface SeenKey {
  bytes: Uint8Array;
  column: number;
}
const SEEN_PER_PLACE = 4;
const SEEN_KEYS: SeenKey[][] = Array.from({ length: 64 }, () => []);

/** The byte sizes of the numbers engines write after their type byte: a double and integers up to 32 bits. */
const NUMBER_SIZE = new Uint8Array(256);
for (const [type, size] of [
  [0xcb, 8],
  [0xcc, 1],
  [0xcd, 2],
  [0xce, 4],
  [0xd0, 1],
  [0xd1, 2],
  [0xd2, 4],
] as const)
  NUMBER_SIZE[type] = size;

/** A msgpack reader of the subset engines write; `ok` false at the first byte outside it. */
class Reader {
  pos = 0;
  ok = true;
  private readonly view: DataView;

  constructor(private readonly src: Uint8Array) {
    this.view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  }

  private need(n: number): boolean {
    if (this.pos + n > this.src.length) this.ok = false;
    return this.ok;
  }

  listLength(): number {
    if (!this.need(1)) return 0;
    const b = this.src[this.pos++] as number;
    if (b >= 0x90 && b <= 0x9f) return b & 0x0f;
    if (b === 0xdc && this.need(2)) return this.u16();
    if (b === 0xdd && this.need(4)) return this.u32();
    this.ok = false;
    return 0;
  }

  /** One event's map into the slots; false when the entry needs the decoder. */
  readEvent(): boolean {
    kind.fill(Kind.Absent);
    if (!this.need(1)) return false;
    const b = this.src[this.pos++] as number;
    let fields: number;
    if (b >= 0x80 && b <= 0x8f) fields = b & 0x0f;
    else if (b === 0xde && this.need(2)) fields = this.u16();
    else if (b === 0xdf && this.need(4)) fields = this.u32();
    else return (this.ok = false);
    for (let f = 0; f < fields && this.ok; f++) {
      const keyLength = this.stringHeader();
      if (keyLength < 0 || !this.need(keyLength)) return (this.ok = false);
      const column = this.keyColumn(f, keyLength);
      this.pos += keyLength;
      // Another key's value is read the same way and dropped: a later key of the same name wins, as in an object.
      this.value(column < 0 ? SCRATCH : column);
    }
    return this.ok;
  }

  /**
   * The column the key at `pos` names. Engines write an event type's keys in the same order every time: the
   * keys seen at the same place in earlier events are tried first, byte by byte; only a new one is read as text.
   */
  private keyColumn(field: number, length: number): number {
    const seen = field < SEEN_KEYS.length ? (SEEN_KEYS[field] as SeenKey[]) : undefined;
    if (seen)
      for (const k of seen) {
        if (k.bytes.length !== length) continue;
        let same = true;
        for (let i = 0; i < length && same; i++) same = k.bytes[i] === this.src[this.pos + i];
        if (same) return k.column;
      }
    // Column names are ASCII: a key's bytes read as Latin-1 equal a name exactly when the bytes are that name's.
    const column = COLUMN_OF.get(latin1(this.src, this.pos, length)) ?? -1;
    // A copy: the entry's buffer is a view of a reply and must not be held.
    const key = { bytes: Uint8Array.prototype.slice.call(this.src, this.pos, this.pos + length), column };
    if (seen && seen.length < SEEN_PER_PLACE) seen.push(key);
    else if (seen) seen[field % SEEN_PER_PLACE] = key;
    return column;
  }

  /** A string's byte length after its header, -1 when the next value is not a string. */
  private stringHeader(): number {
    if (!this.need(1)) return -1;
    const b = this.src[this.pos] as number;
    if (b >= 0xa0 && b <= 0xbf) {
      this.pos++;
      return b & 0x1f;
    }
    if (b === 0xd9 && this.need(2)) {
      this.pos++;
      return this.src[this.pos++] as number;
    }
    if (b === 0xda && this.need(3)) {
      this.pos++;
      return this.u16();
    }
    if (b === 0xdb && this.need(5)) {
      this.pos++;
      return this.u32();
    }
    return -1;
  }

  private value(slot: number): void {
    if (!this.need(1)) return;
    const b = this.src[this.pos] as number;
    if (b <= 0x7f || b >= 0xe0) {
      this.pos++;
      this.number(slot, b <= 0x7f ? b : b - 256);
      return;
    }
    switch (b) {
      case 0xc0:
        this.pos++;
        kind[slot] = Kind.Nil;
        return;
      case 0xc2:
      case 0xc3:
        this.pos++;
        kind[slot] = b === 0xc2 ? Kind.False : Kind.True;
        return;
    }
    const size = NUMBER_SIZE[b] as number;
    if (size > 0) {
      if (this.need(1 + size)) this.number(slot, this.fixedNumber(b, this.pos + 1));
      this.pos += 1 + size;
      return;
    }
    const length = this.stringHeader();
    if (length < 0 || !this.need(length)) {
      this.ok = false;
      return;
    }
    const start = this.pos;
    // Only ASCII here: any other byte leaves the text to the decoder, whose reading of bad UTF-8 is its own.
    for (let i = 0; i < length; i++)
      if ((this.src[start + i] as number) >= 0x80) {
        this.ok = false;
        return;
      }
    kind[slot] = Kind.String;
    strAt[slot] = start;
    strLen[slot] = length;
    this.pos += length;
  }

  /** The number after type byte `b` (one of NUMBER_SIZE's), big-endian as msgpack writes it. */
  private fixedNumber(b: number, at: number): number {
    switch (b) {
      case 0xcb:
        return this.view.getFloat64(at);
      case 0xcc:
        return this.view.getUint8(at);
      case 0xcd:
        return this.view.getUint16(at);
      case 0xce:
        return this.view.getUint32(at);
      case 0xd0:
        return this.view.getInt8(at);
      case 0xd1:
        return this.view.getInt16(at);
      default: // 0xd2
        return this.view.getInt32(at);
    }
  }

  private number(slot: number, v: number): void {
    kind[slot] = Kind.Number;
    num[slot] = v;
  }

  private u16(): number {
    const v = this.view.getUint16(this.pos);
    this.pos += 2;
    return v;
  }

  private u32(): number {
    const v = this.view.getUint32(this.pos);
    this.pos += 4;
    return v;
  }
}

/**
 * Writes the event in the slots as one row, or takes it back and says why it does not fit, or FALL_BACK
 * where only the decoded event can say what happens.
 */
function writeSlots(w: RowBinaryWriter, src: Uint8Array): string | undefined {
  // The decoded path works out every value before it checks any, and cutting a `source` that is not text
  // throws there, before an earlier column's misfit is seen.
  const source = kind[SOURCE] as Kind;
  if (source !== Kind.String && source !== Kind.Absent && source !== Kind.Nil) return FALL_BACK;
  const rowStart = w.at;
  for (let c = 0; c < RULES.length; c++) {
    const k = kind[c] as Kind;
    let fits = true;
    switch (RULES[c]) {
      case Rule.RequiredString:
        if ((fits = k === Kind.String)) w.stringBytes(src, strAt[c] as number, strLen[c] as number);
        break;
      case Rule.String:
        if (k === Kind.String) w.stringBytes(src, strAt[c] as number, strLen[c] as number);
        else if ((fits = k === Kind.Absent || k === Kind.Nil)) w.byte(0);
        break;
      case Rule.Ts: {
        const v = num[c] as number;
        if ((fits = k === Kind.Number && Number.isSafeInteger(v) && v >= 0 && v <= TS_MAX_MS)) w.int64(v);
        break;
      }
      case Rule.UInt32: {
        const v = num[c] as number;
        if (k === Kind.Absent || k === Kind.Nil) w.uint32(0);
        else if ((fits = k === Kind.Number && Number.isInteger(v) && v >= 0 && v <= UINT32_MAX)) w.uint32(v);
        break;
      }
      case Rule.Int64: {
        const v = num[c] as number;
        if (k === Kind.Absent || k === Kind.Nil) w.int64(0);
        else if ((fits = k === Kind.Number && Number.isSafeInteger(v))) w.int64(v);
        break;
      }
      case Rule.Country: {
        const length = strLen[c] as number;
        if (k === Kind.String && length <= COUNTRY_MAX && COUNTRY_CODES.has(latin1(src, strAt[c] as number, length)))
          w.stringBytes(src, strAt[c] as number, length);
        else w.byte(0);
        break;
      }
      case Rule.Invalid: {
        const v = num[c] as number;
        const truthy =
          k === Kind.True || (k === Kind.Number && v !== 0 && v === v) || (k === Kind.String && strLen[c] !== 0);
        w.byte(truthy ? 1 : 0);
        break;
      }
      case Rule.Source:
        if (k === Kind.String) w.stringBytes(src, strAt[c] as number, Math.min(SOURCE_MAX, strLen[c] as number));
        else w.byte(0);
        break;
      case Rule.Integration: {
        const length = strLen[c] as number;
        if (k === Kind.String) {
          const known = length <= INTEGRATION_MAX && KNOWN_INTEGRATIONS.has(latin1(src, strAt[c] as number, length));
          if (known) w.stringBytes(src, strAt[c] as number, length);
          else w.byte(0);
        } else if (kind[PARTNER] === Kind.Number && num[PARTNER] !== 0) w.stringBytes(OPENRTB, 0, OPENRTB.length);
        else w.byte(0);
        break;
      }
      case Rule.Format: {
        const length = strLen[c] as number;
        const known =
          k === Kind.String && length <= FORMAT_MAX && KNOWN_FORMATS.has(latin1(src, strAt[c] as number, length));
        if (known) w.stringBytes(src, strAt[c] as number, length);
        else w.byte(0);
        break;
      }
      case undefined: // past the end: the loop stops before
        break;
    }
    if (!fits) {
      w.at = rowStart;
      return misfitReason(c, slotValue(src, c));
    }
  }
  return undefined;
}

/** The slot's value as the decoded event would hold it, for a misfit's reason. */
function slotValue(src: Uint8Array, c: number): unknown {
  switch (kind[c] as Kind) {
    case Kind.Absent:
      return undefined;
    case Kind.Nil:
      return null;
    case Kind.Number:
      return num[c];
    case Kind.String:
      return latin1(src, strAt[c] as number, strLen[c] as number);
    case Kind.False:
      return false;
    case Kind.True:
      return true;
  }
}

function latin1(src: Uint8Array, start: number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += String.fromCharCode(src[start + i] as number);
  return s;
}
