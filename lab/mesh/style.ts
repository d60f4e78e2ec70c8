import { hostPathOnNode, type HouseStyle } from '../../docker/placement';
import type { ContainerLabels } from '../../docker/container-labels';

/**
 * How the lab's controller labels its containers: its own keys, none of the local mesh's, and no node label
 * (every host has an engine of its own). The runbook finds them only through these, as its config says.
 */
export const MESHCTL_LABELS: ContainerLabels = {
  module: 'org.meshctl.module',
  container: 'org.meshctl.unit',
};

const MANAGED_BY = 'org.meshctl.managed-by';
const MEMORY_LIMIT = 256 * 1024 * 1024;

/**
 * Names like compose's (`<module>_<unit>_1`, the same on every host), the node's name in MESHCTL_NODE, a
 * restart policy, a memory limit and capped logs: what a real controller sets and a container made behind
 * its back would lack.
 */
export const MESHCTL_STYLE: HouseStyle = {
  labels: MESHCTL_LABELS,
  placement: (node, hostRoot, module, container) => ({
    name: `${module}_${container}_1`,
    labels: { [MESHCTL_LABELS.module]: module, [MESHCTL_LABELS.container]: container, [MANAGED_BY]: 'meshd' },
    hostPath: (specPath) => hostPathOnNode(hostRoot, specPath),
    env: { MESHCTL_NODE: node },
    hostConfig: {
      RestartPolicy: { Name: 'unless-stopped' },
      Memory: MEMORY_LIMIT,
      LogConfig: { Type: 'json-file', Config: { 'max-size': '5m', 'max-file': '2' } },
    },
  }),
};
