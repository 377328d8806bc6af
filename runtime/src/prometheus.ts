import { Registry, collectDefaultMetrics } from 'prom-client';

export type MetricsService = 'admin' | 'engine';

/**
 * A registry of the service's own, never prom-client's global one: tests run several admins and engines in
 * one process, and each must expose only its own counts.
 */
export function serviceRegistry(defaultLabels?: Record<string, string>): Registry {
  const registry = new Registry();
  if (defaultLabels) registry.setDefaultLabels(defaultLabels);
  return registry;
}

/**
 * CPU, memory, event-loop lag and GC, named after the service. Only where the process serves its metrics:
 * these describe the process, so a second registry in the same process would repeat them.
 */
export function collectProcessMetrics(registry: Registry, service: MetricsService): void {
  collectDefaultMetrics({ register: registry, prefix: `adnet_${service}_` });
}
