import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

export interface TestNginx {
  base: string;
  stop(): Promise<void>;
}

/**
 * Debian's nginx as the load balancer in front of engines: round robin,
 * keep-alive to the upstreams, and X-Forwarded-For as a deployment sets it.
 */
export async function startNginx(port: number, upstreams: string[]): Promise<TestNginx> {
  if (!NGINX) throw new Error('nginx is not installed (apt-get install nginx-light)');
  const dir = mkdtempSync(join(tmpdir(), 'adnet-nginx-'));
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream engines {
${upstreams.map((u) => `    server ${u};`).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://engines;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }
  }
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${err}`);
    if (
      await fetch(`${base}/engine/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 200) throw new Error(`nginx did not answer: ${err}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    base,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGQUIT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
