import { ClickHouseError } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { classifyInsertError } from './insert-errors.ts';

const ch = (code: number, type: string, message: string) => new ClickHouseError({ code: String(code), type, message });

describe('classifyInsertError', () => {
  it('calls refused what ClickHouse says of the rows themselves (messages as chDB gave them for hostile rows)', () => {
    for (const err of [
      ch(
        72,
        'CANNOT_PARSE_NUMBER',
        "Unsigned type must not contain '-' symbol: (while reading the value of key campaign_id): (at row 1)",
      ),
      ch(27, 'CANNOT_PARSE_INPUT_ASSERTION_FAILED', "Cannot parse input: expected ',' before: '.5,0,9'"),
      ch(
        41,
        'CANNOT_PARSE_DATETIME',
        'Cannot read DateTime: unexpected number of decimal digits for time zone offset: 6',
      ),
      ch(
        469,
        'VIOLATED_CONSTRAINT',
        'Constraint `c` for table adnet.events is violated at row 2. Expression: (campaign_id != 666)',
      ),
      ch(
        252,
        'TOO_MANY_PARTS',
        "Too many partitions for single INSERT block (more than 100). The limit is controlled by 'max_partitions_per_insert_block' setting.",
      ),
      ch(691, 'UNKNOWN_ELEMENT_OF_ENUM', "Unknown element 'x' for enum"),
    ]) {
      expect(classifyInsertError(err), err.message).toMatchObject({ kind: 'refused', code: Number(err.code) });
    }
  });

  it('retries what a later attempt may pass, what is not the rows, and what it does not know', () => {
    for (const err of [
      ch(241, 'MEMORY_LIMIT_EXCEEDED', 'Memory limit (total) exceeded'),
      ch(252, 'TOO_MANY_PARTS', 'Too many parts (3001). Merges are processing significantly slower than inserts'),
      ch(159, 'TIMEOUT_EXCEEDED', 'Timeout exceeded'),
      ch(210, 'NETWORK_ERROR', 'Connection reset by peer'),
      ch(33, 'CANNOT_READ_ALL_DATA', 'Cannot read all data. Bytes read: 10. Bytes expected: 20.'),
      ch(60, 'UNKNOWN_TABLE', 'Table adnet.events does not exist'),
      ch(16, 'NO_SUCH_COLUMN_IN_TABLE', 'No such column source in table adnet.events'),
      ch(242, 'TABLE_IS_READ_ONLY', 'Table is in readonly mode'),
      ch(9999, 'SOMETHING_NEW', 'never seen'),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' }),
      new TypeError('Do not know how to serialize a BigInt'),
      'a string thrown',
    ]) {
      expect(classifyInsertError(err), String(err)).toEqual({ kind: 'retry' });
    }
  });

  it('retries a refusal by a view the insert feeds: the events table has the rows already, and only the same token may follow', () => {
    const err = ch(
      469,
      'VIOLATED_CONSTRAINT',
      'Constraint `c` for table adnet.stats_hourly is violated at row 1: while pushing to view adnet.stats_hourly_mv',
    );
    expect(classifyInsertError(err)).toEqual({ kind: 'retry' });
  });
});
