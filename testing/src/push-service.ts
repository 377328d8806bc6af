import { execFileSync } from 'node:child_process';
import { createDecipheriv, createECDH, hkdfSync, randomBytes } from 'node:crypto';
import type { ECDH } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a push service received: one POST of our sender, encrypted (RFC 8291, aes128gcm). */
export interface ReceivedPush {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A stand-in for a browser push service (the Web Push protocol, RFC 8030): HTTPS with a self-signed
 * certificate (the engine trusts it through PUSH_CA_FILE); a POST to a path under /gone answers 410, as a
 * push service does for a subscription that no longer exists, every other one 201. It also plays the
 * browser's side: each subscription it hands out has its own P-256 key pair and auth secret, so the test
 * can decrypt what was sent to it.
 */
export class PushServiceStub {
  private readonly keys = new Map<string, { ecdh: ECDH; auth: Buffer }>();

  readonly received: ReceivedPush[];
  private readonly listeners: ((p: ReceivedPush) => void)[];

  private constructor(
    private readonly server: Server,
    readonly base: string,
    /** The stub's certificate, for PUSH_CA_FILE. */
    readonly caFile: string,
    /** The lists its server writes to: what it received, and who wants to hear of it. */
    heard: { received: ReceivedPush[]; listeners: ((p: ReceivedPush) => void)[] },
  ) {
    this.received = heard.received;
    this.listeners = heard.listeners;
  }

  /** Calls `fn` with each message, after it is recorded and answered. */
  onPush(fn: (p: ReceivedPush) => void): void {
    this.listeners.push(fn);
  }

  static async start(): Promise<PushServiceStub> {
    const dir = mkdtempSync(join(tmpdir(), 'push-'));
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    const subject = ['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'];
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', ...subject],
      { stdio: 'ignore' },
    );
    const received: ReceivedPush[] = [];
    const listeners: ((p: ReceivedPush) => void)[] = [];
    const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const p = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
        received.push(p);
        res.writeHead(req.url?.startsWith('/gone') ? 410 : 201).end();
        for (const fn of listeners) fn(p);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return new PushServiceStub(server, `https://127.0.0.1:${(server.address() as AddressInfo).port}`, cert, {
      received,
      listeners,
    });
  }

  /** A browser's PushSubscription JSON for an endpoint at `path` on this service. */
  subscription(path: string): { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } } {
    const ecdh = createECDH('prime256v1');
    const auth = randomBytes(16);
    this.keys.set(path, { ecdh, auth });
    return {
      endpoint: `${this.base}${path}`,
      expirationTime: null,
      keys: { p256dh: ecdh.generateKeys().toString('base64url'), auth: auth.toString('base64url') },
    };
  }

  /** What a browser does with a message sent to `path` (RFC 8291, aes128gcm): its plaintext. */
  decrypt(path: string, body: Buffer): string {
    const { ecdh, auth } = this.keys.get(path) as { ecdh: ECDH; auth: Buffer };
    const salt = body.subarray(0, 16);
    const idLen = body.readUInt8(20);
    const serverKey = body.subarray(21, 21 + idLen);
    const sealed = body.subarray(21 + idLen);
    const info = Buffer.concat([Buffer.from('WebPush: info\0'), ecdh.getPublicKey(), serverKey]);
    const ikm = Buffer.from(hkdfSync('sha256', ecdh.computeSecret(serverKey), auth, info, 32));
    const key = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
    const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
    const decipher = createDecipheriv('aes-128-gcm', key, nonce);
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
    // The last record ends with the delimiter 0x02 and any padding after it.
    return plain.subarray(0, plain.lastIndexOf(2)).toString('utf8');
  }

  close(): void {
    this.server.close();
  }
}
