/** The gate's verdict: typed evidence in, one verdict out. Bundle-safe: zod and mesh schemas only. */
export { classify } from './classify';
export * from './evidence';
export * from './types';
