/** Labels on every container mesh creates, so a retried or later step finds what an earlier one made. */
export const LABEL = {
  node: 'mesh.node',
  module: 'mesh.module',
  container: 'mesh.container',
  specHash: 'mesh.spec-hash',
  /** On images: which rebuild produced this image id. */
  build: 'mesh.build',
  /** On the throwaway container an image rebuild commits from. */
  buildTemp: 'mesh.build-temp',
} as const;

/** The local base image (busybox with every applet). Never pulled: it is built on this machine. */
export const BASE_IMAGE = 'mesh-local/busybox:latest';
