import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(__dirname, '..', '..');

/** The README and every page of docs/, by their path from the repository's root. */
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text of a page outside its code blocks, where a link is a link. */
function prose(path: string): string[] {
  let fenced = false;
  return readFileSync(join(ROOT, path), 'utf8')
    .split('\n')
    .map((line) => {
      if (line.startsWith('```')) fenced = !fenced;
      return fenced || line.startsWith('```') ? '' : line;
    });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a page has: its headings' (a repeated heading gets -1, -2, ...) and its `<a id>`s. */
function anchorsOf(path: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(path)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const count = seen.get(base) ?? 0;
      anchors.add(count === 0 ? base : `${base}-${count}`);
      seen.set(base, count + 1);
    }
    for (const match of line.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(match[1] ?? '');
  }
  return anchors;
}

describe('the README and docs/ link to what exists', () => {
  it('every relative link names a file of the repository, and a heading or anchor of it when it names one', () => {
    const broken: string[] = [];
    for (const page of PAGES)
      prose(page).forEach((line, index) => {
        for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = match[1] ?? '';
          if (/^[a-z]+:/.test(target)) continue;
          const [file = '', anchor] = target.split('#');
          const path = file === '' ? page : normalize(join(dirname(page), file));
          const where = `${page}:${index + 1}: ${target}`;
          if (!existsSync(join(ROOT, path))) broken.push(`${where} (no file ${path})`);
          else if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(path).has(anchor))
            broken.push(`${where} (no heading or anchor "${anchor}" in ${path})`);
        }
      });
    assert.deepEqual(broken, []);
  });
});
