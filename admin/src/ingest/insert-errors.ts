/**
 * What an insert's failure means for its rows: `refused`, ClickHouse refused the rows themselves (a value
 * it cannot parse or hold, a constraint they break) and will refuse them at every retry, having written
 * none of them; `retry`, anything else (network, timeouts, memory, too many parts, a server or table not
 * there, an error never seen before), which a later attempt may pass.
 *
 * An unknown error is retried, never treated as refused: dead-lettering rows needs proof that they are the
 * cause, and an error that is the server's (a new code for overload, say) would otherwise send every later
 * batch to the dead letters. Its batch stays pending and retried, visible in the failures metric and the
 * backlog, until someone looks (docs/operations.md).
 */
export type InsertFailure = { kind: 'refused'; code: number; reason: string } | { kind: 'retry' };

/**
 * ClickHouse error codes (src/Common/ErrorCodes.cpp; `errorCodeToName`) that name the inserted data. Codes of
 * a body cut short (ATTEMPT_TO_READ_AFTER_EOF 32, CANNOT_READ_ALL_DATA 33, UNEXPECTED_END_OF_FILE 3) are
 * not here: over HTTP a connection lost mid-body ends in them, which a retry mends.
 */
const DATA_CODES: ReadonlyMap<number, string> = new Map([
  [6, 'CANNOT_PARSE_TEXT'],
  [19, 'SIZE_OF_FIXED_STRING_DOESNT_MATCH'],
  [25, 'CANNOT_PARSE_ESCAPE_SEQUENCE'],
  [26, 'CANNOT_PARSE_QUOTED_STRING'],
  [27, 'CANNOT_PARSE_INPUT_ASSERTION_FAILED'],
  [38, 'CANNOT_PARSE_DATE'],
  [41, 'CANNOT_PARSE_DATETIME'],
  [53, 'TYPE_MISMATCH'],
  [69, 'ARGUMENT_OUT_OF_BOUND'],
  [70, 'CANNOT_CONVERT_TYPE'],
  [72, 'CANNOT_PARSE_NUMBER'],
  [117, 'INCORRECT_DATA'],
  [128, 'TOO_LARGE_ARRAY_SIZE'],
  [131, 'TOO_LARGE_STRING_SIZE'],
  [321, 'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE'],
  [346, 'CANNOT_CONVERT_CHARSET'],
  [349, 'CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN'],
  [376, 'CANNOT_PARSE_UUID'],
  [407, 'DECIMAL_OVERFLOW'],
  [441, 'CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING'],
  [467, 'CANNOT_PARSE_BOOL'],
  [469, 'VIOLATED_CONSTRAINT'],
  [546, 'NO_ROW_DELIMITER'],
  [632, 'UNEXPECTED_DATA_AFTER_PARSED_VALUE'],
  [675, 'CANNOT_PARSE_IPV4'],
  [676, 'CANNOT_PARSE_IPV6'],
  [691, 'UNKNOWN_ELEMENT_OF_ENUM'],
]);
/** TOO_MANY_PARTS is both a block spanning too many partitions (its rows' dates: refused) and merges lagging (wait). */
const TOO_MANY_PARTS = 252;
const PARTITIONS_OF_ONE_BLOCK = /too many partitions for single insert block/i;
/**
 * A view fed by the insert refused its block after the events table had written it (ClickHouse inserts into
 * the table, then pushes to its views, without a transaction): the rows are in `events` already, and inserting
 * any of them again under another token would store them twice there. Only a retry with the batch's own token
 * (deduplicated in the table, pushed again to the views) is safe: retried, for an operator to mend the view.
 */
const PUSHING_TO_VIEW = /while pushing to view/i;

export function classifyInsertError(err: unknown): InsertFailure {
  if (!(err instanceof Error)) return { kind: 'retry' };
  // @clickhouse/client's ClickHouseError, from a server or from chDB's connection alike: `code` a numeric string.
  const code = Number((err as { code?: unknown }).code);
  if (!Number.isInteger(code) || PUSHING_TO_VIEW.test(err.message)) return { kind: 'retry' };
  const name =
    code === TOO_MANY_PARTS && PARTITIONS_OF_ONE_BLOCK.test(err.message)
      ? 'TOO_MANY_PARTS (partitions)'
      : DATA_CODES.get(code);
  if (name === undefined) return { kind: 'retry' };
  return { kind: 'refused', code, reason: `${name}: ${err.message.split('\n')[0]?.slice(0, 300) ?? ''}` };
}
