import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { Name } from '../../mesh/schemas';
import { firstIssue, firstIssueText } from '../../base/zod-issue';

function errorOf(schema: z.ZodType, value: unknown): z.ZodError {
  const result = schema.safeParse(value);
  assert.equal(result.success, false, 'the value was meant not to parse');
  return result.error as z.ZodError;
}

const Endpoint = z.strictObject({ tcp: z.strictObject({ host: z.string(), port: z.number().int() }) });

describe('firstIssue', () => {
  it('names the nested field and says what is wrong with it', () => {
    const issue = firstIssue(errorOf(Endpoint, { tcp: { host: 'x', port: 1.5 } }));
    assert.deepEqual(issue.path, ['tcp', 'port']);
    assert.equal(issue.field, 'tcp.port');
    assert.match(issue.problem, /expected int/);
  });

  it('names an unknown field in the path, and the other unknown ones in the problem', () => {
    const issue = firstIssue(errorOf(Endpoint, { tcp: { host: 'x', port: 1, hots: 'y', prot: 2 } }));
    assert.deepEqual(issue, {
      path: ['tcp', 'hots'],
      field: 'tcp.hots',
      problem: 'not a field it knows (nor prot)',
    });
  });

  it("says why a record key is invalid with the key schema's own message", () => {
    const issue = firstIssue(
      errorOf(z.object({ nodes: z.record(Name, z.number()) }), { nodes: { Bad_Node: 1 } }),
    );
    assert.equal(issue.field, 'nodes.Bad_Node');
    assert.equal(
      issue.problem,
      'the key is invalid: lower-case letters, digits and dashes, not starting with a dash',
    );
  });

  it('leaves the field empty when the value as a whole is wrong', () => {
    assert.deepEqual(firstIssue(errorOf(Endpoint, 'tcp')).path, []);
    assert.equal(firstIssue(errorOf(Endpoint, 'tcp')).field, '');
  });
});

describe('firstIssueText', () => {
  it('is `field: problem`', () => {
    assert.equal(
      firstIssueText(errorOf(z.object({ window: z.number().min(0) }), { window: -1 })),
      'window: Too small: expected number to be >=0',
    );
  });

  it('names the whole value as told when the problem is not in one field', () => {
    assert.match(firstIssueText(errorOf(Endpoint, 7)), /^input: /);
    assert.match(firstIssueText(errorOf(Endpoint, 7), 'the config'), /^the config: /);
  });
});
