import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Lab } from '../support/lab';
import { seedEdges } from '../support/lab-stories';

describe("the lab's caddy, as the controller runs it on a host", () => {
  let lab: Lab;
  before(async () => {
    lab = await Lab.story();
  });

  it("stops on SIGTERM (exit 0) instead of ignoring it and being killed after Docker's 10 s", async () => {
    await seedEdges(lab, ['novox']);
    const engine = lab.engine('novox');
    const [caddy] = await engine.listByLabels({ 'org.meshctl.module': 'caddy' });
    assert.ok(caddy, 'the controller runs caddy on novox');
    await engine.stop(caddy.Id, 10);
    const stopped = await engine.inspect(caddy.Id);
    assert.equal(stopped?.State.Running, false);
    assert.equal(
      stopped?.State.ExitCode,
      0,
      'exit 137 is the SIGKILL after the stop timeout: the shell as PID 1 ignored SIGTERM',
    );
  });
});
