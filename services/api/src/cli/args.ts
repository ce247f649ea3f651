/** The value after a command-line flag (`--tenant 123456782`), or undefined when the flag is not given. */
export function flag(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}
