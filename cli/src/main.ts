/** Entry point of the `roundtable` command. */
import { DAEMON_USAGE, daemonCommand } from './daemonCommand';
import { RUN_USAGE, runCommand } from './runCommand';
import { RESOLVE_USAGE, resolveCommand } from './resolveCommand';
import { MINUTES_USAGE, minutesCommand } from './minutesCommand';
import { MCP_USAGE, mcpCommand } from '../../mcp/src/command';
import { EVAL_USAGE, evalCommand } from '../../eval/src/command';
import { DECISIONS_USAGE, decisionsCommand } from './decisionsCommand';
import { REVIEW_USAGE, reviewCommand } from './reviewCommand';
import { NoModelError, UsageError } from '@roundtable/client/usage';
import { terminalLine, terminalSafe } from '@roundtable/protocol/terminal';
import { REVIEW_EXIT } from '@roundtable/protocol';
import { FaultOwner, installFaultHandlers } from '../../daemon/src/daemon/faults';

const USAGE = `Usage: roundtable <command> [options]

Commands:
  run       run one meeting in the terminal (roundtable run --help)
  review    a panel reviews a change against the accepted decision records (exit 0/1/2/3)
  daemon    run the local daemon that VS Code windows and the CLI share
  resolve   answer a consensus meeting that waits for a human decision
  minutes   render a meeting's minutes again from its log
  decisions list and search the decision records, and the ones that govern a file
  mcp       serve the roundtable tools to MCP clients over stdio
  eval      compare one model, a majority vote, a judge's pick and the roundtable on a question set

${RUN_USAGE}

${REVIEW_USAGE}

${DAEMON_USAGE}

${RESOLVE_USAGE}

${MINUTES_USAGE}

${DECISIONS_USAGE}

${MCP_USAGE}

${EVAL_USAGE}`;

/** Commands that serve until stopped: past a fault they keep serving, and their exit code is theirs. */
const SERVING = new Set(['daemon', 'mcp']);

/**
 * Runs one command. An error nobody awaited or caught is logged in one line and fails the meeting
 * or request it belongs to (daemon/src/daemon/faults.ts); one that belongs to the command itself
 * never lets it end clean: exit 3 for a review (it could not be done), 1 for the others.
 */
export async function main(argv: string[]): Promise<number> {
  installFaultHandlers();
  const name = argv[0] ?? '';
  let fault: Error | undefined;
  const owner = new FaultOwner(`roundtable ${name}`.trim(), (e) => (fault ??= e));
  const code = await owner.run(() => dispatch(argv));
  owner.close();
  if (!fault || SERVING.has(name) || code !== 0) return code;
  if (name === 'review') {
    process.stderr.write(`roundtable: could not review: ${terminalLine(`an unexpected error: ${fault.message}`)}\n`);
    return REVIEW_EXIT.couldNotReview;
  }
  return 1;
}

async function dispatch(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const io = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    isTTY: Boolean(process.stdout.isTTY),
    stdinTTY: Boolean(process.stdin.isTTY),
  };
  try {
    switch (command) {
      case 'run':
        return await runCommand(rest, io);
      case 'review':
        return await reviewCommand(rest, io);
      case 'daemon':
        return await daemonCommand(rest);
      case 'resolve':
        return await resolveCommand(rest, io);
      case 'minutes':
        return await minutesCommand(rest, io);
      case 'decisions':
        return await decisionsCommand(rest, io);
      case 'eval':
        return await evalCommand(rest, { ...io, stderrTTY: Boolean(process.stderr.isTTY) });
      case 'mcp':
        return await mcpCommand(rest, io.env);
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}" (try: roundtable run --help)`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      // One line whatever the input held (a ref or a path with a newline): the preflight's
      // problems (NoModelError) are one line each by construction.
      const line = e instanceof NoModelError ? terminalSafe(e.message) : terminalLine(e.message);
      process.stderr.write(`roundtable: ${line}\n`);
      return 2;
    }
    // An error can quote what a model server sent: cleaned like any model text.
    const err = e as Error;
    process.stderr.write(`roundtable: ${terminalSafe(err.message)}\n`);
    if (process.env.ROUNDTABLE_DEBUG) process.stderr.write(`${err.stack ?? ''}\n`);
    return 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
