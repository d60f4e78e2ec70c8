export { planReaderFrom, type PlanReader } from './reader';
export { nodeOutcomeLines, planAsLines } from './render';
