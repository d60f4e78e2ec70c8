import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { MeshRefusedError } from '../../mesh/errors';
import { callJson } from './http-json';

/** The controller's CLI: its own verbs and flags, not this project's `mesh`; JSON on stdout. */
const USAGE = `usage: meshctl [--server URL] <command>
  node add <node> --agent <url> [--adopted]    node get <node>    node list
  node report <node> <push-id>                 push <node>
  module apply -f <file>    module get <module>    module where <module>
  module policy <module> manual|roll-out       module build <module>
  assign <module> --to <node>    unassign <module> --from <node>    take <module> --on <node>
  reset
Every command prints JSON. Exit codes: 0 done, 3 refused (the sentence on stderr), 2 usage, 1 failed.`;

class Usage extends Error {}

type Call = [method: string, path: string, body?: unknown];

function flag(args: string[], name: string): string {
  const at = args.indexOf(name);
  const value = at >= 0 ? args[at + 1] : undefined;
  if (value === undefined) throw new Usage(`${name} is missing`);
  return value;
}

function word(args: string[], index: number, what: string): string {
  const value = args[index];
  if (value === undefined || value.startsWith('-')) throw new Usage(`${what} is missing`);
  return encodeURIComponent(value);
}

async function callFor(args: string[]): Promise<Call> {
  const [verb, sub] = args;
  const key = ['node', 'module'].includes(verb ?? '') ? `${verb} ${sub}` : (verb ?? '');
  switch (key) {
    case 'node add':
      return [
        'POST',
        '/nodes',
        { node: args[2], agent: flag(args, '--agent'), adopted: args.includes('--adopted') },
      ];
    case 'node get':
      return ['GET', `/nodes/${word(args, 2, 'the node')}`];
    case 'node list':
      return ['GET', '/nodes'];
    case 'node report':
      return ['GET', `/nodes/${word(args, 2, 'the node')}/reports/${word(args, 3, 'the push id')}`];
    case 'module apply': {
      const file = flag(args, '-f');
      return ['POST', '/modules', parseYaml(await readFile(file, 'utf8')) as unknown];
    }
    case 'module get':
      return ['GET', `/modules/${word(args, 2, 'the module')}`];
    case 'module where':
      return ['GET', `/modules/${word(args, 2, 'the module')}/nodes`];
    case 'module policy':
      return ['POST', `/modules/${word(args, 2, 'the module')}/policy`, { policy: args[3] }];
    case 'module build':
      return ['POST', `/modules/${word(args, 2, 'the module')}/build`];
    case 'assign':
      return ['POST', '/assign', { module: args[1], node: flag(args, '--to') }];
    case 'unassign':
      return ['POST', '/unassign', { module: args[1], node: flag(args, '--from') }];
    case 'take':
      return ['POST', '/take', { module: args[1], node: flag(args, '--on') }];
    case 'push':
      return ['POST', `/nodes/${word(args, 1, 'the node')}/push`];
    case 'reset':
      return ['POST', '/reset'];
    default:
      throw new Usage(`unknown command: ${args.join(' ') || '(none)'}`);
  }
}

/** Runs one meshctl command; returns its exit code. */
export async function meshctl(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const at = argv.indexOf('--server');
  const server = at >= 0 ? argv[at + 1] : env.MESHCTL_SERVER;
  const args = at >= 0 ? [...argv.slice(0, at), ...argv.slice(at + 2)] : argv;
  try {
    if (!server) throw new Usage('no controller: set MESHCTL_SERVER or pass --server');
    const [method, path, body] = await callFor(args);
    process.stdout.write(`${JSON.stringify(await callJson(server, method, path, body, 60_000))}\n`);
    return 0;
  } catch (error) {
    if (error instanceof Usage) {
      process.stderr.write(`meshctl: ${error.message}\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`meshctl: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof MeshRefusedError ? 3 : 1;
  }
}
