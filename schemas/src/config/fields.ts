import { z } from 'zod';
import { isAddressOrCidr } from '../partners.ts';

// The field kinds several slices share, and the two helpers their transforms use.

export const list = (v: string): string[] =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

export const port = z.coerce.number().int().min(1).max(65_535);
export const bool = z.stringbool();
export const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier');

/** Addresses or CIDR blocks, comma-separated, with their default. */
export const addressList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((v) => list(v).every(isAddressOrCidr), 'must be IP addresses or CIDR blocks, comma-separated');

export const trimUrl = (url: string): string => url.replace(/\/+$/, '');

/** A check across a slice's variables, reported under the variable `name` like any other problem. */
export function problem(ctx: z.core.$RefinementCtx, name: string, message: string): void {
  ctx.addIssue({ code: 'custom', message, path: [name] });
}
