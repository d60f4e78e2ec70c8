/** The value after `name` on the command line; exits 2 naming it when it is missing. */
export function option(name: string): string {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? process.argv[at + 1] : undefined;
  if (value === undefined) {
    process.stderr.write(`${name} is required\n`);
    process.exit(2);
  }
  return value;
}

/** `10.87.0.1:17080` as host and port. */
export function listenAddress(given: string): [string, number] {
  const colon = given.lastIndexOf(':');
  const port = Number(given.slice(colon + 1));
  if (colon < 1 || !Number.isInteger(port) || port < 1 || port > 65535) {
    process.stderr.write(`--listen wants <ip>:<port>, not ${given}\n`);
    process.exit(2);
  }
  return [given.slice(0, colon), port];
}
