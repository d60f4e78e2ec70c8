/** The gate's verdict: typed evidence in, one verdict out. Bundle-safe: zod and mesh schemas only. */
export { classify } from './classify';
export { containerLook, firstChange } from './container-look';
export * from './evidence';
export * from './types';
