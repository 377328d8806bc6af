import { Packr } from 'msgpackr';

// Plain msgpack (no record extension): stored values must decode in any
// process and any version without a shared structure table.
const packr = new Packr({ useRecords: false, moreTypes: false });

export const encode = (value: unknown): Buffer => packr.pack(value);
export const decode = <T>(buf: Buffer): T => packr.unpack(buf) as T;
