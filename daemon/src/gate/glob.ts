/**
 * The one glob matcher of the daemon (context globs, the workspace tools' `glob`): `*` and `?`
 * within a path segment, `**` across segments, `**\/` for any number of whole folders. Globs come
 * from agents and models, so it never backtracks: the pattern is run as a small automaton over
 * the path, every state at once, in O(pattern × path) whatever the pattern (a backtracking regex
 * took hours on eight stars against a crafted name). Patterns are capped at MAX_GLOB_LENGTH.
 */
import { MAX_GLOB_LENGTH } from '@roundtable/protocol';

/** One state of the automaton: what it consumes, and where it goes. */
type Op =
  | { kind: 'char'; c: string } // this character, then on
  | { kind: 'one' } // `?`: one character but '/', then on
  | { kind: 'star' } // `*`: stays on any character but '/', or moves on without one
  | { kind: 'any' } // `**`: stays on any character, or moves on without one
  | { kind: 'dirs' } // `**/`: moves on at once, or stays on anything until a '/' moves it on
  | { kind: 'dirsIn' }; // the inside of `**/` once a character is consumed

export interface GlobMatcher {
  test(path: string): boolean;
}

function compile(glob: string): Op[] {
  const ops: Op[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      // More stars in a row add nothing: `***` is `**`.
      while (glob[i + 1] === '*') i++;
      const dirs = glob[i + 1] === '/';
      ops.push(dirs ? { kind: 'dirs' } : { kind: 'any' });
      if (dirs) {
        ops.push({ kind: 'dirsIn' });
        i++;
      }
    } else if (c === '*') {
      if (ops.at(-1)?.kind !== 'star') ops.push({ kind: 'star' });
    } else if (c === '?') ops.push({ kind: 'one' });
    else ops.push({ kind: 'char', c });
  }
  return ops;
}

/** Adds state `i` and every state reachable from it without consuming a character. */
function enter(ops: Op[], set: Uint8Array, i: number): void {
  while (i <= ops.length && !set[i]) {
    set[i] = 1;
    const op = ops[i];
    if (!op) return;
    if (op.kind === 'dirs') {
      // Into the folders (state i+1), or past them all (state i+2).
      enter(ops, set, i + 2);
      i += 1;
      continue;
    }
    if (op.kind === 'star' || op.kind === 'any') i += 1;
    else return;
  }
}

/**
 * The matcher for `glob` (a leading `./` ignored); throws one line for a pattern over the cap.
 * The path is workspace-relative with `/` separators and must match whole.
 */
export function globMatcher(glob: string): GlobMatcher {
  if (glob.length > MAX_GLOB_LENGTH)
    throw new Error(`the glob is ${glob.length} characters long; at most ${MAX_GLOB_LENGTH} are matched`);
  const ops = compile(glob.replace(/^\.\//, ''));
  const end = ops.length;
  return {
    test(path: string): boolean {
      let now = new Uint8Array(end + 1);
      let next = new Uint8Array(end + 1);
      enter(ops, now, 0);
      // By UTF-16 unit, as the pattern was compiled (a `?` is one unit, as it was in the regex).
      for (let k = 0; k < path.length; k++) {
        const ch = path[k];
        next.fill(0);
        let alive = false;
        for (let i = 0; i < end; i++) {
          if (!now[i]) continue;
          const op = ops[i] as Op;
          let to = -1;
          let stay = false;
          if (op.kind === 'char') to = ch === op.c ? i + 1 : -1;
          else if (op.kind === 'one') to = ch === '/' ? -1 : i + 1;
          else if (op.kind === 'star') stay = ch !== '/';
          else if (op.kind === 'any') stay = true;
          else if (op.kind === 'dirsIn') {
            stay = true;
            if (ch === '/') to = i + 1;
          }
          if (stay) enter(ops, next, i);
          if (to >= 0) enter(ops, next, to);
          alive ||= stay || to >= 0;
        }
        if (!alive) return false;
        [now, next] = [next, now];
      }
      return now[end] === 1;
    },
  };
}
