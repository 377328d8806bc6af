import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError, toHttp } from './errors.ts';

const zodError = z.object({ secret_field: z.string() }).safeParse({}).error;

describe('toHttp', () => {
  it('answers input validation with every field, an output that fails its schema with a plain 500', () => {
    expect(toHttp(new TRPCError({ code: 'BAD_REQUEST', cause: zodError })).status).toBe(400);
    const output = toHttp(
      new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'Output validation failed', cause: zodError }),
    );
    expect(output).toEqual({ status: 500, body: { error: 'Internal server error', code: 'internal' }, headers: {} });
  });

  it('keeps the words of errors meant for clients and hides every other', () => {
    expect(toHttp(new AppError('not_found', 'Campaign not found')).body).toEqual({
      error: 'Campaign not found',
      code: 'not_found',
    });
    expect(toHttp(new Error('connect ECONNREFUSED 10.0.0.5:6379')).body).toEqual({
      error: 'Internal server error',
      code: 'internal',
    });
  });
});
