import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.ts';
import type { Context } from '../trpc/init.ts';
import { createCaller } from '../trpc/router.ts';
import { parseJsonObject, parseMultipart, readBody } from './body.ts';
import { REST_ROUTES, compileRoutes, matchPath } from './rest-routes.ts';
import type { CompiledRoute } from './rest-routes.ts';

const ROUTES = compileRoutes(REST_ROUTES);
const JSON_LIMIT = 256 * 1024;
/** A tracker's handful of fields. */
const FORM_LIMIT = 16 * 1024;

export interface RestResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

type Callable = (input: unknown) => Promise<unknown>;

/** Walks the caller proxy to a procedure by its dotted path. */
function procedureAt(caller: unknown, path: string): Callable {
  let node = caller as Record<string, unknown>;
  for (const key of path.split('.')) node = node[key] as Record<string, unknown>;
  return node as unknown as Callable;
}

/** The first value of each field (as URLSearchParams.get reads it), then the headers that stand in for fields. */
function formFields(form: URLSearchParams, req: IncomingMessage, route: CompiledRoute): Record<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of form) if (!fields.has(name)) fields.set(name, value);
  for (const [name, header] of Object.entries(route.headerFields ?? {})) {
    const value = req.headers[header];
    if (typeof value === 'string') fields.set(name, value);
  }
  return Object.fromEntries(fields);
}

/** `multipartLimit`: the image limit plus room for the text parts and multipart framing (config.adminBodyMaxBytes). */
async function buildInput(
  req: IncomingMessage,
  route: CompiledRoute,
  { url, params, multipartLimit }: { url: URL; params: Record<string, string>; multipartLimit: number },
): Promise<unknown> {
  const hasParams = Object.keys(params).length > 0;
  switch (route.input) {
    case 'json': {
      const type = (req.headers['content-type'] ?? '').toLowerCase();
      const body = await readBody(req, JSON_LIMIT);
      if (body.length > 0 && !type.startsWith('application/json')) {
        throw new AppError('unsupported_media_type', 'Send the body as application/json');
      }
      return { ...parseJsonObject(body), ...params };
    }
    case 'query': {
      const query = Object.fromEntries(url.searchParams);
      if (route.csvByAccept && query.format === undefined && /\btext\/csv\b/i.test(req.headers.accept ?? ''))
        query.format = 'csv';
      return { ...query, ...params };
    }
    case 'multipart': {
      const type = req.headers['content-type'] ?? '';
      if (!type.toLowerCase().startsWith('multipart/form-data')) {
        throw new AppError('unsupported_media_type', 'Send the creative as multipart/form-data');
      }
      const form = await parseMultipart(await readBody(req, multipartLimit), type);
      for (const [k, v] of Object.entries(params)) form.set(k, v);
      return form;
    }
    case 'form': {
      // Trackers send the body with whatever content type they like; it is read as url-encoded regardless.
      const form =
        req.method === 'GET'
          ? url.searchParams
          : new URLSearchParams((await readBody(req, FORM_LIMIT)).toString('utf8'));
      return { ...formFields(form, req, route), ...params };
    }
    default:
      return hasParams ? params : undefined;
  }
}

/** Answers a `/api/...` request, or returns undefined when no route has that path. */
export async function handleRest(req: IncomingMessage, url: URL, ctx: Context): Promise<RestResult | undefined> {
  const parts = url.pathname.split('/').filter(Boolean);
  const allowed: string[] = [];
  for (const route of ROUTES) {
    const params = matchPath(route, parts);
    if (!params) continue;
    if (route.method !== req.method) {
      allowed.push(route.method);
      continue;
    }
    const input = await buildInput(req, route, { url, params, multipartLimit: ctx.svc.config.adminBodyMaxBytes });
    const body = await procedureAt(createCaller(ctx), route.procedure)(input);
    const rendered = route.render?.(body);
    if (rendered)
      return { status: route.status ?? 200, body: rendered.text, headers: { 'content-type': rendered.type } };
    return { status: route.status ?? 200, body };
  }
  if (allowed.length > 0) {
    const err = new AppError('method_not_allowed', `Use ${allowed.join(' or ')} on this path`);
    throw Object.assign(err, { allow: allowed.join(', ') });
  }
  return undefined;
}
