import { describe, expect, it } from 'vitest';
import { demandPartnerInputSchemas } from './demand.ts';

describe('demand partner input', () => {
  const fields = { name: 'dsp', formats: ['banner'] };
  const endpointError = (schema: ReturnType<typeof demandPartnerInputSchemas>['create'], endpoint: string) => {
    const r = schema.safeParse({ ...fields, endpoint });
    return r.success ? undefined : r.error.issues.find((i) => i.path[0] === 'endpoint')?.message;
  };

  it('takes https only, and http on loopback only where the process allows it', () => {
    const strict = demandPartnerInputSchemas({ allowLoopback: false }).create;
    const loose = demandPartnerInputSchemas({ allowLoopback: true }).create;
    expect(endpointError(strict, 'https://dsp.example/bid')).toBeUndefined();
    for (const e of [
      'http://dsp.example/bid',
      'http://127.0.0.1:9/bid',
      'http://localhost/bid',
      'ftp://dsp.example/',
      'https://u:p@dsp.example/',
      'not a url',
    ])
      expect(endpointError(strict, e), e).toBe('must be an https URL without credentials or fragment');
    expect(endpointError(loose, 'http://127.0.0.1:9/bid')).toBeUndefined();
    expect(endpointError(loose, 'http://[::1]:9/bid')).toBeUndefined();
    expect(endpointError(loose, 'http://dsp.example/bid')).toBe('must be an https URL without credentials or fragment');
  });

  it('reports the endpoint with every other invalid field', () => {
    const r = demandPartnerInputSchemas({ allowLoopback: false }).update.safeParse({
      id: 1,
      endpoint: 'http://dsp.example/',
      qps_limit: 0,
      formats: [],
    });
    expect(r.success ? [] : r.error.issues.map((i) => i.path.join('.')).sort()).toEqual([
      'endpoint',
      'formats',
      'qps_limit',
    ]);
  });
});
