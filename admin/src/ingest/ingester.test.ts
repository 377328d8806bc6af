import { describe, expect, it } from 'vitest';
import { eventInsertSettings } from './ingester.ts';

describe('eventInsertSettings', () => {
  const dedup = {
    insert_deduplication_token: 't',
    deduplicate_blocks_in_dependent_materialized_views: 1,
    optimize_on_insert: 0,
  };

  it('deduplicates by the batch token, in the events table and the views it feeds', () => {
    expect(eventInsertSettings('t', false)).toEqual(dedup);
  });

  it('inserts synchronously through a Distributed events table (CLICKHOUSE_CLUSTER)', () => {
    expect(eventInsertSettings('t', true)).toEqual({ ...dedup, insert_distributed_sync: 1 });
  });
});
