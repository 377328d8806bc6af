import { errorBodySchema, validationErrorBodySchema } from '@adnet/schemas/api';
import { LANDING_MACROS } from '@adnet/schemas/landing-macros';
import { z } from 'zod';
import { appRouter } from '../trpc/router.ts';
import { REST_ROUTES } from './rest-routes.ts';
import type { RestRoute } from './rest-routes.ts';

interface ProcedureDef {
  _def: { inputs?: unknown[]; output?: unknown };
}

function jsonSchema(schema: unknown, io: 'input' | 'output'): Record<string, unknown> | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  try {
    return z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'openapi-3.0' });
  } catch {
    return undefined;
  }
}

const errorResponse = (description: string, schema: z.ZodType = errorBodySchema) => ({
  description,
  content: { 'application/json': { schema: jsonSchema(schema, 'output') } },
});

const queryParameters = (input: Record<string, unknown> | undefined) =>
  Object.entries((input?.properties as Record<string, unknown> | undefined) ?? {}).map(([name, schema]) => ({
    name,
    in: 'query',
    required: false,
    schema,
  }));

/** A `form` route: its fields as the query (GET) or a url-encoded body (POST), and the headers that may stand in for some. */
function formInput(
  route: RestRoute,
  input: Record<string, unknown> | undefined,
): { parameters: unknown[]; requestBody?: unknown } {
  const properties = (input?.properties as Record<string, unknown> | undefined) ?? {};
  const headers = Object.entries(route.headerFields ?? {}).map(([field, name]) => ({
    name,
    in: 'header',
    required: false,
    description: `Instead of the field ${field} (wins over it)`,
    schema: properties[field] ?? { type: 'string' },
  }));
  if (route.method === 'GET') return { parameters: [...queryParameters(input), ...headers] };
  return {
    parameters: headers,
    requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: input ?? {} } } },
  };
}

/** A path parameter is a positive integer id, unless the procedure takes it as a string (a deal id). */
function pathParamSchema(input: Record<string, unknown> | undefined, name: string): Record<string, unknown> {
  const own = (input?.properties as Record<string, Record<string, unknown>> | undefined)?.[name];
  return own?.type === 'string' ? own : { type: 'integer', minimum: 1 };
}

/**
 * OpenAPI 3 for the REST paths, generated from the same route table and zod
 * schemas that serve them, so it cannot drift from the code.
 */
export function buildOpenApi(baseUrl: string): Record<string, unknown> {
  const procedures = (appRouter._def as unknown as { procedures: Record<string, ProcedureDef> }).procedures;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of REST_ROUTES) {
    const def = procedures[route.procedure]?._def;
    const params = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
    const input = jsonSchema(def?.inputs?.[0], 'input');
    const op: Record<string, unknown> = {
      operationId: route.procedure,
      summary: route.summary,
      security: route.auth === false ? [] : [{ bearer: [] }],
      parameters: params.map((name) => ({
        name,
        in: 'path',
        required: true,
        schema: route.textParams?.[name] ?? pathParamSchema(input, name),
      })),
      responses: {
        [String(route.status ?? 200)]: {
          description: 'Success',
          content: {
            ...(route.rendersAs === 'text/html'
              ? {}
              : { 'application/json': { schema: jsonSchema(def?.output, 'output') ?? {} } }),
            ...(route.rendersAs ? { [route.rendersAs]: { schema: { type: 'string' } } } : {}),
          },
        },
        400: errorResponse('Validation failed: every invalid field by name', validationErrorBodySchema),
        ...(route.auth === false
          ? {}
          : {
              401: errorResponse('Missing, invalid or expired token'),
              403: errorResponse("Wrong role or another account holder's resource"),
            }),
        ...(params.length ? { 404: errorResponse('No such resource') } : {}),
        409: errorResponse('Conflict (illegal state move, a resource already there)'),
        429: errorResponse('Rate limited; see the Retry-After header'),
        ...(route.paid
          ? {
              402: errorResponse('The balance cannot cover the operation'),
              502: errorResponse('The outside provider failed; nothing charged'),
            }
          : {}),
        ...Object.fromEntries(
          Object.entries(route.answers ?? {}).map(([status, description]) => [status, errorResponse(description)]),
        ),
      },
    };
    if (route.input === 'json' && input) {
      const props = { ...((input.properties as Record<string, unknown> | undefined) ?? {}) };
      for (const p of params) delete props[p];
      const required = ((input.required as string[] | undefined) ?? []).filter((r) => !params.includes(r));
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: { ...input, properties: props, required } } },
      };
    }
    if (route.input === 'query') (op.parameters as unknown[]).push(...queryParameters(input));
    if (route.input === 'form') {
      const form = formInput(route, input);
      (op.parameters as unknown[]).push(...form.parameters);
      if (form.requestBody) op.requestBody = form.requestBody;
    }
    if (route.input === 'multipart') {
      op.requestBody = {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['landing_url'],
              properties: {
                title: { type: 'string', maxLength: 60 },
                body: { type: 'string', maxLength: 150 },
                landing_url: {
                  type: 'string',
                  format: 'uri',
                  description: `May contain, after the host, the macros ${LANDING_MACROS.map((m) => `{${m}}`).join(', ')}; each is URL-encoded when filled in at the click`,
                },
                image: {
                  type: 'string',
                  format: 'binary',
                  description: 'PNG, JPEG, GIF or WebP; not for video formats',
                },
                video_url: { type: 'string', format: 'uri', description: 'video and floating_video only' },
                duration_s: {
                  type: 'integer',
                  minimum: 1,
                  maximum: 600,
                  description:
                    "video and floating_video only: the video's length in seconds (VAST Duration, OpenRTB min/maxduration); default 30",
                },
                cta_text: { type: 'string', maxLength: 20 },
                orientation: { type: 'string', enum: ['vertical', 'horizontal', 'square'] },
              },
            },
          },
        },
      };
    }
    const openApiPath = route.path;
    paths[openApiPath] = { ...(paths[openApiPath] ?? {}), [route.method.toLowerCase()]: op };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Ad network admin API',
      version: '1.0.0',
      description: 'See /docs/api for rules, states and limits.',
    },
    servers: [{ url: baseUrl }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'Token from POST /api/auth/token, shaped <id>|<opaque>',
        },
      },
    },
    paths,
  };
}
