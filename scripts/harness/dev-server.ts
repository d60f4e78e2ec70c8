import { TestWorkflowEnvironment } from '@temporalio/testing';
import { ephemeralDevServer } from '../../worker/ephemeral-dev-server';

export interface HarnessServer {
  temporal: TestWorkflowEnvironment;
  /** The environment a test file finds it by. */
  env: { TEMPORAL_ADDRESS: string; TEMPORAL_NAMESPACE: string; TEMPORAL_UI_URL: string };
}

/**
 * A dev server with its Web UI, on ports `pickPort` hands out (the harness's own range). Picking a free
 * port and binding it are two steps, so another process can take the port between them: try again on
 * fresh ports.
 */
export async function startDevServer(pickPort: () => Promise<number>, attempts = 3): Promise<HarnessServer> {
  for (let attempt = 1; ; attempt++) {
    const [port, uiPort] = [await pickPort(), await pickPort()];
    try {
      const temporal = await TestWorkflowEnvironment.createLocal({
        server: ephemeralDevServer({ port, uiPort }),
      });
      const env = {
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_NAMESPACE: 'default',
        TEMPORAL_UI_URL: `http://127.0.0.1:${uiPort}`,
      };
      return { temporal, env };
    } catch (error) {
      if (attempt >= attempts) throw error;
      process.stderr.write(`harness: the dev server did not start (${String(error).slice(0, 120)}); again\n`);
    }
  }
}
