import { probePublicNames } from '../../../activities/probes';
import { startRunbook } from '../../../client/start-runbook';
import { seedEdgeScenario } from '../../../mesh/local/scenarios/edge-flip-incident';
import { edgeFlip } from '../../../workflows';
import { EdgeFlipInput, type EdgeFlipInputArg } from '../../../workflows/contracts';
import { say, type DemoRunbook, type DemoStory } from './story';

/** The novox incident: an adopted node, leftovers of a rolled-back attempt, route-proxy not taken. */
export const edgeFlipDemo: DemoStory = {
  kind: 'edge-flip',
  defaultNode: 'novox',
  async seed(mesh, node, port) {
    const [publicPort, stagingPort] = [await port(18080), await port(18081)];
    say(
      `seeding adopted node ${node}: caddy serves the public names on 127.0.0.1:${publicPort}; route-proxy (3 containers) is defined;`,
    );
    say(
      'a rolled-back first attempt left /var/lib/route-proxy/{www,ca,dns} on disk, and route-proxy is not taken',
    );
    const options = {
      node,
      predecessor: 'caddy',
      successor: 'route-proxy',
      publicPort,
      stagingPort,
      leftovers: true,
    };
    const scenario = await seedEdgeScenario(mesh, options);
    return edgeFlipRunbook({
      node,
      module: 'route-proxy',
      predecessor: 'caddy',
      ...scenario,
      startedBy: 'demo',
    });
  },
  reopen: (recorded) => edgeFlipRunbook(EdgeFlipInput.parse(recorded)),
};

function edgeFlipRunbook(input: EdgeFlipInputArg): DemoRunbook {
  return {
    node: input.node,
    input,
    start: (client, taskQueue) => startRunbook(client, edgeFlip, input, { taskQueue }),
    async finale() {
      const { publicAddress, publicNames, successorMarker: marker } = input;
      const results = await probePublicNames({
        address: publicAddress,
        names: publicNames,
        expectStatus: 200,
        marker,
        timeoutMs: 3_000,
      });
      for (const result of results) {
        const answer =
          result.error ??
          `status ${result.status}${result.markerFound ? `, ${marker}` : ', not by the successor'}`;
        say(`${result.name} on ${publicAddress}: ${answer}`);
      }
    },
  };
}
