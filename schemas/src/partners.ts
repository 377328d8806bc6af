import { isIP } from 'node:net';
import { z } from 'zod';
import { idSchema } from './api.ts';

/** An IPv4/IPv6 address or a CIDR block (`203.0.113.0/24`, `2001:db8::/32`). */
export function isAddressOrCidr(value: string): boolean {
  const [addr = '', prefix, extra] = value.split('/');
  const family = isIP(addr);
  if (!family || extra !== undefined) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

const allowedIps = z
  .array(z.string().trim().refine(isAddressOrCidr, 'must be an IP address or CIDR block'))
  .min(1, 'must list at least one address')
  .max(1000)
  .transform((a) => [...new Set(a)]);

/**
 * Which notice from the partner bills an impression: the win notice (`nurl`, the default), or the
 * billing notice (`burl`, OpenRTB 2.5 §4.2.3) for exchanges that call it once the ad is rendered.
 */
export const BILLING_NOTICES = ['nurl', 'burl'] as const;
const billingNotice = z.enum(BILLING_NOTICES, { error: 'must be nurl or burl' });

export const partnerCreateInputSchema = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  allowed_ips: allowedIps,
  qps_limit: z
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(1_000_000, 'must be at most 1000000')
    .default(100),
  billing_notice: billingNotice.default('nurl'),
});
export const partnerUpdateInputSchema = z.object({
  id: idSchema,
  name: partnerCreateInputSchema.shape.name.optional(),
  allowed_ips: allowedIps.optional(),
  qps_limit: z.number().int('must be an integer').min(1).max(1_000_000).optional(),
  billing_notice: billingNotice.optional(),
});

export const PARTNER_STATUSES = ['active', 'disabled'] as const;
export const partnerSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  allowed_ips: z.array(z.string()),
  qps_limit: z.number().int(),
  // Partners stored before billing notices existed have none: they bill by the win notice.
  billing_notice: billingNotice.default('nurl'),
  status: z.enum(PARTNER_STATUSES),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Partner = z.infer<typeof partnerSchema>;
