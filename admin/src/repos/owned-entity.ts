import type { ConfigKind } from '@adnet/schemas/changes';
import { forbidden, notFound } from '../errors.ts';
import type { ConfigStore, IndexOp } from '../storage/config-store.ts';

/**
 * One entity the config store holds: its kind and id, the name its 404 gives ("Partner not found"), and, for a
 * publisher's own site or zone, the publisher who must own it (403 for anyone else).
 */
export interface EntityRef {
  kind: ConfigKind;
  id: number;
  label: string;
  owner?: number;
}

export interface EntityChange<T> {
  /** Merged over the stored entity, before a fresh `updated_at`; a function sees the stored entity. */
  patch: Partial<T> | ((current: T) => Partial<T>);
  /** Throws to refuse the merged entity (a 422 of field errors, an illegal transition). */
  check?: (next: T, current: T) => void;
  /** Index changes written in the same atomic step. */
  ops?: (current: T) => IndexOp[];
}

function ownedBy(ref: EntityRef, value: unknown): void {
  if (ref.owner !== undefined && (value as { publisher_id: number }).publisher_id !== ref.owner) throw forbidden();
}

/** The stored entity, or 404; 403 when `ref.owner` is not its publisher. */
export async function loadEntity<T>(store: ConfigStore, ref: EntityRef): Promise<T> {
  const found = await store.read<T>(ref.kind, ref.id);
  if (!found) throw notFound(ref.label);
  ownedBy(ref, found.value);
  return found.value;
}

/**
 * The one read-merge-write of a partner, demand partner, site or zone: 404 when it is gone, 403 when it is not
 * `ref.owner`'s, then the patch merged with a fresh `updated_at`, checked, and committed with its change-log
 * entry (retried on a concurrent write, `ConfigStore.update`).
 */
export function updateEntity<T extends { updated_at: string }>(
  store: ConfigStore,
  ref: EntityRef,
  change: EntityChange<T>,
): Promise<T> {
  return store.update<T>(
    ref.kind,
    ref.id,
    (current) => {
      ownedBy(ref, current);
      const patch = typeof change.patch === 'function' ? change.patch(current) : change.patch;
      const next: T = { ...current, ...patch, updated_at: new Date().toISOString() };
      change.check?.(next, current);
      return { value: next, ops: change.ops?.(current) };
    },
    () => notFound(ref.label),
  );
}

/** The one status switch (enable and disable, pause and resume) of an entity the config store holds. */
export const setEntityStatus = <T extends { updated_at: string; status: string }>(
  store: ConfigStore,
  ref: EntityRef,
  status: T['status'],
): Promise<T> => updateEntity<T>(store, ref, { patch: { status } as Partial<T> });

/** An update input's fields without those left out (`undefined`), as the patch of `updateEntity`. */
export const definedFields = <T>(fields: Partial<T>): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
