import { processAlive } from '@adnet/runtime/process-alive';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Periodic } from '@adnet/runtime/periodic';
import { encodeJournalRecord } from '@adnet/schemas/wire/request-journal';
import type { JournaledRequest } from '@adnet/schemas/wire/request-journal';

/** The file new records go to; on each replay it is renamed `replay-<time>-<n>.jnl` and a new one begun. */
const CURRENT = 'current.jnl';
const REPLAY = /^replay-\d+-\d+\.jnl$/;
const SLOT = /^slot-(\d+)$/;
const NEWLINE = 0x0a;

function lastByte(path: string, size: number): number {
  const fd = openSync(path, 'r');
  try {
    const one = Buffer.alloc(1);
    readSync(fd, one, 0, 1, size - 1);
    return one[0] ?? NEWLINE;
  } finally {
    closeSync(fd);
  }
}

export interface JournalOptions {
  /** The journal's root: each engine takes a `slot-<n>` folder of its own inside it. */
  root: string;
  /** Request records kept at most (bytes, in the current file): past it a request is answered and not journaled. */
  maxBytes: number;
  /** Records are written and synced to disk in batches this often. */
  flushMs: number;
  onError: (err: unknown) => void;
}

/**
 * Takes the lock of `dir` for `owner` (`<pid>:<random>`, one per journal: engines in one process each hold their
 * own): a `lock` file naming it, made only where none is, or where the one there names a process that is gone.
 * False when another holder lives.
 */
export function takeSlotLock(dir: string, owner: string): boolean {
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, 'lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      writeFileSync(fd, owner);
      closeSync(fd);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readFileSync(lock, 'utf8').trim();
      if (holder === owner) return true;
      const pid = Number(holder.split(':')[0]);
      if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) return false;
      // Left by a process that is gone: take it over.
      unlinkSync(lock);
    }
  }
  return false;
}

export function releaseSlotLock(dir: string, owner: string): void {
  const lock = join(dir, 'lock');
  try {
    if (readFileSync(lock, 'utf8').trim() === owner) unlinkSync(lock);
  } catch {
    // Already gone.
  }
}

/** A lock owner name for this process: its pid, then a random part. */
export const lockOwner = (): string => `${process.pid}:${randomBytes(6).toString('hex')}`;

/** The slot folders under `root` (existing ones), lowest first. */
export function slotsUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .map((name) => SLOT.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .sort((a, b) => Number(a[1]) - Number(b[1]))
    .map((m) => join(root, m[0]));
}

/** The journal files of a slot waiting to be replayed, oldest first (the current file last). */
export function journalFiles(slot: string): string[] {
  if (!existsSync(slot)) return [];
  const names = readdirSync(slot);
  const replays = names.filter((n) => REPLAY.test(n)).sort((a, b) => fileOrder(a) - fileOrder(b) || a.localeCompare(b));
  return [...replays, ...(names.includes(CURRENT) ? [CURRENT] : [])].map((n) => join(slot, n));
}

const fileOrder = (name: string): number => Number(name.split('-')[1]);

/**
 * The engine's request journal on local disk: the tracking requests it answered while Redis was away (down,
 * or slower than its deadline), appended to `<root>/slot-<n>/current.jnl` and synced in batches, until the
 * replayer runs them through their routes. Each engine holds one slot (a lock file with its pid), so engines
 * sharing a folder never write one file; a slot left by an engine that is gone is taken by the next to start.
 */
export class RequestJournal {
  readonly slot: string;
  /** This journal's name in its slot's lock file. */
  readonly owner = lockOwner();
  private file: FileHandle | undefined;
  private buffered: string[] = [];
  private bytes = 0;
  private sequence = 0;
  private readonly prefix = Date.now().toString(36);
  private readonly writer: Periodic;
  /** The file operation in progress (flush, rotation, close), which the next waits for. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Requests answered but not journaled because the journal was full. */
  refused = 0;
  /** Requests journaled since the engine started. */
  appended = 0;

  private constructor(
    slot: string,
    private readonly opts: JournalOptions,
  ) {
    this.slot = slot;
    this.writer = new Periodic({ intervalMs: opts.flushMs, pass: () => this.flush(), onError: opts.onError });
  }

  /** Takes the lowest free slot under `root` and opens its current file for appending. */
  static async open(opts: JournalOptions): Promise<RequestJournal> {
    for (let n = 0; ; n++) {
      const slot = join(opts.root, `slot-${n}`);
      const journal = new RequestJournal(slot, opts);
      if (!takeSlotLock(slot, journal.owner)) continue;
      await journal.reopen();
      // Files an engine of this slot handed over and did not replay before it stopped.
      journal.replayFilesChanged();
      journal.writer.start();
      return journal;
    }
  }

  private async reopen(): Promise<void> {
    const path = join(this.slot, CURRENT);
    this.file = await open(path, 'a');
    // Lines appended while the old file was being handed over wait in the buffer for this one: count them too.
    this.bytes = statSync(path).size + this.buffered.reduce((n, line) => n + line.length, 0);
    // A crash mid-write left a torn last record: end its line, so the next record is not glued onto it.
    if (this.bytes > 0 && lastByte(path, this.bytes) !== NEWLINE) this.push('\n');
  }

  /** A name for a request, unique in this journal's folder: its record's id if it is journaled, and its marks' attempt. */
  nextId(): string {
    return `${this.prefix}-${++this.sequence}`;
  }

  /** Journals a request; false when the journal is full (the request is then lost: counted in `refused`). */
  append(request: JournaledRequest): boolean {
    const line = encodeJournalRecord(request);
    if (this.bytes + line.length > this.opts.maxBytes) {
      this.refused++;
      return false;
    }
    this.push(line);
    this.appended++;
    return true;
  }

  /** Marks a journaled request applied: it went through to Redis after all, so no replay runs it again. Never refused. */
  done(id: string): void {
    this.push(encodeJournalRecord({ done: id }));
  }

  private push(line: string): void {
    this.buffered.push(line);
    this.bytes += line.length;
  }

  /** Records in the current file or buffered for it (a replay has something to take). */
  get holdsRecords(): boolean {
    return this.bytes > 0;
  }

  /**
   * Files of this slot handed over and not yet replayed. Kept, not read from the folder when asked: every click
   * on an ad whose render is not counted yet asks, and a click farm would turn each into a directory read.
   * Only this journal (rotating) and the replayer (deleting, then calling `replayFilesChanged`) change them.
   */
  get holdsReplayFiles(): boolean {
    return this.replayFilesWaiting;
  }

  private replayFilesWaiting = false;

  /** Reads the slot's folder again: at open, after a rotation, and after the replayer removed what it replayed. */
  replayFilesChanged(): string[] {
    const files = journalFiles(this.slot).filter((f) => !f.endsWith(CURRENT));
    this.replayFilesWaiting = files.length > 0;
    return files;
  }

  /** Writes and syncs what is buffered. */
  flush(): Promise<void> {
    return this.serially(() => this.write());
  }

  /**
   * One file operation at a time. A flush that began while a rotation closed the file wrote to a closed
   * handle, and the lines it had taken (requests, done marks) were lost: a lost done mark let the replay run
   * a request whose work had already counted it, a second time (found by bench:soak under overload).
   */
  private serially<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(): Promise<void> {
    if (!this.buffered.length || !this.file) return;
    const text = this.buffered.join('');
    this.buffered = [];
    await this.file.write(text);
    await this.file.datasync();
  }

  /**
   * Hands the current file over for replay: flushed, renamed `replay-*.jnl`, and a new current file begun.
   * Returns every file of the slot waiting for replay, oldest first.
   *
   * `mayTake` is asked when the rotation's turn comes, not when it was asked for: a request may have been
   * journaled late in between (a flush ahead of it was slow), and its done mark, written when its work ends,
   * goes to the current file. A file holding the record of work still running must not be handed over: the
   * replay would run the request beside its own work, or find its done mark in another file, and count it
   * twice (found by bench:soak under overload). Then the current file stays, and only older files are returned.
   */
  rotate(mayTake: () => boolean = () => true): Promise<string[]> {
    return this.serially(async () => {
      // Checked and the buffer taken in one turn of the event loop: a request journaled after this line waits in
      // the buffer for the new current file.
      const take = mayTake();
      await this.write();
      if (take && this.bytes > 0) {
        await this.file?.close();
        renameSync(join(this.slot, CURRENT), join(this.slot, `replay-${Date.now()}-${this.sequence}.jnl`));
        await this.reopen();
      }
      return this.replayFilesChanged();
    });
  }

  /** Writes what is left and lets the slot go. */
  async close(): Promise<void> {
    await this.writer.stop();
    await this.serially(async () => {
      await this.write().catch(this.opts.onError);
      await this.file?.close();
      this.file = undefined;
    });
    releaseSlotLock(this.slot, this.owner);
  }
}

/** Appends done marks to a file being replayed (its own records' marks, so a replay cut short resumes after them). */
export async function openForMarks(path: string): Promise<{ mark(id: string): Promise<void>; close(): Promise<void> }> {
  const file = await open(path, 'a');
  return {
    mark: async (id) => {
      await file.write(encodeJournalRecord({ done: id }));
    },
    close: async () => {
      await file.datasync();
      await file.close();
    },
  };
}
