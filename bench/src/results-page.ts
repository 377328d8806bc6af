// What every results page in bench/results says besides its table: the command that made it, with this run's
// settings in front, so the page can be made again, and where the figures of other runs and the goals are.

/** The settings a run reads from its environment: the benches' own and the product's they pass on to what they start. */
const SETTING = /^(BENCH|ENGINE|EVENT|INGEST|METRICS|ROTATION)_/;

const quoted = (value: string) => (/^[\w.,:/=@%+-]*$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`);

/** `BENCH_WRK_SECONDS=8 npx -y pnpm@10.34.8 bench:wrk`: the command with the settings this run was given. */
export function benchCommand(command: string, env: NodeJS.ProcessEnv = process.env): string {
  const settings = Object.keys(env)
    .filter((name) => SETTING.test(name))
    .sort()
    .map((name) => `${name}=${quoted(env[name] ?? '')}`);
  return [...settings, command].join(' ');
}

/** The page's lines under its title: the command in a code span, and the index of every bench's figures. */
export function pageHeader(command: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return [
    `Command: \`${benchCommand(command, env)}\` (every setting: [README.md](README.md); figures of every bench and the goals: [performance.md](performance.md)).`,
  ];
}
