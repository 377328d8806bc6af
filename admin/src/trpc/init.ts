import type { Role } from '@adnet/schemas/api';
import { initTRPC } from '@trpc/server';
import type { ZodType } from 'zod';
import { AppError, fieldErrors, forbidden, toHttp, zodFieldErrors } from '../errors.ts';
import { addressSubject } from '../auth/client-address.ts';
import type { Services } from '../services.ts';
import type { Session } from '../storage/tokens.ts';
import { ApiKeyStore } from '../storage/api-keys.ts';
import type { RateDecision } from '../storage/rate-limit.ts';
import { keyAllows, scopesFor } from '../auth/api-key-scopes.ts';
import { clearedSessionCookie, cookieRefusal } from '../auth/session-cookie.ts';
import type { RequestSite } from '../auth/session-cookie.ts';

export interface RequestInfo {
  /** Raw Authorization header, if any. */
  authorization: string | undefined;
  /** The session cookie's token (auth/session-cookie.ts), read on the cabinet's door (/trpc) only. */
  sessionCookie: string | undefined;
  /** What the cookie's CSRF rule looks at. */
  site: RequestSite;
  /** Whether the client reached us over TLS: the session cookie is Secure then. */
  https: boolean;
  /** The client's address, through trusted proxies only (`ADMIN_TRUSTED_PROXIES`). */
  ip: string;
  requestId: string;
}

export interface Context {
  svc: Services;
  req: RequestInfo;
  /** Set-Cookie values for the answer (the tRPC door sends them; REST never sets cookies). */
  setCookies: string[];
}

const t = initTRPC.context<Context>().create({
  // Never a stack trace to clients, whatever NODE_ENV says: the log has it, under the request id.
  isDev: false,
  // tRPC clients get the same machine code, field map and message as REST clients: an unexpected
  // error's own text (a driver's, a bug's) stays in the log.
  errorFormatter({ shape, error, ctx }) {
    const http = toHttp(error);
    const body = http.body;
    return {
      ...shape,
      message: 'error' in body ? body.error : shape.message,
      data: {
        ...shape.data,
        httpStatus: http.status,
        appCode: error instanceof AppError ? error.appCode : 'code' in body ? body.code : 'validation_failed',
        fields: 'errors' in body ? body.errors : undefined,
        retryAfterSeconds: error instanceof AppError ? error.retryAfterSeconds : undefined,
        requestId: ctx?.req.requestId,
      },
    };
  },
});

export const router = t.router;
export const mergeRouters = t.mergeRouters;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure;

const BEARER_RE = /^Bearer\s+(\S+)$/i;

/** The CSRF rule for a request the session cookie would authenticate or sign in (auth/session-cookie.ts). */
export function checkCookieRequest(ctx: Context, changesState: boolean): void {
  const refusal = cookieRefusal(ctx.req.site, changesState, new URL(ctx.svc.config.server.baseUrl).origin);
  if (refusal) throw forbidden(refusal);
}

/**
 * Bearer check (a session token, or an API key by its `adn_` prefix), then the per-token rate limit
 * shared by every instance through Redis; an API key has its own limit and reaches only the procedures
 * its scopes allow (auth/api-key-scopes.ts), the same through REST and tRPC. Without the header, the
 * cabinet's session cookie stands in, under the CSRF rule; it holds session tokens only, never a key.
 */
export const authedProcedure = t.procedure.use(async ({ ctx, next, path, type }) => {
  const fromHeader = ctx.req.authorization !== undefined;
  const match = BEARER_RE.exec(ctx.req.authorization ?? '');
  const bearer = fromHeader ? match?.[1] : ctx.req.sessionCookie;
  if (!bearer) throw new AppError('unauthorized', 'Missing bearer token');
  if (!fromHeader) checkCookieRequest(ctx, type !== 'query');
  let session: Session;
  let rate: RateDecision;
  if (fromHeader && ApiKeyStore.looksLikeKey(bearer)) {
    const check = await ctx.svc.apiKeys.check(bearer);
    if (!check.ok) throw new AppError('unauthorized', 'Invalid or revoked API key');
    const { key } = check;
    if (!keyAllows(key.scopes, path, type)) {
      const needs = scopesFor(path, type);
      throw forbidden(
        needs.length === 0
          ? 'API keys cannot use this path; sign in with a password'
          : `This API key's scopes do not allow this path; it needs ${needs.join(' or ')}`,
      );
    }
    session = {
      tokenId: `key:${key.keyId}`,
      userId: key.userId,
      role: key.role,
      expiresAt: Number.MAX_SAFE_INTEGER,
      apiKey: { id: key.keyId, scopes: key.scopes },
    };
    rate = await ctx.svc.limiter.take(`key:${key.keyId}`, ctx.svc.config.admin.apiKeyRateLimitPerMin, 60_000);
  } else {
    const check = await ctx.svc.tokens.check(bearer);
    if (!check.ok) {
      // A dead cookie goes, so the browser stops sending it.
      if (!fromHeader) ctx.setCookies.push(clearedSessionCookie(ctx.req.https));
      throw check.reason === 'expired'
        ? new AppError('token_expired', 'Token expired; request a new one')
        : new AppError('unauthorized', 'Invalid token');
    }
    session = check.session;
    rate = await ctx.svc.limiter.take(`tok:${session.tokenId}`, ctx.svc.config.admin.apiRateLimitPerMin, 60_000);
  }
  if (!rate.allowed) {
    throw new AppError('rate_limited', 'Rate limit exceeded', { retryAfterSeconds: rate.retryAfterSeconds });
  }
  return next({ ctx: { ...ctx, session, viaCookie: !fromHeader } });
});

export type AuthedContext = Context & { session: Session; viaCookie: boolean };

export function roleProcedure(role: Role) {
  return authedProcedure.use(({ ctx, next }) => {
    if (ctx.session.role !== role) throw forbidden(`This route is for ${role} accounts`);
    return next();
  });
}

/**
 * Checks the raw input against a schema made from this process's configuration (deposit bounds, what
 * an endpoint may be) before the procedure's own input schema, the documented shape, which it only
 * narrows: one 400 names every invalid field, the configured checks among them.
 */
export function configuredInput(schemaOf: (config: Services['config']) => ZodType) {
  const made = new WeakMap<Services['config'], ZodType>();
  return t.middleware(async ({ ctx, getRawInput, next }) => {
    let schema = made.get(ctx.svc.config);
    if (!schema) made.set(ctx.svc.config, (schema = schemaOf(ctx.svc.config)));
    const parsed = schema.safeParse(await getRawInput());
    if (!parsed.success) throw fieldErrors(zodFieldErrors(parsed.error));
    return next();
  });
}

/** Per-address limit for the routes that take no token (sign-in, sign-up): the real client's, behind trusted proxies. */
export const ipLimitedProcedure = t.procedure.use(async ({ ctx, next }) => {
  const rate = await ctx.svc.limiter.take(
    `ip:${addressSubject(ctx.req.ip)}`,
    ctx.svc.config.admin.authRateLimitPerMin,
    60_000,
  );
  if (!rate.allowed)
    throw new AppError('rate_limited', 'Too many attempts', { retryAfterSeconds: rate.retryAfterSeconds });
  return next();
});
