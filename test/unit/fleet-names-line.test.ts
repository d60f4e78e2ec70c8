import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { namesLine } from '../../workflows/fleet/nodes';

describe("a fleet's outcome names its nodes in a line an operator reads", () => {
  it('names every one of ten, and the first five, the last two and the count of a thousand', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `edge${i}`);
    assert.equal(namesLine(ten), ten.join(', '));
    const thousand = Array.from({ length: 1_000 }, (_, i) => `edge${i}`);
    assert.equal(namesLine(thousand), '1000 nodes: edge0, edge1, edge2, edge3, edge4, …, edge998, edge999');
  });
});
