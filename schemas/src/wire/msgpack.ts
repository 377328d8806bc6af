import { Packr } from 'msgpackr';

// The one msgpack configuration of the product. Plain msgpack (no record
// extension, no extra types): what one process writes must decode in any other
// process and any later version without a shared structure table.
const packr = new Packr({ useRecords: false, moreTypes: false });

export const pack = (value: unknown): Buffer => packr.pack(value);
export const unpack = <T>(buf: Buffer | Uint8Array): T => packr.unpack(buf) as T;
