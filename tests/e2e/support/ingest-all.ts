import type { TestApp } from './admin.ts';
import type { Engine } from '../../../engine/src/engine.ts';
import { eventually } from './engine.ts';

/** Flushes the engines' events and waits until the admin's own ingester has drained the stream into ClickHouse. */
export async function ingestAll(app: TestApp, engines: Engine[]): Promise<void> {
  const ingester = app.admin.ingester;
  if (!ingester) throw new Error("ingestAll needs an admin that runs its ingester (parts: ['ingester'])");
  await Promise.all(engines.map((e) => e.events.flush()));
  await eventually(async () => {
    const bl = await ingester.backlog();
    return bl.lag === 0 && bl.pending === 0;
  }, 20_000);
}
