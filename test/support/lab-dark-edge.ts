import { getWithHost } from '../../activities/probes/http-get';
import type { ModuleSpecInput } from '../../mesh/schemas';
import type { Lab } from './lab';
import { PUBLIC_NAMES, PUBLIC_PORT, ROUTE_PROXY } from './lab-stories';

/** route-proxy that answers on its staging port but never takes the public port: the names go dark. */
export const STAGING_ONLY: ModuleSpecInput = {
  ...ROUTE_PROXY,
  containers: (ROUTE_PROXY.containers ?? []).map((c) =>
    c.name === 'edge'
      ? {
          ...c,
          command: [
            'sh',
            '-c',
            'mkdir -p /www && echo "served by route-proxy on $MESHCTL_NODE." > /www/index.html && exec httpd -f -p 0.0.0.0:8081 -h /www',
          ],
        }
      : c,
  ),
};

/** The first moment the node's public address answers with `marker`, polling every 50 ms. */
export async function servedWith(
  lab: Lab,
  node: string,
  marker: string,
  timeoutMs: number,
): Promise<number | undefined> {
  const address = new URL(`http://${lab.host(node).ip}:${PUBLIC_PORT}`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const answer = await getWithHost(address, PUBLIC_NAMES[0] ?? '', 1_000, true);
    if ('body' in answer && answer.body.includes(marker)) return Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}
