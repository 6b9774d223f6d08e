// A stand-in for `roundtable review` for the GitHub Action's tests only, selected with
// ROUNDTABLE_ACTION_CLI, while the review command is built on another branch (issue 33). It holds to
// the command's contract: the flags (--base, --worktree, --fail-on blocking|major|contested,
// --sarif FILE, --markdown FILE whose first line is <!-- roundtable-review -->, --json, --base-url,
// --models, --budget, --exception (repeated), --exceptions-from, --allow-unread, --no-daemon), exit codes 0 clean, 1 failed, 2 usage, 3 could not review with
// one line on stderr. What it does is set by FAKE_REVIEW_* variables; what it was given is appended
// as one JSON line to FAKE_REVIEW_LOG.
import { appendFileSync, writeFileSync } from 'node:fs';

const VALUED = new Set([
  '--base',
  '--fail-on',
  '--sarif',
  '--markdown',
  '--base-url',
  '--models',
  '--budget',
  '--exception',
  '--exceptions-from',
]);
const BARE = new Set(['--worktree', '--json', '--no-daemon', '--allow-unread']);

function usage(message) {
  process.stderr.write(`roundtable: ${message}\n`);
  process.exit(2);
}

const [command, ...rest] = process.argv.slice(2);
if (command !== 'review') usage(`unknown command "${command}"`);
const flags = {};
for (let i = 0; i < rest.length; i++) {
  const flag = rest[i];
  if (BARE.has(flag)) flags[flag] = true;
  else if (VALUED.has(flag) && i + 1 < rest.length) flags[flag] = rest[++i];
  else usage(`unknown flag ${flag}`);
}
if (flags['--fail-on'] && !['blocking', 'major', 'contested'].includes(flags['--fail-on']))
  usage('--fail-on must be blocking, major or contested');

const env = process.env;
if (env.FAKE_REVIEW_LOG) {
  const secret = env.FAKE_REVIEW_SECRET;
  appendFileSync(
    env.FAKE_REVIEW_LOG,
    `${JSON.stringify({
      args: process.argv.slice(2),
      cwd: process.cwd(),
      apiKey: env.ROUNDTABLE_API_KEY ?? null,
      // Whether a value the CLI must never be given (the GitHub token) is anywhere in its environment.
      secretSeen:
        Boolean(secret) && Object.entries(env).some(([k, v]) => k !== 'FAKE_REVIEW_SECRET' && v?.includes(secret)),
    })}\n`,
  );
}
if (env.FAKE_REVIEW_STDOUT) process.stdout.write(`${env.FAKE_REVIEW_STDOUT}\n`);

const exit = env.FAKE_REVIEW_EXIT ?? '0';
if (exit === 'crash') throw new Error('the fake review crashed');
if (exit === '3') {
  process.stderr.write(
    'roundtable: could not review: the model server at http://127.0.0.1:9/v1 refused the connection\n',
  );
  process.exit(3);
}
const verdict =
  exit === '1'
    ? 'PROVEN blocking finding: the change adds a MySQL pool, decision 0003 says Postgres'
    : 'no finding holds';
const padding = 'x'.repeat(Number(env.FAKE_REVIEW_PADDING ?? 0));
if (flags['--markdown'])
  writeFileSync(
    flags['--markdown'],
    `<!-- roundtable-review -->\n## Roundtable review\n\n${verdict} (${env.FAKE_REVIEW_PUSH ?? 'push 1'}).\n${padding ? `\n\`\`\`\n${padding.replace(/(.{100})/g, '$1\n')}\n\`\`\`\n` : ''}`,
  );
if (flags['--sarif']) writeFileSync(flags['--sarif'], JSON.stringify({ version: '2.1.0', runs: [] }));
process.exit(Number(exit));
