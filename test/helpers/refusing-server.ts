import { createServer } from "node:net";

interface RefusingServer {
  port: number;
  /** `${scheme}://127.0.0.1:${port}${path}` */
  url(scheme: "http" | "https", path?: string): string;
  close(): Promise<void>;
}

/**
 * A loopback port of the test's own where nothing answers: every connection is reset as it is accepted.
 * What "unreachable" needs, without assuming some fixed port (127.0.0.1:1) is closed on this machine.
 */
export async function refusingServer(): Promise<RefusingServer> {
  const server = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    url: (scheme, path = "") => `${scheme}://127.0.0.1:${port}${path}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
