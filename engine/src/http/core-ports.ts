import type { TicketPorts } from '../auction/count-ticket.ts';
import { settlePorts } from '../context.ts';
import type { EngineContext } from '../context.ts';

/** What counting tickets needs of the engine, built once per route (the context's members never change). */
export const ticketPorts = (ctx: EngineContext): TicketPorts => ({
  ...settlePorts(ctx),
  counters: ctx.counters,
  engineId: ctx.engineId,
});
