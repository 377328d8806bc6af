// The transport's limit: a bare uWS app that reads the body and answers 204, run in the same benchmark as the engine.
import { loadNativeUws } from '@adnet/engine/uws';

const uws = loadNativeUws();
const port = Number(process.env.PORT ?? 0);
uws
  .App()
  .post('/openrtb/bid', (res) => {
    res.onAborted(() => undefined);
    res.onData((_chunk, isLast) => {
      if (isLast) res.cork(() => res.writeStatus('204 No Content').end());
    });
  })
  // The widget's paths (GET /imp, /c, /b): the same empty answer, for the closed-loop runs (run-wrk.ts).
  .get('/*', (res) => {
    res.onAborted(() => undefined);
    res.cork(() => res.writeStatus('204 No Content').end());
  })
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) process.exit(1);
    process.send?.({ type: 'listening', port: uws.us_socket_local_port(socket) });
  });
