import { isDeepStrictEqual } from 'node:util';
import type { ConfigKind } from '@adnet/schemas/changes';
import type { ConfigState } from '../index/engine-index.ts';
import type { ConfigChange } from '../index/index-update.ts';

/**
 * The changes that turn the mirror's `state` into a fresh snapshot's `entities`: a put for each entity that is
 * new or differs, a delete for each one gone. A running engine applies them through the incremental update
 * (index-update.ts) instead of rebuilding every candidate; unchanged entities keep the objects the index was
 * built from. Answers undefined when the changes outnumber `fullShare` of the entities (both sides counted) (a Redis that came back
 * empty, a mass import): a full build is then the cheaper way. `pause` is awaited every 100 entities.
 */
export async function snapshotChanges(
  state: ConfigState,
  entities: Readonly<Record<ConfigKind, ReadonlyMap<number, unknown>>>,
  fullShare: number,
  pause?: () => Promise<void>,
): Promise<ConfigChange[] | undefined> {
  const changes: ConfigChange[] = [];
  let total = 0;
  let seen = 0;
  for (const kind of Object.keys(entities) as ConfigKind[]) {
    const now = entities[kind];
    const before = state[kind] ?? new Map<number, unknown>();
    total += now.size + before.size;
    for (const [id, value] of now) {
      if (pause && ++seen % 100 === 0) await pause();
      const old = before.get(id);
      if (old === undefined || !isDeepStrictEqual(old, value)) changes.push({ kind, id, op: 'put', value });
    }
    for (const id of before.keys()) if (!now.has(id)) changes.push({ kind, id, op: 'del' });
  }
  return changes.length > fullShare * Math.max(total, 1) ? undefined : changes;
}
